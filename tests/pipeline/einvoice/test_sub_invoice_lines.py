"""Sub-invoice lines of Factur-X 1.08 / ZUGFeRD 2.4 EXTENDED (ParentLineID BT-X-304, subtype
BT-X-8): the lines that count in the totals are the line items, each naming the lines it is
nested under in ``group``; GROUP subtotals and INFORMATION breakdowns are not added again.
The invoices are ``tests/data/facturx-extended-sub-lines-*.xml`` (tests/data/README.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipeline.context import JobContext
from pipeline.einvoice.reader import LinePlace, counted_lines, parse_xml
from pipeline.reading.sniff import PDF
from pipeline.runner import Extractor
from pipeline.values import normalise
from pipeline.values.validate import validate_einvoice
from tests.conftest import fake_models
from tests.paths import DATA
from tests.support.docs import embed_xml
from tests.support.facturx_extended import OFFICE, PLANS, SERVICE, cii_xml, write
from tests.support.visualisation import visualisation_pdf

OFFICE_XML = DATA / "facturx-extended-sub-lines-office.xml"
SERVICE_XML = DATA / "facturx-extended-sub-lines-service.xml"


def rows(items: list[dict]) -> list[tuple]:
    return [(i["description"], i["line_total"], i["group"]) for i in items]


def test_the_test_invoices_are_what_the_generator_writes(tmp_path):
    for path in write(tmp_path):
        assert path.read_text(encoding="utf-8") == (DATA / path.name).read_text(encoding="utf-8"), path.name


def test_groups_are_not_added_and_their_details_name_them():
    invoice = parse_xml(OFFICE_XML.read_bytes())
    assert invoice.profile == "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended"
    assert rows(invoice.line_items) == [
        ("Schreibtisch höhenverstellbar", Decimal("900.00"), "Büroausstattung Verwaltung"),
        ("Monitorarm doppelt", Decimal("300.00"), "Büroausstattung Verwaltung > Zubehör Arbeitsplatz"),
        ("Kabelkanal 1,5 m", Decimal("300.00"), "Büroausstattung Verwaltung > Zubehör Arbeitsplatz"),
        ("Montage vor Ort", Decimal("480.00"), None),
        ("Entsorgung Verpackung", Decimal("20.00"), None),
    ]
    detail = invoice.line_items[0]
    assert (detail["quantity"], detail["unit"], detail["unit_price"], detail["tax"]) == (
        Decimal("2.00"),
        "H87",
        Decimal("450.00"),
        Decimal("19.00"),
    )
    assert invoice.fields["subtotal"] == Decimal("2000.00") and invoice.fields["total_amount"] == Decimal("2380.00")
    data = normalise.data(invoice.fields, invoice.line_items, "")
    assert validate_einvoice(data, invoice.rounding) == []


def test_information_lines_are_not_added_and_groups_at_another_rate():
    invoice = parse_xml(SERVICE_XML.read_bytes())
    assert rows(invoice.line_items) == [
        ("Wartungspauschale Drucker Q2", Decimal("480.00"), None),
        ("Handbuch Druckertechnik", Decimal("135.00"), "Fachliteratur"),
        ("Wartungsfibel", Decimal("50.00"), "Fachliteratur"),
        ("Verbrauchsmaterial Toner", Decimal("300.00"), None),
    ]
    assert [i["tax"] for i in invoice.line_items] == [
        Decimal("19.00"),
        Decimal("7.00"),
        Decimal("7.00"),
        Decimal("19.00"),
    ]
    f = invoice.fields
    assert (f["subtotal"], f["shipping_cost"], f["tax_amount"], f["total_amount"]) == (
        Decimal("965.00"),
        Decimal("15.00"),
        Decimal("164.00"),
        Decimal("1144.00"),
    )
    assert validate_einvoice(normalise.data(f, invoice.line_items, ""), invoice.rounding) == []


@pytest.mark.parametrize("plan", [OFFICE, SERVICE], ids=lambda plan: plan.number)
def test_the_hybrid_pdf_completes_with_the_lines_that_count(plan):
    """The XML embedded in its visualisation: tier 0 reads it exactly, the print agrees."""
    pdf = embed_xml(visualisation_pdf(plan), cii_xml(plan))
    result = Extractor(fake_models()).extract(JobContext("x", PDF), pdf)
    assert result.extraction_tier == 0, result.routing_reason
    assert result.processing_status == "completed", result.validation_errors
    items = result.data["line_items"]
    assert [i["description"] for i in items] == [line.name for line in plan.counted()]
    assert sum(i["line_total"] for i in items) == plan.totals()["lines"]


def place(line_id, parent=None, subtype=None):
    return LinePlace(line_id, parent, subtype)


def test_counted_lines_edge_cases():
    def item(name):
        return {"description": name, "line_total": Decimal("1.00")}

    found = counted_lines(
        [
            (place("A", subtype="GROUP"), item("Group A")),
            (place("A1", "A", "DETAIL"), item("In A")),
            (place("B", "C", "NA"), item("Stray code")),  # a code outside the list counts like DETAIL
            (place("C", "B", "DETAIL"), item("Cycle")),  # B and C name each other: the walk ends
            (place("D", "nowhere", "DETAIL"), item("Orphan")),  # a parent id naming no line
            (place("E", None, "information"), item("Note")),  # codes in any case
            (place(None, None, None), item("No hierarchy")),
        ]
    )
    assert [(i["description"], i["group"]) for i in found] == [
        ("In A", "Group A"),
        ("Stray code", "Cycle"),
        ("Cycle", "Stray code"),
        ("Orphan", None),
        ("No hierarchy", None),
    ]


def test_the_invoices_nest_children_of_every_subtype():
    children = {line.subtype for plan in PLANS.values() for line in plan.lines if line.parent}
    nested_groups = [line for line in OFFICE.lines if line.subtype == "GROUP" and line.parent]
    assert children == {"DETAIL", "GROUP", "INFORMATION"} and nested_groups
