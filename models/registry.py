"""Config names of the model back-ends and how to load them.

A name is either one of the built-in short names below or a ``"module:Class"`` path, which is
how tests plug in fakes and how an operator plugs in a back-end of their own (STYLE.md 4, 9).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from models.llm import LlmBackend
from models.ocr import OcrEngine

# Our extraction adapter for the bundled Gemma 3 270M (LoRA GGUF, built by
# scripts/train-extractor; model card and SHA-256 beside it in models/adapters/).
ADAPTERS_DIR = Path(__file__).with_name("adapters")
BUNDLED_ADAPTER = str(ADAPTERS_DIR / "gemma3-270m-invoice-lora.gguf")
BUNDLED_ADAPTER_SHA256 = ADAPTERS_DIR / "gemma3-270m-invoice-lora.gguf.sha256"

OCR_ENGINES = {
    "rapidocr": "models.rapidocr_engine:RapidOcrEngine",
    "ppocr": "models.ppocr_engine:PpOcrEngine",
    "tesseract": "models.tesseract_engine:TesseractEngine",
    "surya": "models.surya_engine:SuryaEngine",  # GPU hosts; its own environment (docs/surya.md)
}
# Built-in engines without a Thai model (they refuse OCR_LANG "th"; pipeline.runner.ocr_engine
# routes Thai pages to ocr.thai_engine instead).
NO_THAI = frozenset({"rapidocr", "ppocr"})
LLM_BACKENDS = {
    "llama_cpp": "models.llama_cpp_backend:LlamaCppBackend",
    "none": "models.llm:NoLlm",
}


class UnknownBackend(ValueError):
    """A config names a back-end that is neither built in nor importable."""


def resolve(name: str, builtin: dict[str, str]) -> type:
    """Return the class for ``name`` (a short name of ``builtin`` or ``"module:Class"``).

    Raises UnknownBackend naming the choices when it cannot be found.
    """
    target = builtin.get(name, name)
    if ":" not in target:
        raise UnknownBackend(f"unknown back-end {name!r}; choose one of {sorted(builtin)} or 'module:Class'")
    module_name, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UnknownBackend(
            f"cannot load back-end {name!r} ({exc}); choose one of {sorted(builtin)} or 'module:Class'"
        ) from exc


def load_ocr(name: str, **options: Any) -> OcrEngine:
    """Instantiate the OCR engine named in the config (``ocr.engine``). Raises UnknownBackend
    when it cannot be found or is not a ``models.ocr.OcrEngine``."""
    return _implementing(OcrEngine, name, resolve(name, OCR_ENGINES))(**options)


def load_llm(name: str, **options: Any) -> LlmBackend:
    """Instantiate the LLM back-end named in the config (``llm.backend``). Raises UnknownBackend
    when it cannot be found or is not a ``models.llm.LlmBackend``."""
    return _implementing(LlmBackend, name, resolve(name, LLM_BACKENDS))(**options)


def _implementing(interface: type, name: str, cls: type) -> type:
    """``cls`` when it subclasses ``interface`` (so that it has the optional capabilities'
    defaults); else UnknownBackend."""
    if not (isinstance(cls, type) and interface in cls.__mro__):
        raise UnknownBackend(
            f"back-end {name!r} is not a {interface.__module__}.{interface.__name__}: subclass it "
            "(it declares the optional capabilities with their defaults)"
        )
    return cls
