"""The appliance's Prometheus metrics, served as ``GET /metrics`` on their own loopback port.

Owns the metric names and one ``CollectorRegistry`` per ``Metrics`` (tests build many apps in
one process; the global default registry would refuse the second set of names). Two kinds:

- counters and histograms fed as things happen: HTTP requests (``api.metrics`` middleware),
  pipeline stage latencies, finished jobs, retries and busy-OCR rejections (the dispatcher),
  Stripe webhook outcomes (the webhook route);
- values read from SQLite at scrape time (``refresh()``, awaited by the ``/metrics`` handler
  before rendering): queue depth, age of the oldest unfinished job, the credits debited and
  refunded, summed from the append-only ledger so they survive restarts, and the files removed
  and bytes freed by retention (``appliance.retention``, whose totals are kept in SQLite so that
  the CLI's sweeps count too).

Imports neither ``api`` nor aiohttp; the middleware and the listener live in ``api.metrics``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from appliance.db import Database
from appliance.retention import totals as retention_totals
from pipeline.result import ExtractionResult
from pipeline.schema import BUSY_STATES

log = logging.getLogger(__name__)

JOB_STATES = ("queued", "leased")
LEDGER_REASONS = {"upload_debit": "debited", "queue_refund": "refunded"}
# Seconds; a stage ranges from milliseconds (rules) to minutes (OCR of a large scan on CPU).
STAGE_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


@dataclass
class Snapshot:
    """What the last ``refresh()`` read from SQLite. Credits are positive numbers of credits."""

    database_up: bool = False
    jobs: dict[str, int] = field(default_factory=dict)
    invoices: dict[str, int] = field(default_factory=dict)
    oldest_job_seconds: float = 0.0
    credits: dict[str, int] = field(default_factory=lambda: {reason: 0 for reason in LEDGER_REASONS})
    ledger_id: int = 0  # the ledger rows up to this id are summed in ``credits``
    retention: tuple[int, int] = (0, 0)  # files removed, bytes freed (appliance.retention.totals)
    stages: dict[str, dict] = field(default_factory=dict)  # pipeline.runtime.pool.RayPool.stage_stats()


class Metrics:
    """The metrics of one appliance (one web app). ``db`` None: the SQLite values are left out."""

    def __init__(self, db: Database | None = None) -> None:
        self.db = db
        # set by the server once the pool runs: an async callable returning the stage actors'
        # stats (OCR batch sizes, engine seconds; pool.mode "staged"), read at scrape time
        self.stage_stats = None
        self.snapshot = Snapshot()
        self.registry = CollectorRegistry()
        registry = self.registry
        self.http_requests = Counter(
            "appliance_http_requests",
            "HTTP requests answered, by route and status",
            ["method", "route", "status"],
            registry=registry,
        )
        self.http_seconds = Histogram(
            "appliance_http_request_duration_seconds",
            "Time to answer an HTTP request, in seconds",
            ["method", "route"],
            registry=registry,
        )
        self._http_children: dict[tuple[str, str, int], tuple] = {}
        self.stage_seconds = Histogram(
            "appliance_stage_duration_seconds",
            "Pipeline stage latency in seconds (text, ocr, einvoice, rules, llm)",
            ["stage"],
            buckets=STAGE_BUCKETS,
            registry=registry,
        )
        self.jobs_finished = Counter(
            "appliance_jobs_finished",
            "Jobs whose result was written, by result",
            ["processing_status"],
            registry=registry,
        )
        self.retries = Counter(
            "appliance_job_retries",
            "Jobs put back in the queue, by reason (busy, error)",
            ["reason"],
            registry=registry,
        )
        self.ocr_busy_rejections = Counter(
            "appliance_ocr_busy_rejections",
            "Documents refused by a busy OCR stage (ocr.concurrency in use)",
            registry=registry,
        )
        self.webhooks = Counter(
            "appliance_webhook_events", "Stripe webhook deliveries, by outcome", ["outcome"], registry=registry
        )
        registry.register(_SnapshotCollector(self))

    # -- fed as things happen

    def http_request(self, method: str, route: str, status: int, seconds: float) -> None:
        """One answered request; ``route`` is the resource path (``/api/v1/invoices/{id}``), never the URL."""
        key = (method, route, status)
        children = self._http_children.get(key)
        if children is None:  # labels() takes a lock and builds a key each time: once per combination
            children = self._http_children[key] = (
                self.http_requests.labels(method, route, str(status)),
                self.http_seconds.labels(method, route),
            )
        children[0].inc()
        children[1].observe(seconds)

    def job_result(self, result: ExtractionResult) -> None:
        """A pipeline result written by the dispatcher: its status and its ``timings`` (seconds per stage).

        The pipeline times reading the text as one stage; it is labelled ``ocr`` when any page was
        OCR'd (``ocr_confidence`` is set only then), since OCR is then what that time is spent on.
        """
        self.jobs_finished.labels(result.processing_status).inc()
        ocr = result.ocr_confidence is not None
        for stage, seconds in result.timings.items():
            label = "ocr" if stage == "text" and ocr else stage
            self.stage_seconds.labels(label).observe(float(seconds))

    def job_retry(self, reason: str) -> None:
        """A job went back to the queue; ``reason`` is ``busy`` (OCR busy) or ``error``."""
        self.retries.labels(reason).inc()

    def ocr_busy(self) -> None:
        self.ocr_busy_rejections.inc()

    def webhook(self, outcome: str) -> None:
        """A Stripe webhook delivery and what came of it (``applied``, ``duplicate``, ``refused``...)."""
        self.webhooks.labels(outcome).inc()

    # -- read at scrape time

    async def refresh(self) -> None:
        """Read the SQLite values into ``snapshot``; on a database error, ``appliance_database_up`` is 0."""
        if self.stage_stats is not None:
            try:
                self.snapshot.stages = await self.stage_stats()
            except Exception as exc:
                log.warning("metrics: no stage stats: %s", exc)
        if self.db is None:
            return
        try:
            await self._read()
            self.snapshot.database_up = True
        except Exception as exc:  # a scrape reports trouble, it never fails
            log.warning("metrics: cannot read the database: %s", exc)
            self.snapshot.database_up = False

    async def _read(self) -> None:
        snap = self.snapshot
        states = "', '".join(JOB_STATES)
        rows = await self.db.fetchall(
            f"SELECT state, COUNT(*) AS n, MIN(created_at) AS oldest FROM jobs WHERE state IN ('{states}') "
            "GROUP BY state"
        )
        snap.jobs = {state: 0 for state in JOB_STATES} | {r["state"]: r["n"] for r in rows}
        oldest = [_epoch(r["oldest"]) for r in rows if r["oldest"]]
        snap.oldest_job_seconds = max(0.0, time.time() - min(oldest)) if oldest else 0.0
        rows = await self.db.fetchall(
            f"SELECT i.processing_status AS status, COUNT(*) AS n FROM jobs j JOIN invoices i ON i.id = j.invoice_id "
            f"WHERE j.state IN ('{states}') GROUP BY i.processing_status"
        )
        snap.invoices = {status.value: 0 for status in BUSY_STATES} | {r["status"]: r["n"] for r in rows}
        await self._read_ledger(snap)
        snap.retention = await retention_totals(self.db)

    async def _read_ledger(self, snap: Snapshot) -> None:
        # Incremental: only rows after the last one summed, so a scrape never scans the whole
        # ledger twice. Ids grow with commits (SQLite has one writer), so nothing is skipped.
        top = (await self.db.fetchone("SELECT COALESCE(MAX(id), 0) AS id FROM ledger"))["id"]
        if top <= snap.ledger_id:
            return
        reasons = "', '".join(LEDGER_REASONS)
        rows = await self.db.fetchall(
            f"SELECT reason, SUM(delta) AS total FROM ledger WHERE id > ? AND id <= ? AND reason IN ('{reasons}') "
            "GROUP BY reason",
            (snap.ledger_id, top),
        )
        for row in rows:
            snap.credits[row["reason"]] += abs(row["total"])
        snap.ledger_id = top

    def render(self) -> bytes:
        """The registry in Prometheus text format (call ``refresh()`` first for fresh SQLite values)."""
        return generate_latest(self.registry)


class _SnapshotCollector:
    """Yields the values of the last ``Metrics.refresh()`` (prometheus_client collects synchronously)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def describe(self):
        return []  # names are only known from collect(); no clash checks needed in a private registry

    def collect(self):
        snap = self.metrics.snapshot
        yield from _stage_families(snap.stages)
        if self.metrics.db is None:
            return
        yield GaugeMetricFamily(
            "appliance_database_up", "1 when the last scrape could read SQLite", value=int(snap.database_up)
        )
        jobs = GaugeMetricFamily("appliance_queue_jobs", "Unfinished jobs in the queue, by job state", labels=["state"])
        for state, count in sorted(snap.jobs.items()):
            jobs.add_metric([state], count)
        yield jobs
        invoices = GaugeMetricFamily(
            "appliance_queue_invoices",
            "Invoices with an unfinished job, by processing status",
            labels=["processing_status"],
        )
        for status, count in sorted(snap.invoices.items()):
            invoices.add_metric([status], count)
        yield invoices
        yield GaugeMetricFamily(
            "appliance_queue_oldest_job_age_seconds",
            "Age of the oldest unfinished (queued or leased) job in seconds; 0 when none",
            value=snap.oldest_job_seconds,
        )
        for reason, word in LEDGER_REASONS.items():
            yield CounterMetricFamily(
                f"appliance_credits_{word}", f"Credits {word} (ledger reason {reason})", value=snap.credits[reason]
            )
        yield CounterMetricFamily(
            "appliance_retention_files_deleted",
            "Stored files of approved invoices removed by retention (retention.days), page images included",
            value=snap.retention[0],
        )
        yield CounterMetricFamily(
            "appliance_retention_bytes_freed",
            "Bytes freed by retention: the stored files and their page images",
            value=snap.retention[1],
        )


def _epoch(stamp: str) -> float:
    """Seconds since the epoch of an ISO 8601 timestamp as written by ``appliance.db.utcnow``."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _stage_families(stages: dict[str, dict]):
    """The stage actors' counters (pool.mode "staged"), as their ``stats()`` report them."""
    ocr, llm = stages.get("ocr"), stages.get("llm")
    if ocr:
        batches = CounterMetricFamily(
            "appliance_ocr_batches", "OCR engine calls of the OCR stage, by pages in the batch", labels=["pages"]
        )
        for pages, count in sorted(ocr.get("batch_sizes", {}).items(), key=lambda item: int(item[0])):
            batches.add_metric([str(pages)], count)
        yield batches
        yield CounterMetricFamily(
            "appliance_ocr_engine_seconds",
            "Seconds the OCR stage spent in its engine",
            value=ocr.get("busy_seconds", 0),
        )
        yield CounterMetricFamily(
            "appliance_ocr_page_wait_seconds",
            "Seconds pages waited in the OCR stage for their batch to start, summed",
            value=ocr.get("page_wait_seconds", 0),
        )
        yield GaugeMetricFamily(
            "appliance_ocr_waiting_pages", "Pages queued in the OCR stage", value=ocr.get("waiting_pages", 0)
        )
    if llm:
        yield CounterMetricFamily(
            "appliance_llm_stage_calls", "Prompts the LLM stage answered", value=llm.get("calls", 0)
        )
        yield CounterMetricFamily(
            "appliance_llm_stage_seconds",
            "Seconds the LLM stage spent decoding, summed",
            value=llm.get("busy_seconds", 0),
        )
