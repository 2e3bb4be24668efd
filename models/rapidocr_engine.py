"""RapidOCR (PaddleOCR models on onnxruntime): the embedded CPU default, and the GPU engine
through onnxruntime-gpu's CUDA execution provider (same shipped weights).

Its Chinese+English detection and recognition weights ship inside the ``rapidocr-onnxruntime``
wheel, so it works offline with nothing but pip. It has no Thai (use ``tesseract`` for
``OCR_LANG=th``) and tends to drop spaces between English words.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from models.ocr import OcrEngine, OcrLine

CUDA_PROVIDER = "CUDAExecutionProvider"


def _cuda_available() -> bool:
    import onnxruntime

    return CUDA_PROVIDER in onnxruntime.get_available_providers()


def bundled_detector() -> Path:
    """The PP-OCRv4 "ch" text detector (ONNX) that the rapidocr-onnxruntime wheel carries: the
    detector of ``ocr.engine = "rapidocr"``, which ``ocr.ppocr_det_model`` may name."""
    from importlib.util import find_spec

    return Path(find_spec("rapidocr_onnxruntime").origin).with_name("models") / "ch_PP-OCRv4_det_infer.onnx"


def check_options(engine: str, lang: str, device: str) -> None:
    """Refuse what the PaddleOCR models on onnxruntime cannot do, before loading them:
    ValueError for OCR_LANG ``th`` (no Thai model), RuntimeError for ``device = cuda`` when the
    installed onnxruntime has no CUDA provider."""
    if lang == "th":
        raise ValueError(f'{engine} has no Thai model; set ocr.engine = "tesseract" for OCR_LANG=th')
    if device == "cuda" and not _cuda_available():
        raise RuntimeError(
            "ocr.device = cuda, but onnxruntime has no CUDAExecutionProvider: install onnxruntime-gpu "
            "(the same version as onnxruntime) in place of onnxruntime (README, GPU host)"
        )


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


class RapidOcrEngine(OcrEngine):
    """OCR with rapidocr-onnxruntime. ``lang`` is OCR_LANG (``ch`` or ``en``); ``threads`` per
    session; ``device`` ``cpu`` or ``cuda`` (RuntimeError when the installed onnxruntime has no
    CUDA provider: install onnxruntime-gpu, README "GPU host"); ``rec_batch`` line crops per
    recognition call (rapidocr's ``rec_batch_num``; larger on a GPU)."""

    name = "rapidocr"

    def __init__(
        self, lang: str = "ch", threads: int = 2, device: str = "cpu", rec_batch: int = 0, **_: object
    ) -> None:
        check_options(self.name, lang, device)
        from rapidocr_onnxruntime import RapidOCR  # heavy: onnxruntime + opencv

        options: dict[str, object] = {"intra_op_num_threads": threads, "inter_op_num_threads": 1}
        if device == "cuda":
            _default_conv_search()
            options.update(det_use_cuda=True, cls_use_cuda=True, rec_use_cuda=True)
        options["rec_batch_num"] = rec_batch or (64 if device == "cuda" else 6)
        self._ocr = RapidOCR(**options)

    def recognize(self, image) -> list[OcrLine]:
        import numpy as np

        result, _ = self._ocr(np.asarray(image.convert("RGB")))
        return ocr_lines(result or [])

    def recognize_batch(self, images: list) -> list[list[OcrLine]]:
        """OCR several pages (of one or many documents) with one recognition pass over all their
        line crops: detection runs per page (page sizes differ), then the crops of every page go
        through the direction classifier and the recogniser together, in batches of
        ``rec_batch`` (what a GPU needs to be busy). The same lines and boxes per page as
        ``recognize``; a line's text may differ from ``recognize``'s by a space (other padding,
        ``recognise_bucketed``) but never depends on the other pages of the batch."""
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
            recognised = recognise_bucketed(ocr.text_rec, crops)
        out = []
        for boxes, record, raw_h, raw_w, first, count in pages:
            if boxes is None:
                out.append([])
                continue
            boxes = ocr._get_origin_points(boxes, record, raw_h, raw_w)
            kept_boxes, kept = ocr.filter_result(list(boxes), recognised[first : first + count])
            out.append(ocr_lines([[box.tolist(), *res] for box, res in zip(kept_boxes or [], kept or [], strict=True)]))
        return out


# Line crops are padded to a width of 48 px x this ratio step (rounded up) in recognize_batch.
RATIO_STEP = 2.0


def recognise_bucketed(recogniser, crops: list) -> list[tuple[str, float]]:
    """rapidocr's recogniser over ``crops`` (line images, H x W x 3), with each crop padded to
    its own width bucket (its width/height ratio rounded up to ``RATIO_STEP``, at least the
    model's 320/48) instead of to the widest crop of its batch, as rapidocr's
    ``TextRecognizer.__call__`` pads: there a line's text (a space, say) depended on which other
    pages shared the batch, so a document's result would depend on the load. Crops of one
    bucket go through the model together, ``rec_batch_num`` at a time. Returns (text,
    confidence) per crop, in order."""
    import math

    import numpy as np

    _, height, width = recogniser.rec_image_shape[:3]
    floor = width / height
    ratios = [crop.shape[1] / float(crop.shape[0]) for crop in crops]
    buckets: dict[float, list[int]] = {}
    for index, ratio in enumerate(ratios):
        bucket = max(floor, math.ceil(ratio / RATIO_STEP) * RATIO_STEP)
        buckets.setdefault(bucket, []).append(index)
    out: list[tuple[str, float]] = [("", 0.0)] * len(crops)
    for bucket, members in sorted(buckets.items()):
        for start in range(0, len(members), recogniser.rec_batch_num):
            chunk = members[start : start + recogniser.rec_batch_num]
            batch = np.stack([recogniser.resize_norm_img(crops[i], bucket) for i in chunk]).astype(np.float32)
            preds = recogniser.session(batch)[0]
            decoded = recogniser.postprocess_op(
                preds, False, wh_ratio_list=[ratios[i] for i in chunk], max_wh_ratio=bucket
            )
            for index, result in zip(chunk, decoded, strict=True):
                out[index] = (result[0], float(result[1]))
    return out


def ocr_lines(result) -> list[OcrLine]:
    """OcrLines from rapidocr's (corner points, text, score, ...) rows: NFKC text, the points'
    enclosing box as Python floats (rapidocr 3 gives numpy float32, which JSON cannot write);
    empty texts left out. Shared by both rapidocr packages' engines."""
    lines = []
    for points, text, score, *_ in result:
        xs = [float(p[0]) for p in points]
        ys = [float(p[1]) for p in points]
        text = unicodedata.normalize("NFKC", text).strip()
        if text:
            lines.append(OcrLine(text, (min(xs), min(ys), max(xs), max(ys)), float(score)))
    return lines
