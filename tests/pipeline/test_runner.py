"""The declared steps (``pipeline.steps``) as ``pipeline.runner.Extractor`` walks them: switched
off by ``JobContext.sources``, timed and failed in one place, an optional step's crash kept
out of the result, and parts of the list run on their own with given text or answers (what
calibration and training do)."""

from __future__ import annotations

import logging

import pytest

from pipeline.context import JobContext
from pipeline.errors import TemporaryError
from pipeline.reading.sniff import PDF
from pipeline.reading.text import UnreadableDocument, pdf_text
from pipeline.runner import Extractor
from pipeline.schema import ProcessingStatus, Source
from pipeline.steps import STEPS, select
from tests.conftest import fake_models
from tests.fakes.llm import CrashLLM, EchoLLM
from tests.support.docs import INVOICE_LINES, image_pdf, text_pdf

FAKES = fake_models()


def test_the_pipeline_is_one_declared_list():
    assert [step.name for step in STEPS] == [
        "sniff",
        "einvoice",
        "tier 0 forced",
        "read text",
        "template",
        "layout",
        "tier 1 forced",
        "profile",
        "rules",
        "score",
        "model",
        "rescore",
        "decide",
        "model lines",
        "finish",
    ]
    assert {step.source for step in STEPS} - {None} == {"template", "rules", "model"}


def test_a_proposer_left_out_of_sources_does_not_run():
    llm = EchoLLM(answers={"total_amount": "119.00"})
    work = Extractor(FAKES, llm=llm).work(JobContext("x", PDF, sources=("template", "rules")), text_pdf(INVOICE_LINES))
    assert "model" not in work.ran and llm.calls == []
    assert work.result.extraction_provider == "rules" and "llm" not in work.result.timings
    model_alone = Extractor(FAKES, llm=llm).work(JobContext("x", PDF, sources=("model",)), text_pdf(INVOICE_LINES))
    assert "rules" not in model_alone.ran and model_alone.result.extraction_provider == "fake-echo"
    assert model_alone.result.field_sources["total_amount"] == Source.MODEL


def test_a_failing_step_ends_the_run_with_one_failed_result():
    result = Extractor(fake_models(ocr="tests.fakes.ocr:EmptyOcr")).extract(JobContext("x", PDF), image_pdf())
    assert result.processing_status == ProcessingStatus.FAILED and result.data is None
    assert result.processing_error == "No text could be read from the document"
    assert "text" in result.timings and result.extraction_tier is None
    unsupported = Extractor(FAKES).extract(JobContext("x", PDF), b"GIF89a not a pdf")
    assert unsupported.processing_error == "Unsupported file type" and unsupported.timings == {}


def test_a_crashing_model_keeps_the_rules_fields(caplog):
    with caplog.at_level(logging.WARNING, logger="pipeline.steps"):
        result = Extractor(FAKES, llm=CrashLLM()).extract(JobContext("x", PDF), text_pdf(INVOICE_LINES))
    assert result.data["total_amount"] == 119 and result.extraction_tier == 2
    assert result.extraction_provider == "rules+fake-crash" and "llm" in result.timings
    assert "model step failed, going on without it: fake LLM crash" in caplog.text


def test_a_temporary_error_escapes_for_the_queue():
    class LostLlm(CrashLLM):
        def complete(self, *args, **kwargs):
            raise TemporaryError("LLM stage lost")

    with pytest.raises(TemporaryError, match="LLM stage lost"):
        Extractor(FAKES, llm=LostLlm()).extract(JobContext("x", PDF), text_pdf(INVOICE_LINES))


def test_part_of_the_list_runs_on_given_text_and_answers():
    doc = pdf_text(text_pdf(INVOICE_LINES), lambda: pytest.fail("the text is given"), max_ocr_pages=0)
    llm = EchoLLM(answers={"vendor_name": "Someone Else Ltd"})
    tool = Extractor(FAKES, llm=llm)
    asked = tool.work(JobContext("x", PDF), doc=doc, steps=select(until="model"))
    assert asked.result is None and asked.answer.fields == {} and len(llm.calls) == 1
    decided = tool.work(JobContext("x", PDF), doc=doc, answer=asked.answer, steps=select(until="decide"))
    assert len(llm.calls) == 1 and "read text" not in decided.ran and "model" not in decided.ran
    assert decided.decisions["total_amount"].value == 119


def test_select_names_unknown_steps():
    assert [step.name for step in select(skip={"einvoice", "tier 0 forced"}, until="read text")] == [
        "sniff",
        "read text",
    ]
    with pytest.raises(KeyError, match="no step 'ocr'"):
        select(until="ocr")


def test_read_runs_only_the_reading_steps():
    extractor = Extractor(FAKES, llm=CrashLLM())  # a model call would fail the test
    doc = extractor.read(JobContext("x", PDF), text_pdf(INVOICE_LINES))
    assert [line.text for line in doc.pages[0].lines] == INVOICE_LINES and doc.pages[0].source == "text_layer"
    # visual only: the text layer is ignored and every page (up to max_ocr_pages) is OCR'd
    scanned = extractor.read(JobContext("x", PDF, max_ocr_pages=5, visual_only=True), image_pdf(pages=2))
    assert [page.source for page in scanned.pages] == ["ocr", "ocr"]
    with pytest.raises(UnreadableDocument, match="Unsupported file type"):
        extractor.read(JobContext("x", PDF), b"plain text, not a document")
