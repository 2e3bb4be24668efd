"""Validation of extracted data: the arithmetic of totals and lines, dates, required fields.

Decides ``completed`` (no errors) versus ``needs_review`` (spec 3.1). Messages name the fields
and the figures so a reviewer sees what disagrees.
"""
from __future__ import annotations

from datetime import date
from typing import Any

TOLERANCE = 0.02  # currency units: rounding of per-line tax


def _num(data: dict[str, Any], key: str) -> float:
    value = data.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _iso(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def validate(data: dict[str, Any]) -> list[str]:
    """Validation errors of one schema-2.9 ``data`` object; empty when it validates."""
    errors: list[str] = []
    total = data.get("total_amount")
    subtotal = data.get("subtotal")
    if total is None:
        errors.append("total_amount is missing")
    if total is not None and subtotal is not None:
        expected = (subtotal - _num(data, "discount") + _num(data, "tax_amount")
                    + _num(data, "shipping_cost") + _num(data, "service_charge"))
        if abs(expected - total) > TOLERANCE and abs(subtotal - total) > TOLERANCE:
            errors.append(
                f"totals do not add up: subtotal {subtotal} - discount + tax + charges = {expected:.2f}, "
                f"total_amount is {total}"
            )
    lines = [line for line in data.get("line_items") or [] if isinstance(line.get("line_total"), (int, float))]
    if lines and subtotal is not None:
        line_sum = sum(line["line_total"] for line in lines)
        if abs(line_sum - subtotal) > TOLERANCE and (total is None or abs(line_sum - total) > TOLERANCE):
            errors.append(f"line items sum to {line_sum:.2f}, subtotal is {subtotal}")
    paid, balance = data.get("paid_amount"), data.get("balance_amount")
    if total is not None and paid is not None and balance is not None and abs(total - paid - balance) > TOLERANCE:
        errors.append(f"total_amount {total} - paid_amount {paid} != balance_amount {balance}")
    for key in ("invoice_date", "due_date"):
        if data.get(key) is not None and _iso(data[key]) is None:
            errors.append(f"{key} {data[key]!r} is not a date")
    issued, due = _iso(data.get("invoice_date")), _iso(data.get("due_date"))
    if issued and due and due < issued:
        errors.append(f"due_date {due} is before invoice_date {issued}")
    if total is not None and total < 0 and not data.get("line_items"):
        errors.append(f"total_amount {total} is negative")
    return errors
