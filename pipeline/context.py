"""The small frozen, picklable things that cross into workers (STYLE.md 5): what the models are
(``ModelConfig``, fixed per worker) and what one job is (``JobContext``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.profiles.book import ProfileBook


@dataclass(frozen=True)
class ModelConfig:
    """Which back-ends a worker loads, once, in its constructor. Paths are absolute.

    No defaults here: the appliance's settings own them, and ``Settings.worker_models()`` is
    the one place that builds a ModelConfig (names as in config.toml: ``ocr.engine``,
    ``ocr.OCR_LANG``, ``ocr.threads``, ``ocr.device``, ``ocr.dpi``, ``llm.*``).
    ``ocr_thai_engine``: the engine for the Thai pages ``ocr_engine`` cannot read when it has no
    Thai model (``pipeline.runner.thai_routed``), "" for none. ``ocr_options``: the engine's own keys,
    ``ocr.<engine>_*`` without the prefix (``surya_python``, ``ppocr_det_model``), passed to it
    as keyword arguments. ``llm_adapter_path``: the LoRA GGUF to apply, "" for none;
    ``llm_gpu_layers``: layers on the GPU, 0 none, -1 all; ``llm_arbiter_table``: the
    ``pipeline.decision.arbitrate.ArbiterTable`` file, "" for the bundled one (it settles the
    fields that are not key fields); ``review_target_precision``: the completed precision the
    scorer's threshold is chosen for, ``review_scorer_dir`` its folder ("" the bundled one, "off"
    none: ``review.scorer`` false),
    ``review_line_items``: "block" or "drop"; ``review_ask_model``: "unsure", "always" or "never"
    (``review.*``);
    ``limits.worker_memory_mb`` (MB, 0: no limit) and ``limits.job_timeout_seconds`` (seconds,
    0: none).
    """

    ocr_engine: str
    ocr_lang: str
    ocr_threads: int
    ocr_device: str
    ocr_options: tuple[tuple[str, str], ...]
    ocr_thai_engine: str
    dpi: int
    llm_backend: str
    llm_model_path: str
    llm_adapter_path: str
    llm_n_ctx: int
    llm_threads: int
    llm_gpu_layers: int
    llm_max_tokens: int
    llm_enabled: bool
    llm_arbiter_table: str
    review_target_precision: float
    review_scorer_dir: str
    review_line_items: str
    review_ask_model: str
    data_dir: str
    worker_memory_mb: int
    job_timeout_seconds: float


@dataclass(frozen=True)
class StageConfig:
    """How the Ray pool is laid out (``pool.mode``, ``ocr.batch_*``, ``ocr.num_gpus``,
    ``llm.parallel``, ``llm.num_gpus``; ``appliance.settings`` is the one place that fills it).

    ``mode``: ``single`` (each worker runs whole documents with its own models), ``staged``
    (CPU workers plus one OCR stage and one LLM stage actor, ``pipeline.runtime.batching``), or ``auto``
    (staged when the Ray cluster has a GPU). Pages wait at most ``batch_window_ms``
    (milliseconds) for a batch of at most ``batch_max_pages``; ``*_num_gpus`` are Ray's GPU
    reservations of the stage actors (fractions share a GPU)."""

    mode: str = "single"
    batch_max_pages: int = 16
    batch_window_ms: int = 50
    ocr_num_gpus: float = 0.0
    llm_parallel: int = 1
    llm_num_gpus: float = 0.0


# the value proposers of tiers 1 and 2 (schema.Source's TEMPLATE, RULES, MODEL)
SOURCES = ("template", "rules", "model")


@dataclass(frozen=True)
class JobContext:
    """One document to extract. ``media_type`` comes from the sniffer; ``max_ocr_pages`` is
    OCR_MAX_PDF_PAGES; ``visual_only`` ignores embedded XML and PDF text layers (benchmarks of
    the OCR path); ``templates`` are the tenant's vendor templates as ``(vendor_id, yaml)``, and
    ``vendor_id`` (the upload's ``vendorId``) is tried first; ``profiles`` are the tenant's
    learned vendor profiles (``pipeline.profiles.book.ProfileBook``, None for none). ``force_tier`` (an operator's
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
    sources: tuple[str, ...] = ("template", "rules", "model")
    profiles: ProfileBook | None = None
