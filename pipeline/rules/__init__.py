"""Tier 2's layout rules: deterministic, layout-aware extraction of invoice fields from page text
with boxes. ``extract_rules`` is the entry point; it runs the finders of this package's modules
over a DocumentText and collects their values and evidence.

One job per module: ``labels`` (multilingual label keywords), ``layout`` (lines, labels, values
right of or below a label), ``ocr`` (repairs of OCR-damaged words), ``header`` (invoice number,
dates, terms, currency), ``parties`` and ``vendor`` (vendor and customer names, tax id, e-mail),
``address`` (vendor address), ``country`` (the country evidence behind a currency),
``identifiers`` (check digits of VAT ids and IBANs), ``amounts`` (totals chosen by their
arithmetic) and ``lines`` (line-item tables). Printed values become data through
``pipeline.values.parsers``. The rules are the main extractor; a small LLM only fills what they leave
open.

Pure extraction: imports only ``pipeline`` modules and the value libraries; must not import
``api`` or ``appliance``; submodules import each other, never this package's namespace.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.document import DocumentText
from pipeline.rules.address import find_address
from pipeline.rules.amounts import amount_candidates, choose_amounts, is_credit_note, unsign_credit_note
from pipeline.rules.header import find_currency, find_date_fields, find_invoice_number, find_terms
from pipeline.rules.layout import TextLine, annotated_lines
from pipeline.rules.lines import find_line_items
from pipeline.rules.parties import customer_zone, find_customer, find_email, find_tax_id, find_vendor
from pipeline.schema import AMOUNT_FIELDS
from pipeline.values.money import cents

__all__ = ["RulesResult", "address_below", "extract_rules"]


@dataclass
class RulesResult:
    """What the rules found.

    ``fields``: schema field -> normalised value (ISO date str, Decimal amount to the cent,
    ISO 4217 code, stripped str), only fields found. ``line_items``: dicts with description, line_no, sku,
    quantity, unit, unit_price, discount, tax (rate %), line_total (None where unknown).
    ``evidence``: field -> ``{"page": int, "bbox": [x0, y0, x1, y1], "text": str}``.
    """

    fields: dict[str, object] = field(default_factory=dict)
    line_items: list[dict] = field(default_factory=list)
    evidence: dict[str, dict] = field(default_factory=dict)


def address_below(doc: DocumentText, where: dict, name: str) -> tuple[str, dict] | None:
    """The vendor address under a vendor name chosen elsewhere (the learned scorer), read as
    ``extract_rules`` reads the one under its own vendor name (``find_address``): ``where`` is
    the name's line as ``TextLine.evidence`` gives it (``{page, bbox, ...}``), ``name`` the name
    as chosen (where it starts on the line is where its block starts). Returns (address, the
    evidence of the address's last line), or None when no line has that box or nothing under
    it reads as an address."""
    lines = annotated_lines(doc)
    line = next(
        (ln for ln in lines if ln.page == where.get("page") and ln.evidence()["bbox"] == list(where.get("bbox") or [])),
        None,
    )
    if line is None:
        return None
    start = line.text.find(name)
    x0 = line.span_bbox(start, start + 1)[0] if start >= 0 else line.bbox[0]
    found = find_address(lines, line, x0)
    return (found[0], found[1].evidence()) if found else None


def extract_rules(doc: DocumentText) -> RulesResult:
    """Extract header fields and line items from ``doc`` by layout rules.

    Returns a RulesResult; amounts are Decimals in the document currency, dates ISO strings,
    evidence boxes in the units of the page (PDF points or image pixels).
    """
    result = RulesResult()
    lines = annotated_lines(doc)
    if not lines:
        return result

    def put(name: str, value, line: TextLine | None) -> None:
        """Record one field value with the evidence of the line it came from."""
        if value is None or value == "":
            return
        result.fields[name] = value
        if line is not None:
            result.evidence[name] = line.evidence()

    found = find_invoice_number(lines)
    if found:
        put("invoice_number", found[0], found[1])
    for name, (iso, line) in find_date_fields(lines).items():
        put(name, iso, line)
    zone = customer_zone(lines)
    vendor = find_vendor(lines, zone)
    if vendor:
        put("vendor_name", vendor[0], vendor[1])
        address = (vendor[3], vendor[1]) if vendor[3] else find_address(lines, vendor[1], vendor[2])
        if address:
            put("vendor_address", address[0], address[1])
    for name, finder in (
        ("customer_name", lambda: find_customer(lines)),
        ("vendor_tax_id", lambda: find_tax_id(lines, zone)),
        ("vendor_email", lambda: find_email(lines, zone, vendor[0] if vendor else None)),
        ("payment_terms", lambda: find_terms(lines)),
        ("currency", lambda: find_currency(lines)),
    ):
        found = finder()
        if found:
            put(name, found[0], found[1])
    amounts = choose_amounts(amount_candidates(lines), lines)
    for name, cand in amounts.items():
        if name in AMOUNT_FIELDS:
            value = cents(cand.value)
            put(name, abs(value) if name == "discount" else value, cand.line)
    result.line_items = find_line_items(lines)
    if is_credit_note(lines):
        unsign_credit_note(result.fields, result.line_items)
    return result
