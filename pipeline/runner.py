"""The stages of one extraction, run in order (STYLE.md 3): text → rules → LLM → normalise →
validate. ``Extractor`` holds the loaded models of one worker and is what a Ray actor wraps.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from pipeline import normalise
from pipeline.arbitrate import (
    ArbiterTable,
    arbitrate,
    choose_lines,
    evidence_tags,
    key_field_reasons,
    lines_settled,
)
from pipeline.context import SOURCES, JobContext, ModelConfig
from pipeline.document import DocumentText
from pipeline.einvoice import EInvoiceError, read_einvoice
from pipeline.errors import OcrBusy, TemporaryError
from pipeline.evidence import build_evidence
from pipeline.llm_extract import llm_header, llm_lines
from pipeline.print_check import print_disagreements
from pipeline.result import ExtractionResult
from pipeline.rules import RulesResult, extract_rules
from pipeline.schema import HEADER_FIELDS, ProcessingStatus, Source
from pipeline.sniff import PDF, sniff
from pipeline.templates import TemplateError, apply_template, layout_text, load_template
from pipeline.text import UnreadableDocument, image_text, pdf_text
from pipeline.validate import validate, validate_einvoice

log = logging.getLogger(__name__)


class OcrGate:
    """A non-blocking semaphore for ``ocr.concurrency`` (spec 8: busy OCR is a temporary error)."""

    def __init__(self, capacity: int = 1) -> None:
        import threading

        self._sem = threading.BoundedSemaphore(capacity)

    def try_acquire(self, holder: str = "") -> bool:
        return self._sem.acquire(blocking=False)

    def release(self, holder: str = "") -> None:
        self._sem.release()


class Extractor:
    """The models of one worker, loaded once, and ``extract`` for one document.

    ``gate`` limits OCR in flight across workers: an ``OcrGate`` in one process, or the name of
    a Ray actor with the same two methods (``pipeline.pool``; a name, not a handle, so that a
    restarted worker finds the gate again). Raises nothing for bad documents: the
    result says ``failed``; only ``pipeline.errors.TemporaryError`` (OcrBusy included) escapes,
    for the queue to retry.
    """

    def __init__(self, models: ModelConfig, gate: Any = None, ocr: Any = None, llm: Any = None) -> None:
        from pipeline.stages import llm_backend, ocr_engine

        self.models = models
        self.gate = gate or OcrGate(1)
        self.arbiter = ArbiterTable.load(models.llm_arbiter_table)
        # ``ocr``/``llm`` given: another process's models behind a proxy (pipeline.stages)
        self.ocr = ocr if ocr is not None else ocr_engine(models)
        self.llm = llm
        if llm is None and models.llm_enabled:
            self.llm = llm_backend(models)

    def ping(self) -> str:
        return "ok"

    # -- gate helpers: a Ray actor handle needs .remote(), a local gate does not
    def _gate_call(self, method: str) -> Any:
        if isinstance(self.gate, str):
            import ray

            # the slot is taken in this worker's name, so that the pool can hand it back the
            # moment Ray reports this worker dead (pipeline.worker.LeasedOcrGate.release_holder)
            holder = ray.get_runtime_context().get_actor_id() or ""
            return ray.get(getattr(ray.get_actor(self.gate), method).remote(holder))
        return getattr(self.gate, method)()

    def read_text(self, ctx: JobContext, data: bytes, media_type: str) -> DocumentText:
        """The document's text; takes the OCR gate only if a page needs OCR. Raises OcrBusy when
        the gate is full and TemporaryError when memory runs out."""
        held = False

        def engine():
            nonlocal held
            if not held:
                if not self._gate_call("try_acquire"):
                    raise OcrBusy("OCR stage busy (ocr.concurrency in use); retry later")
                held = True
            return self.ocr

        try:
            if media_type == PDF:
                return pdf_text(
                    data,
                    engine,
                    max_ocr_pages=ctx.max_ocr_pages,
                    dpi=self.models.dpi,
                    use_text_layer=not ctx.visual_only,
                )
            return image_text(data, engine)
        except MemoryError as exc:
            raise TemporaryError("out of memory while reading the document") from exc
        finally:
            if held:
                self._gate_call("release")

    def extract(self, ctx: JobContext, data: bytes) -> dict[str, Any]:
        """Run every stage on one document; returns ``ExtractionResult.to_dict()``."""
        return self.run(ctx, data).to_dict()

    def run(self, ctx: JobContext, data: bytes) -> ExtractionResult:
        timings: dict[str, float] = {}
        media_type = sniff(data[:1024])
        if media_type is None:
            return ExtractionResult(None, ProcessingStatus.FAILED, processing_error="Unsupported file type")
        note = None
        if media_type == PDF and not ctx.visual_only and ctx.force_tier in (None, 0):
            try:
                tier0 = self.einvoice(data, timings)
            except EInvoiceError as exc:  # unreadable XML: the print still has the invoice
                tier0, note = None, f"embedded e-invoice XML unreadable ({exc})"
            if tier0 is not None:
                return tier0
        if ctx.force_tier == 0:  # forced: never fall through to OCR, templates or the LLM
            reason = note or "the document embeds no e-invoice XML"
            return ExtractionResult(
                None,
                ProcessingStatus.FAILED,
                processing_error=f"Tier 0 forced, but {reason}",
                routing_reason="tier 0 forced",
                timings=timings,
            )
        if ctx.force_tier in (1, 2):
            note = f"tier {ctx.force_tier} forced"
        started = time.perf_counter()
        try:
            doc = self.read_text(ctx, data, media_type)
        except UnreadableDocument as exc:
            return ExtractionResult(None, ProcessingStatus.FAILED, processing_error=str(exc), timings=timings)
        timings["text"] = round(time.perf_counter() - started, 3)
        if not doc.text.strip():
            return ExtractionResult(
                None,
                ProcessingStatus.FAILED,
                processing_error="No text could be read from the document",
                ocr_confidence=doc.ocr_confidence,
                timings=timings,
            )
        return self.structure(doc, timings, note, ctx)

    def einvoice(self, data: bytes, timings: dict[str, float]) -> ExtractionResult | None:
        """Tier 0: a PDF with embedded CII/UBL XML is read from the XML, exactly, with no OCR and
        no LLM. Its validation is EN 16931's arithmetic, plus each key field where the visible
        text layer really disagrees with the XML (``pipeline.print_check``). None when the PDF
        embeds no invoice XML."""
        started = time.perf_counter()
        found = read_einvoice(data)
        if found is None:
            return None
        doc = pdf_text(data, _no_ocr, max_ocr_pages=0)  # the print's text layer only: never OCR here
        data_out = normalise.data(found.fields, found.line_items, doc.text)
        errors = validate_einvoice(data_out, found.rounding) + print_disagreements(found.fields, doc)
        evidence = build_evidence(data_out, doc=doc, default_source=Source.EINVOICE, errors=errors)
        timings["einvoice"] = round(time.perf_counter() - started, 3)
        profile = f", profile {found.profile}" if found.profile else ""
        return ExtractionResult(
            data=data_out,
            processing_status=ProcessingStatus.NEEDS_REVIEW if errors else ProcessingStatus.COMPLETED,
            validation_errors=errors,
            extraction_tier=0,
            extraction_provider=f"einvoice-{found.syntax.lower()}",
            routing_reason=f"embedded e-invoice XML {found.xml_name or ''} ({found.syntax}{profile})",
            timings=timings,
            field_sources={name: Source.EINVOICE for name in HEADER_FIELDS if data_out.get(name) is not None},
            evidence=evidence,
        )

    def structure(
        self, doc: DocumentText, timings: dict[str, float], note: str | None = None, ctx: JobContext | None = None
    ) -> ExtractionResult:
        """Tier 1 when a vendor template applies, else tier 2. The template, the layout rules and
        the model each propose every field; ``pipeline.arbitrate`` chooses per field and says
        which key fields are not confirmed; then normalise and validate."""
        started = time.perf_counter()
        template, vendor_id, template_note = self.match_template(doc, ctx)
        if ctx is not None and ctx.force_tier == 1 and template is None:
            return ExtractionResult(
                None,
                ProcessingStatus.FAILED,
                ocr_confidence=doc.ocr_confidence,
                routing_reason="tier 1 forced",
                processing_error=f"Tier 1 forced, but no vendor template applies ({template_note})",
                timings=timings,
            )
        sources = ctx.sources if ctx is not None else SOURCES
        found = extract_rules(doc) if "rules" in sources else RulesResult()
        timings["rules"] = round(time.perf_counter() - started, 3)
        provider = [f"template:{template.template_name}"] if template else []
        if "rules" in sources:
            provider.append("rules")
        answer = None
        if self.llm is not None and "model" in sources:  # every document without XML: the model proposes every field
            started = time.perf_counter()
            try:
                answer = llm_header(doc, self.llm, self.models.llm_max_tokens)
            except TemporaryError:  # a lost LLM stage: retry the job rather than lose the model's fields
                raise
            except Exception as exc:  # a crashing model must not lose the rules' result
                log.warning("LLM stage failed, keeping the rules' fields: %s", exc)
            timings["llm"] = round(time.perf_counter() - started, 3)
            provider.append(self.llm.name)
        rules = normalise.fields(found.fields)
        decisions = arbitrate(
            normalise.fields(template.fields) if template else {}, rules, answer.fields if answer else {}, self.arbiter
        )
        fields = {name: decision.value for name, decision in decisions.items()}
        source = {name: decision.source for name, decision in decisions.items()}
        candidates = [template.line_items if template and template.line_items else [], found.line_items]
        if answer is not None and not lines_settled(candidates, fields):  # else the model's rows could not win
            started = time.perf_counter()
            try:
                llm_lines(answer, doc, self.llm, max_tokens=self.models.llm_max_tokens)
            except TemporaryError:
                raise
            except Exception as exc:
                log.warning("LLM stage failed on line items, keeping the rules' rows: %s", exc)
            timings["llm"] = round(timings.get("llm", 0.0) + time.perf_counter() - started, 3)
        candidates.append(answer.line_items if answer else [])
        chosen, lines = choose_lines(candidates, fields)
        data = normalise.data(fields, lines, doc.text)
        tags = evidence_tags(decisions, rules, found.line_items)
        errors = validate(data) + key_field_reasons(decisions, self.arbiter, tags)
        evidence = build_evidence(
            data,
            doc=doc,
            rules_evidence=found.evidence,
            errors=errors,
            source_by_field={k: v for k, v in source.items() if v != Source.RULES},
        )
        agreed = sum(decision.status == "agreed" for decision in decisions.values())
        lines_from = ["template", "rules", "model"][chosen] if chosen >= 0 else "none"
        kinds = "+".join(sorted({page.source for page in doc.pages}))
        if template:
            reason = f"vendor template {template.template_name} ({template_note}); text from {kinds}"
        else:
            reason = f"{note or 'no e-invoice XML'}, {template_note}; text from {kinds}"
        if answer is not None:
            reason += f"; model and rules agree on {agreed} field(s); line items from {lines_from}"
        if doc.skipped_pages:
            reason += f"; {doc.skipped_pages} page(s) over OCR_MAX_PDF_PAGES skipped"
        if doc.ocr_engine:
            provider.insert(0, doc.ocr_engine)
        return ExtractionResult(
            data=data,
            processing_status=ProcessingStatus.NEEDS_REVIEW if errors else ProcessingStatus.COMPLETED,
            validation_errors=errors,
            ocr_confidence=doc.ocr_confidence,
            extraction_tier=1 if template else 2,
            extraction_provider="+".join(provider),
            routing_reason=reason,
            timings=timings,
            vendor_id=vendor_id,
            field_sources={name: source[name] for name in source if data.get(name) is not None},
            evidence=evidence,
        )

    def match_template(self, doc: DocumentText, ctx: JobContext | None):
        """The first vendor template that applies: the upload's vendor first (forced), then every
        template of the tenant whose keywords match. Returns (TemplateResult | None, vendor id,
        a note for routingReason). A broken template is skipped, never fatal."""
        if ctx is not None and ctx.force_tier == 2:
            return None, None, "vendor templates skipped"
        if ctx is None or not ctx.templates or "template" not in ctx.sources:
            return None, None, "no vendor template"
        ordered = sorted(ctx.templates, key=lambda t: t[0] != ctx.vendor_id)
        text = layout_text(doc)  # rendered once for every template tried
        for vendor_id, yaml_text in ordered:
            forced = vendor_id == ctx.vendor_id
            try:
                result = apply_template(load_template(yaml_text, f"vendor-{vendor_id}"), doc, forced=forced, text=text)
            except TemplateError as exc:
                log.warning("vendor %s: %s", vendor_id, exc)
                continue
            if result is not None:
                return result, vendor_id, "vendorId given on upload" if forced else "template keywords matched"
        return None, None, f"no vendor template applied ({len(ctx.templates)} tried)"


def _no_ocr():
    raise AssertionError("max_ocr_pages=0 never asks for an OCR engine")


def local_extract(models: ModelConfig) -> Callable[[JobContext, bytes], dict[str, Any]]:
    """An in-process extractor (no Ray) for tools and tests that do not need a pool."""
    return Extractor(models).extract
