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
# "ร ว ม ท ั ้ ง ส ิ ้ น"; Thai writes words without spaces, so spaces between two Thai characters go.
_THAI_GAP = re.compile(r"(?<=[\u0e00-\u0e7f]) (?=[\u0e00-\u0e7f])")
DEBIAN_TESSDATA = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata")


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


class TesseractEngine(OcrEngine):
    """OCR with tesserocr, page segmentation mode 3 (automatic), word boxes grouped into lines."""

    name = "tesseract"

    def __init__(self, lang: str = "ch", **_: object) -> None:
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        import tesserocr  # heavy: libtesseract

        langs = TESSERACT_LANGS[lang]
        self._api = tesserocr.PyTessBaseAPI(path=find_tessdata(langs), lang=langs, psm=tesserocr.PSM.AUTO)
        self._level = tesserocr.RIL.TEXTLINE

    def recognize(self, image) -> list[OcrLine]:
        import tesserocr

        self._api.SetImage(image.convert("RGB"))
        self._api.Recognize()
        lines = []
        iterator = self._api.GetIterator()
        level = tesserocr.RIL.TEXTLINE
        for item in tesserocr.iterate_level(iterator, level):
            try:
                text = item.GetUTF8Text(level)
            except RuntimeError:  # "No text returned": a text line found by layout, with no word in it
                continue
            box = item.BoundingBox(level)
            if not text or box is None:
                continue
            text = _THAI_GAP.sub("", unicodedata.normalize("NFKC", " ".join(text.split())))
            if text:
                x0, y0, x1, y1 = box
                lines.append(
                    OcrLine(
                        text,
                        (float(x0), float(y0), float(x1), float(y1)),
                        max(0.0, min(1.0, item.Confidence(level) / 100)),
                    )
                )
        return lines
