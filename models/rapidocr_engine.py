"""RapidOCR (PaddleOCR models on onnxruntime): the embedded CPU default, and the GPU engine
through onnxruntime-gpu's CUDA execution provider (same shipped weights).

Its Chinese+English detection and recognition weights ship inside the ``rapidocr-onnxruntime``
wheel, so it works offline with nothing but pip. It has no Thai (use ``tesseract`` for
``OCR_LANG=th``) and tends to drop spaces between English words.
"""

from __future__ import annotations

import unicodedata

from models.ocr import OcrLine

CUDA_PROVIDER = "CUDAExecutionProvider"


def _cuda_available() -> bool:
    import onnxruntime

    return CUDA_PROVIDER in onnxruntime.get_available_providers()


def _default_conv_search() -> None:
    """rapidocr asks cuDNN for an EXHAUSTIVE convolution search, which re-benchmarks every new
    input shape (each page and line crop has its own) and made GPU OCR slower than CPU in the
    measurements (notes: rapidocr on CUDA); DEFAULT keeps cuDNN's heuristic choice."""
    from rapidocr_onnxruntime.utils import infer_engine

    session = infer_engine.OrtInferSession
    if getattr(session, "_appliance_patched", False):
        return
    original = session._get_ep_list

    def ep_list(self):
        providers = original(self)
        for name, options in providers:
            if name == CUDA_PROVIDER:
                options["cudnn_conv_algo_search"] = "DEFAULT"
        return providers

    session._get_ep_list = ep_list
    session._appliance_patched = True


class RapidOcrEngine:
    """OCR with rapidocr-onnxruntime. ``lang`` is OCR_LANG (``ch`` or ``en``); ``threads`` per
    session; ``device`` ``cpu`` or ``cuda`` (RuntimeError when the installed onnxruntime has no
    CUDA provider: install onnxruntime-gpu, README "GPU host"); ``rec_batch`` line crops per
    recognition call (rapidocr's ``rec_batch_num``; larger on a GPU)."""

    name = "rapidocr"

    def __init__(
        self, lang: str = "ch", threads: int = 2, device: str = "cpu", rec_batch: int = 0, **_: object
    ) -> None:
        if lang == "th":
            raise ValueError('rapidocr has no Thai model; set ocr.engine = "tesseract" for OCR_LANG=th')
        from rapidocr_onnxruntime import RapidOCR  # heavy: onnxruntime + opencv

        options: dict[str, object] = {"intra_op_num_threads": threads, "inter_op_num_threads": 1}
        if device == "cuda":
            if not _cuda_available():
                raise RuntimeError(
                    "ocr.device = cuda, but onnxruntime has no CUDAExecutionProvider: install onnxruntime-gpu "
                    "(the same version as onnxruntime) in place of onnxruntime (README, GPU host)"
                )
            _default_conv_search()
            options.update(det_use_cuda=True, cls_use_cuda=True, rec_use_cuda=True)
        options["rec_batch_num"] = rec_batch or (64 if device == "cuda" else 6)
        self._ocr = RapidOCR(**options)

    def recognize(self, image) -> list[OcrLine]:
        import numpy as np

        result, _ = self._ocr(np.asarray(image.convert("RGB")))
        return _lines(result or [])

    def recognize_batch(self, images: list) -> list[list[OcrLine]]:
        """OCR several pages (of one or many documents) with one recognition pass over all their
        line crops: detection runs per page (page sizes differ), then the crops of every page go
        through the direction classifier and the recogniser together, in batches of
        ``rec_batch`` (what a GPU needs to be busy). Same lines per page as ``recognize``."""
        import numpy as np

        ocr = self._ocr
        pages: list[tuple] = []  # per page: (boxes or None, op_record, raw_h, raw_w, first crop, crop count)
        crops: list = []
        for image in images:
            img = np.asarray(image.convert("RGB"))
            img = ocr.load_img(img)
            raw_h, raw_w = img.shape[:2]
            img, ratio_h, ratio_w = ocr.preprocess(img)
            record = {"preprocess": {"ratio_h": ratio_h, "ratio_w": ratio_w}}
            img, record = ocr.maybe_add_letterbox(img, record)
            boxes, _ = ocr.auto_text_det(img)
            if boxes is None:
                pages.append((None, record, raw_h, raw_w, len(crops), 0))
                continue
            page_crops = ocr.get_crop_img_list(img, boxes)
            pages.append((boxes, record, raw_h, raw_w, len(crops), len(page_crops)))
            crops.extend(page_crops)
        recognised: list = []
        if crops:
            crops, _, _ = ocr.text_cls(crops)
            recognised, _ = ocr.text_rec(crops, False)
        out = []
        for boxes, record, raw_h, raw_w, first, count in pages:
            if boxes is None:
                out.append([])
                continue
            boxes = ocr._get_origin_points(boxes, record, raw_h, raw_w)
            kept_boxes, kept = ocr.filter_result(list(boxes), recognised[first : first + count])
            out.append(_lines([[box.tolist(), *res] for box, res in zip(kept_boxes or [], kept or [], strict=True)]))
        return out


def _lines(result) -> list[OcrLine]:
    lines = []
    for points, text, score, *_ in result:
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        text = unicodedata.normalize("NFKC", text).strip()
        if text:
            lines.append(OcrLine(text, (min(xs), min(ys), max(xs), max(ys)), float(score)))
    return lines
