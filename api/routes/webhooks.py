"""``POST /webhooks/stripe`` (DESIGN.md decisions): outside ``/api/v1``, no API key; the
``Stripe-Signature`` header over the raw body is the authentication. Not in the OpenAPI document
(it is Stripe's contract, not the tenant API)."""

from __future__ import annotations

from aiohttp import web

from api.app_keys import BILLING, METRICS
from appliance.errors import ApplianceError

routes = web.RouteTableDef()


@routes.post("/webhooks/stripe")
async def stripe_webhook(request: web.Request) -> web.Response:
    payload = await request.read()
    try:
        result = await request.app[BILLING].webhook(payload, request.headers.get("Stripe-Signature"))
    except ApplianceError as exc:  # bad signature or body (400), not configured (503)
        request.app[METRICS].webhook(f"refused {exc.status}")
        raise
    request.app[METRICS].webhook(result["outcome"])
    return web.json_response(result)
