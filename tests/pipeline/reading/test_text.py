"""Reading a document (``pipeline.reading``): the type by magic bytes, the PDF text layer with
word and line boxes, and unreadable inputs."""

from __future__ import annotations

import pytest

from pipeline.reading.sniff import JPEG, PDF, PNG, sniff
from pipeline.reading.text import OCR_MAX_PIXELS, UnreadableDocument, image_text, pdf_text, render_scale
from tests.fakes.ocr import TextOcr
from tests.support.docs import INVOICE_LINES, jpeg, png_with_text, text_pdf
from tests.support.hostile_docs import sized_pages_pdf


def test_sniff_by_magic_bytes():
    assert sniff(text_pdf(["x"])) == PDF
    assert sniff(b"junk before the header %PDF-1.7") == PDF
    assert sniff(png_with_text("x")) == PNG
    assert sniff(jpeg()) == JPEG
    assert sniff(b"GIF89a...") is None and sniff(b"") is None
    assert sniff(b"PK\x03\x04 docx") is None


def test_text_layer_keeps_word_and_line_boxes():
    doc = pdf_text(text_pdf(INVOICE_LINES), lambda: pytest.fail("no OCR for a text layer"), max_ocr_pages=3)
    page = doc.pages[0]
    assert page.source == "text_layer" and (page.width, page.height) == (595, 842)
    assert [line.text for line in page.lines] == INVOICE_LINES
    total = page.lines[-1]
    assert [w.text for w in total.words] == ["Total", "EUR", "119.00"]
    x0, y0, x1, y1 = total.bbox
    assert 40 < x0 < x1 < 300 and 0 < y0 < y1 < 842
    assert page.lines[0].bbox[1] < total.bbox[1]  # top-left origin: first line is higher
    assert doc.ocr_confidence is None


def test_corrupt_inputs_are_unreadable():
    with pytest.raises(UnreadableDocument):
        pdf_text(b"%PDF-1.4 broken", TextOcr, max_ocr_pages=1)
    with pytest.raises(UnreadableDocument):
        image_text(b"\x89PNG\r\n\x1a\nbroken", TextOcr)


def test_a_scanned_page_is_rendered_for_ocr_within_the_pixel_cap():
    """Issue 28: a blank (so OCR'd) 1600 x 1600 pt page at 300 dpi was a 6667 x 6667 bitmap (44
    million pixels); now it is rendered at the resolution that fits OCR_MAX_PIXELS."""
    doc = pdf_text(sized_pages_pdf((1600, 1600), (595, 842)), TextOcr, max_ocr_pages=2, dpi=300)
    big, a4 = doc.pages
    assert big.source == "ocr" and big.width * big.height <= OCR_MAX_PIXELS
    assert big.width == big.height and big.width > 0.99 * OCR_MAX_PIXELS**0.5  # square, and no smaller than needed
    assert (a4.width, a4.height) == (2480, 3509)  # an A4 page at 300 dpi is not touched


@pytest.mark.parametrize(
    "width, height, dpi, max_pixels",
    [
        (14400, 14400, 600, OCR_MAX_PIXELS),
        (14400, 3, 200, OCR_MAX_PIXELS),  # a strip
        (595.276, 841.89, 600, OCR_MAX_PIXELS),  # A4 at 600 dpi: within the cap
        (1000, 1000, 110, 10),
        (0.5, 0.5, 72, 4),  # a tiny page: at its resolution
    ],
)
def test_render_scale_keeps_pdfiums_bitmap_within_the_cap(width, height, dpi, max_pixels):
    import math

    scale = render_scale(width, height, dpi, max_pixels)
    assert 0 < scale <= dpi / 72
    assert math.ceil(width * scale) * math.ceil(height * scale) <= max_pixels  # pypdfium2's bitmap size
    if (width * dpi / 72 + 1) * (height * dpi / 72 + 1) <= max_pixels:
        assert scale == dpi / 72


def test_render_scale_of_an_empty_page_is_the_resolution():
    assert render_scale(0, 842, 200, OCR_MAX_PIXELS) == 200 / 72


class MarkedTextPage:
    """A pdfium text page's character stream (``count_chars``, ``get_text_range``,
    ``get_charbox``: left, bottom, right, top in points) of "ทั้ง 9": Thai vowel and tone marks
    drawn above their consonant, as fpdf2 positions them."""

    CHARS = [
        ("ท", (10, 100, 16, 110)),
        ("\u0e31", (12, 110, 15, 114)),  # MAI HAN-AKAT, above the consonant before it
        ("\u0e49", (13, 114, 16, 118)),  # MAI THO, above that
        ("ง", (16, 100, 22, 110)),
        (" ", (22, 100, 25, 110)),
        ("9", (25, 100, 31, 110)),
    ]

    def count_chars(self) -> int:
        return len(self.CHARS)

    def get_text_range(self, index: int, count: int) -> str:
        return self.CHARS[index][0]

    def get_charbox(self, index: int) -> tuple:
        return self.CHARS[index][1]


def test_a_combining_mark_drawn_above_its_letter_stays_in_the_word():
    from pipeline.reading.text import text_layer_words

    words = text_layer_words(MarkedTextPage(), height=200)
    assert [w[0] for w in words] == ["ทั้ง", "9"]  # was "ท", "ั้", "ง": every Thai label missed
    assert words[0][1] == (10, 90, 22, 100)  # the box of the letters, the marks inside it


def test_a_title_printed_large_beside_an_address_block_does_not_chain_its_lines():
    """Line extents are the median of their words': the union would grow with "Rechnung" (55 to
    73) and take the street line below the name into the name's line."""
    from pipeline.reading.text import group_lines

    words = [
        ("Bloch", (60.7, 53.4, 96.7, 63.0), None),
        ("OHG", (102.6, 53.6, 132.0, 63.0), None),
        ("mbH", (138.2, 53.4, 168.0, 63.0), None),
        ("Rechnung", (341.0, 55.0, 442.0, 73.0), None),
        ("Henni-Bolzmann-Ring", (60.3, 68.8, 146.2, 76.7), None),
        ("7-6", (150.2, 69.0, 162.2, 75.2), None),
    ]
    assert [line.text for line in group_lines(words)] == ["Bloch OHG mbH Rechnung", "Henni-Bolzmann-Ring 7-6"]


def test_the_columns_of_a_header_block_stay_on_their_own_lines():
    """OCR segments of a four-column header, each column's rows a little apart from the next's."""
    from pipeline.reading.text import group_lines

    segments = [
        ("Customer:", (164, 318, 299, 353), 0.9),
        ("Invoice No.", (630, 324, 756, 359), 0.9),
        ("Invoice Date", (857, 330, 996, 363), 0.9),
        ("Hyde PLC", (1098, 332, 1240, 375), 0.9),
        ("Taylor Inc", (164, 351, 317, 388), 0.9),
        ("0024809", (630, 353, 756, 393), 0.9),
        ("14/04/2020", (857, 361, 1016, 395), 0.9),
        ("364 Louise Loaf", (1097, 367, 1285, 406), 0.9),
    ]
    assert [line.text for line in group_lines(segments)] == [
        "Customer: Invoice No. Invoice Date Hyde PLC",
        "Taylor Inc 0024809 14/04/2020 364 Louise Loaf",
    ]


def test_text_standing_in_the_margin_does_not_join_the_rows_beside_it():
    """A FeRD page as ppocr boxed it: the margin's "Copyright FORUM ELEKTRONISCHE RECHNUNG", set
    on its side, spans the item header and the totals block; every row overlapped it and the four
    rows became one line, the totals after all their labels."""
    from pipeline.reading.text import group_lines

    segments = [
        ("ZUG  -    14", (55, 763, 77, 1234), 0.71),
        ("Art.Nr.", (160, 764, 225, 793), 1.0),
        ("Rechnungssumme Brutto (inkl. USt.)", (160, 1085, 645, 1121), 0.99),
        ("Rechnungssumme Netto (excl. USt.)", (161, 994, 612, 1028), 1.0),
        ("Steuerbasisbetrag USt. 19%", (162, 1034, 512, 1066), 0.98),
        ("Artikelbeschreibung", (515, 764, 690, 795), 1.0),
        ("Betrag", (1443, 764, 1512, 797), 1.0),
        ("198,00", (1303, 1030, 1397, 1068), 1.0),
        ("235,62", (1415, 1082, 1513, 1124), 1.0),
        ("198,00", (1418, 991, 1511, 1029), 1.0),
        ("37,62", (1430, 1030, 1512, 1068), 1.0),
    ]
    assert [line.text for line in group_lines(segments)] == [
        "ZUG  -    14",
        "Art.Nr. Artikelbeschreibung Betrag",
        "Rechnungssumme Netto (excl. USt.) 198,00",
        "Steuerbasisbetrag USt. 19% 198,00 37,62",
        "Rechnungssumme Brutto (inkl. USt.) 235,62",
    ]


def test_a_digit_alone_is_not_taken_for_text_on_its_side():
    """A "1" is taller than wide but of the text's height: it stays in its row."""
    from pipeline.reading.text import group_lines

    segments = [
        ("Menge", (100, 100, 160, 120), 0.9),
        ("1", (200, 98, 206, 121), 0.9),
        ("9,90", (300, 100, 340, 120), 0.9),
    ]
    assert [line.text for line in group_lines(segments)] == ["Menge 1 9,90"]
