"""Extraction as declared steps (STYLE.md 3, DESIGN.md "one declared list of steps"): ``STEPS``
is the whole pipeline of one document, in order, and ``run_steps`` walks it.

Every step reads and fills one ``Work`` (the document so far) and may end the run: it sets
``work.result`` (tier 0 found the e-invoice) or raises ``Stop`` (the document cannot be
extracted: a failed result). A step runs only when its ``when`` holds; a value proposer
(``source``: template, rules, model) runs only when ``JobContext.sources`` lists it. The runner
is the one place that times steps (``ExtractionResult.timings``, seconds per ``timing`` key),
turns a ``Stop`` into a failed result and keeps going past an ``optional`` step that crashed
(the model: its crash must not lose the rules' fields). ``pipeline.errors.TemporaryError``
always escapes, for the queue to retry.

Calibration and training run these same steps (``pipeline.runner.Extractor.work``), with a
document's text or the model's answers given in advance (a step whose output is already in
``work`` does not run again) and with proposers switched off, never a copy of them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pipeline.context import JobContext, ModelConfig
from pipeline.decision.arbitrate import (
    ArbiterTable,
    Decision,
    arbitrate,
    choose_lines,
    evidence_tags,
    key_field_reasons,
    lines_settled,
    tax_within_total,
)
from pipeline.decision.candidates import Candidate, candidates
from pipeline.decision.evidence import build_evidence
from pipeline.decision.scorer import NEVER, FieldScore, Scorer, document_probability, document_reading, scorer_reasons
from pipeline.document import DocumentText
from pipeline.einvoice.print_check import print_disagreements
from pipeline.einvoice.reader import EInvoice, EInvoiceError, read_einvoice
from pipeline.errors import OcrBusy, TemporaryError
from pipeline.model.llm_extract import LlmAnswer, llm_header, llm_lines
from pipeline.profiles.book import Match
from pipeline.profiles.identifiers import identifiers
from pipeline.profiles.profile import Proposal, VendorProfile, propose
from pipeline.reading.sniff import PDF, sniff
from pipeline.reading.text import UnreadableDocument, image_text, pdf_text
from pipeline.result import ExtractionResult
from pipeline.rules import RulesResult, address_below, extract_rules
from pipeline.schema import HEADER_FIELDS, ProcessingStatus, Source
from pipeline.templates.invoice2data import TemplateError, TemplateResult, apply_template, layout_text, load_template
from pipeline.templates.visualisation import read_visualisation
from pipeline.values import normalise
from pipeline.values.validate import validate, validate_einvoice

log = logging.getLogger(__name__)


class OcrGate(Protocol):
    """``ocr.concurrency`` slots (spec 8: busy OCR is a temporary error): ``pipeline.runtime``
    gives a thread-safe one or a Ray actor's; a step takes one only when a page needs OCR."""

    def try_acquire(self) -> bool: ...

    def release(self) -> None: ...


@dataclass
class Kit:
    """What the steps run with, loaded once per worker: ``ocr`` (a ``models.ocr.OcrEngine``),
    ``llm`` (a ``models.llm.LlmBackend``, None when ``llm.enabled`` is false), the fitted
    ``arbiter`` table (fields that are not key fields), the learned ``scorer`` of the key
    fields (``pipeline.decision.scorer``; None: the arbiter decides them too), the ``gate`` for
    OCR slots and the ``models`` settings (dpi, max tokens, target precision)."""

    models: ModelConfig
    ocr: Any
    llm: Any
    arbiter: ArbiterTable
    gate: OcrGate
    scorer: Scorer | None = None

    def threshold(self, work: Work, reading: str | None = None) -> float:
        """The document probability at which ``work``'s document completes
        (``review.target_precision``, fitted per reading: ``reading``, ``document_reading`` of
        its document where not given)."""
        if self.scorer is None:
            return 1.0
        reading = reading or document_reading(work.doc)
        return self.scorer.threshold(self.models.review_target_precision, reading)

    def ask_floor(self, work: Work) -> float:
        """The document probability below which the model is not asked for ``work``'s header:
        ``Scorer.ask_floor`` of its reading ("unsure"), 0.0 ("always") or ``NEVER`` ("never":
        ``review.ask_model``)."""
        if self.scorer is None or self.models.review_ask_model == "always":
            return 0.0
        if self.models.review_ask_model == "never":
            return NEVER
        return self.scorer.ask_floor(self.models.review_target_precision, document_reading(work.doc))


@dataclass
class Work:
    """One document on its way through the steps; each step fills its part.

    ``media_type`` (sniff), ``xml_note`` (why embedded XML was not used, for ``routingReason``),
    ``doc`` (the text of every page), ``template`` with ``vendor_id`` and ``template_note`` (tier
    1; ``template_misses``: why each template tried gave nothing), ``profile`` and
    ``profile_proposals`` (the learned vendor profile the page matched and what it proposes),
    ``rules`` (tier 2's layout rules), ``answer`` (the model's), ``decisions`` (per header
    field), ``lines_from`` (index of the chosen line-item candidate: 0 template, 1 rules, 2
    model, -1 none), ``candidates`` and ``scores`` (the key fields' candidates and the learned
    scorer's choice among them; ``scored_with_model``: whether the model's answer was in),
    ``result`` (set by the step that ends the run), ``timings`` (seconds per timing key),
    ``ran`` (names of the steps the runner entered, in order)."""

    ctx: JobContext
    data: bytes = b""
    media_type: str | None = None
    xml_note: str | None = None
    doc: DocumentText | None = None
    template: TemplateResult | None = None
    vendor_id: str | None = None
    template_note: str = "no vendor template"
    template_misses: list[str] = field(default_factory=list)
    profile: Match | None = None
    profile_proposals: dict[str, Proposal] = field(default_factory=dict)
    rules: RulesResult | None = None
    answer: LlmAnswer | None = None
    decisions: dict[str, Decision] | None = None
    candidates: dict[str, list[Candidate]] | None = None
    scores: dict[str, FieldScore] | None = None
    scored_with_model: bool = False
    result: ExtractionResult | None = None
    timings: dict[str, float] = field(default_factory=dict)
    ran: list[str] = field(default_factory=list)


class Stop(Exception):
    """The document cannot be extracted: the run ends with a failed result whose
    ``processingError`` is the message (and ``routingReason`` the given one)."""

    def __init__(self, message: str, routing_reason: str | None = None) -> None:
        super().__init__(message)
        self.routing_reason = routing_reason


def _always(work: Work) -> bool:
    return True


@dataclass(frozen=True)
class Step:
    """One step: ``run(work, kit)`` when ``when(work)``. ``timing``: the key of
    ``ExtractionResult.timings`` its seconds add to (None: untimed); ``source``: the value
    proposer of ``JobContext.sources`` that switches it off; ``optional``: a crash (other than a
    TemporaryError) is logged and the run goes on without this step's output; ``needs_kit``: a
    further condition on the work and the kit (a model loaded, the scorer not yet sure)."""

    name: str
    run: Callable[[Work, Kit], None]
    when: Callable[[Work], bool] = _always
    timing: str | None = None
    source: str | None = None
    optional: bool = False
    needs_kit: Callable[[Work, Kit], bool] | None = None


# -- the steps ----------------------------------------------------------------------------------


def sniff_step(work: Work, kit: Kit) -> None:
    """The file type by its magic bytes (``pipeline.reading.sniff``); anything else fails."""
    work.media_type = sniff(work.data[:1024])
    if work.media_type is None:
        raise Stop("Unsupported file type")


def _tier0_applies(work: Work) -> bool:
    return work.media_type == PDF and not work.ctx.visual_only and work.ctx.force_tier in (None, 0)


def einvoice_step(work: Work, kit: Kit) -> None:
    """Tier 0: a PDF with embedded CII/UBL XML is read from the XML, exactly, with no OCR and no
    model (``pipeline.einvoice``). Its validation is EN 16931's arithmetic, plus each key field
    where the visible text layer really disagrees with the XML (``print_check``). Unreadable XML
    leaves a note and the print is read instead."""
    try:
        found = read_einvoice(work.data)
    except EInvoiceError as exc:  # unreadable XML: the print still has the invoice
        work.xml_note = f"embedded e-invoice XML unreadable ({exc})"
        return
    if found is not None:
        work.result = einvoice_result(found, pdf_text(work.data, _no_ocr, max_ocr_pages=0))


def einvoice_result(found: EInvoice, doc: DocumentText) -> ExtractionResult:
    """The tier-0 result of an e-invoice read from its XML, checked against its print ``doc``
    (the text layer only, never OCR)."""
    data_out = normalise.data(found.fields, found.line_items, doc.text)
    errors = validate_einvoice(data_out, found.rounding) + print_disagreements(found.fields, doc)
    profile = f", profile {found.profile}" if found.profile else ""
    return ExtractionResult(
        data=data_out,
        processing_status=ProcessingStatus.NEEDS_REVIEW if errors else ProcessingStatus.COMPLETED,
        validation_errors=errors,
        extraction_tier=0,
        extraction_provider=f"einvoice-{found.syntax.lower()}",
        routing_reason=f"embedded e-invoice XML {found.xml_name or ''} ({found.syntax}{profile})",
        field_sources={name: Source.EINVOICE for name in HEADER_FIELDS if data_out.get(name) is not None},
        evidence=build_evidence(data_out, doc=doc, default_source=Source.EINVOICE, errors=errors),
        layout_text=layout_text(doc),
    )


def tier0_forced_step(work: Work, kit: Kit) -> None:
    """A reprocess forced to tier 0 never falls through to OCR, templates or the model."""
    raise Stop(f"Tier 0 forced, but {work.xml_note or 'the document embeds no e-invoice XML'}", "tier 0 forced")


def read_text_step(work: Work, kit: Kit) -> None:
    """The text of every page: the PDF text layer, or OCR (``pipeline.reading.text``). An OCR
    slot is taken only when a page needs OCR: OcrBusy when none is free, TemporaryError when
    memory runs out; a document with no text fails."""
    held = False

    def engine():
        nonlocal held
        if not held:
            if not kit.gate.try_acquire():
                raise OcrBusy("OCR stage busy (ocr.concurrency in use); retry later")
            held = True
        return kit.ocr

    ctx = work.ctx
    try:
        if work.media_type == PDF:
            work.doc = pdf_text(
                work.data,
                engine,
                max_ocr_pages=ctx.max_ocr_pages,
                dpi=kit.models.dpi,
                use_text_layer=not ctx.visual_only,
            )
        else:
            work.doc = image_text(work.data, engine)
    except UnreadableDocument as exc:
        raise Stop(str(exc)) from exc
    except MemoryError as exc:
        raise TemporaryError("out of memory while reading the document") from exc
    finally:
        if held:
            kit.gate.release()
    if not work.doc.text.strip():
        raise Stop("No text could be read from the document")


def template_step(work: Work, kit: Kit) -> None:
    """Tier 1: the first vendor template that applies, the upload's vendor first (forced), then
    every template of the tenant whose keywords match. A broken template is skipped, never
    fatal."""
    ctx = work.ctx
    work.template_note = f"no vendor template applied ({len(ctx.templates)} tried)"
    text = layout_text(work.doc)  # rendered once for every template tried
    for vendor_id, yaml_text in sorted(ctx.templates, key=lambda t: t[0] != ctx.vendor_id):
        forced = vendor_id == ctx.vendor_id
        try:
            template = load_template(yaml_text, f"vendor-{vendor_id}")
            found = apply_template(template, work.doc, forced=forced, text=text, why=work.template_misses)
        except TemplateError as exc:
            log.warning("vendor %s: %s", vendor_id, exc)
            work.template_misses.append(str(exc))
            continue
        if found is not None:
            work.template, work.vendor_id = found, vendor_id
            work.template_note = "vendorId given on upload" if forced else "template keywords matched"
            return


def layout_step(work: Work, kit: Kit) -> None:
    """Tier 1, built in: a page an e-invoice visualisation stylesheet printed from the XML
    (its title, and the EN 16931 term beside each label) is read as that layout
    (``pipeline.templates.visualisation``), like a template: the fields it reads are the
    document's, and what it could not check (``TemplateResult.doubts``) keeps the document
    from completing."""
    found = read_visualisation(work.doc)
    if found is not None:
        work.template = found
        work.template_note = "an e-invoice visualisation: its title and the EN 16931 terms beside its labels"


def tier1_forced_step(work: Work, kit: Kit) -> None:
    """A reprocess forced to tier 1 fails when no vendor template applies."""
    raise Stop(f"Tier 1 forced, but no vendor template applies ({_template_note(work)})", "tier 1 forced")


def _template_note(work: Work) -> str:
    return "vendor templates skipped" if work.ctx.force_tier == 2 else work.template_note


def profile_step(work: Work, kit: Kit) -> None:
    """Tier 1, learned: the tenant's vendor profile the page's identifiers match
    (``pipeline.profiles.book``), and the values it proposes; they join the candidates as one
    more source, which the scorer weighs (``by_profile``, ``profile_support``)."""
    work.profile = work.ctx.profiles.match(identifiers(work.doc.text), work.ctx.vendor_id, work.doc.text)
    if work.profile is not None:
        work.profile_proposals = propose(work.profile.profile, work.doc.text)
        if work.vendor_id is None:
            work.vendor_id = work.profile.profile.vendor_id


def profile_reasons(match: Match | None, data: dict[str, Any] | None = None) -> list[str]:
    """Reasons, for ``validationErrors``, why a page that matched a vendor profile must be
    looked at: an IBAN the vendor's approved invoices never showed (bank details changed: the
    classic payment fraud), identifiers of two vendors on one page, or no invoice number in
    ``data`` (the header as decided) where most of the vendor's approved invoices printed one
    under a label (``missing_number``)."""
    if match is None:
        return []
    name = match.profile.name or "this vendor"
    reasons = missing_number(match.profile, data) if data is not None else []
    for ident in match.contradicts:
        known = ", ".join(i.split(":", 1)[1] for i in match.profile.identifiers if i.startswith("iban:"))
        reasons.append(
            f"IBAN {ident.split(':', 1)[1]} is not one {name}'s approved invoices showed ({known}): "
            "confirm the bank details with the vendor before paying"
        )
    if match.ambiguous:
        reasons.append(f"the page matches more than one vendor profile ({name} and {len(match.ambiguous)} other)")
    return reasons


def missing_number(profile: VendorProfile, data: dict[str, Any]) -> list[str]:
    """A reason when ``data`` has no invoice number although most of ``profile``'s approvals had
    one (``filled``): a page with no labelled id has no invoice number for the scorer
    (``scorable``), which on a vendor that numbers its invoices means OCR lost the label or the
    number, not that this invoice has none (bench-learning, synthetic scans: the only wrong
    completion with learning)."""
    if data.get("invoice_number") or 2 * profile.filled.get("invoice_number", 0) <= profile.approvals:
        return []
    habit = profile.habits.get("invoice_number") or {"": 0}
    label = max(habit, key=lambda key: (habit[key], key)).lstrip("^")
    return [
        f"invoice_number not found, though {profile.name or 'this vendor'}'s approved invoices print one"
        + (f" (after '{label}')" if label else "")
    ]


def rules_step(work: Work, kit: Kit) -> None:
    """Tier 2's layout rules propose every field and the line items (``pipeline.rules``)."""
    work.rules = extract_rules(work.doc)


def key_candidates(work: Work) -> dict[str, list[Candidate]]:
    """Every key field's candidates on the page, with the template's, the rules' and the
    model's proposals marked (``pipeline.decision.candidates``); training reads them here too."""
    proposals = {}
    if work.template:
        proposals["template"] = normalise.fields(work.template.fields)
    if work.rules:
        proposals["rules"] = normalise.fields(work.rules.fields)
    if work.answer:
        proposals["model"] = work.answer.fields
    support = {}
    if work.profile_proposals:
        proposals["profile"] = normalise.fields({k: p.value for k, p in work.profile_proposals.items()})
        support = {k: p.support for k, p in work.profile_proposals.items()}
    lines = work.rules.line_items if work.rules else []
    return candidates(work.doc, lines, proposals, model_ran=work.answer is not None, profile_support=support)


def score_step(work: Work, kit: Kit) -> None:
    """The learned scorer ranks every key field's candidates and gives each choice a
    calibrated probability (``pipeline.decision.scorer``); run again once the model answered."""
    work.candidates = key_candidates(work)
    work.scores = kit.scorer.score(work.candidates)
    work.scored_with_model = work.answer is not None


def _scorer_runs(work: Work, kit: Kit) -> bool:
    return kit.scorer is not None and work.rules is not None


def _template_keys(work: Work) -> set[str]:
    fields = work.template.fields if work.template else {}
    return {name for name, value in fields.items() if value is not None and value != ""}


def document_sure(work: Work, kit: Kit) -> bool:
    """Whether the scorer already completes the document: its probability that every key field
    is right reaches the threshold of ``review.target_precision``."""
    if work.scores is None:
        return False
    return document_probability(work.scores, _template_keys(work)) >= kit.threshold(work)


def model_step(work: Work, kit: Kit) -> None:
    """The extraction model proposes every header field (``pipeline.model``): for every
    document without XML where it may change the answer (``_model_pays``)."""
    work.answer = llm_header(work.doc, kit.llm, kit.models.llm_max_tokens)


def _model_may_run(work: Work) -> bool:
    return work.answer is None and work.doc is not None


def _model_pays(work: Work, kit: Kit) -> bool:
    """The model is asked where the scorer is not sure of the key fields yet not so unsure that
    the model's answer has never brought such a document to completion on the training folds
    (``Kit.ask_floor``, per reading) nor held below the threshold by values the vendor profile
    backs, whose calibration the model's agreement cannot lift (``Scorer.reachable``); or where the rows the
    template or the rules read do not add up to the scorer's totals (its rows may)."""
    if work.scores is None or not _header_only(work):
        return True
    keys = _template_keys(work)
    if not kit.ask_floor(work) <= document_probability(work.scores, keys) < kit.threshold(work):
        return False
    return kit.scorer is None or kit.scorer.reachable(work.scores, keys) >= kit.threshold(work)


def _header_only(work: Work) -> bool:
    """Whether the rows the template or the rules read add up to the scorer's totals, or there
    are none: the model's rows would not be needed."""
    read = [lines for lines in _line_candidates(work)[:2] if lines]
    header = dict(normalise.fields(work.rules.fields) if work.rules else {})
    header.update({name: score.value for name, score in work.scores.items()})
    return not read or lines_settled(read, header)


def _model_answered_since(work: Work) -> bool:
    return work.scores is not None and work.answer is not None and not work.scored_with_model


def _arbitrated(work: Work, kit: Kit, scored: Collection[str] | None) -> dict[str, Decision]:
    """Per header field, the template's, the rules' and the model's values arbitrated
    (``pipeline.decision.arbitrate``); ``scored``: the key fields the scorer scores (None: no
    scorer ran)."""
    template = normalise.fields(work.template.fields) if work.template else {}
    rules = normalise.fields(work.rules.fields) if work.rules else {}
    decisions = arbitrate(template, rules, work.answer.fields if work.answer else {}, kit.arbiter)
    if scored is not None and "invoice_number" not in scored and "invoice_number" not in template:
        # no invoice-number label on the page (``scorer.scorable``): the document has no number
        decisions.pop("invoice_number", None)
    return decisions


def decide_step(work: Work, kit: Kit) -> None:
    """Per header field, the template, the rules and the model are arbitrated
    (``pipeline.decision.arbitrate``); the key fields the scorer chose take its choice, and a
    tax as large as the chosen total gives way (``tax_within_total``)."""
    template = normalise.fields(work.template.fields) if work.template else {}
    work.decisions = _arbitrated(work, kit, work.scores)
    for name, score in (work.scores or {}).items():
        if name in template:  # an operator's template reads its vendor's field as written
            continue
        runner = score.runner_up
        work.decisions[name] = Decision(
            score.value, score.source, "scored", runner.value if runner else None, None, score.probability
        )
    tax_within_total(work.decisions)
    _address_under_chosen_vendor(work)


def _address_under_chosen_vendor(work: Work) -> None:
    """Where the scorer chose another vendor line than the rules did, the rules' vendor address
    (read under their own name) gives way to the address under the chosen name
    (``pipeline.rules.address_below``), if one reads there: a receipt's handwritten note above
    its header ("tan woon yann") is no shop, and the block under it is no shop's address."""
    score = (work.scores or {}).get("vendor_name")
    decision = (work.decisions or {}).get("vendor_address")
    if score is None or work.rules is None or not score.chosen.evidence or score.source == Source.TEMPLATE:
        return
    if decision is not None and decision.source != Source.RULES:
        return
    where, ruled = score.chosen.evidence, work.rules.evidence.get("vendor_name")
    if ruled and ruled["page"] == where["page"] and list(ruled["bbox"]) == list(where["bbox"]):
        return
    found = address_below(work.doc, where, str(score.value))
    if found:
        address = normalise.fields({"vendor_address": found[0]}).get("vendor_address")
        if address:
            work.decisions["vendor_address"] = Decision(address, Source.RULES, "rules")
            work.rules.evidence = {**work.rules.evidence, "vendor_address": found[1]}


def _line_candidates(work: Work) -> list[list[dict[str, Any]]]:
    """Line-item candidates in the order ``Work.lines_from`` counts: template, rules, model."""
    template = work.template.line_items if work.template and work.template.line_items else []
    return [template, work.rules.line_items if work.rules else [], work.answer.line_items if work.answer else []]


def _fields(work: Work) -> dict[str, Any]:
    return {name: decision.value for name, decision in (work.decisions or {}).items()}


def model_lines_step(work: Work, kit: Kit) -> None:
    """The model reads the line items too, where the template's and the rules' rows do not
    settle them (else its rows could not win)."""
    llm_lines(work.answer, work.doc, kit.llm, max_tokens=kit.models.llm_max_tokens)


def _lines_open(work: Work) -> bool:
    return work.answer is not None and not lines_settled(_line_candidates(work)[:2], _fields(work))


def finish_step(work: Work, kit: Kit) -> None:
    """Line items chosen, values normalised and validated, key fields the arbiter could not
    confirm flagged, evidence per field; the tier 1 or 2 result."""
    doc, decisions = work.doc, work.decisions or {}
    fields = _fields(work)
    source = {name: decision.source for name, decision in decisions.items()}
    rules = work.rules or RulesResult()
    p = None
    if work.scores is not None:
        p = round(document_probability(work.scores, _template_keys(work)), 4)
        reading = document_reading(work.doc)  # a pass over the text: once for both
        key_reasons = scorer_reasons(work.scores, p, kit.threshold(work, reading), _template_keys(work), reading)
    else:
        tags = evidence_tags(decisions, normalise.fields(rules.fields), rules.line_items)
        key_reasons = key_field_reasons(decisions, kit.arbiter, tags)
    chosen, data, checks = _checked(work, kit, fields, lines_may_go=not key_reasons)
    doubts = work.template.doubts if work.template else []  # a built-in layout's unchecked readings
    errors = checks + key_reasons + doubts + profile_reasons(work.profile, data)
    evidence = build_evidence(
        data,
        doc=doc,
        rules_evidence=rules.evidence,
        errors=errors,
        source_by_field={k: v for k, v in source.items() if v != Source.RULES},
    )
    work.result = ExtractionResult(
        data=data,
        processing_status=ProcessingStatus.NEEDS_REVIEW if errors else ProcessingStatus.COMPLETED,
        validation_errors=errors,
        ocr_confidence=doc.ocr_confidence,
        extraction_tier=1 if work.template else 2,
        extraction_provider=provider(work, kit),
        routing_reason=routing_reason(work, kit, decisions, chosen),
        vendor_id=work.vendor_id,
        field_sources={name: source[name] for name in source if data.get(name) is not None},
        evidence=_scored_evidence(evidence, work.scores or {}, data),
        key_confidence=p,
    )


def _checked(work: Work, kit: Kit, fields: dict[str, Any], lines_may_go: bool) -> tuple[int, dict[str, Any], list[str]]:
    """(index of the chosen line-item candidate, -1 for none; the schema-2.9 data; its
    validation errors) of header ``fields``: the line items that add up to them, the data
    validated (``validate``); with ``review.line_items = "drop"`` and ``lines_may_go`` (the key
    fields are sure), rows that do not add up are dropped rather than reported."""
    chosen, lines = choose_lines(_line_candidates(work), fields)
    data = normalise.data(fields, lines, work.doc.text)
    checks = validate(data)
    if kit.models.review_line_items == "drop" and lines_may_go and checks and _only_lines(checks):
        chosen, data = -1, normalise.data(fields, [], work.doc.text)  # the header is sure; rows that do not add up go
        checks = validate(data)
    return chosen, data, checks


def held_reasons(work: Work, kit: Kit, key_values: dict[str, Any]) -> list[str]:
    """What holds a document in review whatever the scorer's probability, had the scorer chosen
    ``key_values`` (key field -> value, as ``pipeline.values.normalise.fields`` gives them) for a
    ``work`` run up to the rules (its model answer in, where it has one): ``finish_step``'s
    validation errors, a built-in layout's doubts and the vendor profile's contradictions, its
    key-field reasons aside. Training fits the thresholds on the documents this leaves free, as
    serving completes no other (``training.train_scorer``)."""
    decisions = _arbitrated(work, kit, key_values)
    template = _template_keys(work)  # an operator's template reads its vendor's field as written
    decisions.update(
        {name: Decision(value, Source.RULES, "scored") for name, value in key_values.items() if name not in template}
    )
    tax_within_total(decisions)
    fields = {name: decision.value for name, decision in decisions.items()}
    _, data, checks = _checked(work, kit, fields, lines_may_go=True)
    doubts = work.template.doubts if work.template else []
    return checks + doubts + profile_reasons(work.profile, data)


def _only_lines(errors: list[str]) -> bool:
    return all(message.startswith("line items sum to") for message in errors)


def _scored_evidence(evidence: dict[str, dict], scores: dict[str, FieldScore], data: dict[str, Any]) -> dict:
    """The evidence with the scorer's calibrated probability as the confidence of the key fields
    it chose, and the line of the chosen candidate where it has one."""
    for name, score in scores.items():
        item = evidence.get(name)
        if item is None or data.get(name) is None or item.get("source") == Source.TEMPLATE:
            continue
        item["confidence"] = round(score.probability, 3)
        where = score.chosen.evidence
        if where:
            item.update(page=where["page"], bbox=[float(v) for v in where["bbox"]], text=where["text"])
    return evidence


def provider(work: Work, kit: Kit) -> str:
    """``extractionProvider`` of tiers 1 and 2: the OCR engine, the template, the rules and the
    model that took part, joined by ``+``."""
    names = [work.doc.ocr_engine] if work.doc.ocr_engine else []
    if work.template:
        names.append(f"template:{work.template.template_name}")
    if "rules" in work.ran:
        names.append("rules")
    if "model" in work.ran:
        names.append(kit.llm.name)
    return "+".join(names)


def routing_reason(work: Work, kit: Kit, decisions: dict[str, Decision], chosen: int) -> str:
    """``routingReason`` of tiers 1 and 2: why this tier, where the text came from, how far the
    model and the rules agreed, which candidate gave the line items, what was skipped."""
    doc = work.doc
    kinds = "+".join(sorted({page.source for page in doc.pages}))
    if work.template:
        kind = "built-in layout" if work.template.builtin else "vendor template"
        reason = f"{kind} {work.template.template_name} ({_template_note(work)}); text from {kinds}"
    else:
        forced = f"tier {work.ctx.force_tier} forced" if work.ctx.force_tier in (1, 2) else None
        reason = f"{forced or work.xml_note or 'no e-invoice XML'}, {_template_note(work)}; text from {kinds}"
    if work.profile is not None:
        shared = ", ".join(work.profile.shared) or "vendorId"
        proposed = ", ".join(sorted(work.profile_proposals)) or "nothing"
        approvals = work.profile.profile.approvals
        reason += f"; vendor profile of {approvals} approval(s) matched by {shared}, proposed {proposed}"
    if work.scores is not None:
        p = document_probability(work.scores, _template_keys(work))
        model = "asked" if work.answer is not None else "not asked"
        reason += f"; scorer: key fields right with p={p:.3f}, {kit.threshold(work):.3f} completes (model {model})"
    if work.answer is not None:
        agreed = sum(decision.status == "agreed" for decision in decisions.values())
        agreed += sum({"rules", "model"} <= score.chosen.sources for score in (work.scores or {}).values())
        lines_from = ["template", "rules", "model"][chosen] if chosen >= 0 else "none"
        reason += f"; model and rules agree on {agreed} field(s); line items from {lines_from}"
    if doc.skipped_pages:
        reason += f"; {doc.skipped_pages} page(s) over OCR_MAX_PDF_PAGES skipped"
    return reason


def _no_ocr():
    raise AssertionError("max_ocr_pages=0 never asks for an OCR engine")


STEPS: tuple[Step, ...] = (
    Step("sniff", sniff_step, when=lambda work: work.media_type is None),
    Step("einvoice", einvoice_step, when=_tier0_applies, timing="einvoice"),
    Step("tier 0 forced", tier0_forced_step, when=lambda work: work.ctx.force_tier == 0),
    Step("read text", read_text_step, when=lambda work: work.doc is None, timing="text"),
    Step(
        "template",
        template_step,
        when=lambda work: bool(work.ctx.templates) and work.ctx.force_tier != 2,
        timing="rules",
        source="template",
    ),
    Step(  # built-in layouts are templates the appliance knows: the same source switch
        "layout",
        layout_step,
        when=lambda work: work.template is None and work.ctx.force_tier != 2,
        timing="rules",
        source="template",
    ),
    Step("tier 1 forced", tier1_forced_step, when=lambda work: work.ctx.force_tier == 1 and work.template is None),
    Step(  # tier 1 is hand-written templates and learned profiles: one source switch
        "profile",
        profile_step,
        when=lambda work: bool(work.ctx.profiles) and work.profile is None and work.ctx.force_tier != 2,
        timing="rules",
        source="template",
    ),
    Step("rules", rules_step, when=lambda work: work.rules is None, timing="rules", source="rules"),
    Step("score", score_step, when=lambda work: work.scores is None, timing="rules", needs_kit=_scorer_runs),
    Step("model", model_step, when=_model_may_run, timing="llm", source="model", optional=True, needs_kit=_model_pays),
    Step("rescore", score_step, when=_model_answered_since, timing="rules"),
    Step("decide", decide_step),
    Step("model lines", model_lines_step, when=_lines_open, timing="llm", source="model", optional=True),
    Step("finish", finish_step),
)
"""The pipeline of one document, in order."""


def run_steps(steps: Sequence[Step], work: Work, kit: Kit) -> Work:
    """Walk ``steps`` over ``work`` until one sets ``work.result`` or raises ``Stop``; returns
    ``work`` (its ``result`` None only when the list ends before a result step, else with the
    text read as its ``layout_text``, a failed result's too). Raises
    ``TemporaryError`` (OcrBusy included) for the queue to retry, and any crash of a step that
    is not ``optional``."""
    for step in steps:
        if work.result is not None:
            break
        if (step.source and step.source not in work.ctx.sources) or not step.when(work):
            continue
        if step.source == "model" and kit.llm is None:
            continue
        if step.needs_kit is not None and not step.needs_kit(work, kit):
            continue
        work.ran.append(step.name)
        started = time.perf_counter()
        try:
            step.run(work, kit)
        except Stop as stop:
            work.result = ExtractionResult.failed(
                str(stop),
                routing_reason=stop.routing_reason,
                ocr_confidence=work.doc.ocr_confidence if work.doc is not None else None,
                timings=work.timings,
            )
        except TemporaryError:
            raise
        except Exception as exc:
            if not step.optional:
                raise
            log.warning("%s step failed, going on without it: %s", step.name, exc)
        finally:
            if step.timing:
                work.timings[step.timing] = round(work.timings.get(step.timing, 0.0) + time.perf_counter() - started, 3)
    if work.result is not None:
        work.result.timings = work.timings
        if work.result.layout_text is None and work.doc is not None:  # whatever the outcome
            work.result.layout_text = layout_text(work.doc)
    return work


def select(*, skip: Collection[str] = (), until: str | None = None) -> tuple[Step, ...]:
    """``STEPS`` without the steps named in ``skip``, ending with the one named ``until`` (for
    calibration and training, which run a part of the pipeline). Raises KeyError for a name
    that is not a step."""
    names = [step.name for step in STEPS]
    for name in (*skip, *([until] if until else [])):
        if name not in names:
            raise KeyError(f"no step {name!r}; the steps: {', '.join(names)}")
    end = names.index(until) + 1 if until else len(names)
    return tuple(step for step in STEPS[:end] if step.name not in skip)


# Tier 1's hand-written templates alone, on a text read before (``template_trial``)
TEMPLATE_TRIAL = select(skip={"sniff", "einvoice", "tier 0 forced", "read text"}, until="template")


def template_trial(doc: DocumentText, vendor_id: str, yaml_text: str) -> Work:
    """The template step (``TEMPLATE_TRIAL``) on ``doc``, a text read before, with one vendor's
    template forced as for an upload that names the vendor: ``work.template`` is what it reads
    (None: nothing, and ``work.template_misses`` says why). Nothing is read again and no model
    runs: the template step uses no kit."""
    ctx = JobContext("template trial", "", vendor_id=vendor_id, templates=((vendor_id, yaml_text),))
    return run_steps(TEMPLATE_TRIAL, Work(ctx, doc=doc), None)  # type: ignore[arg-type]
