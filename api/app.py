"""Assemble the aiohttp application: middlewares, routes and the OpenAPI 3 document.

The OpenAPI document is served at ``/api/docs/openapi.json`` and Swagger UI (bundled, works
offline) at ``/api/docs``; both are outside ``/api/v1`` and need no key, like the probes
``/healthz`` and ``/readyz``. ``/metrics`` is not here: it has its own loopback port (``api.metrics``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp_apigami import setup_aiohttp_apispec
from aiohttp_apigami.core import SWAGGER_DICT

from api.app_keys import BILLING, DB, METRICS, ON_ENQUEUED, QUEUE_READY, READINESS, SETTINGS
from api.auth import auth_middleware
from api.errors import error_middleware
from api.metrics import metrics_middleware
from api.routes import credits, health, invoices, webhooks
from appliance.billing import Billing
from appliance.db import Database
from appliance.metrics import Metrics
from appliance.readiness import Readiness
from appliance.settings import Settings
from webui.app import PREFIX as REVIEW_PREFIX
from webui.app import make_review_app

OPENAPI_URL = "/api/docs/openapi.json"


def make_app(
    db: Database,
    settings: Settings,
    *,
    queue_ready: Callable[[], bool],
    on_enqueued: Callable[[], Any] = lambda: None,
    readiness: Readiness | None = None,
    metrics: Metrics | None = None,
) -> web.Application:
    """The web app. ``queue_ready()`` says whether the pool can take work; ``on_enqueued()`` wakes
    the dispatcher after an upload is accepted. ``readiness`` answers ``/readyz`` (None: one that is
    never attached, so ``/readyz`` says 503); ``metrics`` counts requests (None: a private one)."""
    app = web.Application(middlewares=[metrics_middleware, error_middleware, auth_middleware])
    app[METRICS] = metrics or Metrics(db)
    app[READINESS] = readiness or Readiness(db)
    app[DB] = db
    app[SETTINGS] = settings
    app[QUEUE_READY] = queue_ready
    app[ON_ENQUEUED] = on_enqueued
    app[BILLING] = Billing(db, settings)
    app.add_routes(credits.routes)
    app.add_routes(invoices.routes)
    setup_aiohttp_apispec(
        app,
        title="Invoice Extraction Programmatic API",
        version="1.0",
        url=OPENAPI_URL,
        swagger_path="/api/docs",
        openapi_version="3.0.3",
        in_place=True,
        components={
            "securitySchemes": {
                "api-key": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "Tenant API key as `Bearer <API_KEY>` (spec section 5)",
                }
            }
        },
    )
    app[SWAGGER_DICT] = openapi3(app[SWAGGER_DICT])
    app.add_routes(webhooks.routes)  # after the spec is built: Stripe's contract, not the tenant API
    app.add_routes(health.routes)  # probes for operators, not the tenant API either
    app.add_subapp(REVIEW_PREFIX, make_review_app(db, settings, app[BILLING]))  # pages for people: session, not key
    app.on_cleanup.append(_close_billing)
    return app


def openapi3(document: dict) -> dict:
    """The document apigami builds, made valid OpenAPI 3.0.3 (issue 12; tests/api/test_openapi.py
    checks it with openapi-spec-validator): no Swagger 2 ``produces`` on operations (the
    ``content`` of each response says it), and a nullable reference as ``nullable`` next to
    ``allOf: [{$ref}]`` (what client generators read as "this type or null") instead of
    ``anyOf: [{type: object, nullable: true}, {$ref}]``, which made them drop the type."""
    for item in document.get("paths", {}).values():
        for operation in item.values():
            if isinstance(operation, dict):
                operation.pop("produces", None)

    def fix(node):
        if isinstance(node, dict):
            options = node.get("anyOf")
            if isinstance(options, list) and len(options) == 2:
                refs = [o for o in options if "$ref" in o]
                nulls = [o for o in options if o.get("nullable") and "$ref" not in o]
                if len(refs) == 1 and len(nulls) == 1:
                    del node["anyOf"]
                    node.update({"allOf": refs, "nullable": True})
            for value in node.values():
                fix(value)
        elif isinstance(node, list):
            for value in node:
                fix(value)

    fix(document.get("components", {}))
    return document


async def _close_billing(app: web.Application) -> None:
    await app[BILLING].close()
