"""The spec's normal forms of ``data`` (``pipeline.values.normalise``) and its arithmetic and date
checks (``pipeline.values.validate``)."""

from __future__ import annotations

from pipeline.values.normalise import data as normalise_data
from pipeline.values.validate import validate
from tests.support.fields import DATA_LINE_ITEM_KEYS


def test_normalised_data_has_every_key():
    data = normalise_data(
        {
            "total_amount": "1.234,50",
            "invoice_date": "05.03.2024",
            "currency": "€",
            "vendor_name": "  ACME \n GmbH ",
            "bogus": 1,
        },
        [{"description": " Hammer ", "quantity": "2", "line_total": 20}],
        "raw",
    )
    assert data["total_amount"] == 1234.5 and data["invoice_date"] == "2024-03-05"
    assert data["currency"] == "EUR" and data["vendor_name"] == "ACME GmbH"
    assert data["line_items"][0]["description"] == "Hammer" and data["line_items"][0]["quantity"] == 2.0
    assert set(data["line_items"][0]) == DATA_LINE_ITEM_KEYS
    assert "bogus" not in data and data["raw_text"] == "raw" and data["due_date"] is None


def test_validation_rules():
    ok = {
        "subtotal": 100.0,
        "tax_amount": 19.0,
        "total_amount": 119.0,
        "invoice_date": "2024-03-05",
        "line_items": [{"line_total": 60.0}, {"line_total": 40.0}],
    }
    assert validate(ok) == []
    assert validate({**ok, "total_amount": 120.0})[0].startswith("totals do not add up")
    assert "line items sum to 60.00" in validate({**ok, "line_items": [{"line_total": 60.0}]})[0]
    assert validate({"subtotal": 1.0}) == ["total_amount is missing"]
    assert validate({**ok, "due_date": "2024-01-01"}) == ["due_date 2024-01-01 is before invoice_date 2024-03-05"]
    assert validate({**ok, "paid_amount": 100.0, "balance_amount": 9.0})[0].startswith("total_amount 119.00 - paid")
    # prices that include the tax: subtotal = total, the tax shown apart; a tax as large as the
    # total is another figure in the wrong field
    inclusive = {"subtotal": 9.81, "tax_amount": 0.59, "total_amount": 9.81, "invoice_date": "2024-03-05"}
    assert validate(inclusive) == []
    assert "tax_amount 10.40 is not less than total_amount 9.81" in validate({**inclusive, "tax_amount": 10.4})


def test_a_line_that_states_a_part_of_another_is_not_counted_twice():
    # Coolblue's invoices print the levy that the price above already holds as a line of its own
    levy = {"description": "Incl. Thuiskopieheffing: Thuiskopie", "line_total": 4.24}
    gross = {"subtotal": 593.36, "tax_amount": 124.61, "total_amount": 717.97, "invoice_date": "2014-04-19"}
    lines = [
        {"description": "Apple iPad Air", "line_total": 399.0},
        levy,
        {"description": "Cover", "line_total": 318.97},
    ]
    assert validate({**gross, "line_items": lines}) == []
    extra = [*lines[:1], {"description": "Installation", "line_total": 4.24}, lines[2]]
    assert validate({**gross, "line_items": extra}) == ["line items sum to 722.21, subtotal is 593.36"]
    for note in ("dont éco-participation", "davon Pfand", "(incl. deposit)", "Inkl. MwSt-Anteil"):
        assert (
            validate({**gross, "line_items": [*lines[:1], {"description": note, "line_total": 4.24}, lines[2]]}) == []
        )
