"""The appliance's own extraction steps, in-process, for calibration and training: never a copy
of them (DESIGN.md: calibration, training and benchmarks run the declared list of steps).

``extractor`` builds a ``pipeline.runner.Extractor`` with the settings the appliance ships
(``appliance.settings.Settings``, the one place that maps settings onto a ``ModelConfig``),
the models the caller already holds, and no Ray. ``read_text`` runs the steps that read a
document's text (``pipeline.runner.READING``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pipeline.context import JobContext, ModelConfig
from pipeline.document import DocumentText
from pipeline.reading.sniff import JPEG, PDF
from pipeline.runner import Extractor


class NoOcr:
    """The OCR engine of a tool whose texts are all read already (a cache): asking it is a bug."""

    name = "none"

    def recognize(self, image) -> list:
        raise RuntimeError("this tool reads cached texts only; no OCR engine was given")


def shipped_models(**overrides: Any) -> ModelConfig:
    """The ``ModelConfig`` of the appliance with its shipped defaults (``config.toml``'s keys
    left unset), with ``overrides`` (field names of ``ModelConfig``)."""
    from appliance.settings import Settings

    return dataclasses.replace(Settings().worker_models(), **overrides)


def extractor(*, ocr: Any = None, llm: Any = None, **overrides: Any) -> Extractor:
    """An in-process Extractor with these models: ``ocr`` (an ``OcrEngine``; None: the texts
    must come cached, see ``NoOcr``), ``llm`` (an ``LlmBackend``; None: the model is off), and
    the shipped settings with ``overrides``."""
    models = shipped_models(llm_enabled=llm is not None, **overrides)
    return Extractor(models, ocr=ocr if ocr is not None else NoOcr(), llm=llm)


def read_text(
    tool: Extractor, data: bytes, *, is_pdf: bool, use_text_layer: bool = True, max_ocr_pages: int = 3, name: str = ""
) -> DocumentText:
    """The text of one document as the appliance's reading step makes it (PDF text layer, OCR
    of the pages without one, at most ``max_ocr_pages`` of them). Raises
    ``UnreadableDocument`` when the file cannot be read."""
    ctx = JobContext(name or "document", PDF if is_pdf else JPEG, max_ocr_pages, visual_only=not use_text_layer)
    return tool.read(ctx, data)
