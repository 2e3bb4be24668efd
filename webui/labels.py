"""How the review page words and formats what it shows (issue 28: "the review page reads as a
product"): the fields of spec 2.9 and 2.10 and the states of spec 3 in words, amounts as money
with their currency. Pure functions of values; the form's inputs keep plain numbers
(``1234.50``: ``appliance.correction_values`` parses no thousands separators), so formatting
never turns into a correction nobody made.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pipeline.schema import AMOUNT_FIELDS, LINE_AMOUNT_FIELDS
from pipeline.values.money import to_amount

FIELD_LABELS = {
    "invoice_number": "Invoice number",
    "invoice_date": "Invoice date",
    "due_date": "Due date",
    "vendor_name": "Vendor",
    "vendor_address": "Vendor address",
    "vendor_tax_id": "Vendor tax ID",
    "vendor_email": "Vendor e-mail",
    "customer_name": "Customer",
    "currency": "Currency",
    "payment_terms": "Payment terms",
    "subtotal": "Subtotal",
    "discount": "Discount",
    "tax_amount": "Tax",
    "service_charge": "Service charge",
    "shipping_cost": "Shipping",
    "total_amount": "Total",
    "paid_amount": "Paid",
    "balance_amount": "Balance due",
    "line_items": "Line items",
}
LINE_LABELS = {
    "description": "Description",
    "line_no": "No.",
    "sku": "SKU",
    "quantity": "Quantity",
    "unit": "Unit",
    "unit_price": "Unit price",
    "discount": "Discount",
    "tax": "Tax %",
    "line_total": "Line total",
    "group": "Group",
}
STATE_LABELS = {
    # processingStatus (spec 3.1); needs_review is what the spec calls Needs Attention
    "queued": "Queued",
    "processing": "Processing",
    "completed": "Completed",
    "failed": "Failed",
    "needs_review": "Needs attention",
    # status (spec 3.2)
    "pending": "Pending",
    "extracted": "Extracted",
    "reviewed": "Reviewed",
    "approved": "Approved",
    "rejected": "Rejected",
    "duplicate": "Duplicate",
}
SOURCE_LABELS = {
    "einvoice": "e-invoice",
    "template": "template",
    "profile": "vendor profile",
    "rules": "layout rules",
    "llm": "model",
    "human": "corrected",
}
# ISO 4217 minor units where they are not 2 (the currencies an invoice here is likely to use).
MINOR_UNITS = {
    **dict.fromkeys(("JPY", "KRW", "VND", "CLP", "ISK", "UGX", "XAF", "XOF", "PYG"), 0),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
}


def label(name: str) -> str:
    """A field of spec 2.9 or 2.10 in words (``invoice_number`` -> "Invoice number"); a name it
    does not know, with its underscores as spaces and a capital."""
    known = FIELD_LABELS.get(name) or LINE_LABELS.get(name)
    return known or name.replace("_", " ").capitalize()


def line_label(name: str) -> str:
    """A line-item field in words (``discount`` of a line is a line's discount)."""
    return LINE_LABELS.get(name) or label(name)


def state(value: str | None) -> str:
    """A ``processingStatus`` or ``status`` value in words ("" for None)."""
    return STATE_LABELS.get(value or "", (value or "").replace("_", " ").capitalize())


def source(value: str | None) -> str:
    """The ``source`` of a value's evidence in words."""
    return SOURCE_LABELS.get(value or "", value or "")


def is_money(name: str, line: bool = False) -> bool:
    """Whether the header field (or with ``line`` the line-item field) ``name`` is an amount."""
    return name in (LINE_AMOUNT_FIELDS if line else AMOUNT_FIELDS)


def currency_code(data: dict[str, Any]) -> str:
    """The invoice's currency as an ISO 4217 code, "" when ``data`` has none (or not a code)."""
    code = str(data.get("currency") or "").strip().upper()
    return code if len(code) == 3 and code.isalpha() else ""


def amount_text(value: Any, currency: str = "") -> str:
    """An amount as the form's input shows it: a plain number with the currency's decimals
    (``12.5`` EUR -> ``12.50``, ``1200.0`` JPY -> ``1200``), or more when the value has more
    (``12.345`` stays ``12.345``: rounding here would read as a correction). "" for None;
    anything that is not a number, as text."""
    amount = to_amount(value)
    if amount is None:
        return "" if value is None else str(value)
    places = MINOR_UNITS.get(currency, 2)
    own = max(0, -amount.normalize().as_tuple().exponent)
    return f"{amount:.{max(places, own)}f}"


def money(value: Any, currency: str = "") -> str:
    """An amount as money for people: thousands separated, the currency's decimals, its ISO 4217
    code after it (``1234.5``, ``EUR`` -> "1,234.50 EUR"); "" for None."""
    text = amount_text(value, currency)
    if not text or to_amount(value) is None:
        return text
    whole, _, fraction = text.lstrip("-").partition(".")
    grouped = f"{int(whole):,}" + (f".{fraction}" if fraction else "")
    sign = "-" if Decimal(text) < 0 else ""
    return f"{sign}{grouped} {currency}".rstrip()


def confidence(value: float | None) -> str:
    """A confidence in 0..1 as a percentage ("97%"); "" for None."""
    return "" if value is None else f"{value * 100:.0f}%"


# What the templates call (``webui.lifecycle.invoice_extras`` puts them in the page's context).
TEMPLATE_HELPERS = {
    "label": label,
    "line_label": line_label,
    "state": state,
    "source": source,
    "is_money": is_money,
    "amount_text": amount_text,
    "money": money,
    "confidence": confidence,
}
