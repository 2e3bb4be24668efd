"""Arbitration of the non-key header fields after the scorer (``pipeline.decision.arbitrate``);
its disputes and key-field reasons are tested with the model in tests/pipeline/model."""

from __future__ import annotations

from decimal import Decimal

from pipeline.decision.arbitrate import Decision, tax_within_total
from pipeline.schema import Source


def test_a_tax_as_large_as_the_total_gives_way_to_the_other_reading_or_goes():
    """sroie dev 074: the model read 'Total Incl. of GST 102.00' as the GST, and the receipt whose
    key fields were right went to review for a tax no rate gives."""
    total = Decision(Decimal("102.00"), Source.RULES, "scored")
    decisions = {
        "total_amount": total,
        "tax_amount": Decision(Decimal("102.00"), Source.MODEL, "disputed", Decimal("5.77"), Source.RULES),
    }
    tax_within_total(decisions)
    assert decisions["tax_amount"].value == Decimal("5.77")
    assert decisions["tax_amount"].source == Source.RULES

    decisions = {"total_amount": total, "tax_amount": Decision(Decimal("102.00"), Source.MODEL, "model")}
    tax_within_total(decisions)
    assert "tax_amount" not in decisions

    kept = {"total_amount": total, "tax_amount": Decision(Decimal("5.77"), Source.RULES, "rules")}
    tax_within_total(kept)
    assert kept["tax_amount"].value == Decimal("5.77")
    credit = {  # a credit note: both negative, the tax still the smaller part
        "total_amount": Decision(Decimal("-119.00"), Source.RULES, "scored"),
        "tax_amount": Decision(Decimal("-19.00"), Source.RULES, "rules"),
    }
    tax_within_total(credit)
    assert credit["tax_amount"].value == Decimal("-19.00")
    template = {"total_amount": total, "tax_amount": Decision(Decimal("102.00"), Source.TEMPLATE, "template")}
    tax_within_total(template)
    assert template["tax_amount"].value == Decimal("102.00")  # as the operator's template reads it
    zero = {
        "total_amount": Decision(Decimal("0"), Source.RULES, "scored"),
        "tax_amount": Decision(Decimal("0"), Source.RULES, "rules"),
    }
    tax_within_total(zero)
    assert zero["tax_amount"].value == Decimal("0")
