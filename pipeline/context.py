"""The small frozen, picklable things that cross into workers (STYLE.md 5): what the models are
(``ModelConfig``, fixed per worker) and what one job is (``JobContext``)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """Which back-ends a worker loads, once, in its constructor. Paths are absolute."""

    ocr_engine: str = "rapidocr"
    ocr_lang: str = "ch"
    ocr_threads: int = 1
    dpi: int = 200
    llm_backend: str = "llama_cpp"
    llm_model_path: str = ""
    llm_n_ctx: int = 4096
    llm_threads: int = 1
    llm_max_tokens: int = 160
    llm_enabled: bool = True
    data_dir: str = "./data"
    # limits of the worker process (pipeline.worker, pipeline.pool); 0: none
    worker_memory_mb: int = 0
    job_timeout_seconds: float = 0


@dataclass(frozen=True)
class JobContext:
    """One document to extract. ``media_type`` comes from the sniffer; ``max_ocr_pages`` is
    OCR_MAX_PDF_PAGES; ``visual_only`` ignores embedded XML and PDF text layers (benchmarks of
    the OCR path); ``templates`` are the tenant's vendor templates as ``(vendor_id, yaml)``, and
    ``vendor_id`` (the upload's ``vendorId``) is tried first. ``force_tier`` (an operator's
    reprocess) runs one tier only: 0 e-invoice XML, 1 vendor template, 2 rules + LLM; the
    document fails when the forced tier cannot apply."""

    invoice_id: str
    media_type: str
    max_ocr_pages: int = 3
    vendor_id: str | None = None
    visual_only: bool = False
    name: str | None = None
    templates: tuple[tuple[str, str], ...] = ()
    force_tier: int | None = None
