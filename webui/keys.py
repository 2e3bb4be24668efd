"""The API key settings of a workspace (issue 28; spec section 5, DESIGN.md "API keys"), for its
admins only: ``/keys`` lists the tenant's keys as masked prefixes (created, by whom, last used),
and its audit list; Create (when no key is active), Rotate and Revoke call ``appliance.tenants``,
the functions the operator's ``appliance key`` commands call, which write the audit row in the
transaction of the change. A new key's secret is on the page that answers Create or Rotate, once:
it is not stored, so no later page can show it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import aiohttp_jinja2
from aiohttp import web

from appliance.errors import BadRequest, NotFound
from appliance.tenants import create_key, key_events, list_keys, revoke_key, rotate_key
from webui.access import DB, PREFIX, USER, admin_only
from webui.session import check_csrf


def routes() -> list[web.AbstractRouteDef]:
    """The key settings' routes, relative to the review app: the page and its three actions."""
    return [
        web.get("/keys", keys_page),
        web.post("/keys", key_create),
        web.post("/keys/{id}/rotate", key_rotate),
        web.post("/keys/{id}/revoke", key_revoke),
    ]


async def _page(
    request: web.Request, *, new_key: str | None = None, errors: list[str] | None = None, status: int = 200
) -> web.Response:
    """The key settings page; ``new_key``, when given, is shown in full this once."""
    user, db = request[USER], request.app[DB]
    keys = await list_keys(db, user.tenant_id)
    context = {
        "user": user,
        "keys": keys,
        "active": next((k for k in keys if k["active"]), None),
        "events": await key_events(db, user.tenant_id),
        "new_key": new_key,
        "errors": errors or [],
    }
    return aiohttp_jinja2.render_template("api_keys.html", request, context, status=status)


@admin_only
async def keys_page(request: web.Request) -> web.Response:
    """The tenant's keys, newest first (the secret never: spec section 5), and who changed what."""
    return await _page(request)


async def _issue(request: web.Request, issue: Callable[[], Awaitable[str]]) -> web.Response:
    """Run ``issue`` (create or rotate) after the CSRF check; the page with the new key, or with
    the reason it was refused (400: a key is active already, or the one named is revoked; 404:
    not a key of this tenant)."""
    await check_csrf(request, await request.post())
    try:
        key = await issue()
    except (BadRequest, NotFound) as exc:
        return await _page(request, errors=[exc.message], status=exc.status)
    return await _page(request, new_key=key)


@admin_only
async def key_create(request: web.Request) -> web.Response:
    """A key for a workspace without an active one (``appliance.tenants.create_key``)."""
    user = request[USER]
    return await _issue(request, lambda: create_key(request.app[DB], user.tenant_id, by=user.email))


@admin_only
async def key_rotate(request: web.Request) -> web.Response:
    """A new key in place of the active key ``{id}``, which stops working at once
    (``appliance.tenants.rotate_key``)."""
    user = request[USER]
    key_id = request.match_info["id"]
    return await _issue(request, lambda: rotate_key(request.app[DB], user.tenant_id, key_id=key_id, by=user.email))


@admin_only
async def key_revoke(request: web.Request) -> web.Response:
    """Revoke the active key ``{id}``: it stops working at once, and the workspace has no key
    until an admin creates one (``appliance.tenants.revoke_key``). Back to the page (302)."""
    user = request[USER]
    await check_csrf(request, await request.post())
    try:
        await revoke_key(request.app[DB], user.tenant_id, key_id=request.match_info["id"], by=user.email)
    except (BadRequest, NotFound) as exc:
        return await _page(request, errors=[exc.message], status=exc.status)
    raise web.HTTPFound(f"{PREFIX}/keys")
