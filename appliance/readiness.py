"""Readiness of a running appliance (``GET /readyz``): is it able to take and process uploads now?

Owns the four checks (the database answers, the extraction pool is up and healthy, the
dispatcher runs, jobs make progress: ``Dispatcher.stalled``) and the queue gate the upload
handlers consult. The web app starts before the pool (models take minutes to load), so until
``attach()`` the appliance is alive but not ready:
uploads answer 503 "Extraction queue unavailable" and ``/readyz`` names what is still starting.

Imports nothing of ``api`` and no model or Ray library: the pool and the dispatcher are handed in.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from typing import Any

from appliance.db import Database

DATABASE_TIMEOUT_SECONDS = 2.0  # a probe must answer quickly; a longer wait means a stuck writer


@dataclass(frozen=True)
class CheckResult:
    """One readiness check: ``check`` is its name, ``message`` says what is wrong (or ``ok``)."""

    check: str
    ok: bool
    message: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Readiness:
    """The readiness of one appliance; the server ``attach``es the pool and dispatcher once up."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.pool: Any = None
        self.dispatcher: Any = None
        self.stopping = False

    def attach(self, pool: Any, dispatcher: Any) -> None:
        """The pool has loaded its models and the dispatcher runs: uploads are accepted from now on."""
        self.pool, self.dispatcher = pool, dispatcher

    def detach(self) -> None:
        """Shutting down: report unready (load balancers drain) and refuse new uploads."""
        self.stopping = True

    def queue_ready(self) -> bool:
        """Whether uploads may be queued now (``make_app(queue_ready=...)``)."""
        return not self.stopping and self.pool is not None and self.pool.healthy()

    def wake(self) -> None:
        """Wake the dispatcher after an accepted upload (``make_app(on_enqueued=...)``)."""
        if self.dispatcher is not None:
            self.dispatcher.wake()

    async def checks(self) -> list[CheckResult]:
        """Run every check; the database one waits at most DATABASE_TIMEOUT_SECONDS."""
        return [await self._database(), self._pool(), self._dispatcher(), self._progress()]

    async def failing(self) -> list[CheckResult]:
        """The checks that fail now; empty means ready."""
        return [result for result in await self.checks() if not result.ok]

    async def _database(self) -> CheckResult:
        try:
            await asyncio.wait_for(self.db.fetchone("SELECT 1"), DATABASE_TIMEOUT_SECONDS)
        except TimeoutError:
            return CheckResult("database", False, f"no answer within {DATABASE_TIMEOUT_SECONDS:g} s")
        except Exception as exc:  # a probe reports any failure, it never raises
            return CheckResult("database", False, f"{type(exc).__name__}: {exc}")
        return CheckResult("database", True, "ok")

    def _pool(self) -> CheckResult:
        if self.stopping:
            return CheckResult("pool", False, "shutting down")
        if self.pool is None:
            return CheckResult("pool", False, "models are loading: the extraction pool is starting")
        if not self.pool.healthy():
            return CheckResult("pool", False, "extraction pool unhealthy: a worker is lost (Ray restarts it)")
        return CheckResult("pool", True, "ok")

    def _progress(self) -> CheckResult:
        stalled = getattr(self.dispatcher, "stalled", None)
        message = stalled() if stalled is not None and self.pool is not None else ""
        return CheckResult("progress", not message, message or "ok")

    def _dispatcher(self) -> CheckResult:
        if self.dispatcher is None:
            return CheckResult("dispatcher", False, "not started: it starts once the pool is up")
        if not self.dispatcher.running:
            return CheckResult("dispatcher", False, "stopped: jobs are not being processed (see the log)")
        return CheckResult("dispatcher", True, "ok")
