"""Header fields of the rules extractor: invoice number, dates, payment terms, currency.

This module owns reading ids and dates next to their labels (right of or below them), the
payment terms text and the document currency. Pipeline must not import ``api`` or ``appliance``.
"""
from __future__ import annotations

import re

from pipeline.parsers import detect_currency, find_dates
from pipeline.rules_labels import ID_TOKEN_RE, PHONE_RE
from pipeline.rules_layout import TextLine, below_lines, in_sentence, position_penalty, section_starts, value_text


def _id_from(text: str) -> str | None:
    text = re.sub(r"^\s*(?:\(\d+\)|[:#.\-]|n[°o]\.?|nr\.?|no\.?|number|nummer)\s*", "", text, flags=re.I)
    text = re.sub(r"^\s*(?:\(\d+\)|[:#.\-]|n[°o]\.?|nr\.?|no\.?)\s*", "", text, flags=re.I)
    tokens = text.split()
    prefix = []
    for token in tokens[:4]:
        token = token.strip(":,;")
        if not token:
            continue
        if find_dates(token) or token.endswith("%"):
            return None
        if any(ch.isdigit() for ch in token) and ID_TOKEN_RE.fullmatch(token.lstrip("#")):
            value = " ".join(prefix + [token.lstrip("#").rstrip(".")])
            return value if len(re.sub(r"\W", "", value)) >= 3 else None
        if re.fullmatch(r"[A-Z]{2,4}", token) and not prefix:
            prefix.append(token)
            continue
        return None
    return None


def find_invoice_number(lines: list[TextLine]) -> tuple[str, TextLine] | None:
    best = None
    for line in lines:
        for label in line.labels:
            if label.kind != "invoice_number":
                continue
            for rank, (text, src, _) in enumerate(value_text(lines, line, label)):
                value = _id_from(text)
                if value:
                    score = label.weight - (0.5 if src is not line else 0) - position_penalty(line)
                    score -= 1.5 if in_sentence(line, label) else 0
                    if best is None or score > best[0]:
                        best = (score, value, src)
                    break
    return (best[1], best[2]) if best else None


def find_date_fields(lines: list[TextLine]) -> dict[str, tuple[str, TextLine]]:
    scored: dict[str, tuple[float, str, TextLine]] = {}
    labelled: set[tuple[int, int, int]] = set()
    for line in lines:
        for label in line.labels:
            if label.kind not in ("invoice_date", "due_date", "other_date"):
                continue
            for rank, (text, src, offset) in enumerate(value_text(lines, line, label)):
                dates = [d for d in src.dates if d.start >= offset and d.start < offset + len(text)]
                if not dates:
                    continue
                date = dates[0]
                labelled.add((src.page, src.index, date.start))
                score = label.weight - (0.5 if src is not line else 0) - (0.2 if date.ambiguous else 0)
                score -= position_penalty(line)
                if label.kind not in scored or score > scored[label.kind][0]:
                    scored[label.kind] = (score, date.iso, src)
                break
    out = {k: (v[1], v[2]) for k, v in scored.items() if k != "other_date"}
    if "invoice_date" not in out:
        for line in lines:
            if PHONE_RE.search(line.text):
                continue
            free = [d for d in line.dates if (line.page, line.index, d.start) not in labelled]
            if free:
                out["invoice_date"] = (free[0].iso, line)
                break
    return out


def find_terms(lines: list[TextLine]) -> tuple[str, TextLine] | None:
    for line, label in section_starts(lines, "payment_terms"):
        rest = line.text[label.end:].strip(" :")
        if len(rest) >= 3:
            return rest, line
        for below in below_lines(lines, line, (label.bbox[0], 0, line.page_width, 0), depth=3):
            if len(below.text) < 60 and not re.search(r"\d", below.text) and \
                    all(w[:1].isupper() for w in below.text.split()) and len(below.text.split()) <= 5:
                continue  # a header row of a terms table
            return below.text.strip(), below
    return None


def find_currency(lines: list[TextLine]) -> tuple[str, TextLine] | None:
    text = "\n".join(line.text for line in lines)
    code = detect_currency(text)
    if not code:
        return None
    for line in lines:
        if detect_currency(line.text) == code:
            return code, line
    return code, lines[0]
