"""HTTP side of the metrics: the middleware that times every request, and the small web app that
serves ``GET /metrics`` (Prometheus text format) on its own port, bound to 127.0.0.1 so that only
this host (a local Prometheus or node agent) can read it. What is measured lives in
``appliance.metrics``; this module only counts requests and renders."""

from __future__ import annotations

import time

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from api.app_keys import METRICS
from appliance.metrics import Metrics

METRICS_HOST = "127.0.0.1"  # not a setting: the metrics carry no key, so they never leave the host
UNMATCHED = "unmatched"  # the route label of requests no route matched (404, scanners)


def route_label(request: web.Request) -> str:
    """The matched resource's path template (``/api/v1/invoices/{id}``), never the raw URL: ids
    in URLs would make one time series per invoice."""
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else UNMATCHED


@web.middleware
async def metrics_middleware(request: web.Request, handler):
    """Outermost middleware: sees the status the error middleware made of any exception."""
    started = time.perf_counter()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as exc:  # redirects and the like, which the error middleware lets through
        status = exc.status
        raise
    finally:
        request.app[METRICS].http_request(request.method, route_label(request), status, time.perf_counter() - started)


def make_metrics_app(metrics: Metrics) -> web.Application:
    """The app of the metrics port: ``GET /metrics`` only, no key."""
    app = web.Application()
    app[METRICS] = metrics

    async def get_metrics(request: web.Request) -> web.Response:
        await metrics.refresh()
        return web.Response(body=metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    app.router.add_get("/metrics", get_metrics)
    return app


async def start_metrics_server(metrics: Metrics, port: int) -> web.AppRunner:
    """Serve ``make_metrics_app`` on 127.0.0.1:``port``; the caller cleans the runner up.
    Raises OSError when the port cannot be bound."""
    runner = web.AppRunner(make_metrics_app(metrics), access_log=None)  # scrapes every 15 s: no log noise
    await runner.setup()
    try:
        await web.TCPSite(runner, METRICS_HOST, port).start()
    except OSError:
        await runner.cleanup()
        raise
    return runner
