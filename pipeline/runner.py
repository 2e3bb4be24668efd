"""``Extractor``: the models of one worker, loaded once, and the declared steps
(``pipeline.steps.STEPS``) run over one document. A Ray actor (``pipeline.runtime``) wraps it;
calibration and training call it in-process.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from models.registry import NO_THAI, load_llm, load_ocr
from pipeline.context import JobContext, ModelConfig
from pipeline.decision.arbitrate import ArbiterTable
from pipeline.decision.scorer import SCORER_DIR, Scorer
from pipeline.document import DocumentText
from pipeline.model.llm_extract import LlmAnswer
from pipeline.reading.text import UnreadableDocument
from pipeline.result import ExtractionResult
from pipeline.steps import STEPS, Kit, OcrGate, Step, Work, run_steps, select

# sniff and the text, without the e-invoice XML: what `appliance ocr` shows and training reads
READING = select(skip={"einvoice", "tier 0 forced"}, until="read text")


def ocr_engine(models: ModelConfig, **extra: Any):
    """The OCR engine ``models`` names, loaded with its options (``ocr.*``), behind a
    ``models.script_router.ScriptRouter`` that gives Thai pages to ``ocr.thai_engine`` where the
    engine has no Thai model (``thai_routed``): always with OCR_LANG "th", with "ch" (the
    default) where Tesseract's Thai data is installed. Raises ValueError for OCR_LANG "th"
    without a Thai engine, FileNotFoundError for "th" without Tesseract's Thai data."""
    options = dict(models.ocr_options) | extra
    common = {"threads": models.ocr_threads, "device": models.ocr_device}
    if models.ocr_engine in NO_THAI and models.ocr_lang in ("ch", "th") and models.ocr_thai_engine:
        primary = load_ocr(models.ocr_engine, lang="ch", **common, **options)
        return thai_routed(primary, models.ocr_thai_engine, required=models.ocr_lang == "th", **common)
    return load_ocr(models.ocr_engine, lang=models.ocr_lang, **common, **options)


def thai_routed(primary, thai_engine: str, *, required: bool, **common: Any):
    """``primary`` behind a ``ScriptRouter`` that reads the Thai pages it is unsure of with
    engine ``thai_engine`` (lang "th"). Where that engine's data is missing (it raises
    FileNotFoundError: Tesseract without Debian's ``tesseract-ocr-tha``) ``primary`` alone,
    unless ``required``: the error then, naming the packages. The scorer's training reads
    through this too (``training.dataset``), so that it learns the pages serving reads."""
    from models.script_router import ScriptRouter

    try:
        thai = load_ocr(thai_engine, lang="th", **common)
    except FileNotFoundError:
        if required:
            raise
        return primary
    return ScriptRouter(primary, {"Thai": thai})


def llm_backend(models: ModelConfig):
    """The LLM back-end ``models`` names, loaded once (``llm.*``)."""
    return load_llm(
        models.llm_backend,
        model_path=models.llm_model_path or None,
        lora_path=models.llm_adapter_path or None,
        n_ctx=models.llm_n_ctx,
        n_threads=models.llm_threads,
        n_gpu_layers=models.llm_gpu_layers,
        data_dir=models.data_dir,
    )


def load_scorer(models: ModelConfig) -> Scorer | None:
    """The learned scorer of ``review.scorer_dir`` (the bundled one when empty). Raises
    ScorerError when an operator's folder holds none; None when it is "off" (``review.scorer``
    false) or the bundled one is not built (a checkout before scripts/train-scorer ran): the
    arbiter table then decides the key fields."""
    if models.review_scorer_dir == "off":
        return None
    if models.review_scorer_dir:
        return Scorer.load(models.review_scorer_dir)
    if not (SCORER_DIR / "calibration.json").is_file():
        return None
    return Scorer.load()


class LocalOcrGate:
    """``ocr.concurrency`` slots shared by the threads of one process (spec 8: busy OCR is a
    temporary error, so taking a slot never blocks)."""

    def __init__(self, capacity: int = 1) -> None:
        self._sem = threading.BoundedSemaphore(capacity)

    def try_acquire(self) -> bool:
        """Take a slot; False when every slot is in use."""
        return self._sem.acquire(blocking=False)

    def release(self) -> None:
        """Give a slot back."""
        self._sem.release()


class Extractor:
    """The models of one worker, loaded once, and ``extract`` for one document.

    ``gate`` limits OCR in flight across workers (a ``pipeline.steps.OcrGate``; default: one
    slot of this process). ``ocr``/``llm`` given: another process's models behind a proxy
    (``pipeline.runtime.batching``); else they are loaded from ``models``. Raises nothing for bad
    documents: the result says ``failed``; only ``pipeline.errors.TemporaryError`` (OcrBusy
    included) escapes, for the queue to retry.
    """

    def __init__(self, models: ModelConfig, gate: OcrGate | None = None, ocr: Any = None, llm: Any = None) -> None:
        if llm is None and models.llm_enabled:
            llm = llm_backend(models)
        self.kit = Kit(
            models=models,
            ocr=ocr if ocr is not None else ocr_engine(models),
            llm=llm,
            arbiter=ArbiterTable.load(models.llm_arbiter_table),
            gate=gate or LocalOcrGate(1),
            scorer=load_scorer(models),
        )

    def ping(self) -> str:
        """Liveness of the worker (the pool's health check)."""
        return "ok"

    def extract(self, ctx: JobContext, data: bytes) -> ExtractionResult:
        """Run every step on one document (the file's bytes)."""
        return self.work(ctx, data).result

    def work(
        self,
        ctx: JobContext,
        data: bytes = b"",
        *,
        doc: DocumentText | None = None,
        answer: LlmAnswer | None = None,
        arbiter: ArbiterTable | None = None,
        steps: Sequence[Step] = STEPS,
    ) -> Work:
        """The steps over one document, with the state they left (``pipeline.steps.Work``).

        For calibration and training: ``doc`` (the text, already read: no reading step) and
        ``answer`` (the model's, already given: the model does not run) skip the steps that
        would make them; ``arbiter`` replaces the fitted table for this run."""
        kit = self.kit if arbiter is None else Kit(**{**vars(self.kit), "arbiter": arbiter})
        media_type = ctx.media_type if doc is not None else None
        return run_steps(steps, Work(ctx, data, media_type=media_type, doc=doc, answer=answer), kit)

    def read(self, ctx: JobContext, data: bytes) -> DocumentText:
        """The text of one document as the reading step makes it (``READING``: the PDF text
        layer, OCR of the pages without one, at most ``ctx.max_ocr_pages`` of them; every page
        OCR'd when ``ctx.visual_only``). Raises ``UnreadableDocument`` when the file cannot be
        read (corrupt, not a PDF/JPEG/PNG); a document without text gives empty pages."""
        work = self.work(ctx, data, steps=READING)
        if work.doc is None:
            raise UnreadableDocument(work.result.processing_error if work.result else "unreadable document")
        return work.doc
