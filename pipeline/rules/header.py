"""Header fields of the rules extractor: invoice number, dates, payment terms, currency.

This module owns reading ids and dates next to their labels (right of or below them), the
payment terms text and the document currency (from the country evidence of
``pipeline.rules.country`` when no currency is printed). Pipeline must not import ``api`` or
``appliance``.
"""

from __future__ import annotations

import re

from pipeline.rules.country import currency_from_country
from pipeline.rules.labels import ID_TOKEN_RE, PHONE_RE
from pipeline.rules.layout import (
    TextLine,
    below_lines,
    in_sentence,
    labelled_values,
    position_penalty,
    section_starts,
    split_cells,
    value_text,
)
from pipeline.values.parsers import detect_currency, find_dates


def _id_from(text: str) -> str | None:
    """An id (invoice number) at the start of ``text``: the first token with a digit."""
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
    """The invoice number: the best id next to an invoice-number label."""
    best = max(invoice_number_candidates(lines), key=lambda cand: cand[0], default=None)
    return (best[1], best[2]) if best else None


def invoice_number_candidates(lines: list[TextLine]) -> list[tuple[float, str, TextLine]]:
    """(score, id, line) of every id next to an invoice-number label, in reading order; the
    score is the label's weight less penalties (read below the label, low on the page, inside a
    sentence)."""
    return [
        (
            label.weight
            - (0.5 if src is not line else 0)
            - position_penalty(line)
            - (1.5 if in_sentence(line, label) else 0),
            value,
            src,
        )
        for value, line, label, src, _ in labelled_values(lines, "invoice_number", _id_from)
    ]


def labelled_dates(lines: list[TextLine]) -> list[tuple[float, str, str, TextLine, int]]:
    """(score, label kind, ISO date, line, start) of the date next to every date label
    (invoice_date, due_date, other_date), right of it or below; the score is the label's
    weight less penalties (below the label, ambiguous day and month, low on the page)."""
    out = []
    for line in lines:
        for label in line.labels:
            if label.kind not in ("invoice_date", "due_date", "other_date"):
                continue
            for text, src, offset in value_text(lines, line, label):
                dates = [d for d in src.dates if d.start >= offset and d.start < offset + len(text)]
                if not dates:
                    continue
                date = dates[0]
                score = label.weight - (0.5 if src is not line else 0) - (0.2 if date.ambiguous else 0)
                score -= position_penalty(line)
                out.append((score, label.kind, date.iso, src, date.start))
                break
    return out


def find_date_fields(lines: list[TextLine]) -> dict[str, tuple[str, TextLine]]:
    """Invoice and due dates next to their labels; the first unlabelled date as the invoice date."""
    scored: dict[str, tuple[float, str, TextLine]] = {}
    labelled: set[tuple[int, int, int]] = set()
    for score, kind, iso, src, start in labelled_dates(lines):
        labelled.add((src.page, src.index, start))
        if kind not in scored or score > scored[kind][0]:
            scored[kind] = (score, iso, src)
    out = {k: (v[1], v[2]) for k, v in scored.items() if k != "other_date"}
    if "due_date" not in out:
        found = _due_date_in_terms(lines)
        if found:
            out["due_date"] = found
    if "invoice_date" not in out:
        for line in lines:
            if PHONE_RE.search(line.text):
                continue
            free = [d for d in line.dates if (line.page, line.index, d.start) not in labelled]
            if free:
                out["invoice_date"] = (free[0].iso, line)
                break
    return out


_PAY_BY_RE = re.compile(
    r"(?<![a-z])(?:zahlbar|payable|pay|due|netto|net|f[äa]llig|payer|payable|betalen|te\s+voldoen"
    r"|pagar|pagadero)(?![a-z])[^.;]{0,60}?(?<![a-z])(?:bis(?:\s+(?:zum|spätestens))?|by|until"
    r"|before|on|am|le|avant|voor|uiterlijk|antes\s+del?|hasta)(?![a-z])\s*:?\s*$",
    re.I,
)


def _due_date_in_terms(lines: list[TextLine]) -> tuple[str, TextLine] | None:
    """A due date stated in a sentence: "Zahlbar innerhalb 30 Tagen netto bis 04.04.2018",
    "payable by 1 May 2024", "à payer avant le ..." (the first date that such words lead to)."""
    for line in lines:
        for date in line.dates:
            if _PAY_BY_RE.search(line.text[max(0, date.start - 80) : date.start]):
                return date.iso, line
    return None


def find_terms(lines: list[TextLine]) -> tuple[str, TextLine] | None:
    """The payment terms: the text right of a terms label, or the paragraph below it."""
    for line, label in section_starts(lines, "payment_terms"):
        rest = line.text[label.end :].strip(" :")
        if len(rest) >= 3:
            return rest, line
        for below in below_lines(lines, line, (label.bbox[0], 0, line.page_width, 0), depth=3):
            if (
                len(below.text) < 60
                and not re.search(r"\d", below.text)
                and all(w[:1].isupper() for w in below.text.split())
                and len(below.text.split()) <= 5
            ):
                continue  # a header row of a terms table
            return _paragraph(lines, below), below
    for line in lines:  # a terms sentence of its own, at the start of a line or cell or after a colon
        cells = [(start, end) for start, end, _ in split_cells(line)]
        for match in TERMS_SENTENCE_RE.finditer(line.text):
            start, end = next(((s, e) for s, e in cells if s <= match.start() < e), (0, len(line.text)))
            lead = line.text[start : match.start()]
            if re.search(r"\w", lead) and not line.text[: match.start()].rstrip().endswith(":"):
                continue
            if lead:  # after a colon or a stray mark (".Bei Zahlung innerhalb 14 Tagen ..."): the rest of the line
                end = len(line.text)
            return line.text[match.start() : end].strip(" .;"), line
    return None


# A payment-terms sentence that needs no label, by the words it opens with: "Zahlbar innerhalb 14
# Tagen ohne Abzug", "15 Tage netto", "Net 30 days", "Payable within 30 days", "Te voldoen binnen
# 14 dagen", "Pagamento a 30 giorni data fattura", "Vencimiento a 30 días", "Pago a 30 días",
# "Règlement à 30 jours date de facture", "ชำระภายใน 30 วัน", "เครดิต 60 วัน", "Betaaltermijn 14 dagen",
# "开票后7天内付款" (within 7 days of the invoice), "付款期限：30天" (payment term), "货到付款" (on delivery).
TERMS_SENTENCE_RE = re.compile(
    r"zahlbar\b|bei\s+zahlung\s+innerhalb|zahlung\s+(?:innerhalb|bis|sofort)|\d+\s+tage\s+netto"
    r"|net\s*\d+\b|payable\s+(?:within|by|on|upon|immediately)|payment\s+(?:due\s+)?(?:within|upon|on\s+receipt)"
    r"|due\s+(?:on|upon)\s+receipt|te\s+voldoen\s+binnen|betaling\s+binnen|direct\s+betalen|betaaltermijn\s+\d+"
    r"|pagamento\s+(?:a|entro|alla)\b|rimessa\s+diretta|vencimiento\s+a\b|pago\s+a\s*\d+"
    r"|transferencia\s+bancaria\s+a\s+\d+|r[èe]glement\s+[àa]\b|paiement\s+[àa]\s+\d+"
    r"|ช(?:ำ|ํา)ระภายใน|เครดิต\s*\d+\s*วัน"  # NFKC spells sara am as nikhahit and sara aa
    r"|开票后\s*\d+\s*天内付款|付款期限|货到付款",
    re.I,
)


def _paragraph(lines: list[TextLine], first: TextLine, limit: int = 10) -> str:
    """The text of ``first`` and the lines that continue its paragraph: close below it, starting
    near its left edge, up to a "Label:" row or ``limit`` lines."""
    parts, last = [first.text.strip()], first
    for other in lines:
        if other.page != first.page or other.bbox[1] <= last.bbox[1] + 0.5 * last.height:
            continue
        if other.bbox[1] - last.bbox[3] > 2.0 * last.height or abs(other.bbox[0] - first.bbox[0]) > 25:
            break
        if re.match(r"[^:]{1,40}:(?!\d)", other.text) or len(parts) >= limit:
            break  # a "Label: value" row of the next field
        parts.append(other.text.strip())
        last = other
    return " ".join(parts)


def find_currency(lines: list[TextLine]) -> tuple[str, TextLine] | None:
    """The document currency from codes, symbols and words, with the first line that shows it."""
    text = "\n".join(line.text for line in lines)
    code = detect_currency(text)
    if not code:
        return _currency_by_country(lines, text)
    for line in lines:
        if detect_currency(line.text) == code:
            return code, line
    return code, lines[0]


def _currency_by_country(lines: list[TextLine], text: str) -> tuple[str, TextLine] | None:
    """Without any currency mark: the currency of the country that IBANs, VAT ids and addresses
    name, with the first line that names such a country."""
    code = currency_from_country(text)
    if not code:
        return None
    line = next((ln for ln in lines if currency_from_country(ln.text) == code), lines[0])
    return code, line
