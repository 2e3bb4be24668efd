"""Probes for systemd, load balancers and orchestrators, outside ``/api/v1`` and without a key
(the auth middleware guards ``/api/v1/`` only), and not in the tenant API's OpenAPI document.

- ``GET /healthz``: the process answers HTTP (liveness); always 200 ``{"status": "ok"}``.
- ``GET /readyz``: 200 when uploads can be taken and processed; else 503 with the spec's error
  body plus ``status`` and ``failing`` (each ``{check, message}``). The checks themselves are
  ``appliance.readiness``'s.
"""

from __future__ import annotations

from aiohttp import web

from api.app_keys import READINESS
from api.errors import error_body

routes = web.RouteTableDef()


@routes.get("/healthz")
async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


@routes.get("/readyz")
async def readyz(request: web.Request) -> web.Response:
    checks = await request.app[READINESS].checks()
    failing = [check for check in checks if not check.ok]
    if not failing:
        return web.json_response({"status": "ready", "checks": [check.to_dict() for check in checks]})
    message = "Not ready: " + "; ".join(f"{check.check}: {check.message}" for check in failing)
    body = error_body(503, message) | {
        "status": "unready",
        "failing": [{"check": check.check, "message": check.message} for check in failing],
    }
    return web.json_response(body, status=503)
