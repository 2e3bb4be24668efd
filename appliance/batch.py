"""``appliance extract``: the pipeline without the server, on files and folders, through the same
pool (so a folder is processed in parallel). This is the operator's batch path and how accuracy
is measured (``../shared/bench/score.py`` reads its ``--out`` folder)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from appliance.queue.dispatcher import start_worker_pool
from appliance.queue.retry import RetryPolicy
from appliance.settings import Settings
from pipeline.context import SOURCES, JobContext
from pipeline.errors import OcrBusy, TemporaryError
from pipeline.reading.sniff import sniff
from pipeline.result import ExtractionResult
from pipeline.values.money import to_json

SUFFIXES = {".pdf", ".jpg", ".jpeg", ".png"}
# Busy OCR frees as soon as another document's pages are read: a short wait keeps a document
# that has waited long from losing every race to fresh ones (a growing backoff did).
BUSY_RETRY_SECONDS = 0.2


@dataclass(frozen=True)
class BatchItem:
    """One input file and where its JSON goes: ``out_dir / relative.with_suffix('.json')``."""

    path: Path
    relative: Path


def collect(paths: list[Path]) -> list[BatchItem]:
    """Files to extract: each given file, and every .pdf/.jpg/.jpeg/.png under each given folder."""
    items = []
    for given in paths:
        if given.is_dir():
            for path in sorted(given.rglob("*")):
                if path.is_file() and path.suffix.lower() in SUFFIXES:
                    items.append(BatchItem(path, path.relative_to(given)))
        elif given.is_file():
            items.append(BatchItem(given, Path(given.name)))
        else:
            raise FileNotFoundError(f"{given} does not exist")
    return items


async def _one(
    pool, settings: Settings, item: BatchItem, visual_only: bool, sources: tuple[str, ...] = SOURCES
) -> dict[str, Any]:
    started = time.perf_counter()
    data = await asyncio.to_thread(item.path.read_bytes)
    media_type = sniff(data[:1024])
    if media_type is None:
        result = ExtractionResult.failed("Unsupported file type: not a PDF, JPEG or PNG")
    else:
        ctx = JobContext(
            str(item.relative),
            media_type,
            settings.limits.OCR_MAX_PDF_PAGES,
            visual_only=visual_only,
            name=item.path.name,
            sources=sources,
        )
        result = await _submit(pool, RetryPolicy.of(settings.queue, BUSY_RETRY_SECONDS), ctx, data)
    return record_of(item, result, media_type, round(time.perf_counter() - started, 3))


def record_of(item: BatchItem, result: ExtractionResult, media_type: str | None, seconds: float) -> dict[str, Any]:
    """The JSON record of one extracted file (``--out``; what ``../shared/bench/score.py``
    reads): the API's names for the operator's view of an invoice, amounts as JSON numbers,
    ``seconds`` from reading the file to the result."""
    return {
        "file": str(item.path),
        "processingStatus": result.processing_status,
        "validationErrors": result.validation_errors,
        "processingError": result.processing_error,
        "data": to_json(result.data),
        "ocrConfidence": result.ocr_confidence,
        "extractionTier": result.extraction_tier,
        "extractionProvider": result.extraction_provider,
        "routingReason": result.routing_reason,
        "evidence": to_json(result.evidence),
        "keyConfidence": result.key_confidence,
        "mediaType": media_type,
        "timings": result.timings,
        "seconds": seconds,
    }


async def _submit(pool, policy: RetryPolicy, ctx: JobContext, data: bytes) -> ExtractionResult:
    """One document through the pool, retried by the queue's policy: busy OCR without counting,
    other temporary errors up to ``queue.max_attempts`` attempts in all."""
    attempts = busy = 0
    while True:
        try:
            return await pool.submit(ctx, data)
        except OcrBusy:
            busy += 1
            await asyncio.sleep(policy.delay(busy, busy=True))
        except TemporaryError as exc:
            attempts += 1
            if policy.gives_up(attempts):
                return ExtractionResult.failed(f"{exc} (after {attempts} attempts)")
            await asyncio.sleep(policy.delay(attempts, busy=False))


async def run_batch(
    settings: Settings,
    items: list[BatchItem],
    *,
    visual_only: bool = False,
    sources: tuple[str, ...] = SOURCES,
    pool=None,
) -> AsyncIterator[tuple[BatchItem, dict[str, Any]]]:
    """Extract every item on the pool, at most ``pool.size`` at once; yields (item, record) as
    each ends. ``sources``: the value proposers of tiers 1 and 2 that run (``JobContext``)."""
    own_pool = pool is None
    if own_pool:
        pool = await start_worker_pool(settings)
    limit = asyncio.Semaphore(pool.size)

    async def guarded(item: BatchItem):
        async with limit:
            return item, await _one(pool, settings, item, visual_only, sources)

    try:
        for done in asyncio.as_completed([guarded(item) for item in items]):
            yield await done
    finally:
        if own_pool:
            await pool.close()


def write_record(out_dir: Path, item: BatchItem, record: dict[str, Any]) -> Path:
    """Write ``out_dir/<relative path>.json`` (``<source>/<stem>.pdf`` gives ``<source>/<stem>.json``)."""
    target = out_dir / item.relative.with_suffix(".json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record, indent=1, ensure_ascii=False))
    return target
