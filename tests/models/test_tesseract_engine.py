"""The baht sign that Tesseract reads as an 8 or a B, told from a printed 8 by its box
(models.tesseract_engine.baht_signs), on symbol boxes and on a rendered line (skipped without
Debian's Tesseract data or the DejaVu font)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from models.tesseract_engine import baht_fixed, baht_signs, find_tessdata, thai_joined

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def word(text: str, tall: set[int] = frozenset()) -> list:
    """Symbols of ``text`` 10 px apart on a baseline at y=43, 18 px tall; those at ``tall`` as
    the baht sign prints: 21 px, reaching 3 px below the baseline."""
    return [(char, (10 * i, 25, 10 * i + 9, 46 if i in tall else 43)) for i, char in enumerate(text)]


def test_a_tall_eight_before_an_amount_is_the_baht_sign_and_a_printed_eight_is_not():
    assert baht_signs(word("811,506.91", tall={0})) == [0]
    assert baht_signs(word("B752.80", tall={0})) == [0]
    assert baht_signs(word("811,506.91")) == []  # an 8 at the digits' height
    assert baht_signs(word("(8752.80)", tall={1})) == [1]
    assert baht_signs(word("A8752.80", tall={1})) == []  # inside an identifier
    assert baht_signs(word("80", tall={0})) == []  # no amount with cents after it
    assert baht_signs(word("81,2", tall={0})) == []


def test_a_line_is_rewritten_only_where_a_sign_was_found():
    assert baht_fixed([word("Total"), word("811,506.91", tall={0})]) == "Total ฿11,506.91"
    assert baht_fixed([word("Total"), word("811,506.91")]) is None


def test_thai_syllables_and_abbreviation_dots_are_joined_but_not_the_baht_sign():
    assert thai_joined("ร ว ม ท ั ้ ง ส ิ ้ น ฿125.00") == "รวมทั้งสิ้น ฿125.00"
    assert thai_joined("11 พ . ย . 2560") == "11 พ.ย. 2560"  # the month, as the date parser reads it
    assert thai_joined("หสน . ธรรมทินนา") == "หสน.ธรรมทินนา"
    assert thai_joined("ขอบคุณ . Total 12.50") == "ขอบคุณ. Total 12.50"


def tessdata_or_font_missing() -> bool:
    try:
        find_tessdata("tha+eng")
    except FileNotFoundError:
        return True
    return not DEJAVU.is_file()


@pytest.mark.model
@pytest.mark.skipif(tessdata_or_font_missing(), reason="Debian's tesseract-ocr-tha/-eng data or DejaVu fonts missing")
def test_tesseract_reads_the_baht_sign_before_an_amount():
    from models.tesseract_engine import TesseractEngine

    image = Image.new("RGB", (500, 140), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(DEJAVU), 24)
    draw.text((20, 20), "Total ฿11,506.91", font=font, fill="black")
    draw.text((20, 80), "Amount 811,506.91", font=font, fill="black")
    text = [line.text for line in TesseractEngine("th").recognize(image)]
    assert text == ["Total ฿11,506.91", "Amount 811,506.91"]
