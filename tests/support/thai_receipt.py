"""The Thai test page ``tests/data/thai-receipt.png``: a short receipt printed in Sarabun, the
Thai government's document font, so that the per-page script choice of OCR
(``models.script_router``) has a real Thai page to route. The PNG is committed (14 KB); this
makes it again where the font is installed (the train extra ``fontpkg-sarabun``):

    .venv/bin/python -m tests.support.thai_receipt
"""

from __future__ import annotations

from tests.paths import ROOT

THAI_RECEIPT = ROOT / "tests" / "data" / "thai-receipt.png"
LINES = (
    "ร้านกาแฟสุขใจ จำกัด",
    "ใบเสร็จรับเงิน",
    "วันที่ 12/03/2024",
    "กาแฟเย็น 2 แก้ว 90.00",
    "ขนมปังปิ้ง 1 ชิ้น 35.00",
    "รวมทั้งสิ้น 125.00",
    "ขอบคุณที่ใช้บริการ",
)


def main() -> None:
    import fontpkg_sarabun
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(fontpkg_sarabun.ROOT / "files" / "Sarabun-Regular.ttf"), 34)
    image = Image.new("L", (620, 60 + 52 * len(LINES)), 255)
    draw = ImageDraw.Draw(image)
    for row, text in enumerate(LINES):
        draw.text((30, 30 + 52 * row), text, font=font, fill=0)
    image.save(THAI_RECEIPT, optimize=True)


if __name__ == "__main__":
    main()
