"""Tesseract through tesserocr: a fast CPU engine (about 0.5 s per page at 200 dpi) with Thai.

The ``tesserocr`` wheel bundles libtesseract; the language data comes from Debian's
``tesseract-ocr-eng``, ``tesseract-ocr-chi-sim`` and ``tesseract-ocr-tha`` packages (or any
folder named by ``TESSDATA_PREFIX``). OCR_LANG maps onto Tesseract's languages by
``models.ocr.TESSERACT_LANGS``. One thread per engine (``OMP_THREAD_LIMIT=1``): Debian's build is
5x slower with OpenMP threads competing (measurements.md).
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from models.ocr import TESSERACT_LANGS, OcrEngine, OcrLine

# Tesseract's Thai model returns each syllable as a word, so its lines come back as
# "ร ว ม ท ั ้ ง ส ิ ้ น"; Thai writes words without spaces, so spaces between two Thai characters go,
# but not the space before the baht sign (U+0E3F), which starts an amount ("รวม ฿125.00").
_THAI_GAP = re.compile(r"(?<=[\u0e00-\u0e3e\u0e40-\u0e7f]) (?=[\u0e00-\u0e3e\u0e40-\u0e7f])")
# The dot of a Thai abbreviation comes back spaced the same way ("พ . ย . 2560" for the month
# "พ.ย.", "หสน . ธรรมทินนา" for the name "หสน.ธรรมทินนา"): the dot joins the letters before it, and
# the letters after it where they are Thai.
_THAI_DOT = re.compile(r"(?<=[\u0e01-\u0e3a\u0e40-\u0e4e]) \.(?: (?=[\u0e01-\u0e3a\u0e40-\u0e4e]))?")
DEBIAN_TESSDATA = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata")
# Tesseract's tha and eng models read the baht sign before an amount as a digit 8 or a B
# ("฿11,506.91" -> "811,506.91"), whatever the font. Its box gives it away: the sign's stroke
# runs past the digits (DejaVu Sans at 24 px: 21 px tall against digits of 18; Sarabun: 21 against
# 16), where a printed 8 or B is as tall as the digits. Measured on scans of the Thai synthetic
# invoices, each 8 or B before an amount labelled by the truth: on the scorer's training pages the
# rule below finds 27 of 29 signs and none of 24 printed 8s; on the learning benchmark's two Thai
# vendors 43 of 56 signs and 1 of 13 printed 8s (its box merged with a rule line below it).
_BAHT_READS = {"8", "B"}
# What follows the sign in its word: an amount with cents ("11,506.91", "0.00"), as invoices print
# baht; the 8 of "A4 80 แกรม" stays an 8 however tall noise makes it.
_AMOUNT_WITH_CENTS = re.compile(r"\d{1,3}(?:[,.]?\d{3})*[.,]\d{2}\)?")
BAHT_MIN_HEIGHT = 1.08  # the sign's height over the median height of the word's other digits
BAHT_MIN_PIXELS = 2  # and at least this many pixels more (one is scan noise)


def find_tessdata(langs: str) -> str:
    """The tessdata folder holding every ``<lang>.traineddata`` of ``langs`` ("chi_sim+eng").

    Raises FileNotFoundError naming the Debian packages to install.
    """
    candidates = [os.environ["TESSDATA_PREFIX"]] if os.environ.get("TESSDATA_PREFIX") else []
    candidates += list(DEBIAN_TESSDATA)
    wanted = langs.split("+")
    for folder in candidates:
        if all((Path(folder) / f"{lang}.traineddata").is_file() for lang in wanted):
            return folder
    packages = " ".join("tesseract-ocr-" + lang.replace("_", "-") for lang in wanted)
    raise FileNotFoundError(f"Tesseract language data for {langs} not found; install it: apt-get install {packages}")


Symbol = tuple[str, tuple[int, int, int, int]]  # text, box (x0, y0, x1, y1) in pixels


def baht_signs(word: list[Symbol]) -> list[int]:
    """Indices of the symbols of ``word`` that are a baht sign read as "8" or "B": the first
    symbol of the word or one after a sign or bracket, followed by an amount with cents
    (``_AMOUNT_WITH_CENTS``, to the word's end), and taller than the word's other digits
    (``BAHT_MIN_HEIGHT`` times, ``BAHT_MIN_PIXELS`` more)."""
    digits = [box for i, (char, box) in enumerate(word) if char.isdigit() and i > 0]
    if not digits:
        return []
    height = sorted(y1 - y0 for _, y0, _, y1 in digits)[len(digits) // 2]
    found = []
    for i, (char, (_, y0, _, y1)) in enumerate(word[:-1]):
        if char not in _BAHT_READS or not _AMOUNT_WITH_CENTS.fullmatch("".join(c for c, _ in word[i + 1 :])):
            continue
        if i > 0 and (word[i - 1][0].isalnum() or word[i - 1][0] in ".,"):
            continue
        if height > 0 and y1 - y0 >= max(BAHT_MIN_HEIGHT * height, height + BAHT_MIN_PIXELS):
            found.append(i)
    return found


def baht_fixed(words: list[list[Symbol]]) -> str | None:
    """The line the ``words`` (their symbols) spell, joined by spaces, with each baht sign that
    ``baht_signs`` finds written as "฿"; None where there is none (the line stays as read)."""
    fixed, changed = [], False
    for word in words:
        chars = [char for char, _ in word]
        for i in baht_signs(word):
            chars[i], changed = "฿", True
        fixed.append("".join(chars))
    return " ".join(fixed) if changed else None


def thai_joined(text: str) -> str:
    """``text`` (one line as Tesseract spaced it) without the spaces its Thai model puts between
    syllables (``_THAI_GAP``) and around the dots of Thai abbreviations (``_THAI_DOT``)."""
    return _THAI_DOT.sub(".", _THAI_GAP.sub("", text))


def _text(item, level) -> str:
    """The text of ``item`` at ``level``; "" where Tesseract's layout found an element that reads
    as nothing (it raises "No text returned")."""
    try:
        return item.GetUTF8Text(level)
    except RuntimeError:
        return ""


class TesseractEngine(OcrEngine):
    """OCR with tesserocr, page segmentation mode 3 (automatic), word boxes grouped into lines;
    a baht sign read as a digit is repaired from its box (``baht_signs``)."""

    name = "tesseract"

    def __init__(self, lang: str = "ch", **_: object) -> None:
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        import tesserocr  # heavy: libtesseract

        langs = TESSERACT_LANGS[lang]
        self._api = tesserocr.PyTessBaseAPI(path=find_tessdata(langs), lang=langs, psm=tesserocr.PSM.AUTO)

    def recognize(self, image) -> list[OcrLine]:
        import tesserocr

        self._api.SetImage(image.convert("RGB"))
        self._api.Recognize()
        read: list[tuple[str, tuple, float, list[list[Symbol]]]] = []  # text, box, confidence, words
        line, word = tesserocr.RIL.TEXTLINE, tesserocr.RIL.WORD
        symbol = tesserocr.RIL.SYMBOL
        # Symbol by symbol, so that the baht sign can be told from an 8 by its box.
        for item in tesserocr.iterate_level(self._api.GetIterator(), symbol):
            if item.IsAtBeginningOf(line) or not read:
                read.append((_text(item, line), item.BoundingBox(line), item.Confidence(line), []))
            words = read[-1][3]
            if item.IsAtBeginningOf(word) or not words:
                words.append([])
            words[-1].append((_text(item, symbol), item.BoundingBox(symbol)))
        lines = []
        for text, box, confidence, words in read:
            if not text or box is None:
                continue
            text = baht_fixed(words) or text
            text = thai_joined(unicodedata.normalize("NFKC", " ".join(text.split())))
            if text:
                x0, y0, x1, y1 = box
                lines.append(
                    OcrLine(
                        text,
                        (float(x0), float(y0), float(x1), float(y1)),
                        max(0.0, min(1.0, confidence / 100)),
                    )
                )
        return lines
