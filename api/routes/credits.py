"""``/api/v1/credits/*`` (spec 4.1). Packages and checkout arrive with the billing issue."""
from __future__ import annotations

from aiohttp import web
from aiohttp_apigami import docs

from api.docs import SECURITY, errors
from api.keys import DB, SETTINGS, TENANT
from api.schemas import BalanceSchema
from appliance import ledger

routes = web.RouteTableDef()


@docs(tags=["credits"], operation_id="getBalance", summary="Credit balance of the workspace",
      security=SECURITY, responses={200: {"schema": BalanceSchema, "description": "Credit balance"}, **errors(401)})
@routes.get("/api/v1/credits/balance", allow_head=False)
async def get_balance(request: web.Request) -> web.Response:
    balance = await ledger.balance(request.app[DB], request[TENANT].id)
    return web.json_response({"balance": balance,
                              "creditCostPerInvoice": request.app[SETTINGS].credits.cost_per_invoice})
