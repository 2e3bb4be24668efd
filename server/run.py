"""Assemble and run the appliance: database, pipeline pool, dispatcher and the web app, and the
background tasks beside them (pool health, systemd status, retention sweeps); stop them in order
(signals, systemd's notifications)."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from aiohttp import web

from api import access_log
from api.app import make_app
from api.metrics import start_metrics_server
from appliance.billing import sync_packages
from appliance.datadir import lock_data_dir, prepare_data_dir
from appliance.db import Database
from appliance.metrics import Metrics
from appliance.notify import Notifier, report_status, status_line
from appliance.queue.dispatcher import Dispatcher, start_worker_pool
from appliance.readiness import Readiness
from appliance.retention import run_periodically as retention_sweeps
from appliance.settings import Settings
from appliance.uploads import reap_partials

log = logging.getLogger(__name__)


@dataclass
class Assembled:
    """The appliance before its pipeline starts: the open database, readiness (unready until a
    pool is attached), metrics and the web app (the API with the review pages)."""

    db: Database
    readiness: Readiness
    metrics: Metrics
    app: web.Application


async def assemble(settings: Settings, queue_ready: Callable[[], bool] | None = None) -> Assembled:
    """Prepare the data dir, open and migrate the database, sync the credit packages and make
    the web app: the one assembly of ``serve`` and of the tests' appliances. ``queue_ready``
    replaces the readiness gate of uploads (tests that queue jobs no dispatcher takes)."""
    prepare_data_dir(settings)
    db = await Database(settings.db_path).open()
    await sync_packages(db, settings)
    readiness, metrics = Readiness(db), Metrics(db)
    app = make_app(
        db,
        settings,
        queue_ready=queue_ready or readiness.queue_ready,
        on_enqueued=readiness.wake,
        readiness=readiness,
        metrics=metrics,
    )
    return Assembled(db, readiness, metrics, app)


@asynccontextmanager
async def running_pipeline(settings: Settings, db: Database, metrics: Metrics | None = None):
    """The pool and its dispatcher, started (models loaded) and stopped around the block;
    ``metrics`` is handed to the dispatcher."""
    pool = await start_worker_pool(settings)
    dispatcher = Dispatcher(db, settings, pool, metrics)
    task = asyncio.create_task(dispatcher.run())
    try:
        yield pool, dispatcher
    finally:
        await dispatcher.stop()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await pool.close()


async def serve(
    settings: Settings, host: str, port: int, ready: asyncio.Event | None = None, stop: asyncio.Event | None = None
) -> None:
    """Run the API, the dispatcher and the pool until SIGTERM/SIGINT (or ``stop`` is set)."""
    prepare_data_dir(settings)
    lock = lock_data_dir(settings)
    removed = reap_partials(settings.files_dir)
    if removed:
        log.info("removed %d partial upload(s) left by a crash", removed)
    # The web app comes up before the pool: /healthz and /readyz answer while the models load
    # (minutes), and uploads get 503 "Extraction queue unavailable" until readiness.attach().
    assembled = await assemble(settings)
    db, readiness, metrics = assembled.db, assembled.readiness, assembled.metrics
    stop = stop or asyncio.Event()
    notifier = Notifier()  # before Ray starts, so its workers do not inherit NOTIFY_SOCKET
    runner = metrics_runner = None
    try:
        runner = web.AppRunner(assembled.app, **access_log.runner_options(settings.log.access))
        await runner.setup()
        await web.TCPSite(runner, host, port).start()
        log.info("listening on http://%s:%d (/readyz says when the models are loaded)", host, port)
        metrics_runner = await _start_metrics(settings, metrics)
        notifier.status("loading models and starting the pool")
        log.info("loading models and starting the %s pool (%d workers)", settings.pool.backend, settings.pool.workers)
        async with running_pipeline(settings, db, metrics) as (pool, dispatcher):
            _on_signals(stop)  # after ray.init, which installs handlers of its own
            readiness.attach(pool, dispatcher)
            metrics.stage_stats = pool.stage_stats
            log.info("serving on http://%s:%d/api/v1 (OpenAPI at /api/docs)", host, port)
            print(f"appliance ready on http://{host}:{port}", flush=True)
            if ready is not None:
                ready.set()
            notifier.ready(await status_line(db))
            health = asyncio.create_task(_watch_pool(pool, stop))
            reporter = asyncio.create_task(report_status(db, notifier))
            retention = asyncio.create_task(retention_sweeps(db, settings))  # retention.days; off: returns
            await stop.wait()
            notifier.stopping()
            health.cancel()
            reporter.cancel()
            retention.cancel()
            await asyncio.gather(retention, return_exceptions=True)  # before the database closes
            log.info("shutting down")
            readiness.detach()  # /readyz 503 and uploads refused while jobs in flight finish
            db.changes.close()  # long polls answer now rather than hold the shutdown up to 60 s
    finally:
        for web_runner in (runner, metrics_runner):
            if web_runner is not None:
                await web_runner.cleanup()
        await db.close()
        lock.close()


async def _start_metrics(settings: Settings, metrics: Metrics) -> web.AppRunner | None:
    """The ``/metrics`` listener on 127.0.0.1:``metrics.port``; None when disabled or the port is
    taken (logged): metrics are not worth refusing to extract invoices for."""
    if not settings.metrics.enabled:
        return None
    port = settings.metrics.port
    try:
        metrics_runner = await start_metrics_server(metrics, port)
    except OSError as exc:
        log.error("metrics: cannot listen on 127.0.0.1:%d (%s); serving without /metrics", port, exc)
        return None
    log.info("metrics on http://127.0.0.1:%d/metrics", port)
    return metrics_runner


def _on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread (tests)
            pass


async def _watch_pool(pool, stop: asyncio.Event, every: float = 10.0) -> None:
    while not stop.is_set():
        await asyncio.sleep(every)
        await pool.check()
