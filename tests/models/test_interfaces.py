"""The model interfaces (``models.ocr.OcrEngine``, ``models.llm.LlmBackend``) declare their
optional capabilities with defaults, and the registry loads only back-ends that subclass them
(STYLE.md 16): the pipeline calls ``recognize_batch``, ``close``, ``continues`` and
``last_usage`` on any back-end without probing for them."""

from __future__ import annotations

import pytest
from PIL import Image

from models.registry import UnknownBackend, load_llm, load_ocr
from tests.fakes.llm import EchoLLM


def test_a_back_end_that_does_not_subclass_its_interface_is_refused_with_what_to_do():
    with pytest.raises(UnknownBackend, match="is not a models.ocr.OcrEngine: subclass it"):
        load_ocr("tests.fakes.ocr:PlainOcr")
    with pytest.raises(UnknownBackend, match="is not a models.llm.LlmBackend"):
        load_llm("tests.fakes.ocr:TextOcr")


def test_the_optional_capabilities_have_defaults():
    engine = load_ocr("tests.fakes.ocr:TextOcr")
    page = Image.new("RGB", (200, 100), "white")
    assert engine.recognize_batch([page, page]) == [engine.recognize(page), engine.recognize(page)]
    assert engine.close() is None
    llm = EchoLLM()
    assert llm.continues("any prompt") is False and llm.last_usage == {} and llm.close() is None
