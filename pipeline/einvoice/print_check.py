"""Tier 0's second look: does the print of an e-invoice say what its XML says?

The XML is what a buyer books; the print is what a person reads. Where they really disagree on
a key field, the invoice needs a reviewer. The print is read by the layout rules, which
misread now and then (a date from a remark, an amount from a table row), and such a misreading
is no disagreement of the document's. So a key field is reported only when both hold:

- the rules read the printed value with high calibrated confidence (``HIGH_CONFIDENCE``,
  ``pipeline.decision.confidence``): it is the print's word, not a guess among several figures;
- the XML's value is printed nowhere in the document (``pipeline.decision.evidence.locate``, in any
  printed format): had the print shown it, the rules would merely have picked another figure.

Pure extraction; must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

from typing import Any

from pipeline.decision.evidence import build_evidence, locate
from pipeline.document import DocumentText
from pipeline.rules import extract_rules
from pipeline.values import normalise
from pipeline.values.money import is_amount, same_amount, to_amount
from pipeline.values.validate import validate

# The key fields whose print and XML are compared; names are too often shortened on the print.
COMPARED = ("invoice_number", "invoice_date", "total_amount", "currency", "vendor_tax_id")
# Calibrated probability that the rules' reading is right above which it counts as the print's word.
HIGH_CONFIDENCE = 0.9


def print_disagreements(xml_fields: dict[str, Any], doc: DocumentText) -> list[str]:
    """Validation messages where the print of ``doc`` (the e-invoice's text layer) disagrees
    with its XML (``EInvoice.fields``) on a key field, e.g. ``printed total_amount 120.00
    ("Total EUR 120.00", page 1) differs from the e-invoice XML 119.00``. Empty when the
    print has no text layer or agrees."""
    if not doc.text.strip():
        return []
    found = extract_rules(doc)
    printed = normalise.data(found.fields, found.line_items, doc.text)
    evidence = build_evidence(printed, doc=doc, rules_evidence=found.evidence, errors=validate(printed))
    messages = []
    for key in COMPARED:
        value, xml_value = printed.get(key), xml_fields.get(key)
        if value is None or xml_value is None or _same_value(key, value, xml_value):
            continue
        seen = evidence.get(key) or {}
        if seen.get("confidence", 0.0) < HIGH_CONFIDENCE or locate(xml_value, doc, key) is not None:
            continue
        where = f' ("{seen["text"]}", page {seen["page"]})' if seen.get("text") else ""
        messages.append(
            f"printed {key} {_shown(key, value)}{where} differs from the e-invoice XML {_shown(key, xml_value)}"
        )
    return messages


def _same_value(key: str, printed: Any, xml_value: Any) -> bool:
    """Ids compare on letters and digits case-folded, amounts as the same amount (to the cent),
    currency case-insensitively, dates as ISO strings."""
    if key in ("invoice_number", "vendor_tax_id"):
        return _id_key(printed) == _id_key(xml_value)
    if key == "total_amount":
        if not (is_amount(printed) and is_amount(xml_value)):
            return False  # an unreadable printed amount cannot confirm the XML
        return same_amount(to_amount(printed), to_amount(xml_value))
    if key == "currency":
        return str(printed).strip().upper() == str(xml_value).strip().upper()
    return str(printed).strip() == str(xml_value).strip()


def _id_key(value: Any) -> str:
    """Letters and digits only, case-folded: 'DE 123/456' and 'de123456' are the same id."""
    return "".join(ch for ch in str(value).casefold() if ch.isalnum())


def _shown(key: str, value: Any) -> str:
    """A value as the message shows it: amounts with two decimals."""
    if key == "total_amount" and is_amount(value):
        return f"{to_amount(value):.2f}"
    return str(value)
