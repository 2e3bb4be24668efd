"""Our own small generator of Factur-X 1.08 / ZUGFeRD 2.4 EXTENDED invoices with sub-invoice lines
(lines nested by ParentLineID, BT-X-304, with the subtype LineStatusReasonCode, BT-X-8: DETAIL,
GROUP or INFORMATION), and the two invoices it writes into ``tests/data`` (their README says so).

An invoice is a ``Plan``; ``cii_xml`` writes its CII XML in the element order of the Factur-X
EXTENDED XSD, and ``tests.support.visualisation`` prints the same plan the way an XML
visualisation stylesheet does, so the XML and the print cannot disagree. Amounts follow the
EXTENDED Schematron: a GROUP line's net amount is the sum of its DETAIL and GROUP children
(BR-FXEXT-08), an INFORMATION line breaks its parent down for information, and the header's
sum of line net amounts (BT-106) adds only the DETAIL lines (BR-FXEXT-CO-10).

``python -m tests.support.facturx_extended tests/data`` writes the files again;
``tests/pipeline/einvoice/test_sub_invoice_lines.py`` checks that they are what this writes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from xml.sax.saxutils import escape

EXTENDED = "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended"
CENT = Decimal("0.01")


@dataclass(frozen=True)
class PlanLine:
    """One BG-25: id (BT-126), parent id (BT-X-304), subtype (BT-X-8), name (BT-153); a DETAIL
    or INFORMATION line also has quantity (BT-129), unit (BT-130), net price (BT-146) and VAT
    rate (BT-152); a GROUP line's amount is its children's."""

    line_id: str
    subtype: str
    name: str
    parent: str | None = None
    quantity: Decimal | None = None
    unit: str = "C62"
    price: Decimal | None = None
    rate: Decimal = Decimal("19")

    def own_amount(self) -> Decimal:
        return (self.quantity * self.price).quantize(CENT, ROUND_HALF_UP)


@dataclass(frozen=True)
class Party:
    name: str
    street: str
    postcode: str
    city: str
    vat_id: str | None = None


@dataclass(frozen=True)
class Plan:
    """One invoice: number (BT-1), issue and due dates (ISO), seller, buyer, lines in document
    order, document-level charges ((reason, amount) at the standard rate) and the payment terms."""

    number: str
    issued: str
    due: str
    seller: Party
    buyer: Party
    lines: tuple[PlanLine, ...]
    charges: tuple[tuple[str, Decimal], ...] = ()
    terms: str = "Zahlbar innerhalb 30 Tagen ohne Abzug"
    currency: str = "EUR"
    notes: tuple[str, ...] = field(default=())

    def amount(self, line: PlanLine) -> Decimal:
        """BT-131 of ``line``: quantity times price, or for a GROUP the sum over its DETAIL and
        GROUP children (BR-FXEXT-08)."""
        if line.subtype != "GROUP":
            return line.own_amount()
        children = [c for c in self.lines if c.parent == line.line_id and c.subtype in ("DETAIL", "GROUP")]
        return sum((self.amount(c) for c in children), Decimal("0.00"))

    def counted(self) -> list[PlanLine]:
        """The lines BT-106 adds (BR-FXEXT-CO-10): the DETAIL lines."""
        return [line for line in self.lines if line.subtype == "DETAIL"]

    def vat_breakdown(self) -> list[tuple[Decimal, Decimal, Decimal]]:
        """(rate, taxable amount BT-116, tax BT-117) per rate, highest rate first; the charges are
        at the standard rate of 19 %."""
        basis: dict[Decimal, Decimal] = {}
        for line in self.counted():
            basis[line.rate] = basis.get(line.rate, Decimal("0.00")) + self.amount(line)
        for _, amount in self.charges:
            basis[Decimal("19")] = basis.get(Decimal("19"), Decimal("0.00")) + amount
        return [
            (rate, amount, (amount * rate / 100).quantize(CENT, ROUND_HALF_UP))
            for rate, amount in sorted(basis.items(), reverse=True)
        ]

    def totals(self) -> dict[str, Decimal]:
        """BG-22: line total BT-106, charges BT-108, net BT-109, tax BT-110, gross BT-112, due BT-115."""
        lines = sum((self.amount(line) for line in self.counted()), Decimal("0.00"))
        charges = sum((amount for _, amount in self.charges), Decimal("0.00"))
        tax = sum((tax for _, _, tax in self.vat_breakdown()), Decimal("0.00"))
        net = lines + charges
        return {"lines": lines, "charges": charges, "net": net, "tax": tax, "gross": net + tax, "due": net + tax}


def _date(iso: str) -> str:
    return f'<udt:DateTimeString format="102">{iso.replace("-", "")}</udt:DateTimeString>'


def _party(tag: str, party: Party) -> str:
    vat = (
        f'<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">{party.vat_id}</ram:ID></ram:SpecifiedTaxRegistration>'
        if party.vat_id
        else ""
    )
    return (
        f"   <ram:{tag}><ram:Name>{escape(party.name)}</ram:Name>\n"
        f"    <ram:PostalTradeAddress><ram:PostcodeCode>{party.postcode}</ram:PostcodeCode>"
        f"<ram:LineOne>{escape(party.street)}</ram:LineOne><ram:CityName>{escape(party.city)}</ram:CityName>"
        f"<ram:CountryID>DE</ram:CountryID></ram:PostalTradeAddress>{vat}</ram:{tag}>\n"
    )


def _line(plan: Plan, line: PlanLine) -> str:
    """One IncludedSupplyChainTradeLineItem. A GROUP line carries quantity 1 and its amount as
    the price, so that it also passes the XSD of writers that require them."""
    quantity, unit, price = (
        (Decimal("1"), "C62", plan.amount(line)) if line.subtype == "GROUP" else (line.quantity, line.unit, line.price)
    )
    parent = f"<ram:ParentLineID>{line.parent}</ram:ParentLineID>" if line.parent else ""
    return (
        "  <ram:IncludedSupplyChainTradeLineItem>\n"
        f"   <ram:AssociatedDocumentLineDocument><ram:LineID>{line.line_id}</ram:LineID>{parent}"
        f"<ram:LineStatusReasonCode>{line.subtype}</ram:LineStatusReasonCode></ram:AssociatedDocumentLineDocument>\n"
        f"   <ram:SpecifiedTradeProduct><ram:Name>{escape(line.name)}</ram:Name></ram:SpecifiedTradeProduct>\n"
        "   <ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice>"
        f"<ram:ChargeAmount>{price:.2f}</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>\n"
        f'   <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="{unit}">{quantity:.2f}</ram:BilledQuantity>'
        "</ram:SpecifiedLineTradeDelivery>\n"
        "   <ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode>"
        f"<ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>{line.rate:.2f}</ram:RateApplicablePercent>"
        "</ram:ApplicableTradeTax>\n"
        "    <ram:SpecifiedTradeSettlementLineMonetarySummation>"
        f"<ram:LineTotalAmount>{plan.amount(line):.2f}</ram:LineTotalAmount>"
        "</ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>\n"
        "  </ram:IncludedSupplyChainTradeLineItem>\n"
    )


def _settlement(plan: Plan) -> str:
    totals = plan.totals()
    taxes = "".join(
        f"   <ram:ApplicableTradeTax><ram:CalculatedAmount>{tax:.2f}</ram:CalculatedAmount>"
        f"<ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>{basis:.2f}</ram:BasisAmount>"
        f"<ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>{rate:.2f}</ram:RateApplicablePercent>"
        "</ram:ApplicableTradeTax>\n"
        for rate, basis, tax in plan.vat_breakdown()
    )
    charges = "".join(
        "   <ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>true</udt:Indicator>"
        f"</ram:ChargeIndicator><ram:ActualAmount>{amount:.2f}</ram:ActualAmount><ram:Reason>{escape(reason)}</ram:Reason>"
        "<ram:CategoryTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode>"
        "<ram:RateApplicablePercent>19.00</ram:RateApplicablePercent></ram:CategoryTradeTax>"
        "</ram:SpecifiedTradeAllowanceCharge>\n"
        for reason, amount in plan.charges
    )
    return (
        "  <ram:ApplicableHeaderTradeSettlement>\n"
        f"   <ram:InvoiceCurrencyCode>{plan.currency}</ram:InvoiceCurrencyCode>\n"
        f"{taxes}{charges}"
        f"   <ram:SpecifiedTradePaymentTerms><ram:Description>{escape(plan.terms)}</ram:Description>"
        f"<ram:DueDateDateTime>{_date(plan.due)}</ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>\n"
        "   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>"
        f"<ram:LineTotalAmount>{totals['lines']:.2f}</ram:LineTotalAmount>"
        f"<ram:ChargeTotalAmount>{totals['charges']:.2f}</ram:ChargeTotalAmount>"
        "<ram:AllowanceTotalAmount>0.00</ram:AllowanceTotalAmount>"
        f"<ram:TaxBasisTotalAmount>{totals['net']:.2f}</ram:TaxBasisTotalAmount>"
        f'<ram:TaxTotalAmount currencyID="{plan.currency}">{totals["tax"]:.2f}</ram:TaxTotalAmount>'
        f"<ram:GrandTotalAmount>{totals['gross']:.2f}</ram:GrandTotalAmount>"
        f"<ram:DuePayableAmount>{totals['due']:.2f}</ram:DuePayableAmount>"
        "</ram:SpecifiedTradeSettlementHeaderMonetarySummation>\n  </ram:ApplicableHeaderTradeSettlement>\n"
    )


def cii_xml(plan: Plan) -> str:
    """The plan as a Factur-X 1.08 EXTENDED CII document (UTF-8 text with its declaration)."""
    notes = "".join(f"<ram:IncludedNote><ram:Content>{escape(n)}</ram:Content></ram:IncludedNote>" for n in plan.notes)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"\n'
        ' xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"\n'
        ' xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">\n'
        " <rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>"
        f"<ram:ID>{EXTENDED}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>\n"
        f" <rsm:ExchangedDocument><ram:ID>{escape(plan.number)}</ram:ID><ram:TypeCode>380</ram:TypeCode>"
        f"<ram:IssueDateTime>{_date(plan.issued)}</ram:IssueDateTime>{notes}</rsm:ExchangedDocument>\n"
        " <rsm:SupplyChainTradeTransaction>\n"
        + "".join(_line(plan, line) for line in plan.lines)
        + "  <ram:ApplicableHeaderTradeAgreement>\n"
        + _party("SellerTradeParty", plan.seller)
        + _party("BuyerTradeParty", plan.buyer)
        + "  </ram:ApplicableHeaderTradeAgreement>\n"
        f"  <ram:ApplicableHeaderTradeDelivery><ram:ActualDeliverySupplyChainEvent><ram:OccurrenceDateTime>"
        f"{_date(plan.issued)}</ram:OccurrenceDateTime></ram:ActualDeliverySupplyChainEvent>"
        "</ram:ApplicableHeaderTradeDelivery>\n"
        + _settlement(plan)
        + " </rsm:SupplyChainTradeTransaction>\n</rsm:CrossIndustryInvoice>\n"
    )


D = Decimal
SELLER = Party("Bürotechnik Sommer GmbH", "Industriestraße 12", "70565", "Stuttgart", "DE812345678")
# Groups nested in a group, DETAIL lines under them and plain DETAIL lines: 2,000.00 of lines,
# where adding every line would make 4,100.00.
OFFICE = Plan(
    number="RE-2025-0815",
    issued="2025-03-14",
    due="2025-04-13",
    seller=SELLER,
    buyer=Party("Stadtwerke Neustadt GmbH", "Am Wasserturm 3", "67433", "Neustadt"),
    lines=(
        PlanLine("1", "GROUP", "Büroausstattung Verwaltung"),
        PlanLine("1.1", "DETAIL", "Schreibtisch höhenverstellbar", "1", D("2"), "H87", D("450.00")),
        PlanLine("1.2", "GROUP", "Zubehör Arbeitsplatz", "1"),
        PlanLine("1.2.1", "DETAIL", "Monitorarm doppelt", "1.2", D("4"), "H87", D("75.00")),
        PlanLine("1.2.2", "DETAIL", "Kabelkanal 1,5 m", "1.2", D("10"), "H87", D("30.00")),
        PlanLine("2", "DETAIL", "Montage vor Ort", None, D("8"), "HUR", D("60.00")),
        PlanLine("3", "DETAIL", "Entsorgung Verpackung", None, D("1"), "C62", D("20.00")),
    ),
)
# DETAIL lines broken down by INFORMATION lines, a group at 7 % beside lines at 19 %, and a
# freight charge: 965.00 of lines, where adding every line would make 1,640.00.
SERVICE = Plan(
    number="WV-2025/0042",
    issued="2025-06-02",
    due="2025-06-16",
    seller=SELLER,
    buyer=Party("Praxis Dr. Lindner", "Marktplatz 7", "72070", "Tübingen"),
    lines=(
        PlanLine("10", "DETAIL", "Wartungspauschale Drucker Q2", None, D("1"), "C62", D("480.00")),
        PlanLine("10.1", "INFORMATION", "davon Anfahrt", "10", D("1"), "C62", D("80.00")),
        PlanLine("10.2", "INFORMATION", "davon Arbeitszeit", "10", D("4"), "HUR", D("100.00")),
        PlanLine("20", "GROUP", "Fachliteratur", None, rate=D("7")),
        PlanLine("20.1", "DETAIL", "Handbuch Druckertechnik", "20", D("3"), "H87", D("45.00"), D("7")),
        PlanLine("20.2", "DETAIL", "Wartungsfibel", "20", D("2"), "H87", D("25.00"), D("7")),
        PlanLine("30", "DETAIL", "Verbrauchsmaterial Toner", None, D("5"), "H87", D("60.00")),
        PlanLine("30.1", "INFORMATION", "davon Recyclingabgabe", "30", D("5"), "H87", D("2.00")),
    ),
    charges=(("Versandkosten", D("15.00")),),
)
PLANS = {"facturx-extended-sub-lines-office.xml": OFFICE, "facturx-extended-sub-lines-service.xml": SERVICE}


def write(folder: Path) -> list[Path]:
    """Writes each of ``PLANS`` as CII XML into ``folder``; returns the paths."""
    paths = []
    for name, plan in PLANS.items():
        path = folder / name
        path.write_text(cii_xml(plan), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data")):
        print(written)
