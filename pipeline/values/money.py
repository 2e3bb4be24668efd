"""Money: amounts as ``Decimal`` from the parser to the edge, and the one rule for when amounts agree.

A printed amount is parsed to ``Decimal`` (``pipeline.values.parsers`` through price-parser, the XML's
``xs:decimal`` in ``pipeline.einvoice.reader``) and stays one through the rules' choice of totals,
normalisation, validation, evidence and the print check: no binary fractions, so 0.1 + 0.2 is
0.3 and a total compares exactly. ``to_json`` turns amounts into JSON numbers only where a
result leaves the pipeline (``ExtractionResult.to_dict``).

The one rule, used by every arithmetic check (validation, the rules' choice of totals, the
arithmetic feature of evidence): printed figures are rounded to the cent, so the two sides of
an identity between printed amounts (subtotal - discount + tax + charges = total, the line
totals' sum = subtotal, total - paid + rounding = balance) **agree** when they differ by at
most ``TOLERANCE``, one rounding cent. Not more: a receipt's cash rounding of one or two cents
is a printed figure of its own, which the rules must be able to tell from rounding. Where cash
is rounded to 5 cents (Malaysia, Switzerland, ...), a total on a 5-cent step within 2.5 cents of
the sum is **cash rounded** from it (``cash_rounded``), whether or not the receipt prints the
rounding line. Two amounts are the **same amount** when they are equal to the cent.

Standard library only; imports nothing of ours.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

CENT = Decimal("0.01")
TOLERANCE = CENT
CASH_STEP = Decimal("0.05")


def to_amount(value: Any) -> Decimal | None:
    """A number as Decimal: a Decimal as it is, an int exactly, a float by its shortest decimal
    form (``0.1`` -> ``Decimal("0.1")``, not the binary fraction), a plain numeric string
    (``"-12.50"``). None for None, a bool, NaN, an infinity or anything else."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, (int, Decimal, str)):
        try:
            amount = Decimal(value.strip() if isinstance(value, str) else value)
        except InvalidOperation:
            return None
        return amount if amount.is_finite() else None
    return None


def is_amount(value: Any) -> bool:
    """Whether ``value`` is a number of ``data`` (int, float or Decimal; not a bool)."""
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def cents(value: Decimal) -> Decimal:
    """``value`` rounded to the cent, half up (commercial rounding): ``12.345`` -> ``12.35``."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def same_amount(a: Decimal, b: Decimal) -> bool:
    """Whether ``a`` and ``b`` are the same amount: equal to the cent."""
    return cents(a) == cents(b)


def is_zero(value: Decimal) -> bool:
    """Whether ``value`` is nothing to the cent."""
    return cents(value) == 0


def agree(left: Decimal, right: Decimal) -> bool:
    """Whether the two sides of an identity between printed amounts agree (within TOLERANCE)."""
    return abs(left - right) <= TOLERANCE


def cash_rounded(computed: Decimal, total: Decimal) -> bool:
    """Whether ``total`` is ``computed`` rounded to a cash step of 5 cents, by more than the
    rounding of printed figures: on a 5-cent step and at most 2.5 cents away."""
    return total % CASH_STEP == 0 and not agree(computed, total) and abs(computed - total) <= CASH_STEP / 2


def rounds_to(printed: Decimal, total: Decimal) -> bool:
    """Whether ``total`` is the printed amount ``printed`` rounded to a cash step of 5 cents, by
    any amount (one cent included: "Total (Inclusive of GST): 23.26 / Rounding Adj: -0.01 /
    TOTAL: 23.25"): on a 5-cent step, not zero, another value and at most 2.5 cents away. Two
    printed totals, not the two sides of an identity: the one-cent rounding is read, not
    forgiven (``cash_rounded`` is for identities, where a cent agrees anyway)."""
    return total % CASH_STEP == 0 and total != 0 and total != printed and abs(printed - total) <= CASH_STEP / 2


def to_json(value: Any) -> Any:
    """``value`` with every Decimal inside (dicts, lists, tuples) as a JSON number (float)."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value
