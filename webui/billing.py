"""The billing pages of a workspace (issue 28; spec section 4, 4.3 and 4.4), for its admins only:
the balance, the ledger page by page (debits, refunds, purchases and grants, newest first), the
credit packages of the settings with a **Buy** button, the latest purchases, and the billing
settings (where Stripe Checkout sends the customer back).

Buy and confirm go through ``appliance.billing.Billing``, the very object behind
``POST /api/v1/credits/checkout`` and ``/checkout/confirm`` (the API's, passed in by
``make_review_app``): the same Stripe call, the same purchase row, and the one fulfilment
function the webhook calls too, so a purchase credits the workspace once however many of
confirm, web return and webhook arrive. Checkout's page is Stripe's; Buy answers a page that
goes there (a ``Refresh`` header and a link), because the CSP's ``form-action 'self'`` stops a
redirect from a form to another site.
"""

from __future__ import annotations

from typing import Any

import aiohttp_jinja2
from aiohttp import web

from appliance import ledger
from appliance.billing import (
    Billing,
    list_packages,
    list_purchases,
    purchase_session,
    redirect_settings,
    require_string,
    set_redirect_settings,
)
from appliance.errors import ApplianceError, BadRequest
from webui.access import DB, PREFIX, SETTINGS, USER, admin_only
from webui.session import check_csrf

BILLING = web.AppKey("review_billing", Billing)
# Stripe's zero-decimal currencies: their amounts are whole units, not cents
ZERO_DECIMAL = frozenset("bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf".split())


def attach(app: web.Application, billing: Billing | None) -> None:
    """Give the review ``app`` the Billing its pages use: the API's, or (None) one of its own,
    closed when the app is cleaned up. Needs ``app[DB]`` and ``app[SETTINGS]`` set."""
    if billing is None:
        billing = Billing(app[DB], app[SETTINGS])

        async def close(_: web.Application) -> None:
            await billing.close()

        app.on_cleanup.append(close)
    app[BILLING] = billing


def routes() -> list[web.AbstractRouteDef]:
    """The billing routes, relative to the review app."""
    return [
        web.get("/billing", billing_page),
        web.post("/billing/buy", buy),
        web.get("/billing/return", checkout_return),
        web.post("/billing/purchases/{id}/confirm", confirm_purchase),
        web.post("/billing/settings", save_settings),
    ]


def money(amount: int, currency: str) -> str:
    """``amount`` in the smallest unit of ``currency`` (cents for usd, spec 2.2 ``priceCents``)
    for people: ``12.50 USD``, ``1250 JPY``."""
    if currency.lower() in ZERO_DECIMAL:
        return f"{amount} {currency.upper()}"
    return f"{amount / 100:.2f} {currency.upper()}"


def _before(request: web.Request) -> int | None:
    raw = request.query.get("before", "")
    if not raw:
        return None
    if not raw.isdigit():
        raise BadRequest("before must be a ledger row number (the link under the ledger)")
    return int(raw)


async def _page(
    request: web.Request,
    *,
    errors: list[str] | None = None,
    notice: str | None = None,
    typed: dict[str, str] | None = None,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> web.Response:
    """The billing page; ``typed`` keeps the addresses a refused settings form carried."""
    user, db, settings = request[USER], request.app[DB], request.app[SETTINGS]
    before = _before(request)
    rows, older = await ledger.history(db, user.tenant_id, before=before)
    origin = str(request.url.origin())
    context: dict[str, Any] = {
        "user": user,
        "balance": await ledger.balance(db, user.tenant_id),
        "cost": settings.credits.cost_per_invoice,
        "packages": await list_packages(db),
        "purchases": await list_purchases(db, user.tenant_id),
        "ledger": rows,
        "paged": before is not None,
        "older": older,
        "urls": await redirect_settings(db, settings, user.tenant_id),
        "typed": typed,
        "suggested": {
            "success": f"{origin}{PREFIX}/billing/return?session_id={{CHECKOUT_SESSION_ID}}",
            "cancel": f"{origin}{PREFIX}/billing",
        },
        "configured": request.app[BILLING].configured,
        "money": money,
        "errors": errors or [],
        "notice": notice,
    }
    response = aiohttp_jinja2.render_template("billing.html", request, context, status=status)
    response.headers.update(headers or {})
    return response


async def _refused(request: web.Request, exc: ApplianceError, **kwargs: Any) -> web.Response:
    """The billing page with the reason, in the status of ``exc`` (400, 404, 502, 503...)."""
    return await _page(request, errors=[exc.message], status=exc.status, headers=exc.headers or None, **kwargs)


@admin_only
async def billing_page(request: web.Request) -> web.Response:
    """Balance, packages, purchases, settings, and one page of the ledger (``?before=ROW``)."""
    return await _page(request)


@admin_only
async def buy(request: web.Request) -> web.Response:
    """Start a Stripe Checkout for the form's ``packageId`` (``Billing.checkout``, as
    ``POST /api/v1/credits/checkout``) and send the browser to its page. Refused with the billing
    page: 400 (no or malformed package id, a package no longer sold), 404 (unknown package),
    502/503 (Stripe not configured, unreachable or failing; nothing recorded)."""
    form = await request.post()
    await check_csrf(request, form)
    try:
        package_id = require_string({"packageId": form.get("packageId")}, "packageId")
        session = await request.app[BILLING].checkout(request[USER].tenant_id, package_id)
    except ApplianceError as exc:
        return await _refused(request, exc)
    context = {"user": request[USER], "url": session["url"]}
    response = aiohttp_jinja2.render_template("billing_checkout.html", request, context)
    response.headers["Refresh"] = f"0; url={session['url']}"
    return response


async def _confirm(request: web.Request, session_id: str) -> web.Response:
    """Confirm ``session_id`` for the user's tenant (``Billing.confirm``, spec 4.4) and say what
    it did; the billing page with the reason when it cannot (400 unpaid or malformed, 404 another
    tenant's or unknown, 502/503 Stripe)."""
    try:
        result = await request.app[BILLING].confirm(request[USER].tenant_id, session_id)
    except ApplianceError as exc:
        return await _refused(request, exc)
    if result["applied"]:
        notice = f"Payment received: {result['credits']} credits added, the balance is {result['balance']}."
    else:
        notice = f"This purchase's {result['credits']} credits were added already; the balance is {result['balance']}."
    return await _page(request, notice=notice)


@admin_only
async def checkout_return(request: web.Request) -> web.Response:
    """Where Stripe sends the customer back when the success address is
    ``/review/billing/return?session_id={CHECKOUT_SESSION_ID}``: confirm that session. A GET
    (Stripe's redirect), harmless to repeat: confirm adds a purchase's credits once."""
    return await _confirm(request, request.query.get("session_id", ""))


@admin_only
async def confirm_purchase(request: web.Request) -> web.Response:
    """Check the payment of the tenant's purchase ``{id}`` and credit it (for a success address
    that does not come back here); 404 for another tenant's purchase."""
    await check_csrf(request, await request.post())
    try:
        session_id = await purchase_session(request.app[DB], request[USER].tenant_id, request.match_info["id"])
    except ApplianceError as exc:
        return await _refused(request, exc)
    return await _confirm(request, session_id)


@admin_only
async def save_settings(request: web.Request) -> web.Response:
    """Store the success and cancel addresses (``appliance.billing.set_redirect_settings``; empty:
    the appliance's default), used by every later checkout of the tenant, the API's included
    (spec 4.3). 400 with the page (what was typed kept) for an address it refuses."""
    form = await request.post()
    await check_csrf(request, form)
    typed = {key: str(form.get(key, "")) for key in ("successUrl", "cancelUrl")}
    user = request[USER]
    try:
        await set_redirect_settings(
            request.app[DB], user.tenant_id, typed["successUrl"], typed["cancelUrl"], by=user.email
        )
    except ApplianceError as exc:
        return await _refused(request, exc, typed=typed)
    raise web.HTTPFound(f"{PREFIX}/billing")
