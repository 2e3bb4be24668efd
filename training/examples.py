"""Training examples for the extraction model: the pipeline's text of a document (prompt) and
its ground truth written as the model must answer it (completion).

A document is read exactly as the appliance reads it (``pipeline.reading.text``: the PDF text layer,
or OCR with the configured engine), so the model learns the text it will be served. The truth
is turned into the answer format of ``pipeline.model.llm_extract``: each value *as printed* in that
text (an amount or date is looked up among the document's printed amounts and dates; a name or
address is matched to its OCR'd lines, fuzzily), and a value that cannot be found in the text
is left out, so the model learns never to answer what the document does not show.

Sources (``../shared/datasets/train`` only; the dev set is never read here):
- ``sroie``: scanned receipts, OCR'd; the four labelled fields are asked.
- ``zugferd-corpus``: e-invoice PDFs read twice, from their text layer and as rendered,
  OCR'd pages (never the XML); every labelled field is asked.
- ``synth``: ``training.synth`` invoices, as text-layer PDFs and as noisy scans.

Each example carries a ``group`` (shop, e-invoice producer, synthetic layout seed) so folds
split by group, never by page.
"""

from __future__ import annotations

import difflib
import json
import pickle
import re
from dataclasses import asdict, dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from pipeline.document import DocumentText
from pipeline.model.llm_extract import ANSWER_FIELDS, LINE_COLUMNS, build_prompt, format_answer, render_document
from pipeline.schema import AMOUNT_FIELDS, DATE_FIELDS
from pipeline.values.parsers import find_amounts, find_dates, guess_dayfirst

_TEXT_FIELDS = ("vendor_name", "vendor_address", "customer_name", "payment_terms")
_FUZZY_MIN = 0.8  # difflib ratio at which an OCR'd line is taken as the printed form of a text field


@dataclass
class Example:
    """One training example: ``prompt`` + ``completion`` is what the model sees; ``group`` is
    the fold key, ``source``/``mode`` (text_layer, ocr) and ``stem`` say where it came from."""

    id: str
    source: str
    mode: str
    group: str
    stem: str
    prompt: str
    completion: str
    asked: list[str]
    answered: list[str]


def read_document(data: bytes, *, is_pdf: bool, engine, use_text_layer: bool, dpi: int = 200) -> DocumentText:
    """The pipeline's text of one document (bytes of a PDF or an image), read by the appliance's
    own reading step (``training.extraction.read_text``, up to 50 OCR'd pages); ``engine`` is an
    OCR engine (``models.registry.load_ocr``) used for pages without text."""
    from training.extraction import extractor, read_text

    return read_text(
        extractor(ocr=engine, dpi=dpi), data, is_pdf=is_pdf, use_text_layer=use_text_layer, max_ocr_pages=50
    )


def cached_document(cache: Path | None, key: str, build) -> DocumentText:
    """``build()`` once per ``key``, pickled under ``cache`` (OCR of a page costs seconds)."""
    if cache is None:
        return build()
    path = cache / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', key)}.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    doc = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(doc))
    return doc


def make_example(
    doc: DocumentText, truth: dict[str, Any], asked: list[str], *, ident: str, source: str, mode: str, group: str
) -> Example:
    """The example for one read document: ``asked`` are the labelled header fields (the prompt
    asks these), the completion holds those found as printed, plus line items when labelled."""
    text = doc.text
    values = printed_values(truth, asked, doc)
    rendered = render_document(doc)
    rows = printed_lines(truth.get("line_items"), text, rendered) if truth.get("line_items") else None
    asked_fields = tuple(name for name in ANSWER_FIELDS if name in asked)
    prompt = build_prompt(rendered, asked_fields)
    if rows and "[...]" in prompt:  # a long document is clipped: answer only the rows it shows
        shown = _alnum(prompt)
        rows = [row for row in rows if _alnum(row[0]) in shown]
    return Example(
        id=ident,
        source=source,
        mode=mode,
        group=group,
        stem=ident.split(":")[1] if ":" in ident else ident,
        prompt=prompt,
        completion=format_answer(values, rows),
        asked=list(asked_fields),
        answered=sorted(values),
    )


def printed_values(truth: dict[str, Any], asked: list[str], doc: DocumentText) -> dict[str, str]:
    """Each asked, labelled header field as printed in ``doc``; fields not found are left out."""
    text = doc.text
    dayfirst = guess_dayfirst(text)
    out: dict[str, str] = {}
    for name in asked:
        value = truth.get(name)
        if value is None:
            continue
        if name == "currency":
            out[name] = str(value)
        elif name in AMOUNT_FIELDS:
            found = printed_amount(Decimal(str(value)), text)
            if found:
                out[name] = found
        elif name in DATE_FIELDS:
            found = printed_date(str(value), text, dayfirst)
            if found:
                out[name] = found
        else:
            found = printed_text(str(value), doc, multiline=name == "vendor_address")
            if found:
                out[name] = found
    return out


def printed_amount(value: Decimal, text: str) -> str | None:
    """The printed form of amount ``value`` in ``text`` (the last one: totals come last)."""
    matches = [m for m in find_amounts(text) if abs(m.value) == abs(value)]
    if not matches:
        return None
    match = matches[-1]
    return text[match.start : match.end].strip()


def printed_date(iso: str, text: str, dayfirst: bool) -> str | None:
    """The printed form of the date ``iso`` in ``text`` (read with the document's day order)."""
    for match in find_dates(text, dayfirst):
        if match.iso == iso:
            return text[match.start : match.end].strip()
    return None


def printed_text(value: str, doc: DocumentText, multiline: bool = False) -> str | None:
    """``value`` when it is printed (letters and digits in order), else the OCR'd line (or run
    of up to four lines, joined by ", ", for an address) most like it, if similar enough."""
    if _alnum(value) and _alnum(value) in _alnum(doc.text):
        return value
    target = _fold(value)
    best, best_ratio = None, 0.0
    for page in doc.pages:
        lines = [line.text for line in page.lines]
        for start in range(len(lines)):
            for size in range(1, (4 if multiline else 1) + 1):
                if start + size > len(lines):
                    break
                candidate = ", ".join(lines[start : start + size])
                ratio = difflib.SequenceMatcher(None, target, _fold(candidate)).ratio()
                if ratio > best_ratio:
                    best, best_ratio = candidate, ratio
    return best if best_ratio >= _FUZZY_MIN else None


def printed_lines(items: list[dict[str, Any]], text: str, rendered: str = "") -> list[list[Any]]:
    """Truth line items as answer rows ``[description, quantity, unit_price, line_total]``,
    numbers as printed where found (else written plainly); ``rendered`` is the document as
    ``render_document`` writes it (its tab-separated cells are the candidate descriptions)."""
    rows = []
    cells = [cell.strip() for line in rendered.splitlines() for cell in line.split("\t") if cell.strip()]
    for item in items:
        row: list[Any] = [_printed_description(" ".join(str(item.get("description") or "").split()), text, cells)]
        for column in LINE_COLUMNS[1:]:
            value = item.get(column)
            if value is None:
                row.append(None)
                continue
            number = Decimal(str(value))
            printed = printed_amount(number, text) if column != "quantity" else _printed_quantity(number, text)
            row.append(printed or _plain(number))
        rows.append(row)
    return rows


def _printed_description(description: str, text: str, cells: list[str]) -> str:
    """The description as printed: itself when its letters and digits are in the text, else
    the most similar cell (tab-separated part of a line) of an OCR'd text, if similar enough."""
    if _alnum(description) in _alnum(text):
        return description
    target = _fold(description)
    best, best_ratio = description, 0.7
    for cell in cells:
        ratio = difflib.SequenceMatcher(None, target, _fold(cell)).ratio()
        if ratio > best_ratio:
            best, best_ratio = cell, ratio
    return best


def _printed_quantity(value: Decimal, text: str) -> str | None:
    forms = {_plain(value), f"{value:.2f}", f"{value:.2f}".replace(".", ","), f"{value:.3f}".replace(".", ",")}
    for form in sorted(forms, key=len, reverse=True):
        if re.search(rf"(?<![\d.,]){re.escape(form)}(?![\d])", text):
            return form
    return None


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _alnum(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def write_jsonl(examples: list[Example], path: Path) -> None:
    """One JSON object per line (gzip when the name ends in .gz)."""
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as out:
        for example in examples:
            out.write(json.dumps(asdict(example), ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
