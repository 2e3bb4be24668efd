"""Tell systemd how the service is doing (``Type=notify``): READY, STATUS and STOPPING.

The datagram protocol is sd_notify(3); the ``sdnotify`` package sends it. Everything here is a
no-op when ``NOTIFY_SOCKET`` is unset (a terminal, the tests, ``scripts/run``), so the server
calls it unconditionally.
"""

from __future__ import annotations

import asyncio
import logging
import os

from appliance.db import Database

log = logging.getLogger(__name__)
STATUS_EVERY_SECONDS = 10.0


class Notifier:
    """A connection to systemd's notification socket, or nothing when not run by systemd."""

    def __init__(self) -> None:
        self._notifier = None
        if os.environ.get("NOTIFY_SOCKET"):
            import sdnotify

            # sdnotify reads the socket from os.environ; connect now, while it is still there.
            self._notifier = sdnotify.SystemdNotifier()
            # Ray's workers must not inherit it: with NotifyAccess=main systemd would log a
            # refusal for each message they sent, and READY must come from this process only.
            os.environ.pop("NOTIFY_SOCKET", None)

    @property
    def enabled(self) -> bool:
        """True when systemd is listening (the service runs as ``Type=notify``)."""
        return self._notifier is not None

    def send(self, *fields: str) -> None:
        """Send ``KEY=value`` fields in one datagram; errors are ignored (sdnotify's choice)."""
        if self._notifier is not None:
            self._notifier.notify("\n".join(fields))

    def status(self, text: str) -> None:
        """The one-line STATUS= that ``systemctl status`` shows."""
        self.send(f"STATUS={_one_line(text)}")

    def ready(self, text: str) -> None:
        """READY=1: the models are loaded and the API listens; systemd starts dependent units."""
        self.send("READY=1", f"STATUS={_one_line(text)}")

    def stopping(self) -> None:
        """STOPPING=1: shutting down on request, so systemd does not count it as a failure."""
        self.send("STOPPING=1", "STATUS=shutting down")


def _one_line(text: str) -> str:
    return " ".join(text.split())


async def status_line(db: Database) -> str:
    """``queue: N queued, M in flight`` from the jobs table (in flight = leased by a worker)."""
    row = await db.fetchone("SELECT SUM(state = 'queued') AS queued, SUM(state = 'leased') AS leased FROM jobs")
    queued, leased = (row["queued"] or 0, row["leased"] or 0) if row else (0, 0)
    return f"serving; queue: {queued} queued, {leased} in flight"


async def report_status(db: Database, notifier: Notifier, every: float = STATUS_EVERY_SECONDS) -> None:
    """Refresh STATUS= every ``every`` seconds until cancelled; returns at once when not under systemd."""
    while notifier.enabled:
        await asyncio.sleep(every)
        try:
            notifier.status(await status_line(db))
        except Exception:  # a busy or closing database must not stop the server
            log.debug("status line failed", exc_info=True)
