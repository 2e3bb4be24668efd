"""RapidOCR (PaddleOCR models on onnxruntime): the embedded CPU default.

Its Chinese+English detection and recognition weights ship inside the ``rapidocr-onnxruntime``
wheel, so it works offline with nothing but pip. It has no Thai (use ``tesseract`` for
``OCR_LANG=th``) and tends to drop spaces between English words.
"""

from __future__ import annotations

import unicodedata

from models.ocr import OcrLine


class RapidOcrEngine:
    """OCR with rapidocr-onnxruntime. ``lang`` is OCR_LANG (``ch`` or ``en``); ``threads`` per session."""

    name = "rapidocr"

    def __init__(self, lang: str = "ch", threads: int = 2, **_: object) -> None:
        if lang == "th":
            raise ValueError('rapidocr has no Thai model; set ocr.engine = "tesseract" for OCR_LANG=th')
        from rapidocr_onnxruntime import RapidOCR  # heavy: onnxruntime + opencv

        self._ocr = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)

    def recognize(self, image) -> list[OcrLine]:
        import numpy as np

        result, _ = self._ocr(np.asarray(image.convert("RGB")))
        lines = []
        for points, text, score in result or []:
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            text = unicodedata.normalize("NFKC", text).strip()
            if text:
                lines.append(OcrLine(text, (min(xs), min(ys), max(xs), max(ys)), float(score)))
        return lines
