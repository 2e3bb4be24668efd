"""Evidence of extracted fields: where on the page each value stands, who produced it, how sure.

``build_evidence`` returns, for every filled header field of a schema-2.9 ``data`` object,
``{"page", "bbox", "text", "confidence", "source"}``: the page (1-based) and box
``[x0, y0, x1, y1]`` of the line the value was read from (units of the page: PDF points or
image pixels, y downwards), that line's text, a calibrated confidence in [0, 1]
(``pipeline.decision.confidence``) and the source (``einvoice``, ``template``, ``rules``, ``llm``,
``human``). Rules fields keep the rules' own evidence; values that came from elsewhere (the
e-invoice XML, the LLM) are looked up in the document text with ``locate``, tolerant to
spacing, case and the printed formats of amounts and dates; page/bbox/text are None where the
value is not printed.

It also derives the features the confidence model uses (``field_features``): the text source
of the evidence page, the OCR confidence of the evidence line, whether the totals arithmetic
confirms or contradicts the field, whether the line carries a label of the field. Pure
functions; pipeline must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from pipeline.decision.confidence import confidence
from pipeline.document import DocumentText, Line, Page
from pipeline.rules.labels import LABEL_RES
from pipeline.schema import DATE_FIELDS, HEADER_FIELDS, ID_FIELDS, Source
from pipeline.values.money import agree, cash_rounded, is_amount, same_amount, to_amount
from pipeline.values.parsers import detect_currency, find_amounts, find_dates

__all__ = ["build_evidence", "locate", "field_features", "arithmetic_status"]

MAX_WINDOW = 4  # a multi-line value (an address) may span this many consecutive lines


# --------------------------------------------------------------------------- locating values


def _norm(text: str) -> str:
    """Case-folded, accents stripped, every run of non-alphanumerics one space."""
    text = unicodedata.normalize("NFKD", str(text)).casefold()
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def _compact(text: str) -> str:
    """Letters and digits only, case-folded: how ids compare (``DE 123/456`` == ``de123456``)."""
    return re.sub(r"[^0-9a-z]", "", _norm(text))


_SPLIT_DECIMALS = re.compile(r"(?<=\d) ?([.,]) ?(?=\d{2}(?!\d))")


def _has_amount(text: str, value: Decimal) -> bool:
    """Whether ``text`` prints the amount ``value`` (any sign, any thousands/decimal style), also
    where a text layer split it around its decimal separator ("Summe gesamt 447 , 88")."""
    if any(same_amount(abs(a.value), abs(value)) for a in find_amounts(text)):
        return True
    joined = _SPLIT_DECIMALS.sub(r"\1", text)
    return joined != text and any(same_amount(abs(a.value), abs(value)) for a in find_amounts(joined))


def _has_date(text: str, iso: str) -> bool:
    """Whether ``text`` prints the ISO date ``iso`` in any format (day- or month-first)."""
    return any(
        m.iso == iso for first in (True, False) for loose in (False, True) for m in find_dates(text, first, loose=loose)
    )


def _matcher(value: Any, field: str | None):
    """A predicate on line text saying whether the text shows ``value``; None if nothing to match."""
    if isinstance(value, bool) or value is None:
        return None
    if is_amount(value):
        amount = to_amount(value)
        return (lambda text: _has_amount(text, amount)) if amount is not None else None
    text = str(value).strip()
    if not text:
        return None
    if field in DATE_FIELDS or re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return lambda line: _has_date(line, text) or text in line
    if field == "currency" or re.fullmatch(r"[A-Z]{3}", text):
        code = re.compile(rf"(?<![A-Za-z]){re.escape(text)}(?![A-Za-z])")
        return lambda line: detect_currency(line) == text or code.search(line) is not None
    if field in ID_FIELDS:
        key = _compact(text)
        return (lambda line: key in _compact(line)) if key else None
    key = _norm(text)
    if not key:
        return None
    return lambda line: f" {key} " in f" {_norm(line)} "


def _label_kinds(text: str) -> set[str]:
    """The label kinds (schema fields and helpers) printed on ``text``."""
    return {kind for kind, _, pattern in LABEL_RES if pattern.search(text)}


def _union(boxes: Iterable[tuple]) -> list[float]:
    """The smallest box holding ``boxes``, rounded to 0.1."""
    boxes = list(boxes)
    return [
        round(v, 1)
        for v in (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )
    ]


def locate(value: Any, doc: DocumentText | None, field: str | None = None) -> tuple[int, list[float], str] | None:
    """Where ``value`` is printed in ``doc``: ``(page, bbox, text)`` of the line showing it, or None.

    Amounts match any printed style (``1,234.56``, ``1.234,56``, ``1 234,56``, ``€ 12``),
    dates any day/month order or month name, ids ignore spacing and punctuation, other strings
    compare case- and spacing-insensitively; a value spread over up to ``MAX_WINDOW``
    consecutive lines of one page (an address) gets the union box and the lines joined by
    `` / ``. With ``field``, a line that also carries that field's label is preferred.
    """
    if doc is None:
        return None
    match = _matcher(value, field)
    if match is None:
        return None
    hits: list[tuple[Page, Line]] = [(page, line) for page, line in doc.lines if match(line.text)]
    if hits:
        if field is not None:
            labelled = [hit for hit in hits if field in _label_kinds(hit[1].text)]
            hits = labelled or hits
        page, line = hits[0]
        return page.number, _union([line.bbox]), line.text
    if is_amount(value) or field in DATE_FIELDS:
        return None
    for page in doc.pages:
        lines = page.lines
        for size in range(2, MAX_WINDOW + 1):
            for start in range(0, len(lines) - size + 1):
                chunk = lines[start : start + size]
                if match(" ".join(line.text for line in chunk)):
                    return page.number, _union(line.bbox for line in chunk), " / ".join(line.text for line in chunk)
    return None


# --------------------------------------------------------------------------- features


def arithmetic_status(data: dict[str, Any], errors: Iterable[str] = ()) -> dict[str, str]:
    """Per filled field: ``ok`` (a passing check of validate confirms it), ``bad`` (an error
    message names it), ``disputed`` (tier 0: the print shows another value, compare_with_print)
    or ``na`` (no check covers it). Mirrors ``pipeline.values.validate``."""

    def num(key: str) -> Decimal:
        return to_amount(data.get(key)) if present(key) else Decimal(0)

    def present(key: str) -> bool:
        return is_amount(data.get(key))

    status = {name: "na" for name in HEADER_FIELDS if data.get(name) is not None}
    if present("total_amount") and present("subtotal"):
        parts = ("subtotal", "discount", "tax_amount", "shipping_cost", "service_charge", "total_amount")
        expected = num("subtotal") - num("discount") + num("tax_amount") + num("shipping_cost") + num("service_charge")
        if agree(expected, num("total_amount")) or cash_rounded(expected, num("total_amount")):
            status.update({key: "ok" for key in parts if present(key)})
        elif agree(num("subtotal"), num("total_amount")):
            status.update(subtotal="ok", total_amount="ok")
    if present("total_amount") and present("paid_amount") and present("balance_amount"):
        if agree(num("total_amount") - num("paid_amount"), num("balance_amount")):
            status.update(total_amount="ok", paid_amount="ok", balance_amount="ok")
    totals = [
        to_amount(item["line_total"]) for item in data.get("line_items") or [] if is_amount(item.get("line_total"))
    ]
    if totals and present("subtotal") and agree(sum(totals, Decimal(0)), num("subtotal")):
        status["subtotal"] = "ok"
    for message in errors:
        if message.startswith("printed "):  # compare_with_print: the print disagrees with the XML
            for name in status:
                if re.search(rf"^printed {name} ", message):
                    status[name] = "disputed"
            continue
        for name in status:
            if re.search(rf"(?<![a-z_]){name}(?![a-z_])", message):
                status[name] = "bad"
        if message.startswith("totals do not add up"):
            for name in ("subtotal", "total_amount"):
                if name in status:
                    status[name] = "bad"
        if message.startswith("line items sum to") and "subtotal" in status:
            status["subtotal"] = "bad"
    return status


def _find_line(doc: DocumentText | None, page_no: int | None, bbox: Iterable[float] | None) -> Line | None:
    """The line of ``doc`` on page ``page_no`` whose box is ``bbox`` (within rounding), or None."""
    if doc is None or page_no is None or bbox is None:
        return None
    box = list(bbox)
    for page in doc.pages:
        if page.number == page_no:
            return next(
                (line for line in page.lines if all(abs(a - b) <= 0.11 for a, b in zip(line.bbox, box, strict=True))),
                None,
            )
    return None


def _page_source(doc: DocumentText | None, page_no: int | None) -> str:
    """``text_layer`` or ``ocr`` for the evidence page; for no page, the document's main source."""
    if doc is None or not doc.pages:
        return "none"
    for page in doc.pages:
        if page.number == page_no:
            return page.source
    sources = [page.source for page in doc.pages]
    return max(set(sources), key=sources.count)


def field_features(
    field: str, source: str, evidence: dict | None, doc: DocumentText | None, arithmetic: str = "na"
) -> dict[str, Any]:
    """The confidence features of one field (see ``pipeline.decision.confidence``).

    ``page_source`` text_layer/ocr/none, ``ocr_confidence`` of the evidence line (None when
    exact or unknown), ``arithmetic`` ok/bad/disputed/na (``arithmetic_status``), ``labelled``
    whether the evidence line carries a label of this field, ``located`` whether the value was
    found on the print at all.
    """
    evidence = evidence or {}
    page_no, bbox, text = evidence.get("page"), evidence.get("bbox"), evidence.get("text")
    line = _find_line(doc, page_no, bbox)
    return {
        "page_source": _page_source(doc, page_no),
        "ocr_confidence": line.confidence if line is not None else None,
        "arithmetic": arithmetic,
        "labelled": bool(text) and field in _label_kinds(text),
        "located": page_no is not None,
    }


# --------------------------------------------------------------------------- evidence


def build_evidence(data: dict[str, Any] | None, *, features: dict[str, dict] | None = None, **read) -> dict[str, dict]:
    """The ``evidence`` object of one result: filled header field -> page, bbox, text, confidence, source.

    ``read`` are ``field_evidence``'s keyword arguments (where and by whom each value was read);
    ``features`` may add or override confidence features per field.
    """
    out: dict[str, dict] = {}
    for field, (where, source, feats) in field_evidence(data, **read).items():
        feats.update((features or {}).get(field, {}))
        out[field] = {
            "page": where.get("page"),
            "bbox": list(where["bbox"]) if where.get("bbox") is not None else None,
            "text": where.get("text"),
            "confidence": confidence(field, source, feats),
            "source": source,
        }
    return out


def field_evidence(
    data: dict[str, Any] | None,
    *,
    doc: DocumentText | None,
    source_by_field: dict[str, Source] | None = None,
    default_source: Source = Source.RULES,
    rules_evidence: dict[str, dict] | None = None,
    errors: Iterable[str] = (),
) -> dict[str, tuple[dict, Source, dict[str, Any]]]:
    """Filled header field -> (where it was read: ``{page, bbox, text}`` or {}, its source, its
    confidence features); ``build_evidence`` and the calibration of
    ``pipeline.decision.confidence`` (which fits its table on these features) both read them.

    ``data``: the schema-2.9 data (raw_text and line_items are skipped). ``doc``: the text the
    values were read from (for tier 0 the print's text layer), or None. ``source_by_field``
    names the source of fields that differ from ``default_source`` (e.g. the model's). For
    ``rules`` fields the boxes of ``rules_evidence`` are used; any other field (or a rules
    field without evidence) is located in ``doc``. ``errors``: the validation errors (plus the
    print comparison for tier 0); they decide the arithmetic feature."""
    if not data:
        return {}
    source_by_field = source_by_field or {}
    rules_evidence = rules_evidence or {}
    arithmetic = arithmetic_status(data, list(errors))
    out: dict[str, tuple[dict, Source, dict[str, Any]]] = {}
    for field in HEADER_FIELDS:
        value = data.get(field)
        if value is None or value == "":
            continue
        source = source_by_field.get(field, default_source)
        where = rules_evidence.get(field) if source == Source.RULES else None
        if not where:
            hit = locate(value, doc, field)
            where = {"page": hit[0], "bbox": hit[1], "text": hit[2]} if hit else {}
        out[field] = (where, source, field_features(field, source, where, doc, arithmetic.get(field, "na")))
    return out
