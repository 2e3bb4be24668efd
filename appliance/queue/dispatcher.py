"""The dispatcher: leases jobs from the SQLite queue, hands each document to the pipeline pool
and writes the result (DESIGN.md flow steps 4-5).

Temporary errors (OCR busy, a lost worker, memory pressure) and crashes of a stage go back to
the queue with exponential backoff; busy-OCR retries do not count as attempts. After
``queue.max_attempts`` failed attempts the invoice ends ``failed`` with the last error in
``processingError``. The debit belongs to the upload, so no retry debits again.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from pathlib import Path

from appliance import invoices, profiles, vendors
from appliance.db import Database
from appliance.queue import jobs
from appliance.queue.retry import RetryPolicy
from appliance.settings import Settings
from pipeline.context import JobContext
from pipeline.errors import OcrBusy, TemporaryError
from pipeline.result import ExtractionResult
from pipeline.runtime.pool import start_pool

log = logging.getLogger(__name__)


async def start_worker_pool(settings: Settings):
    """The pipeline pool the settings ask for (``pool.backend``, ``pool.mode``, ``pool.workers``,
    ``ocr.concurrency`` and ``ocr.batch_*``, ``llm.parallel``, ``ray.*``), started with every worker's models loaded."""
    return await start_pool(
        settings.pool.backend,
        settings.worker_models(),
        settings.pool.workers,
        settings.ocr.concurrency,
        ray_address=settings.ray.address,
        num_cpus=settings.ray.num_cpus,
        object_store_mb=settings.ray.object_store_mb,
        ray_token_file=settings.ray_token_file,
        stages=settings.stage_config(),
    )


class Dispatcher:
    """Runs until ``stop()``: at most ``pool.size`` jobs in flight. ``metrics`` (an
    ``appliance.metrics.Metrics``, optional) is told of results, retries and busy OCR."""

    def __init__(self, db: Database, settings: Settings, pool, metrics=None) -> None:
        self.db = db
        self.settings = settings
        self.pool = pool
        self.metrics = metrics
        self._task: asyncio.Task | None = None
        self.owner = f"dispatcher-{uuid.uuid4()}"
        self._wake = asyncio.Event()
        self._stopping = False
        self._tasks: set[asyncio.Task] = set()
        # Progress (readiness): when an attempt last ended other than "OCR busy", and the busy
        # bounces since. A stage that takes jobs but never finishes one shows here, not in pool health.
        self._progress_at = time.monotonic()
        self._bounces = 0

    def wake(self) -> None:
        """Called after an upload is accepted, so the job starts without waiting for the poll."""
        self._wake.set()

    @property
    def running(self) -> bool:
        """True while ``run()`` loops; False before, after ``stop()``, or once it crashed (readiness)."""
        return self._task is not None and not self._task.done() and not self._stopping

    def _observe(self, event: str, *args) -> None:
        if self.metrics is not None:
            getattr(self.metrics, event)(*args)

    async def run(self) -> None:
        self._task = asyncio.current_task()
        released = await jobs.release_orphans(self.db, self.owner)
        if released:
            log.info("requeued %d job(s) leased by a previous process", released)
        while not self._stopping:
            free = self.pool.size - len(self._tasks)
            leased = []
            if free > 0 and self.pool.healthy():
                leased = await jobs.lease(self.db, self.owner, self.settings.queue.lease_seconds, free)
            if leased and not self._tasks and not self._bounces:
                self._progress_at = time.monotonic()  # idle until now: the clock starts with this work
            for job in leased:
                task = asyncio.create_task(self._process(job))
                self._tasks.add(task)
                task.add_done_callback(self._done)
            if not leased:
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), self.settings.queue.poll_seconds)
                except TimeoutError:
                    pass

    def stalled(self) -> str:
        """Why the pipeline makes no progress ("" when it does): work is in flight or bouncing
        off a busy OCR stage, and no attempt has ended otherwise for ``queue.stall_seconds``.
        Every attempt ends within ``limits.job_timeout_seconds`` (the pool's timeout), so a longer
        silence is a stuck stage (issue 12: a dead worker's OCR slot stalled every scan while
        /readyz said 200)."""
        silent = time.monotonic() - self._progress_at
        if not (self._tasks or self._bounces) or silent < self.settings.queue.stall_seconds:
            return ""
        if self._bounces:
            return (
                f"OCR stage: no job got through for {silent:.0f} s, {self._bounces} 'OCR busy' retries since "
                "(queue.stall_seconds)"
            )
        return f"pool: {len(self._tasks)} job(s) in flight and none ended for {silent:.0f} s (queue.stall_seconds)"

    def _progressed(self) -> None:
        self._progress_at = time.monotonic()
        self._bounces = 0

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        self._wake.set()
        if not task.cancelled() and task.exception() is not None:
            log.error("dispatcher task crashed", exc_info=task.exception())

    async def stop(self) -> None:
        """Stop leasing and wait for jobs in flight (their leases would expire anyway)."""
        self._stopping = True
        self._wake.set()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _process(self, job: jobs.LeasedJob) -> None:
        row = await self.db.fetchone(
            "SELECT f.path, f.media_type, f.original_name, i.vendor_id, j.force_tier FROM files f "
            "JOIN invoices i ON i.id = f.invoice_id JOIN jobs j ON j.id = ? WHERE f.invoice_id = ?",
            (job.id, job.invoice_id),
        )
        if row is None:
            await invoices.record_result(
                self.db, job.id, job.invoice_id, ExtractionResult.failed("the stored file is missing")
            )
            return
        ctx = JobContext(
            job.invoice_id,
            row["media_type"],
            self.settings.limits.OCR_MAX_PDF_PAGES,
            row["vendor_id"],
            name=row["original_name"],
            templates=await vendors.templates_of(self.db, job.tenant_id),
            profiles=await profiles.book_of(self.db, job.tenant_id),
            force_tier=row["force_tier"],
        )  # set by `appliance invoice reprocess --tier`
        log.info("job %s invoice %s attempt %d: processing", job.id, job.invoice_id, job.attempts)
        try:
            data = await asyncio.to_thread(Path(row["path"]).read_bytes)
            result = await self.pool.submit(ctx, data)
        except OcrBusy as exc:
            self._observe("ocr_busy")
            self._bounces += 1
            await self._retry(job, str(exc), busy=True)
            return
        except TemporaryError as exc:
            self._progressed()
            await self._retry(job, str(exc), busy=False)
            return
        except Exception as exc:  # a bug or a crash in a stage: the invoice fails, the server lives
            self._progressed()
            log.exception("job %s failed", job.id)
            await self._retry(job, f"extraction error: {type(exc).__name__}: {exc}", busy=False)
            return
        self._progressed()
        await invoices.record_result(self.db, job.id, job.invoice_id, result)
        self._observe("job_result", result)
        log.info("job %s invoice %s: %s", job.id, job.invoice_id, result.processing_status)

    async def _retry(self, job: jobs.LeasedJob, error: str, *, busy: bool) -> None:
        policy = RetryPolicy.of(self.settings.queue)
        if not busy and policy.gives_up(job.attempts):
            log.warning("job %s: giving up after %d attempts: %s", job.id, job.attempts, error)
            failed = ExtractionResult.failed(f"{error} (after {job.attempts} attempts)")
            await invoices.record_result(self.db, job.id, job.invoice_id, failed)
            self._observe("job_result", failed)
            return
        delay = policy.delay(job.busy_retries if busy else job.attempts, busy=busy)
        log.info("job %s: retry in %.1f s: %s", job.id, delay, error)
        await jobs.retry_later(self.db, job, delay, error, busy=busy)
        self._observe("job_retry", "busy" if busy else "error")
