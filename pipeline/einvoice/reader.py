"""Tier 0: e-invoices read exactly from their embedded XML, with no OCR and no LLM.

This module owns finding the invoice XML attached to a PDF (ZUGFeRD 1.x, ZUGFeRD 2.x /
Factur-X, XRechnung; hybrid PDF/A-3 files carry it as an embedded file) and mapping that XML
(UN/CEFACT CII, the ZUGFeRD 1.0 CrossIndustryDocument, or OASIS UBL Invoice/CreditNote) onto
schema 2.9: header fields and line items. Every rule names its source term of the EN 16931
semantic model (BT-n) so the mapping can be checked against the standard, and it follows
the dataset conventions (``subtotal`` = BT-106, zero discount/shipping/prepaid -> null,
line ``tax`` = VAT rate in percent, line ``unit`` = UN/ECE Rec. 20 code).

Whether the print says what the XML says is ``pipeline.einvoice.print_check``'s question.

Pure extraction: it may import lxml, pypdfium2 (lazily) and the standard library; it must not
import ``api`` or ``appliance``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from lxml import etree

from pipeline.reading.pdfium_lock import PDFIUM_LOCK
from pipeline.schema import HEADER_FIELDS
from pipeline.values.en16931 import counts_in_totals, is_freight
from pipeline.values.money import is_zero, to_amount

__all__ = [
    "EInvoice",
    "EInvoiceError",
    "LinePlace",
    "counted_lines",
    "embedded_xml_files",
    "parse_xml",
    "read_einvoice",
]

# Attachment names the specifications prescribe (lower-cased): Factur-X / ZUGFeRD 2.1+,
# ZUGFeRD 2.0, ZUGFeRD 1.0 ("ZUGFeRD-invoice.xml") and XRechnung in a hybrid PDF.
KNOWN_XML_NAMES = ("factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml")
# An invoice XML is a few kB to a few hundred kB; anything far larger is not one we should parse.
MAX_XML_BYTES = 20 * 1024 * 1024

NS_CII = {
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
}
NS_ZF1 = {
    "rsm": "urn:ferd:CrossIndustryDocument:invoice:1p0",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12",
    "udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15",
}
UBL_INVOICE = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
UBL_CREDIT_NOTE = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
NS_UBL = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
}


class EInvoiceError(ValueError):
    """An embedded or given XML that is not well-formed, too large, or not an invoice."""


@dataclass
class EInvoice:
    """An invoice read from its XML.

    ``syntax``: "CII" (Factur-X / ZUGFeRD 2 / XRechnung CII), "ZUGFeRD1" or "UBL".
    ``profile``: the guideline id (BT-24), e.g. "urn:cen.eu:en16931:2017"; None when absent.
    ``fields``: every schema 2.9 header key; ISO dates, Decimal amounts in the document
    currency (signs as in the XML), ISO 4217 currency; None where the XML has nothing.
    ``line_items``: dicts with every ``pipeline.schema.LINE_FIELDS`` key; empty for profiles without lines
    (MINIMUM, BASIC WL). Of an EXTENDED invoice with sub-invoice lines, the lines that count in
    the totals, with ``group`` naming the lines each is nested under (``counted_lines``).
    ``xml_name``: the attachment's file name; None for XML given directly.
    ``type_code``: the document type (BT-3, UNTDID 1001: 380 invoice, 381 credit note ...).
    ``rounding``: the rounding amount (BT-114) that makes the balance (BT-115) a payable
    figure; schema 2.9 has no field for it, validation needs it.
    """

    syntax: str
    profile: str | None
    fields: dict[str, object]
    line_items: list[dict]
    xml_name: str | None
    type_code: str | None = None
    rounding: Decimal | None = None


# --------------------------------------------------------------------------- entry points


def read_einvoice(data: bytes) -> EInvoice | None:
    """The invoice of a hybrid PDF (or of invoice XML bytes given directly), or None.

    ``data``: a whole PDF file, or the bytes of a standalone CII/UBL XML file.
    Returns None for a PDF without an invoice XML attachment, for a PDF pdfium cannot open
    (the text tiers report that), and for bytes that are neither PDF nor XML.
    Raises EInvoiceError when an attachment under a prescribed name (factur-x.xml,
    zugferd-invoice.xml, xrechnung.xml) or XML given directly is not well-formed or not an
    invoice. Attachments under other names are tried only as candidates: a file whose root
    is not an invoice is skipped silently (PDFs also embed unrelated XML, e.g. XMP exports).
    """
    head = data[:1024]
    if b"%PDF-" in head:  # the PDF header may follow a little junk (ISO 32000-1, 7.5.2)
        return _read_pdf(data)
    if _looks_like_xml(head):
        return parse_xml(data)
    return None


def embedded_xml_files(data: bytes) -> list[tuple[str, bytes]]:
    """(name, bytes) of every ``*.xml`` embedded file of a PDF, in document order.

    Raises pypdfium2's PdfiumError when the PDF cannot be opened. Reads the document's
    EmbeddedFiles name tree (where PDF/A-3 hybrids keep their XML), not page annotations.
    """
    import pypdfium2 as pdfium  # lazy: callers that never see a PDF need not load pdfium

    with PDFIUM_LOCK:  # pdfium is not thread-safe (pipeline.reading.pdfium_lock)
        pdf = pdfium.PdfDocument(data)
        try:
            found = []
            for index in range(pdf.count_attachments()):
                attachment = pdf.get_attachment(index)
                name = attachment.get_name() or ""
                if name.lower().endswith(".xml"):
                    found.append((name, bytes(attachment.get_data())))
            return found
        finally:
            pdf.close()


def parse_xml(xml: bytes | str, name: str | None = None) -> EInvoice:
    """Map one invoice XML document onto an EInvoice.

    ``xml``: the document (bytes; a str is encoded as UTF-8 after dropping its XML
    declaration, which lxml refuses in a str). ``name``: its attachment name, kept as is.
    Raises EInvoiceError when it is larger than MAX_XML_BYTES, not well-formed, its root is
    not a CII CrossIndustryInvoice, ZUGFeRD 1 CrossIndustryDocument or UBL Invoice /
    CreditNote, or it carries neither an invoice number (BT-1) nor a total (BT-112).
    """
    if isinstance(xml, str):
        xml = re.sub(r"^\s*<\?xml[^>]*\?>", "", xml).encode("utf-8")
    if len(xml) > MAX_XML_BYTES:
        raise EInvoiceError(f"invoice XML of {len(xml)} bytes is larger than {MAX_XML_BYTES}")
    root = _parse_tree(xml)
    namespace, _, local = root.tag.partition("}")
    namespace = namespace.lstrip("{")
    if namespace == NS_CII["rsm"] and local == "CrossIndustryInvoice":
        invoice = _read_cii(root, CII, name)
    elif namespace == NS_ZF1["rsm"] and local == "CrossIndustryDocument":
        invoice = _read_cii(root, ZF1, name)
    elif (namespace, local) in ((UBL_INVOICE, "Invoice"), (UBL_CREDIT_NOTE, "CreditNote")):
        invoice = _read_ubl(root, name)
    else:
        raise EInvoiceError(f"XML root {root.tag!r} is not a CII, ZUGFeRD 1 or UBL invoice")
    if invoice.fields["invoice_number"] is None and invoice.fields["total_amount"] is None:
        raise EInvoiceError("invoice XML has neither an invoice number (BT-1) nor a total (BT-112)")
    return invoice


# --------------------------------------------------------------------------- PDF and XML plumbing


def _read_pdf(data: bytes) -> EInvoice | None:
    """Prescribed attachment names first (strict), then other XML attachments (lenient)."""
    import pypdfium2 as pdfium

    try:
        attachments = embedded_xml_files(data)
    except pdfium.PdfiumError:
        return None  # corrupt or encrypted: not ours to report, the text tiers raise for it
    known = [(n, x) for n, x in attachments if n.lower() in KNOWN_XML_NAMES]
    if known:
        name, xml = known[0]
        return parse_xml(xml, name)
    for name, xml in attachments:
        try:
            return parse_xml(xml, name)
        except EInvoiceError:
            continue  # an unrelated XML attachment (or a broken one nobody calls an invoice)
    return None


def _looks_like_xml(head: bytes) -> bool:
    """True when bytes start (after a BOM and whitespace) with '<'."""
    for bom in (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"):
        if head.startswith(bom):
            return True  # UTF-16 XML: let lxml decide
    return head.lstrip().startswith(b"<")


def _parse_tree(xml: bytes) -> etree._Element:
    """Parse untrusted XML: no DTD loading, no entity expansion, no network (XXE-safe)."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, remove_comments=True, remove_pis=True
    )
    try:
        root = etree.fromstring(xml, parser)
    except etree.XMLSyntaxError as exc:
        raise EInvoiceError(f"invoice XML is not well-formed: {exc}") from exc
    if root is None:
        raise EInvoiceError("invoice XML is empty")
    return root


class _Tree:
    """XPath helpers over one element with a fixed namespace map."""

    def __init__(self, element: etree._Element, ns: dict[str, str]):
        self.element, self.ns = element, ns

    def nodes(self, path: str) -> list[_Tree]:
        return [
            _Tree(e, self.ns) for e in self.element.xpath(path, namespaces=self.ns) if isinstance(e, etree._Element)
        ]

    def node(self, path: str) -> _Tree | None:
        found = self.nodes(path)
        return found[0] if found else None

    def texts(self, path: str) -> list[str]:
        """Non-empty values (element text or attribute), whitespace collapsed."""
        out = []
        for item in self.element.xpath(path, namespaces=self.ns):
            raw = "".join(item.itertext()) if isinstance(item, etree._Element) else str(item)
            text = " ".join(raw.split())
            if text:
                out.append(text)
        return out

    def text(self, path: str) -> str | None:
        found = self.texts(path)
        return found[0] if found else None

    def first(self, *paths: str) -> str | None:
        """The text at the first of ``paths`` that has one."""
        return next((found for path in paths if (found := self.text(path))), None)

    def number(self, path: str) -> Decimal | None:
        return _number(self.text(path))


def _number(text: str | None) -> Decimal | None:
    """An XML decimal (xs:decimal: '.' separator, optional sign) as Decimal, exactly as written;
    None if absent or invalid."""
    return to_amount(text.replace(" ", "")) if text is not None else None


def _nonzero(value: Decimal | None) -> Decimal | None:
    """None for 0 (dataset convention for discount, shipping_cost, paid_amount)."""
    return None if value is None or is_zero(value) else value


def _int_or_none(text: str | None) -> int | None:
    """A line id (BT-126) as int when it is one; free-form ids such as '1.a' are not numbers."""
    return int(text) if text is not None and re.fullmatch(r"[+-]?\d{1,9}", text) else None


def _iso_date(text: str | None, fmt: str | None = None) -> str | None:
    """udt:DateTimeString to YYYY-MM-DD. Format 102 = CCYYMMDD (the only one EN 16931
    allows for dates); also accepts ISO text (ZUGFeRD 1 writes some dates that way)."""
    if not text:
        return None
    if (fmt in (None, "102")) and re.fullmatch(r"\d{8}", text):
        return _valid_date(text[:4], text[4:6], text[6:8])
    match = re.match(r"(\d{4})-(\d{2})-(\d{2})", text)
    return _valid_date(*match.groups()) if match else None


def _valid_date(year: str, month: str, day: str) -> str | None:
    try:
        return dt.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None


def _indicator(text: str | None) -> bool:
    """udt:Indicator / cbc:ChargeIndicator (xs:boolean: 'true'/'1')."""
    return (text or "").strip().lower() in ("true", "1")


@dataclass(frozen=True)
class _SellerPaths:
    """Where a syntax keeps the seller's address (BG-5), tax ids and email."""

    address: str  # the postal address element
    street: str  # its lines (BT-35, BT-36, BT-162)
    postcode: str  # BT-38
    city: str  # BT-37
    tax_ids: tuple[str, ...]  # the VAT id BT-31 first, else the tax number BT-32
    emails: tuple[str, ...]  # the contact email BT-43 first, else the electronic address BT-34 when an email (EM)


# In the order of _SellerPaths' fields.
_CII_SELLER = _SellerPaths(
    "ram:PostalTradeAddress",
    "ram:LineOne | ram:LineTwo | ram:LineThree",
    "ram:PostcodeCode",
    "ram:CityName",
    ("ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']", "ram:SpecifiedTaxRegistration/ram:ID[@schemeID='FC']"),
    (
        "ram:DefinedTradeContact/ram:EmailURIUniversalCommunication/ram:URIID",
        "ram:URIUniversalCommunication/ram:URIID[@schemeID='EM']",
    ),
)
_UBL_SELLER = _SellerPaths(
    "cac:PostalAddress",
    "cbc:StreetName | cbc:AdditionalStreetName | cac:AddressLine/cbc:Line",
    "cbc:PostalZone",
    "cbc:CityName",
    ("cac:PartyTaxScheme[cac:TaxScheme/cbc:ID='VAT']/cbc:CompanyID", "cac:PartyTaxScheme/cbc:CompanyID"),
    ("cac:Contact/cbc:ElectronicMail", "cbc:EndpointID[@schemeID='EM']"),
)


def _seller(seller: _Tree, name: str | None, paths: _SellerPaths) -> dict[str, Any]:
    """The seller's fields (BG-4): ``name`` (BT-27), and the address, tax id and email at ``paths``."""
    return {
        "vendor_name": name,
        "vendor_address": _postal_address(seller.node(paths.address), paths.street, paths.postcode, paths.city),
        "vendor_tax_id": seller.first(*paths.tax_ids),
        "vendor_email": seller.first(*paths.emails),
    }


def _postal_address(address: _Tree | None, street: str, postcode: str, city: str) -> str | None:
    """The address (BG-5) under ``address``, read at the paths ``street`` (its lines), ``postcode``
    and ``city``; None without one."""
    if address is None:
        return None
    return _join_address(address.texts(street), address.text(postcode), address.text(city))


def _join_address(street_lines: list[str], postcode: str | None, city: str | None) -> str | None:
    """'street, line 2, postcode city' as the truth files write it (country left out)."""
    place = " ".join(p for p in (postcode, city) if p)
    parts = [*street_lines, place] if place else list(street_lines)
    return ", ".join(parts) or None


def _empty_fields() -> dict[str, Any]:
    return {key: None for key in HEADER_FIELDS}


@dataclass(frozen=True)
class LinePlace:
    """A line's place in an EXTENDED invoice's sub-invoice line hierarchy: ``line_id`` (BT-126),
    ``parent_id`` (BT-X-304, the BT-126 of the line it is nested under) and ``subtype`` (BT-X-8,
    upper case: DETAIL, GROUP or INFORMATION); None where the XML has none."""

    line_id: str | None
    parent_id: str | None
    subtype: str | None


def counted_lines(rows: Iterable[tuple[LinePlace, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The line items of an invoice whose lines may nest (Factur-X 1.08 / ZUGFeRD 2.4 EXTENDED,
    "sub invoice lines", spec chapter 7.6.2): the lines that count in the totals, in document
    order, each with ``group`` set to the names of the lines it is nested under.

    ``rows``: (place, line item) per BG-25 in document order; a line item is a schema 2.10 dict
    whose ``description`` names it. Returns those line items whose subtype (BT-X-8) is neither
    GROUP nor INFORMATION, and sets ``group`` of each: the descriptions of its ancestors
    (followed by BT-X-304), outermost first, joined by " > "; None for a top-level line.

    The rule is the Factur-X 1.08 EXTENDED Schematron's (FACTUR-X_EXTENDED.sch of the FeRD /
    FNFE distribution, as mustangproject's validator ships it in schematron/ZF_240/):
    BR-FXEXT-CO-10 sums BT-131 into BT-106 only over lines whose "subtype of invoice item" is
    DETAIL or not given (the VAT breakdown rules BR-FXEXT-S-08, -Z-08 ... likewise),
    and BR-FXEXT-08 makes a GROUP line's BT-131 the sum of its DETAIL and GROUP children, so a
    GROUP is a subtotal that must not be added again; an INFORMATION line is for information
    only. A subtype outside that code list counts like DETAIL (on a valid document there is
    none), so a writer's stray code never hides a billed line. The lines that count are the
    ones a buyer books and whose net amounts add up to the subtotal (BT-106), which is what
    ``line_items`` promises (validation checks it, ``pipeline.values.validate.lines_add_up``).
    """
    rows = list(rows)
    names = {place.line_id: item.get("description") for place, item in rows if place.line_id}
    parents = {place.line_id: place.parent_id for place, _ in rows if place.line_id}
    out = []
    for place, item in rows:
        if not counts_in_totals(place.subtype):
            continue
        item["group"] = _ancestry(place, parents, names)
        out.append(item)
    return out


def _ancestry(place: LinePlace, parents: dict[str, str | None], names: dict[str, Any]) -> str | None:
    """The names of the lines above ``place`` (its parent, the parent's parent ...), outermost
    first, joined by " > "; None for a top-level line. A parent id naming no line, or a cycle
    (back to a line already passed, the line itself included), ends the walk."""
    chain: list[str] = []
    seen = {place.line_id}
    parent_id = place.parent_id
    while parent_id and parent_id in names and parent_id not in seen:
        seen.add(parent_id)
        if names[parent_id]:
            chain.append(" ".join(str(names[parent_id]).split()))
        parent_id = parents.get(parent_id)
    return " > ".join(reversed(chain)) or None


def _billing_lines(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines that bill something: a name, and a quantity or an amount. Zero-quantity
    zero-amount rows are section titles or notes (Odoo writes these into UBL; ZUGFeRD 1
    samples open with a line holding only a note)."""
    return [item for item in items if item["description"] and (bool(item["quantity"]) or bool(item["line_total"]))]


# --------------------------------------------------------------------------- CII and ZUGFeRD 1


@dataclass(frozen=True)
class _CiiDialect:
    """Element names that differ between CII D16B (ZUGFeRD 2 / Factur-X / XRechnung) and the
    ZUGFeRD 1.0 CrossIndustryDocument; paths are otherwise the same."""

    syntax: str
    ns: dict[str, str]
    context: str
    document: str
    transaction: str
    agreement: str
    settlement: str
    summation: str
    line_agreement: str
    line_delivery: str
    line_settlement: str
    line_summation: str
    rate: str


CII = _CiiDialect(
    "CII",
    NS_CII,
    "rsm:ExchangedDocumentContext",
    "rsm:ExchangedDocument",
    "rsm:SupplyChainTradeTransaction",
    "ram:ApplicableHeaderTradeAgreement",
    "ram:ApplicableHeaderTradeSettlement",
    "ram:SpecifiedTradeSettlementHeaderMonetarySummation",
    "ram:SpecifiedLineTradeAgreement",
    "ram:SpecifiedLineTradeDelivery",
    "ram:SpecifiedLineTradeSettlement",
    "ram:SpecifiedTradeSettlementLineMonetarySummation",
    "ram:RateApplicablePercent",
)
ZF1 = _CiiDialect(
    "ZUGFeRD1",
    NS_ZF1,
    "rsm:SpecifiedExchangedDocumentContext",
    "rsm:HeaderExchangedDocument",
    "rsm:SpecifiedSupplyChainTradeTransaction",
    "ram:ApplicableSupplyChainTradeAgreement",
    "ram:ApplicableSupplyChainTradeSettlement",
    "ram:SpecifiedTradeSettlementMonetarySummation",
    "ram:SpecifiedSupplyChainTradeAgreement",
    "ram:SpecifiedSupplyChainTradeDelivery",
    "ram:SpecifiedSupplyChainTradeSettlement",
    "ram:SpecifiedTradeSettlementMonetarySummation",
    "ram:ApplicablePercent",
)


def _read_cii(root: etree._Element, d: _CiiDialect, name: str | None) -> EInvoice:
    """Header and lines of a CII (or ZUGFeRD 1) invoice."""
    tree = _Tree(root, d.ns)
    fields = _empty_fields()
    doc = f"{d.document}/"
    fields["invoice_number"] = tree.text(doc + "ram:ID")  # BT-1
    fields["invoice_date"] = _cii_datetime(tree, doc + "ram:IssueDateTime")  # BT-2
    trade = f"{d.transaction}/"
    seller = tree.node(trade + d.agreement + "/ram:SellerTradeParty")
    if seller is not None:
        fields.update(_cii_seller(seller))
    fields["customer_name"] = tree.text(trade + d.agreement + "/ram:BuyerTradeParty/ram:Name")  # BT-44
    settlement = tree.node(trade + d.settlement)
    if settlement is not None:
        fields.update(_cii_settlement(settlement, d))
    totals = settlement.node(d.summation) if settlement is not None else None
    return EInvoice(
        syntax=d.syntax,
        profile=tree.text(f"{d.context}/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"),  # BT-24
        fields=fields,
        line_items=_billing_lines(
            counted_lines(
                (_cii_line_place(line), _cii_line(line, d))
                for line in tree.nodes(trade + "ram:IncludedSupplyChainTradeLineItem")
            )
        ),
        xml_name=name,
        type_code=tree.text(doc + "ram:TypeCode"),  # BT-3
        rounding=totals.number("ram:RoundingAmount") if totals is not None else None,  # BT-114
    )


def _cii_datetime(tree: _Tree, path: str) -> str | None:
    """ISO date of a CII date-time element (udt:DateTimeString with its format attribute)."""
    node = tree.node(path + "/udt:DateTimeString")
    if node is None:
        return _iso_date(tree.text(path), None)  # ZUGFeRD 1 sometimes writes ISO text directly
    return _iso_date(node.text("."), node.element.get("format"))


def _cii_seller(seller: _Tree) -> dict[str, Any]:
    """Seller (BG-4): name BT-27, address BG-5, VAT id BT-31 (else tax number BT-32), email."""
    return _seller(seller, seller.text("ram:Name"), _CII_SELLER)


def _cii_settlement(settlement: _Tree, d: _CiiDialect) -> dict[str, Any]:
    """Currency BT-5, terms BT-20, due date BT-9 and the document totals (BG-22)."""
    currency = settlement.text("ram:InvoiceCurrencyCode")  # BT-5
    terms = settlement.texts("ram:SpecifiedTradePaymentTerms/ram:Description")  # BT-20
    due = None
    for term in settlement.nodes("ram:SpecifiedTradePaymentTerms[ram:DueDateDateTime]"):
        due = _cii_datetime(term, "ram:DueDateDateTime")  # BT-9: the first term's due date
        break
    totals = settlement.node(d.summation)
    freight, others = _cii_charges(settlement)
    charge_total = totals.number("ram:ChargeTotalAmount") if totals is not None else None  # BT-108
    out: dict[str, Any] = {
        "currency": currency.upper() if currency else None,
        "payment_terms": " ".join(terms) or None,
        "due_date": due,
        **_split_charges(freight, others, charge_total),
    }
    if totals is not None:
        out.update(
            {
                "subtotal": totals.number("ram:LineTotalAmount"),  # BT-106 sum of line net amounts
                "discount": _nonzero(totals.number("ram:AllowanceTotalAmount")),  # BT-107
                "tax_amount": _tax_total(totals, "ram:TaxTotalAmount", currency),  # BT-110
                "total_amount": totals.number("ram:GrandTotalAmount"),  # BT-112
                "paid_amount": _nonzero(totals.number("ram:TotalPrepaidAmount")),  # BT-113
                "balance_amount": totals.number("ram:DuePayableAmount"),  # BT-115
            }
        )
    return out


def _tax_total(totals: _Tree, path: str, currency: str | None) -> Decimal | None:
    """BT-110, the VAT total in the document currency. The same element may repeat as BT-111
    in the accounting currency (with another currencyID); one without currencyID counts too."""
    for node in totals.nodes(path):
        unit = node.element.get("currencyID")
        if unit is None or currency is None or unit.upper() == currency.upper():
            return node.number(".")
    return None


def _cii_charges(settlement: _Tree) -> tuple[Decimal | None, Decimal | None]:
    """Document-level charges (BG-21, ChargeIndicator true) as (freight, other charges), each
    a sum or None when there is none. Freight: reason text BT-104 reads like shipping, or code
    BT-105 = FC when there is no text; ZUGFeRD 1's SpecifiedLogisticsServiceCharge is by
    definition a transport charge."""
    freight, others = [], []
    for charge in settlement.nodes("ram:SpecifiedTradeAllowanceCharge"):
        if not _indicator(charge.text("ram:ChargeIndicator/udt:Indicator")):
            continue
        amount = charge.number("ram:ActualAmount")
        if amount is not None:
            freight_charge = is_freight(charge.text("ram:Reason"), charge.text("ram:ReasonCode"))
            (freight if freight_charge else others).append(amount)
    freight += [
        a
        for a in (c.number("ram:AppliedAmount") for c in settlement.nodes("ram:SpecifiedLogisticsServiceCharge"))
        if a is not None
    ]
    return (sum(freight) if freight else None), (sum(others) if others else None)


def _split_charges(freight: Decimal | None, others: Decimal | None, charge_total: Decimal | None) -> dict[str, Any]:
    """``shipping_cost`` and ``service_charge`` of the document-level charges: freight is
    shipping, the rest of the charge total (BT-108, which every charge is part of) is a service
    charge; without BT-108 the other charges' own sum. Zero is None (dataset convention)."""
    service = others
    if charge_total is not None:
        service = charge_total - (freight or 0)
    return {
        "shipping_cost": _nonzero(freight),
        "service_charge": _nonzero(service) if service and service > 0 else None,
    }


def _cii_line(line: _Tree, d: _CiiDialect) -> dict[str, Any]:
    """One IncludedSupplyChainTradeLineItem (BG-25) as a schema line item."""
    product = "ram:SpecifiedTradeProduct/"
    settle = d.line_settlement + "/"
    quantity = line.node(d.line_delivery + "/ram:BilledQuantity")  # BT-129, unit BT-130
    return {
        "description": line.text(product + "ram:Name") or line.text(product + "ram:Description"),  # BT-153/154
        "line_no": _int_or_none(line.text("ram:AssociatedDocumentLineDocument/ram:LineID")),  # BT-126
        # Seller's item id BT-155, else the standard id BT-157 (GTIN) the print shows as article no.
        "sku": line.text(product + "ram:SellerAssignedID") or line.text(product + "ram:GlobalID"),
        "quantity": quantity.number(".") if quantity is not None else None,
        "unit": quantity.element.get("unitCode") if quantity is not None else None,
        "unit_price": line.number(d.line_agreement + "/ram:NetPriceProductTradePrice/ram:ChargeAmount"),  # BT-146
        "discount": _nonzero(
            _sum_allowances(
                line.nodes(settle + "ram:SpecifiedTradeAllowanceCharge"),
                "ram:ChargeIndicator/udt:Indicator",
                "ram:ActualAmount",
            )
        ),  # BT-136
        "tax": line.number(settle + "ram:ApplicableTradeTax/" + d.rate),  # BT-152
        "line_total": line.number(settle + d.line_summation + "/ram:LineTotalAmount"),  # BT-131
        "group": None,  # set by counted_lines for a line nested under others (BT-X-304)
    }


def _cii_line_place(line: _Tree) -> LinePlace:
    """Where a CII line sits in the sub-invoice line hierarchy of Factur-X / ZUGFeRD EXTENDED:
    its id (BT-126), its parent's id (BT-X-304) and its subtype (BT-X-8); all None on the
    other profiles and in ZUGFeRD 1."""
    document = "ram:AssociatedDocumentLineDocument/"
    subtype = line.text(document + "ram:LineStatusReasonCode")
    return LinePlace(
        line.text(document + "ram:LineID"),
        line.text(document + "ram:ParentLineID"),
        subtype.upper() if subtype else None,
    )


def _sum_allowances(nodes: list[_Tree], indicator: str, amount: str) -> Decimal | None:
    """Sum of the allowances (indicator false) among allowance/charge nodes; None if none."""
    values = [n.number(amount) for n in nodes if not _indicator(n.text(indicator))]
    values = [v for v in values if v is not None]
    return sum(values) if values else None


# --------------------------------------------------------------------------- UBL


def _read_ubl(root: etree._Element, name: str | None) -> EInvoice:
    """Header and lines of a UBL 2.x Invoice or CreditNote (EN 16931 UBL binding)."""
    tree = _Tree(root, NS_UBL)
    credit = root.tag.endswith("}CreditNote")
    fields = _empty_fields()
    fields["invoice_number"] = tree.text("cbc:ID")  # BT-1
    fields["invoice_date"] = _iso_date(tree.text("cbc:IssueDate"))  # BT-2
    # BT-9: cbc:DueDate on an Invoice; a CreditNote (and older UBL) keeps it on PaymentMeans.
    fields["due_date"] = _iso_date(tree.text("cbc:DueDate") or tree.text("cac:PaymentMeans/cbc:PaymentDueDate"))
    currency = tree.text("cbc:DocumentCurrencyCode")  # BT-5
    fields["currency"] = currency.upper() if currency else None
    fields["payment_terms"] = " ".join(tree.texts("cac:PaymentTerms/cbc:Note")) or None  # BT-20
    seller = tree.node("cac:AccountingSupplierParty/cac:Party")
    if seller is not None:
        fields.update(_ubl_seller(seller))
    fields["customer_name"] = _ubl_party_name(tree.node("cac:AccountingCustomerParty/cac:Party"))  # BT-44
    fields.update(_ubl_totals(tree, currency))
    line_path, quantity_path = (
        ("cac:CreditNoteLine", "cbc:CreditedQuantity") if credit else ("cac:InvoiceLine", "cbc:InvoicedQuantity")
    )
    return EInvoice(
        syntax="UBL",
        profile=tree.text("cbc:CustomizationID") or tree.text("cbc:ProfileID"),  # BT-24, else BT-23
        fields=fields,
        line_items=_billing_lines(_ubl_line(line, quantity_path) for line in tree.nodes(line_path)),
        xml_name=name,
        type_code=tree.text("cbc:CreditNoteTypeCode" if credit else "cbc:InvoiceTypeCode"),  # BT-3
        rounding=tree.number("cac:LegalMonetaryTotal/cbc:PayableRoundingAmount"),  # BT-114
    )


def _ubl_party_name(party: _Tree | None) -> str | None:
    """Legal name (BT-27 / BT-44 RegistrationName), else the trading name (PartyName)."""
    if party is None:
        return None
    return party.text("cac:PartyLegalEntity/cbc:RegistrationName") or party.text("cac:PartyName/cbc:Name")


def _ubl_seller(seller: _Tree) -> dict[str, Any]:
    """Seller (BG-4): name BT-27, address BG-5, VAT id BT-31 (else tax reg. id BT-32), email."""
    return _seller(seller, _ubl_party_name(seller), _UBL_SELLER)


def _ubl_totals(tree: _Tree, currency: str | None) -> dict[str, Any]:
    """Document totals (BG-22, cac:LegalMonetaryTotal), VAT total and freight charges."""
    totals = tree.node("cac:LegalMonetaryTotal")
    tax_total = None
    for tax in tree.nodes("cac:TaxTotal"):
        tax_total = _tax_total(tax, "cbc:TaxAmount", currency)  # BT-110 (BT-111 has another currency)
        if tax_total is not None:
            break
    freight, others = [], []
    for charge in tree.nodes("cac:AllowanceCharge"):
        amount = charge.number("cbc:Amount")
        if _indicator(charge.text("cbc:ChargeIndicator")) and amount is not None:  # BG-21 charges
            freight_charge = is_freight(
                charge.text("cbc:AllowanceChargeReason"), charge.text("cbc:AllowanceChargeReasonCode")
            )
            (freight if freight_charge else others).append(amount)
    charge_total = totals.number("cbc:ChargeTotalAmount") if totals is not None else None  # BT-108
    out: dict[str, Any] = {
        "tax_amount": tax_total,
        **_split_charges(sum(freight) if freight else None, sum(others) if others else None, charge_total),
    }
    if totals is not None:
        out.update(
            {
                "subtotal": totals.number("cbc:LineExtensionAmount"),  # BT-106
                "discount": _nonzero(totals.number("cbc:AllowanceTotalAmount")),  # BT-107
                "total_amount": totals.number("cbc:TaxInclusiveAmount"),  # BT-112
                "paid_amount": _nonzero(totals.number("cbc:PrepaidAmount")),  # BT-113
                "balance_amount": totals.number("cbc:PayableAmount"),  # BT-115
            }
        )
    return out


def _ubl_line(line: _Tree, quantity_path: str) -> dict[str, Any]:
    """One InvoiceLine / CreditNoteLine (BG-25) as a schema line item."""
    quantity = line.node(quantity_path)  # BT-129, unit BT-130
    # BT-152 lives on Item/ClassifiedTaxCategory; some writers (Odoo) put it only in the line's
    # own TaxTotal/TaxSubtotal, which UBL allows, so that is the fallback.
    rate = (
        line.number("cac:Item/cac:ClassifiedTaxCategory/cbc:Percent")
        if line.text("cac:Item/cac:ClassifiedTaxCategory/cbc:Percent") is not None
        else line.number("cac:TaxTotal/cac:TaxSubtotal/cbc:Percent")
    )
    return {
        "description": line.text("cac:Item/cbc:Name") or line.text("cac:Item/cbc:Description"),  # BT-153/154
        "line_no": _int_or_none(line.text("cbc:ID")),  # BT-126
        "sku": (
            line.text("cac:Item/cac:SellersItemIdentification/cbc:ID")  # BT-155
            or line.text("cac:Item/cac:StandardItemIdentification/cbc:ID")
        ),  # BT-157
        "quantity": quantity.number(".") if quantity is not None else None,
        "unit": quantity.element.get("unitCode") if quantity is not None else None,
        "unit_price": line.number("cac:Price/cbc:PriceAmount"),  # BT-146
        "discount": _nonzero(
            _sum_allowances(line.nodes("cac:AllowanceCharge"), "cbc:ChargeIndicator", "cbc:Amount")
        ),  # BT-136
        "tax": rate,
        "line_total": line.number("cbc:LineExtensionAmount"),  # BT-131
        # XRechnung's cac:SubInvoiceLine breaks a line down (BR-DEX-02) and is not read: the
        # top-level lines are the ones whose amounts make up BT-106
        "group": None,
    }
