"""Deterministic, layout-aware extraction of invoice fields from page text with boxes.

This module is the entry point of the rules extractor: ``extract_rules`` runs the finders of
the ``pipeline.rules_*`` modules over a DocumentText and collects their values and evidence.
Each of those modules owns one job: ``rules_labels`` (multilingual label keywords),
``rules_layout`` (lines, labels, values right of or below a label), ``rules_header`` (invoice
number, dates, terms, currency), ``rules_parties`` (vendor and customer names, tax id, e-mail),
``rules_address`` (vendor address), ``rules_amounts`` (totals chosen by their arithmetic) and
``rules_lines`` (line-item tables). It re-exports ``parse_amount``, ``parse_date`` and
``detect_currency`` from ``pipeline.parsers`` for other modules. It is the main extractor; a
small LLM only fills what it leaves open. Pipeline must not import ``api`` or ``appliance``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.document import DocumentText
from pipeline.parsers import detect_currency, find_dates, guess_dayfirst, parse_amount, parse_date
from pipeline.rules_layout import TextLine, annotate, build_lines
from pipeline.rules_amounts import (
    AMOUNT_FIELDS, amount_candidates, choose_amounts, is_credit_note, unsign_credit_note,
)
from pipeline.rules_header import find_currency, find_date_fields, find_invoice_number, find_terms
from pipeline.rules_parties import customer_zone, find_customer, find_email, find_tax_id, find_vendor
from pipeline.rules_address import find_address
from pipeline.rules_lines import find_line_items

__all__ = ["RulesResult", "extract_rules", "parse_amount", "parse_date", "detect_currency"]


@dataclass
class RulesResult:
    """What the rules found.

    ``fields``: schema field -> normalised value (ISO date str, float amount, ISO 4217 code,
    stripped str), only fields found. ``line_items``: dicts with description, line_no, sku,
    quantity, unit, unit_price, discount, tax (rate %), line_total (None where unknown).
    ``evidence``: field -> ``{"page": int, "bbox": [x0, y0, x1, y1], "text": str}``.
    """

    fields: dict[str, object] = field(default_factory=dict)
    line_items: list[dict] = field(default_factory=list)
    evidence: dict[str, dict] = field(default_factory=dict)


def extract_rules(doc: DocumentText) -> RulesResult:
    """Extract header fields and line items from ``doc`` by layout rules.

    Returns a RulesResult; amounts are floats in the document currency, dates ISO strings,
    evidence boxes in the units of the page (PDF points or image pixels).
    """
    result = RulesResult()
    lines = build_lines(doc)
    if not lines:
        return result
    dayfirst = guess_dayfirst(doc.text)
    loose = not any(find_dates(line.text, dayfirst) for line in lines)
    annotate(lines, dayfirst, loose)

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
    for name, finder in (("customer_name", lambda: find_customer(lines)),
                         ("vendor_tax_id", lambda: find_tax_id(lines, zone)),
                         ("vendor_email", lambda: find_email(lines, zone, vendor[0] if vendor else None)),
                         ("payment_terms", lambda: find_terms(lines)),
                         ("currency", lambda: find_currency(lines))):
        found = finder()
        if found:
            put(name, found[0], found[1])
    amounts = choose_amounts(amount_candidates(lines), lines)
    for name, cand in amounts.items():
        if name in AMOUNT_FIELDS:
            value = round(float(cand.value), 2)
            if name == "discount":
                value = abs(value)
            put(name, value, cand.line)
    result.line_items = find_line_items(lines)
    if is_credit_note(lines):
        unsign_credit_note(result.fields, result.line_items)
    return result
