"""The print of an e-invoice in the common "Visualisierung" layout: the page an XRechnung /
ZUGFeRD visualisation stylesheet makes from the XML ("Visualisierung eRechnung", "Lesbarmachung
der XML-Daten"), with the EN 16931 term (BT-n) beside every label and the stylesheet's heading
token (``DWC2025``) in the title line, the token a reader must not take for the invoice number.

``visualisation_pdf(plan)`` prints a ``tests.support.facturx_extended.Plan`` as a one-page A4
PDF with a real text layer (Helvetica); the pipeline reads it from its pixels when the
extraction is ``visual_only`` (the page rendered at ``ocr.dpi`` and OCR'd, as a scan is).
``scan_jpeg`` makes a poorer scan of it: lower resolution, a skew, blur and JPEG artefacts.
Made by the tests themselves, no third-party file.
"""

from __future__ import annotations

import io
from decimal import Decimal

from tests.support.docs import assemble_pdf
from tests.support.facturx_extended import Plan

TITLE_TOKEN = "DWC2025"
PAGE_HEIGHT = 842


def german(amount: Decimal) -> str:
    """1500 -> '1.500,00'."""
    return f"{amount:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")


def german_date(iso: str) -> str:
    year, month, day = iso.split("-")
    return f"{day}.{month}.{year}"


def _rows(plan: Plan) -> list[tuple[float, float, str, int, bool]]:
    """(x, y from the top, text, size, bold) of every text run of the page."""
    runs: list[tuple[float, float, str, int, bool]] = []
    y = 50.0

    def text(x: float, value: str, size: int = 9, bold: bool = False) -> None:
        runs.append((x, y, value, size, bold))

    def field(label: str, term: str, value: str) -> None:
        nonlocal y
        text(50, label)
        text(200, term)
        text(250, value)
        y += 14

    def heading(title: str, group: str) -> None:
        nonlocal y
        y += 8
        text(50, title, 11, True)
        text(480, group)
        y += 17

    text(50, "Visualisierung eRechnung", 15, True)
    text(470, TITLE_TOKEN, 12, True)
    y += 18
    text(50, "Lesbarmachung der XML-Daten - ZUGFeRD 2.4 / Factur-X 1.08, Profil EXTENDED")
    y += 14
    heading("Rechnungsdaten", "")
    field("Rechnungsnummer", "BT-1", plan.number)
    field("Rechnungsdatum", "BT-2", german_date(plan.issued))
    field("Rechnungsart", "BT-3", "380 Handelsrechnung")
    field("Währung", "BT-5", plan.currency)
    field("Fälligkeitsdatum", "BT-9", german_date(plan.due))
    heading("Verkäufer", "BG-4")
    field("Firmenname", "BT-27", plan.seller.name)
    field("Anschrift", "BT-35", plan.seller.street)
    field("PLZ und Ort", "BT-38", f"{plan.seller.postcode} {plan.seller.city}")
    field("Umsatzsteuer-ID", "BT-31", plan.seller.vat_id or "")
    heading("Käufer", "BG-7")
    field("Name", "BT-44", plan.buyer.name)
    field("PLZ und Ort", "BT-53", f"{plan.buyer.postcode} {plan.buyer.city}")
    heading("Positionen", "BG-25")
    for x, title in ((50, "Pos."), (90, "Art"), (160, "Bezeichnung"), (340, "Menge"), (385, "Einheit"), (430, "Preis")):
        text(x, title, bold=True)
    text(490, "Nettobetrag", bold=True)
    y += 14
    for line in plan.lines:
        text(50, line.line_id)
        text(90, line.subtype)
        text(160, line.name)
        if line.subtype != "GROUP":
            text(340, f"{line.quantity:f}")
            text(385, line.unit)
            text(430, german(line.price))
        text(490, german(plan.amount(line)))
        y += 13
    if plan.charges:
        heading("Zuschläge auf Dokumentenebene", "BG-21")
        for reason, amount in plan.charges:
            field("Grund des Zuschlags", "BT-104", reason)
            field("Zuschlag (netto)", "BT-99", f"{german(amount)} {plan.currency}")
    totals = plan.totals()
    heading("Gesamtbeträge der Rechnung", "BG-22")
    rows = [
        ("Summe Positionen netto", "BT-106", totals["lines"]),
        ("Summe Zuschläge", "BT-108", totals["charges"]),
        ("Summe Nachlässe", "BT-107", Decimal("0.00")),
        ("Gesamtbetrag ohne USt.", "BT-109", totals["net"]),
        ("Summe Umsatzsteuer", "BT-110", totals["tax"]),
        ("Gesamtbetrag", "BT-112", totals["gross"]),
        ("Fälliger Betrag", "BT-115", totals["due"]),
    ]
    for label, term, amount in rows:
        field(label, term, f"{german(amount)} {plan.currency}")
    heading("Zahlungsbedingungen", "BT-20")
    text(50, plan.terms)
    return runs


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def visualisation_pdf(plan: Plan) -> bytes:
    """The plan's visualisation as a one-page A4 PDF with a text layer (Helvetica, WinAnsi)."""
    ops = []
    for x, y, value, size, bold in _rows(plan):
        font = "/F2" if bold else "/F1"
        ops.append(f"BT {font} {size} Tf {x:.1f} {PAGE_HEIGHT - y - size:.1f} Td ({_escape(value)}) Tj ET")
    content = "\n".join(ops).encode("cp1252")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
    ]
    return assemble_pdf(objects)


def scan_jpeg(pdf: bytes, dpi: int = 150, skew_degrees: float = 0.6, quality: int = 60) -> bytes:
    """The first page of ``pdf`` as a scanner returns it: grey, ``dpi``, turned by
    ``skew_degrees``, slightly blurred, a JPEG of ``quality``."""
    import pypdfium2 as pdfium
    from PIL import Image, ImageFilter

    document = pdfium.PdfDocument(pdf)
    try:
        image = document[0].render(scale=dpi / 72).to_pil().convert("L")
    finally:
        document.close()
    image = image.rotate(skew_degrees, resample=Image.BICUBIC, expand=True, fillcolor=255)
    out = io.BytesIO()
    image.filter(ImageFilter.GaussianBlur(0.6)).save(out, "JPEG", quality=quality)
    return out.getvalue()
