"""Tier 0 e-invoice reading: synthetic CII / ZUGFeRD 1 / UBL documents, PDFs built here with
or without an attachment, the print comparison, and the real ZUGFeRD corpus when present."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest

from pipeline.einvoice.reader import EInvoiceError, parse_xml, read_einvoice
from pipeline.schema import HEADER_FIELDS, LINE_FIELDS
from pipeline.values.money import to_json
from tests.paths import DATASETS
from tests.support.docs import ubl_monetary_total

CORPUS = DATASETS / "zugferd-corpus"
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason="../shared/datasets/zugferd-corpus is absent: it exists beside CI's clone, not on a customer's machine",
)

CII_XML = """<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
 <rsm:ExchangedDocumentContext>
  <ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
 </rsm:ExchangedDocumentContext>
 <rsm:ExchangedDocument>
  <ram:ID>RE-2024-17</ram:ID><ram:TypeCode>380</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20240131</udt:DateTimeString></ram:IssueDateTime>
 </rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:IncludedSupplyChainTradeLineItem>
   <ram:AssociatedDocumentLineDocument><ram:LineID>1</ram:LineID></ram:AssociatedDocumentLineDocument>
   <ram:SpecifiedTradeProduct><ram:SellerAssignedID>A-1</ram:SellerAssignedID><ram:Name>Widget
     large</ram:Name></ram:SpecifiedTradeProduct>
   <ram:SpecifiedLineTradeAgreement>
    <ram:NetPriceProductTradePrice><ram:ChargeAmount>12.5000</ram:ChargeAmount></ram:NetPriceProductTradePrice>
   </ram:SpecifiedLineTradeAgreement>
   <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="H87">8.0000</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>
   <ram:SpecifiedLineTradeSettlement>
    <ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode>
     <ram:RateApplicablePercent>19.00</ram:RateApplicablePercent></ram:ApplicableTradeTax>
    <ram:SpecifiedTradeAllowanceCharge>
     <ram:ChargeIndicator><udt:Indicator>false</udt:Indicator></ram:ChargeIndicator>
     <ram:ActualAmount>10.00</ram:ActualAmount>
    </ram:SpecifiedTradeAllowanceCharge>
    <ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>90.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>
   </ram:SpecifiedLineTradeSettlement>
  </ram:IncludedSupplyChainTradeLineItem>
  <ram:ApplicableHeaderTradeAgreement>
   <ram:SellerTradeParty>
    <ram:Name>Muster GmbH</ram:Name>
    <ram:DefinedTradeContact><ram:EmailURIUniversalCommunication><ram:URIID>billing@muster.example</ram:URIID></ram:EmailURIUniversalCommunication></ram:DefinedTradeContact>
    <ram:PostalTradeAddress><ram:PostcodeCode>10115</ram:PostcodeCode><ram:LineOne>Hauptstraße 1</ram:LineOne>
     <ram:LineTwo>Hinterhaus</ram:LineTwo><ram:CityName>Berlin</ram:CityName><ram:CountryID>DE</ram:CountryID></ram:PostalTradeAddress>
    <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">12/345/67890</ram:ID></ram:SpecifiedTaxRegistration>
    <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE999999999</ram:ID></ram:SpecifiedTaxRegistration>
   </ram:SellerTradeParty>
   <ram:BuyerTradeParty><ram:Name>Kunde AG</ram:Name></ram:BuyerTradeParty>
  </ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeSettlement>
   <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedTradeAllowanceCharge>
    <ram:ChargeIndicator><udt:Indicator>true</udt:Indicator></ram:ChargeIndicator>
    <ram:ActualAmount>4.90</ram:ActualAmount><ram:Reason>Versandkosten</ram:Reason>
   </ram:SpecifiedTradeAllowanceCharge>
   <ram:SpecifiedTradeAllowanceCharge>
    <ram:ChargeIndicator><udt:Indicator>true</udt:Indicator></ram:ChargeIndicator>
    <ram:ActualAmount>5.10</ram:ActualAmount><ram:Reason>Mindermengenzuschlag</ram:Reason>
   </ram:SpecifiedTradeAllowanceCharge>
   <ram:SpecifiedTradePaymentTerms>
    <ram:Description>Zahlbar innerhalb
      14 Tagen</ram:Description>
    <ram:DueDateDateTime><udt:DateTimeString format="102">20240214</udt:DateTimeString></ram:DueDateDateTime>
   </ram:SpecifiedTradePaymentTerms>
   <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    <ram:LineTotalAmount>90.00</ram:LineTotalAmount>
    <ram:ChargeTotalAmount>10.00</ram:ChargeTotalAmount>
    <ram:AllowanceTotalAmount>0.00</ram:AllowanceTotalAmount>
    <ram:TaxBasisTotalAmount>100.00</ram:TaxBasisTotalAmount>
    <ram:TaxTotalAmount currencyID="CHF">18.50</ram:TaxTotalAmount>
    <ram:TaxTotalAmount currencyID="EUR">19.00</ram:TaxTotalAmount>
    <ram:GrandTotalAmount>119.00</ram:GrandTotalAmount>
    <ram:TotalPrepaidAmount>19.00</ram:TotalPrepaidAmount>
    <ram:DuePayableAmount>100.00</ram:DuePayableAmount>
   </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
"""

ZF1_XML = """<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15">
 <rsm:SpecifiedExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>
  <ram:ID>urn:ferd:CrossIndustryDocument:invoice:1p0:basic</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
 </rsm:SpecifiedExchangedDocumentContext>
 <rsm:HeaderExchangedDocument><ram:ID>ZF1-1</ram:ID><ram:TypeCode>380</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20130605</udt:DateTimeString></ram:IssueDateTime>
 </rsm:HeaderExchangedDocument>
 <rsm:SpecifiedSupplyChainTradeTransaction>
  <ram:ApplicableSupplyChainTradeAgreement><ram:SellerTradeParty><ram:Name>Alt GmbH</ram:Name></ram:SellerTradeParty></ram:ApplicableSupplyChainTradeAgreement>
  <ram:ApplicableSupplyChainTradeSettlement>
   <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
   <ram:SpecifiedLogisticsServiceCharge><ram:Description>Versand</ram:Description><ram:AppliedAmount currencyID="EUR">5.80</ram:AppliedAmount></ram:SpecifiedLogisticsServiceCharge>
   <ram:SpecifiedTradeSettlementMonetarySummation>
    <ram:LineTotalAmount currencyID="EUR">20.00</ram:LineTotalAmount>
    <ram:TaxTotalAmount currencyID="EUR">3.80</ram:TaxTotalAmount>
    <ram:GrandTotalAmount currencyID="EUR">29.60</ram:GrandTotalAmount>
    <ram:DuePayableAmount currencyID="EUR">29.60</ram:DuePayableAmount>
   </ram:SpecifiedTradeSettlementMonetarySummation>
  </ram:ApplicableSupplyChainTradeSettlement>
  <ram:IncludedSupplyChainTradeLineItem>
   <ram:AssociatedDocumentLineDocument><ram:IncludedNote><ram:Content>Only a note</ram:Content></ram:IncludedNote></ram:AssociatedDocumentLineDocument>
  </ram:IncludedSupplyChainTradeLineItem>
  <ram:IncludedSupplyChainTradeLineItem>
   <ram:AssociatedDocumentLineDocument><ram:LineID>1</ram:LineID></ram:AssociatedDocumentLineDocument>
   <ram:SpecifiedSupplyChainTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount currencyID="EUR">10.00</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedSupplyChainTradeAgreement>
   <ram:SpecifiedSupplyChainTradeDelivery><ram:BilledQuantity unitCode="KGM">2.0000</ram:BilledQuantity></ram:SpecifiedSupplyChainTradeDelivery>
   <ram:SpecifiedSupplyChainTradeSettlement>
    <ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:ApplicablePercent>7.00</ram:ApplicablePercent></ram:ApplicableTradeTax>
    <ram:SpecifiedTradeSettlementMonetarySummation><ram:LineTotalAmount currencyID="EUR">20.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation>
   </ram:SpecifiedSupplyChainTradeSettlement>
   <ram:SpecifiedTradeProduct><ram:GlobalID schemeID="0160">4012345001235</ram:GlobalID><ram:Name>Steak</ram:Name></ram:SpecifiedTradeProduct>
  </ram:IncludedSupplyChainTradeLineItem>
 </rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>
"""

UBL_NS = (
    'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
    'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"'
)

UBL_INVOICE = (
    f"""<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" {UBL_NS}>
 <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</cbc:CustomizationID>
 <cbc:ID>UBL-42</cbc:ID>
 <cbc:IssueDate>2024-03-01</cbc:IssueDate>
 <cbc:DueDate>2024-03-31</cbc:DueDate>
 <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
 <cbc:DocumentCurrencyCode>eur</cbc:DocumentCurrencyCode>
 <cac:AccountingSupplierParty><cac:Party>
  <cbc:EndpointID schemeID="EM">invoices@seller.example</cbc:EndpointID>
  <cac:PartyName><cbc:Name>Seller Trading</cbc:Name></cac:PartyName>
  <cac:PostalAddress><cbc:StreetName>Main Street 5</cbc:StreetName><cbc:CityName>Hamburg</cbc:CityName>
   <cbc:PostalZone>20095</cbc:PostalZone><cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
  <cac:PartyTaxScheme><cbc:CompanyID>DE111111111</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
  <cac:PartyLegalEntity><cbc:RegistrationName>Seller Legal GmbH</cbc:RegistrationName></cac:PartyLegalEntity>
 </cac:Party></cac:AccountingSupplierParty>
 <cac:AccountingCustomerParty><cac:Party><cac:PartyName><cbc:Name>Buyer Ltd</cbc:Name></cac:PartyName></cac:Party></cac:AccountingCustomerParty>
 <cac:PaymentTerms><cbc:Note>30 days net</cbc:Note></cac:PaymentTerms>
 <cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReason>Rebate</cbc:AllowanceChargeReason><cbc:Amount currencyID="EUR">5.00</cbc:Amount></cac:AllowanceCharge>
 <cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>FC</cbc:AllowanceChargeReasonCode><cbc:Amount currencyID="EUR">7.00</cbc:Amount></cac:AllowanceCharge>
 <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">19.38</cbc:TaxAmount></cac:TaxTotal>
"""
    + ubl_monetary_total(
        {
            "LineExtensionAmount": "100.00",
            "TaxExclusiveAmount": "102.00",
            "TaxInclusiveAmount": "121.38",
            "AllowanceTotalAmount": "5.00",
            "ChargeTotalAmount": "7.00",
            "PrepaidAmount": "0.00",
            "PayableAmount": "121.38",
        }
    )
    + """ <cac:InvoiceLine>
  <cbc:ID>1</cbc:ID>
  <cbc:InvoicedQuantity unitCode="HUR">4</cbc:InvoicedQuantity>
  <cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
  <cac:Item><cbc:Name>Consulting</cbc:Name><cac:SellersItemIdentification><cbc:ID>CONS</cbc:ID></cac:SellersItemIdentification>
   <cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>19</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
  <cac:Price><cbc:PriceAmount currencyID="EUR">25.00</cbc:PriceAmount></cac:Price>
 </cac:InvoiceLine>
 <cac:InvoiceLine>
  <cbc:ID>2</cbc:ID><cbc:InvoicedQuantity>0</cbc:InvoicedQuantity>
  <cbc:LineExtensionAmount currencyID="EUR">0.00</cbc:LineExtensionAmount>
  <cac:Item><cbc:Name>--- Section title ---</cbc:Name></cac:Item>
 </cac:InvoiceLine>
</Invoice>
"""
)

UBL_CREDIT_NOTE = f"""<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2" {UBL_NS}>
 <cbc:ID>CN-7</cbc:ID><cbc:IssueDate>2024-04-02</cbc:IssueDate><cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>
 <cbc:DocumentCurrencyCode>USD</cbc:DocumentCurrencyCode>
 <cac:AccountingSupplierParty><cac:Party><cac:PartyName><cbc:Name>Shop Inc</cbc:Name></cac:PartyName></cac:Party></cac:AccountingSupplierParty>
 <cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:PaymentDueDate>2024-04-16</cbc:PaymentDueDate></cac:PaymentMeans>
 <cac:TaxTotal><cbc:TaxAmount currencyID="USD">1.00</cbc:TaxAmount></cac:TaxTotal>
 <cac:LegalMonetaryTotal>
  <cbc:LineExtensionAmount currencyID="USD">10.00</cbc:LineExtensionAmount>
  <cbc:TaxInclusiveAmount currencyID="USD">11.00</cbc:TaxInclusiveAmount>
  <cbc:PayableAmount currencyID="USD">11.00</cbc:PayableAmount>
 </cac:LegalMonetaryTotal>
 <cac:CreditNoteLine><cbc:ID>1</cbc:ID><cbc:CreditedQuantity unitCode="C62">1</cbc:CreditedQuantity>
  <cbc:LineExtensionAmount currencyID="USD">10.00</cbc:LineExtensionAmount>
  <cac:Item><cbc:Name>Returned mug</cbc:Name><cac:ClassifiedTaxCategory><cbc:Percent>10</cbc:Percent></cac:ClassifiedTaxCategory></cac:Item>
  <cac:Price><cbc:PriceAmount currencyID="USD">10.00</cbc:PriceAmount></cac:Price>
 </cac:CreditNoteLine>
</CreditNote>
"""


def make_pdf(attachments: dict[str, bytes] | None = None) -> bytes:
    """A one-page PDF built with pdfium, with the given embedded files."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    try:
        pdf.new_page(595, 842)
        for name, data in (attachments or {}).items():
            pdf.new_attachment(name).set_data(data)
        buffer = io.BytesIO()
        pdf.save(buffer)
        return buffer.getvalue()
    finally:
        pdf.close()


def test_cii_header_and_lines():
    invoice = parse_xml(CII_XML.encode("utf-8"), "factur-x.xml")
    assert (invoice.syntax, invoice.profile, invoice.xml_name, invoice.type_code) == (
        "CII",
        "urn:cen.eu:en16931:2017",
        "factur-x.xml",
        "380",
    )
    assert set(invoice.fields) == set(HEADER_FIELDS)
    assert invoice.fields == {
        "invoice_number": "RE-2024-17",
        "invoice_date": "2024-01-31",
        "due_date": "2024-02-14",
        "vendor_name": "Muster GmbH",
        "vendor_address": "Hauptstraße 1, Hinterhaus, 10115 Berlin",
        "vendor_tax_id": "DE999999999",  # VA (BT-31) wins over the tax number FC (BT-32)
        "vendor_email": "billing@muster.example",
        "customer_name": "Kunde AG",
        "currency": "EUR",
        "payment_terms": "Zahlbar innerhalb 14 Tagen",
        "subtotal": Decimal("90.0"),
        "discount": None,  # AllowanceTotalAmount 0.00 -> null
        "tax_amount": Decimal("19.0"),  # the EUR TaxTotalAmount, not the CHF one (BT-111)
        "service_charge": Decimal("5.1"),  # the small-quantity surcharge: charge total (BT-108) less freight
        "shipping_cost": Decimal("4.9"),  # only the freight charge
        "total_amount": Decimal("119.0"),
        "paid_amount": Decimal("19.0"),
        "balance_amount": Decimal("100.0"),
    }
    assert invoice.line_items == [
        {
            "description": "Widget large",
            "line_no": 1,
            "sku": "A-1",
            "quantity": Decimal("8.0"),
            "unit": "H87",
            "unit_price": Decimal("12.5"),
            "discount": Decimal("10.0"),
            "tax": Decimal("19.0"),
            "line_total": Decimal("90.0"),
            "group": None,
        }
    ]


def test_zugferd1_dialect_skips_note_lines_and_reads_logistics_charge():
    invoice = parse_xml(ZF1_XML)
    assert invoice.syntax == "ZUGFeRD1"
    assert invoice.profile == "urn:ferd:CrossIndustryDocument:invoice:1p0:basic"
    assert invoice.fields["invoice_number"] == "ZF1-1"
    assert invoice.fields["invoice_date"] == "2013-06-05"
    assert invoice.fields["shipping_cost"] == Decimal("5.8")
    assert invoice.fields["total_amount"] == Decimal("29.6")
    assert invoice.line_items == [
        {
            "description": "Steak",
            "line_no": 1,
            "sku": "4012345001235",
            "quantity": Decimal("2.0"),
            "unit": "KGM",
            "unit_price": Decimal("10.0"),
            "discount": None,
            "tax": Decimal("7.0"),
            "line_total": Decimal("20.0"),
            "group": None,
        }
    ]


def test_ubl_invoice():
    invoice = parse_xml(UBL_INVOICE.encode("utf-8"))
    assert invoice.syntax == "UBL"
    assert invoice.profile.startswith("urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de")
    f = invoice.fields
    assert (f["invoice_number"], f["invoice_date"], f["due_date"], f["currency"]) == (
        "UBL-42",
        "2024-03-01",
        "2024-03-31",
        "EUR",
    )
    assert f["vendor_name"] == "Seller Legal GmbH"  # BT-27 registration name, not the trading name
    assert f["vendor_address"] == "Main Street 5, 20095 Hamburg"
    assert (f["vendor_tax_id"], f["vendor_email"], f["customer_name"]) == (
        "DE111111111",
        "invoices@seller.example",
        "Buyer Ltd",
    )
    assert f["payment_terms"] == "30 days net"
    assert (f["subtotal"], f["discount"], f["shipping_cost"], f["tax_amount"]) == (
        Decimal("100.0"),
        Decimal("5.0"),
        Decimal("7.0"),
        Decimal("19.38"),
    )
    assert (f["total_amount"], f["paid_amount"], f["balance_amount"]) == (Decimal("121.38"), None, Decimal("121.38"))
    # the zero-quantity zero-amount section row is not a line
    assert invoice.line_items == [
        {
            "description": "Consulting",
            "line_no": 1,
            "sku": "CONS",
            "quantity": Decimal("4.0"),
            "unit": "HUR",
            "unit_price": Decimal("25.0"),
            "discount": None,
            "tax": Decimal("19.0"),
            "line_total": Decimal("100.0"),
            "group": None,
        }
    ]


def test_ubl_credit_note():
    invoice = parse_xml(UBL_CREDIT_NOTE.encode("utf-8"))
    assert (invoice.syntax, invoice.type_code, invoice.profile) == ("UBL", "381", None)
    assert invoice.fields["due_date"] == "2024-04-16"  # PaymentMeans/PaymentDueDate on a credit note
    assert invoice.fields["total_amount"] == Decimal("11.0")
    assert invoice.fields["vendor_name"] == "Shop Inc"
    assert [(i["description"], i["quantity"], i["tax"]) for i in invoice.line_items] == [
        ("Returned mug", Decimal("1.0"), Decimal("10.0"))
    ]
    assert all(set(i) == set(LINE_FIELDS) for i in invoice.line_items)


@pytest.mark.parametrize(
    "xml",
    [
        b"<rsm:CrossIndustryInvoice xmlns:rsm='urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100'>",
        b"not xml at all <",
        b"<Order xmlns='urn:oasis:names:specification:ubl:schema:xsd:Order-2'><ID>1</ID></Order>",
        b"<rsm:CrossIndustryInvoice xmlns:rsm='urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100'/>",
    ],
)
def test_broken_or_foreign_xml_raises(xml):
    with pytest.raises(EInvoiceError):
        parse_xml(xml)
    assert issubclass(EInvoiceError, ValueError)


def test_external_entities_are_not_resolved(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    xml = CII_XML.replace(
        '<?xml version="1.0" encoding="UTF-8"?>', f'<!DOCTYPE x [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    )
    xml = xml.replace("<ram:Name>Kunde AG</ram:Name>", "<ram:Name>&xxe;</ram:Name>")
    invoice = parse_xml(xml.encode("utf-8"))
    assert "TOP-SECRET" not in json.dumps(invoice.fields, default=str)


def test_pdf_without_xml_is_none():
    assert read_einvoice(make_pdf()) is None
    assert read_einvoice(make_pdf({"notes.txt": b"hello"})) is None


def test_pdf_with_embedded_cii():
    invoice = read_einvoice(make_pdf({"factur-x.xml": CII_XML.encode("utf-8")}))
    assert invoice is not None and invoice.xml_name == "factur-x.xml"
    assert invoice.fields["total_amount"] == Decimal("119.0")


def test_pdf_with_broken_prescribed_xml_raises():
    with pytest.raises(EInvoiceError):
        read_einvoice(make_pdf({"factur-x.xml": b"<rsm:CrossIndustryInvoice"}))


def test_pdf_other_xml_names_are_candidates_only():
    unrelated = make_pdf({"metadata.xml": b"<meta><a>1</a></meta>", "broken.xml": b"<x"})
    assert read_einvoice(unrelated) is None
    odoo_style = make_pdf({"UBL-Invoice-2.1.xml": UBL_INVOICE.encode("utf-8")})
    assert read_einvoice(odoo_style).fields["invoice_number"] == "UBL-42"


def test_read_einvoice_other_inputs():
    assert read_einvoice(UBL_INVOICE.encode("utf-8")).syntax == "UBL"  # a standalone .xml upload
    assert read_einvoice(b"\xff\xd8\xff\xe0 a jpeg") is None
    assert read_einvoice(b"%PDF-1.7 truncated garbage") is None  # pdfium cannot open it


@needs_corpus
def test_zugferd_corpus_against_truth():
    pdfs = sorted(CORPUS.glob("*.pdf"))
    assert len(pdfs) >= 20
    for pdf in pdfs:
        truth = json.loads(pdf.with_suffix(".json").read_text(encoding="utf-8"))
        invoice = read_einvoice(pdf.read_bytes())
        assert invoice is not None, pdf.name
        for key in ("invoice_number", "currency", "total_amount"):
            assert to_json(invoice.fields[key]) == truth[key], (pdf.name, key)
        if truth["line_items"] is not None:
            assert len(invoice.line_items) == len(truth["line_items"]), pdf.name


@needs_corpus
def test_invoice2data_pdfs():
    folder = DATASETS / "invoice2data"
    for name in ("AmazonWebServices.pdf", "QualityHosting.pdf", "coolblue1.pdf", "free_fiber.pdf"):
        assert read_einvoice((folder / name).read_bytes()) is None, name
    # Odoo embeds UBL in its PDFs under its own attachment name; that is read too.
    azure = read_einvoice((folder / "AzureInterior.pdf").read_bytes())
    truth = json.loads((folder / "AzureInterior.json").read_text(encoding="utf-8"))
    assert azure is not None and azure.syntax == "UBL"
    assert (azure.fields["invoice_number"], to_json(azure.fields["total_amount"])) == (
        truth["invoice_number"],
        truth["total_amount"],
    )
