"""``/api/v1/credits/*`` (spec 4.1 to 4.4): balance, packages, checkout and confirm."""

from __future__ import annotations

import json

from aiohttp import web
from aiohttp_apigami import docs, json_schema

from api.app_keys import BILLING, DB, SETTINGS, TENANT
from api.docs import PAYMENT_503, SECURITY, errors
from api.schemas import (
    BalanceSchema,
    CheckoutRequestSchema,
    CheckoutSessionSchema,
    ConfirmRequestSchema,
    ConfirmResultSchema,
    PackageSchema,
)
from appliance import billing, ledger
from appliance.errors import BadRequest

routes = web.RouteTableDef()


async def json_body(request: web.Request) -> dict:
    """The request's JSON object; BadRequest for another content type or a malformed body."""
    if request.content_type != "application/json":
        raise BadRequest("Expected an application/json body")
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest("Malformed JSON body") from exc
    except RecursionError as exc:  # "[[[[..." a thousand deep: Python's parser gives up
        raise BadRequest("Malformed JSON body: nested too deeply") from exc
    if not isinstance(body, dict):
        raise BadRequest("The JSON body must be an object")
    return body


@docs(
    tags=["credits"],
    operation_id="getBalance",
    summary="Credit balance of the workspace",
    security=SECURITY,
    responses={200: {"schema": BalanceSchema, "description": "Credit balance"}, **errors(401)},
)
@routes.get("/api/v1/credits/balance", allow_head=False)
async def get_balance(request: web.Request) -> web.Response:
    balance = await ledger.balance(request.app[DB], request[TENANT].id)
    return web.json_response(
        {"balance": balance, "creditCostPerInvoice": request.app[SETTINGS].credits.cost_per_invoice}
    )


@docs(
    tags=["credits"],
    operation_id="listPackages",
    summary="Active credit packages",
    security=SECURITY,
    responses={200: {"schema": PackageSchema(many=True), "description": "Credit packages"}, **errors(401)},
)
@routes.get("/api/v1/credits/packages", allow_head=False)
async def list_packages(request: web.Request) -> web.Response:
    return web.json_response(await billing.list_packages(request.app[DB]))


@docs(
    tags=["credits"],
    operation_id="checkout",
    summary="Start a hosted checkout for a package",
    security=SECURITY,
    responses={
        200: {"schema": CheckoutSessionSchema, "description": "Checkout session: open url to pay"},
        **errors(400, 401, 404, 502, 503, d503=PAYMENT_503),
    },
)
@json_schema(CheckoutRequestSchema, required=True)  # documents the body; the handler validates it into spec errors
@routes.post("/api/v1/credits/checkout")
async def checkout(request: web.Request) -> web.Response:
    body = await json_body(request)
    package_id = billing.require_string(body, "packageId")
    return web.json_response(await request.app[BILLING].checkout(request[TENANT].id, package_id))


@docs(
    tags=["credits"],
    operation_id="confirmCheckout",
    summary="Credit the workspace for a paid session",
    description="Idempotent: the first successful call returns applied true, later ones applied false.",
    security=SECURITY,
    responses={
        200: {"schema": ConfirmResultSchema, "description": "Confirm result"},
        **errors(400, 401, 404, 502, 503, d503=PAYMENT_503),
    },
)
@json_schema(ConfirmRequestSchema, required=True)
@routes.post("/api/v1/credits/checkout/confirm")
async def confirm(request: web.Request) -> web.Response:
    body = await json_body(request)
    session_id = billing.require_string(body, "sessionId")
    return web.json_response(await request.app[BILLING].confirm(request[TENANT].id, session_id))
