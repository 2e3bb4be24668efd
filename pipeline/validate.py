"""Validation of extracted data: the arithmetic of totals and lines, dates, required fields.

Decides ``completed`` (no errors) versus ``needs_review`` (spec 3.1). Messages name the fields
and the figures so a reviewer sees what disagrees. Each check is a function of the data that
returns its messages; ``validate`` runs every check (tiers 1 and 2), ``validate_einvoice`` only
those EN 16931 itself requires of an invoice (tier 0: the XML's values are exact, so only its
own arithmetic can be wrong, and a due date before the issue date is allowed by the standard).
"""
from __future__ import annotations

from datetime import date
from typing import Any, Callable

TOLERANCE = 0.02  # currency units: rounding of per-line tax

Check = Callable[[dict[str, Any]], list[str]]


def _num(data: dict[str, Any], key: str) -> float:
    value = data.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _iso(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def total_present(data: dict[str, Any]) -> list[str]:
    return ["total_amount is missing"] if data.get("total_amount") is None else []


def totals_add_up(data: dict[str, Any]) -> list[str]:
    """subtotal - discount + tax + shipping + service charge = total (EN 16931 BR-CO-13, -15)."""
    total, subtotal = data.get("total_amount"), data.get("subtotal")
    if total is None or subtotal is None:
        return []
    expected = (subtotal - _num(data, "discount") + _num(data, "tax_amount")
                + _num(data, "shipping_cost") + _num(data, "service_charge"))
    if abs(expected - total) > TOLERANCE and abs(subtotal - total) > TOLERANCE:
        return [f"totals do not add up: subtotal {subtotal} - discount + tax + charges = {expected:.2f}, "
                f"total_amount is {total}"]
    return []


def lines_add_up(data: dict[str, Any]) -> list[str]:
    """The line totals sum to the subtotal (EN 16931 BR-CO-10), or to the total on receipts."""
    subtotal, total = data.get("subtotal"), data.get("total_amount")
    lines = [line for line in data.get("line_items") or [] if isinstance(line.get("line_total"), (int, float))]
    if not lines or subtotal is None:
        return []
    line_sum = sum(line["line_total"] for line in lines)
    if abs(line_sum - subtotal) > TOLERANCE and (total is None or abs(line_sum - total) > TOLERANCE):
        return [f"line items sum to {line_sum:.2f}, subtotal is {subtotal}"]
    return []


def balance_adds_up(data: dict[str, Any], rounding: float = 0.0) -> list[str]:
    """total - paid + rounding = balance (EN 16931 BR-CO-16; ``rounding`` is BT-114)."""
    total, paid, balance = data.get("total_amount"), data.get("paid_amount"), data.get("balance_amount")
    if total is None or paid is None or balance is None or abs(total - paid + rounding - balance) <= TOLERANCE:
        return []
    return [f"total_amount {total} - paid_amount {paid} != balance_amount {balance}"]


def dates_are_dates(data: dict[str, Any]) -> list[str]:
    return [f"{key} {data[key]!r} is not a date" for key in ("invoice_date", "due_date")
            if data.get(key) is not None and _iso(data[key]) is None]


def due_after_issue(data: dict[str, Any]) -> list[str]:
    issued, due = _iso(data.get("invoice_date")), _iso(data.get("due_date"))
    return [f"due_date {due} is before invoice_date {issued}"] if issued and due and due < issued else []


def total_not_negative(data: dict[str, Any]) -> list[str]:
    """A negative total without lines is a misread sign (a credit note's lines explain one)."""
    total = data.get("total_amount")
    return [f"total_amount {total} is negative"] if total is not None and total < 0 and not data.get("line_items") else []


CHECKS: tuple[Check, ...] = (total_present, totals_add_up, lines_add_up, balance_adds_up, dates_are_dates,
                             due_after_issue, total_not_negative)


def validate(data: dict[str, Any]) -> list[str]:
    """Validation errors of one schema-2.9 ``data`` object; empty when it validates."""
    return [message for check in CHECKS for message in check(data)]


def validate_einvoice(data: dict[str, Any], rounding: float | None = None) -> list[str]:
    """The checks of EN 16931 on data read from an e-invoice's XML: a total, and the
    arithmetic of totals, lines and balance; ``rounding`` is the XML's rounding amount (BT-114)."""
    return (total_present(data) + totals_add_up(data) + lines_add_up(data)
            + balance_adds_up(data, rounding or 0.0))
