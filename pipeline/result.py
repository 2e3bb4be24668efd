"""What the pipeline hands back for one document: an ``ExtractionResult``, typed as it is across
Ray and into the appliance, which maps it once to its row and once to ``appliance extract``'s
records."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pipeline.schema import ProcessingStatus, Source
from pipeline.values.money import to_json


@dataclass
class ExtractionResult:
    """``data`` is schema 2.9 with Decimal amounts (None when nothing could be produced);
    ``processing_status`` is ``completed``, ``needs_review`` or ``failed``; ``timings`` are
    seconds per stage;
    ``vendor_id`` is the vendor whose template applied (tier 1); ``field_sources`` says where
    each filled header field came from (``einvoice``, ``template``, ``rules``, ``llm``) and
    ``evidence`` holds ``{page, bbox, text, confidence, source}`` per filled field;
    ``key_confidence`` is the learned scorer's probability that every key field is right (None
    where it did not decide: tier 0, a failed document, the scorer off); ``layout_text`` is the
    document's text as tier 1's templates read it (``pipeline.templates.invoice2data.layout_text``,
    None when nothing was read), kept with the invoice so that a vendor template can be tried on
    it later without reading the file again (``pipeline.steps.template_trial``)."""

    data: dict[str, Any] | None
    processing_status: ProcessingStatus
    validation_errors: list[str] = field(default_factory=list)
    processing_error: str | None = None
    ocr_confidence: float | None = None
    extraction_tier: int | None = None
    extraction_provider: str | None = None
    routing_reason: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    vendor_id: str | None = None
    field_sources: dict[str, Source] = field(default_factory=dict)
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)
    key_confidence: float | None = None
    layout_text: str | None = None

    @classmethod
    def failed(
        cls,
        message: str,
        *,
        routing_reason: str | None = None,
        ocr_confidence: float | None = None,
        timings: dict[str, float] | None = None,
    ) -> ExtractionResult:
        """No data could be produced: ``processing_status`` failed with ``message`` as the
        ``processingError`` (spec 2.8). The one way every layer writes a failure: the steps, the
        queue giving up after its retries, and ``appliance extract``."""
        return cls(
            None,
            ProcessingStatus.FAILED,
            processing_error=message,
            routing_reason=routing_reason,
            ocr_confidence=ocr_confidence,
            timings=timings if timings is not None else {},
        )

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data for the queue: amounts (Decimal inside the pipeline) become
        JSON numbers here, the pipeline's edge (``pipeline.values.money``)."""
        return to_json(asdict(self))
