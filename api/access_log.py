"""The access log of the API port (``log.access``): which answered requests get a line.

- ``all``: every request, aiohttp's own access logger;
- ``changes`` (the default): every request but a successful read (GET or HEAD answered below 400).
  Clients poll an invoice every second or so; at thousands of polls a second a line each cost the
  poll endpoint a third of its time (issue 12, bench/results/api.md) and buried the uploads and
  errors an operator looks for. Reads are still counted and timed in /metrics;
- ``off``: no access log.

Imports nothing of the appliance.
"""

from __future__ import annotations

from aiohttp import web
from aiohttp.web_log import AccessLogger

ACCESS_LOG_FORMAT = '%a "%r" %s %b %Tfs'
READS = frozenset({"GET", "HEAD"})


class ChangesAccessLogger(AccessLogger):
    """aiohttp's AccessLogger, silent for successful reads (checked before anything is formatted)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        if request.method in READS and response.status < 400:
            return
        super().log(request, response, time)


def runner_options(mode: str) -> dict:
    """Keyword arguments of ``web.AppRunner`` for ``log.access`` = ``mode`` (all, changes, off)."""
    if mode == "off":
        return {"access_log": None}
    options = {"access_log_format": ACCESS_LOG_FORMAT}
    if mode == "changes":
        options["access_log_class"] = ChangesAccessLogger
    return options
