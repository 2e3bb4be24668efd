"""``POST /webhooks/stripe`` (DESIGN.md decisions): outside ``/api/v1``, no API key; the
``Stripe-Signature`` header over the raw body is the authentication. Not in the OpenAPI document
(it is Stripe's contract, not the tenant API)."""
from __future__ import annotations

from aiohttp import web

from api.keys import BILLING

routes = web.RouteTableDef()


@routes.post("/webhooks/stripe")
async def stripe_webhook(request: web.Request) -> web.Response:
    payload = await request.read()
    result = await request.app[BILLING].webhook(payload, request.headers.get("Stripe-Signature"))
    return web.json_response(result)
