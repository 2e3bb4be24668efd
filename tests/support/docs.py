"""Small documents made by the tests themselves (no third-party files): PNG, JPEG and PDFs."""

from __future__ import annotations

import io

from PIL import Image
from PIL.PngImagePlugin import PngInfo


def receipt_text(total_line: str) -> str:
    """A receipt's text around ``total_line``: a vendor and a date, so that every key field a
    receipt has is printed (without them the arbiter flags the document, pipeline.decision.arbitrate)."""
    return f"Corner Shop Ltd\nDate: 2024-03-05\n{total_line}"


def png_with_text(text: str | None = None, size: tuple[int, int] = (200, 100)) -> bytes:
    """A white PNG whose ``ocr_text`` chunk tells tests.fakes.ocr.TextOcr what the page says.

    Note: PIL carries PNG text chunks into ``image.info`` only for the opened PNG, which is what
    the pipeline OCRs; a JPEG has no such chunk and gets DEFAULT_TEXT.
    """
    info = PngInfo()
    if text is not None:
        info.add_text("ocr_text", text)
    out = io.BytesIO()
    Image.new("RGB", size, "white").save(out, "PNG", pnginfo=info)
    return out.getvalue()


def jpeg(size: tuple[int, int] = (200, 100)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, "white").save(out, "JPEG")
    return out.getvalue()


def image_pdf(pages: int = 1) -> bytes:
    """A PDF of blank image pages (no text layer), as a scanner makes."""
    out = io.BytesIO()
    images = [Image.new("RGB", (200, 280), "white") for _ in range(pages)]
    images[0].save(out, "PDF", save_all=True, append_images=images[1:], resolution=72)
    return out.getvalue()


def text_pdf(lines: list[str]) -> bytes:
    """A one-page PDF with a real text layer (Helvetica), one string per line, top to bottom."""
    ops = ["BT", "/F1 11 Tf", "14 TL", "50 780 Td"]
    for line in lines:
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"({escaped}) Tj T*")
    ops.append("ET")
    return assemble_pdf(page_objects("\n".join(ops).encode("latin-1")))


def page_objects(content: bytes, encoding: str | None = "WinAnsiEncoding") -> list[bytes]:
    """Objects 1 to 5 of a one-page A4 PDF: catalog, page tree, the page, its ``content`` stream
    (as stored: plain, or encrypted by the caller) and Helvetica as /F1 (in ``encoding``, if any)."""
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica"
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        font + (f" /Encoding /{encoding}".encode() if encoding else b"") + b" >>",
    ]


def assemble_pdf(objects: list[bytes], trailer_extra: bytes = b"") -> bytes:
    """A PDF file from its numbered objects (1 is the catalog), with a correct xref table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R ".encode()
        + trailer_extra
        + f" >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


INVOICE_LINES = [
    "ACME Tools GmbH",
    "Musterstrasse 1, 80331 Muenchen",
    "Invoice No: INV-2024-001",
    "Invoice Date: 2024-03-05",
    "Description Qty Price Amount",
    "Hammer 2 10.00 20.00",
    "Saw 1 80.00 80.00",
    "Subtotal 100.00",
    "VAT 19% 19.00",
    "Total EUR 119.00",
]


# A CII e-invoice (Factur-X / ZUGFeRD 2) in parts: the header up to the settlement, the tail, and
# the settlement's charges and totals as the tests need them.
CII_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
 <rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter>
  <ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>
 <rsm:ExchangedDocument><ram:ID>INV-2024-001</ram:ID><ram:TypeCode>380</ram:TypeCode>
  <ram:IssueDateTime><udt:DateTimeString format="102">20240305</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
 <rsm:SupplyChainTradeTransaction>
  <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>ACME Tools GmbH</ram:Name>
   </ram:SellerTradeParty><ram:BuyerTradeParty><ram:Name>Kunde AG</ram:Name></ram:BuyerTradeParty>
  </ram:ApplicableHeaderTradeAgreement>
  <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
"""
CII_TAIL = """  </ram:ApplicableHeaderTradeSettlement>
 </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
"""


def cii_charge(amount: str, reason: str) -> str:
    """A document-level charge (BG-21) of a CII settlement."""
    return (
        f"<ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>true</udt:Indicator>"
        f"</ram:ChargeIndicator><ram:ActualAmount>{amount}</ram:ActualAmount><ram:Reason>{reason}</ram:Reason>"
        f"</ram:SpecifiedTradeAllowanceCharge>\n"
    )


def cii_summation(**amounts: str) -> str:
    """``LineTotalAmount="100.00"`` ... as a CII header summation (BG-22), in EN 16931's order."""
    order = (
        "LineTotalAmount",
        "ChargeTotalAmount",
        "AllowanceTotalAmount",
        "TaxBasisTotalAmount",
        "TaxTotalAmount",
        "GrandTotalAmount",
        "TotalPrepaidAmount",
        "RoundingAmount",
        "DuePayableAmount",
    )
    currency = {"TaxTotalAmount": ' currencyID="EUR"'}
    cells = "".join(
        f"<ram:{name}{currency.get(name, '')}>{amounts[name]}</ram:{name}>" for name in order if name in amounts
    )
    return f"<ram:SpecifiedTradeSettlementHeaderMonetarySummation>{cells}</ram:SpecifiedTradeSettlementHeaderMonetarySummation>\n"


def ubl_monetary_total(amounts: dict[str, str], currency: str = "EUR") -> str:
    """``{"LineExtensionAmount": "100.00", ...}`` as a UBL document total (BG-22,
    cac:LegalMonetaryTotal) in ``currency``, one amount a line, in EN 16931's order."""
    order = (
        "LineExtensionAmount",
        "TaxExclusiveAmount",
        "TaxInclusiveAmount",
        "AllowanceTotalAmount",
        "ChargeTotalAmount",
        "PrepaidAmount",
        "PayableRoundingAmount",
        "PayableAmount",
    )
    cells = "".join(
        f'  <cbc:{name} currencyID="{currency}">{amounts[name]}</cbc:{name}>\n' for name in order if name in amounts
    )
    return f" <cac:LegalMonetaryTotal>\n{cells} </cac:LegalMonetaryTotal>\n"


# INVOICE_LINES' invoice, net 100.00; ``.format(tax=..., total=...)`` sets its tax and total.
MINIMAL_CII = (
    CII_HEAD
    + cii_summation(
        LineTotalAmount="100.00",
        TaxBasisTotalAmount="100.00",
        TaxTotalAmount="{tax}",
        GrandTotalAmount="{total}",
        DuePayableAmount="{total}",
    )
    + CII_TAIL
)


def hybrid_pdf(printed_total: str = "119.00", xml_total: str = "119.00") -> bytes:
    """A hybrid e-invoice: a text-layer PDF (INVOICE_LINES, total as given) embedding factur-x.xml."""
    lines = [line if not line.startswith("Total") else f"Total EUR {printed_total}" for line in INVOICE_LINES]
    lines = [line for line in lines if not line.startswith(("Hammer", "Saw", "Description"))]
    tax = f"{float(xml_total) - 100:.2f}"
    return embed_xml(text_pdf(lines), MINIMAL_CII.format(total=xml_total, tax=tax))


def embed_xml(pdf_bytes: bytes, xml: str, name: str = "factur-x.xml") -> bytes:
    """``pdf_bytes`` with ``xml`` attached as an embedded file (how hybrid e-invoices carry it)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(pdf_bytes)
    try:
        pdf.new_attachment(name).set_data(xml.encode())
        out = io.BytesIO()
        pdf.save(out)
        return out.getvalue()
    finally:
        pdf.close()
