"""Validation of extracted data: the arithmetic of totals and lines, dates, required fields.

Decides ``completed`` (no errors) versus ``needs_review`` (spec 3.1). Messages name the fields
and the figures so a reviewer sees what disagrees. Each check is a function of the data that
returns its messages; ``validate`` runs every check (tiers 1 and 2), ``validate_einvoice`` only
those EN 16931 itself requires of an invoice (tier 0: the XML's values are exact, so only its
own arithmetic can be wrong, and a due date before the issue date is allowed by the standard).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

from pipeline.values.money import agree, cash_rounded, is_amount, to_amount

Check = Callable[[dict[str, Any]], list[str]]


def _amount(data: dict[str, Any], key: str) -> Decimal | None:
    """``data[key]`` as Decimal, None when it is no number (the checks take data of any origin)."""
    value = data.get(key)
    return to_amount(value) if is_amount(value) else None


def _num(data: dict[str, Any], key: str) -> Decimal:
    return _amount(data, key) or Decimal(0)


def _iso(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def total_present(data: dict[str, Any]) -> list[str]:
    return ["total_amount is missing"] if data.get("total_amount") is None else []


def totals_add_up(data: dict[str, Any]) -> list[str]:
    """subtotal - discount + tax + shipping + service charge = total (EN 16931 BR-CO-13, -15),
    the total maybe cash rounded (a receipt's rounding line has no field in schema 2.9)."""
    total, subtotal = _amount(data, "total_amount"), _amount(data, "subtotal")
    if total is None or subtotal is None:
        return []
    expected = (
        subtotal
        - _num(data, "discount")
        + _num(data, "tax_amount")
        + _num(data, "shipping_cost")
        + _num(data, "service_charge")
    )
    # A credit note with negative amounts may give its document-level allowances and charges
    # as magnitudes (Factur-X credit notes do): they then move the negative subtotal towards
    # and away from zero, with its sign.
    sign = Decimal(-1) if subtotal < 0 else Decimal(1)
    signed = (
        subtotal
        - sign * abs(_num(data, "discount"))
        + _num(data, "tax_amount")
        + sign * abs(_num(data, "shipping_cost"))
        + sign * abs(_num(data, "service_charge"))
    )
    # prices that include the tax: the subtotal is the total, the tax (a part of it) shown apart
    inclusive = agree(subtotal, total) and abs(_num(data, "tax_amount")) < abs(total)
    if sign < 0 and (agree(signed, total) or cash_rounded(signed, total)):
        return []
    if not (agree(expected, total) or cash_rounded(expected, total) or inclusive):
        return [
            f"totals do not add up: subtotal {subtotal:.2f} - discount + tax + charges = {expected:.2f}, "
            f"total_amount is {total:.2f}"
        ]
    return []


# A line that states a part of the line above it ("Incl. Thuiskopieheffing 4,24", "dont
# éco-participation 0,50", "davon Pfand 0,25"): its amount is already in that line's total, so
# a sum that counts it twice misses the subtotal by exactly that amount.
INCLUDED_LINE_RE = re.compile(
    r"^\W*(?:incl(?:\.|uded|uding|usief)?|inkl(?:\.|usive)?|dont|davon|of\s+which)(?![a-z])", re.I
)


def _included(line: dict[str, Any]) -> bool:
    return bool(INCLUDED_LINE_RE.match(str(line.get("description") or "")))


def lines_add_up(data: dict[str, Any]) -> list[str]:
    """The line totals sum to the subtotal (EN 16931 BR-CO-10), or to the total on receipts;
    counted with or without the lines that state a part of another (``INCLUDED_LINE_RE``)."""
    subtotal, total = _amount(data, "subtotal"), _amount(data, "total_amount")
    lines = [(line, _amount(line, "line_total")) for line in data.get("line_items") or []]
    lines = [(line, amount) for line, amount in lines if amount is not None]
    if not lines or subtotal is None:
        return []
    line_sum = sum((amount for _, amount in lines), Decimal(0))
    apart = sum((amount for line, amount in lines if not _included(line)), Decimal(0))
    sums = {line_sum, apart}
    if not any(agree(s, subtotal) or (total is not None and (agree(s, total) or cash_rounded(s, total))) for s in sums):
        return [f"line items sum to {line_sum:.2f}, subtotal is {subtotal:.2f}"]
    return []


def balance_adds_up(data: dict[str, Any], rounding: Decimal = Decimal(0)) -> list[str]:
    """total - paid + rounding = balance (EN 16931 BR-CO-16; ``rounding`` is BT-114)."""
    total, paid, balance = (_amount(data, key) for key in ("total_amount", "paid_amount", "balance_amount"))
    if total is None or paid is None or balance is None or agree(total - paid + rounding, balance):
        return []
    return [f"total_amount {total:.2f} - paid_amount {paid:.2f} != balance_amount {balance:.2f}"]


def dates_are_dates(data: dict[str, Any]) -> list[str]:
    return [
        f"{key} {data[key]!r} is not a date"
        for key in ("invoice_date", "due_date")
        if data.get(key) is not None and _iso(data[key]) is None
    ]


def due_after_issue(data: dict[str, Any]) -> list[str]:
    issued, due = _iso(data.get("invoice_date")), _iso(data.get("due_date"))
    return [f"due_date {due} is before invoice_date {issued}"] if issued and due and due < issued else []


def total_not_negative(data: dict[str, Any]) -> list[str]:
    """A negative total without lines is a misread sign (a credit note's lines explain one)."""
    total = _amount(data, "total_amount")
    if total is None or total >= 0 or data.get("line_items"):
        return []
    return [f"total_amount {total:.2f} is negative"]


def tax_below_total(data: dict[str, Any]) -> list[str]:
    """The tax is a part of the total: no VAT or GST rate reaches 100 %, so a tax amount as large
    as the total is another figure read into the wrong field (a receipt's "Total incl. GST")."""
    tax, total = _amount(data, "tax_amount"), _amount(data, "total_amount")
    if tax is None or total is None or tax == 0 or abs(tax) < abs(total):
        return []
    return [f"tax_amount {tax:.2f} is not less than total_amount {total:.2f}"]


CHECKS: tuple[Check, ...] = (
    total_present,
    totals_add_up,
    tax_below_total,
    lines_add_up,
    balance_adds_up,
    dates_are_dates,
    due_after_issue,
    total_not_negative,
)


def validate(data: dict[str, Any]) -> list[str]:
    """Validation errors of one schema-2.9 ``data`` object; empty when it validates."""
    return [message for check in CHECKS for message in check(data)]


def validate_einvoice(data: dict[str, Any], rounding: Decimal | None = None) -> list[str]:
    """The checks of EN 16931 on data read from an e-invoice's XML: a total, and the
    arithmetic of totals, lines and balance; ``rounding`` is the XML's rounding amount (BT-114)."""
    return (
        total_present(data) + totals_add_up(data) + lines_add_up(data) + balance_adds_up(data, rounding or Decimal(0))
    )
