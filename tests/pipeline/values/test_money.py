"""Money (pipeline.values.money): Decimal amounts, the one tolerance rule, cash rounding, the JSON edge."""

from __future__ import annotations

import json
from decimal import Decimal

from pipeline.result import ExtractionResult
from pipeline.schema import ProcessingStatus
from pipeline.values.money import agree, cash_rounded, cents, is_zero, rounds_to, same_amount, to_amount, to_json
from pipeline.values.validate import validate

D = Decimal


def test_numbers_become_exact_decimals():
    assert to_amount(0.1) == D("0.1")  # the float's shortest form, not its binary fraction
    assert to_amount(0.1) + to_amount(0.2) == D("0.3")
    assert to_amount(12) == D(12) and to_amount(D("1.50")) == D("1.50") and to_amount(" -3.25 ") == D("-3.25")
    for nothing in (None, True, float("nan"), float("inf"), "12,50", "abc", [1]):
        assert to_amount(nothing) is None


def test_cents_round_half_up_and_amounts_compare_to_the_cent():
    assert cents(D("12.345")) == D("12.35") and cents(D("-0.005")) == D("-0.01")
    assert same_amount(D("119"), D("119.004")) and not same_amount(D("119"), D("119.01"))
    assert is_zero(D("0.004")) and not is_zero(D("0.01"))


def test_one_rounding_cent_is_the_tolerance():
    assert agree(D("100.00") + D("19.00"), D("119.01"))
    assert not agree(D("100.00") + D("19.00"), D("119.02"))  # a printed 2-cent rounding is a figure of its own


def test_cash_rounding_to_five_cents():
    assert cash_rounded(D("8.48"), D("8.50")) and cash_rounded(D("30.93"), D("30.95"))
    assert not cash_rounded(D("8.49"), D("8.50"))  # within a rounding cent: plain agreement
    assert not cash_rounded(D("8.47"), D("8.51"))  # not on a 5-cent step
    assert not cash_rounded(D("8.44"), D("8.50"))  # more than half a step away


def test_a_printed_total_rounds_to_another_by_one_cent_too():
    assert rounds_to(D("23.26"), D("23.25")) and rounds_to(D("19.99"), D("20.00")) and rounds_to(D("8.48"), D("8.50"))
    assert not rounds_to(D("23.25"), D("23.26"))  # not on a 5-cent step
    assert not rounds_to(D("23.25"), D("23.25")) and not rounds_to(D("8.44"), D("8.50"))
    assert not rounds_to(D("0.02"), D("0.00"))  # no bill rounds to nothing


def test_validation_uses_the_rule():
    ok = {"subtotal": D("8.00"), "tax_amount": D("0.48"), "total_amount": D("8.50")}
    assert validate(ok) == []  # cash rounded: the receipt's rounding line has no field
    off = {"subtotal": D("8.00"), "tax_amount": D("0.46"), "total_amount": D("8.48")}
    assert validate(off) == [
        "totals do not add up: subtotal 8.00 - discount + tax + charges = 8.46, total_amount is 8.48"
    ]
    assert validate({"subtotal": 0.1, "tax_amount": 0.2, "total_amount": 0.3}) == []  # floats of any origin


def test_amounts_become_json_numbers_at_the_edge():
    result = ExtractionResult(
        {"total_amount": D("119.00"), "line_items": [{"quantity": D("2"), "line_no": 1}]}, ProcessingStatus.COMPLETED
    )
    plain = result.to_dict()
    assert plain["data"] == {"total_amount": 119.0, "line_items": [{"quantity": 2.0, "line_no": 1}]}
    assert json.loads(json.dumps(plain))["processing_status"] == "completed"
    assert to_json((D("1.5"), {"a": [D("2.25")]})) == [1.5, {"a": [2.25]}]
