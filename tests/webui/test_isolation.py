"""Every route of the review app, read from its router so that a new route is covered the day it
is added (issue 28): nobody logged in is sent to the log-in page; for each route and method with
an ``{id}``, a user of tenant A (admin or reviewer) gets 404 for tenant B's id and B's data is
unchanged; a reviewer gets 403 on every admin route (``webui.access.admin_only``), also with the
form's token and A's own ids. Every answer carries the security headers (``webui.security``), and
no page has inline script.

A route whose ``{id}`` names a kind of record this file has no fixture for fails, saying so: add
the kind to ``Fixtures``. A route that needs no log-in must be listed in PUBLIC."""

from __future__ import annotations

import re
from dataclasses import dataclass

from appliance.billing import Billing
from appliance.tenants import list_keys
from appliance.vendors import create_vendor
from tests.appliance.test_billing import checkout, shop, stripe_fake  # noqa: F401 (fixtures)
from tests.webui.test_app import PREFIX, logged_in, ready_invoice
from tests.webui.test_security_headers import check_headers, check_no_inline_script
from tests.webui.test_vendor_pages import token_of
from webui.access import is_admin_only
from webui.app import make_review_app

PUBLIC = {"/login", "/logout"}  # the log-in form, and log-out (a session of nobody ends at once)
STATIC = "/static"  # files: the same for everyone
KNOWN_ADMIN = {
    *(("GET", "/keys"), ("POST", "/keys/{id}/rotate"), ("GET", "/billing"), ("POST", "/vendors/{id}")),
    *(("POST", "/vendors"), ("POST", "/vendors/{id}/template"), ("POST", "/vendors/{id}/template/preview")),
}


@dataclass
class Fixtures:
    """One tenant's records of each kind a route's ``{id}`` can name, by the path segment before it."""

    tenant_id: str
    headers: dict[str, str]
    ids: dict[str, str]


async def fixtures(harness, name: str) -> Fixtures:
    tenant_id, headers = await harness.tenant(name=name)
    session_id = await checkout(harness, headers)
    purchase = await harness.db.fetchone("SELECT id FROM purchases WHERE session_id = ?", (session_id,))
    ids = {
        "invoices": await ready_invoice(harness, headers),
        "vendors": await create_vendor(harness.db, tenant_id, f"{name} supplies"),
        "keys": (await list_keys(harness.db, tenant_id))[0]["id"],
        "purchases": purchase["id"],
    }
    return Fixtures(tenant_id, headers, ids)


def review_routes(harness) -> list[tuple[str, str, object]]:
    """(method, path template, handler) of every route of the review app, as make_review_app makes it."""
    app = make_review_app(harness.db, harness.settings, Billing(harness.db, harness.settings))
    return [(route.method, route.resource.canonical, route.handler) for route in app.router.routes()]


def concrete(path: str, ids: dict[str, str]) -> str:
    """``path`` with its ``{id}`` filled from ``ids`` by the kind before it, ``{number}`` as 1,
    ``{format}`` as cii."""

    def fill(match: re.Match) -> str:
        kind, name = match.group(1), match.group(2)
        if name == "number":
            return f"/{kind}/1"
        if name == "format":  # webui.export: an e-invoice format
            return f"/{kind}/cii"
        assert name == "id", f"{path}: no value for {{{name}}}: teach test_isolation.concrete"
        assert kind in ids, f"{path}: no {kind} fixture for {{id}}: add one to test_isolation.fixtures"
        return f"/{kind}/{ids[kind]}"

    return re.sub(r"/(\w+)/\{(\w+)\}", fill, path)


async def send(client, method: str, path: str, token: str | None):
    data = {"csrf": token, "action": "approve"} if method == "POST" and token else None
    response = await client.request(method, PREFIX + path, data=data, allow_redirects=False)
    text = (await response.read()).decode("utf-8", "replace")  # a page image is bytes
    where = f"{method} {path} -> {response.status}"
    check_headers(response, where)
    if response.content_type == "text/html":
        check_no_inline_script(text, where)
    return response, text


async def test_every_route_isolates_tenants_and_roles(shop):  # noqa: F811
    a, b = await fixtures(shop, "a"), await fixtures(shop, "b")
    routes = review_routes(shop)
    admin_routes = {(m, p) for m, p, h in routes if is_admin_only(h)}
    assert KNOWN_ADMIN <= admin_routes, KNOWN_ADMIN - admin_routes  # the mark reaches the router
    guarded = [(m, p) for m, p, _ in routes if p not in PUBLIC and not p.startswith(STATIC)]
    with_id = [(m, p) for m, p in guarded if "{id}" in p]
    assert len(with_id) >= 7 and ("POST", "/invoices/{id}") in with_id
    admin, _ = await logged_in(shop, a.tenant_id, "admin@a.example", role="admin")
    reviewer, _ = await logged_in(shop, a.tenant_id, "clerk@a.example")
    anonymous, _ = await logged_in(shop, b.tenant_id, "nobody@b.example")
    try:
        token = token_of(await (await anonymous.get(PREFIX + "/")).text())
        await anonymous.post(PREFIX + "/logout", data={"csrf": token})
        for method, path in guarded:
            response, _ = await send(anonymous, method, concrete(path, a.ids), None)
            assert response.status == 302 and response.headers["Location"] == PREFIX + "/login", (method, path)
        tokens = {c: token_of(await (await c.get(PREFIX + "/")).text()) for c in (admin, reviewer)}
        for method, path in with_id:
            theirs = concrete(path, b.ids)
            for client in (admin, reviewer):
                response, text = await send(client, method, theirs, tokens[client])
                refused = 403 if client is reviewer and (method, path) in admin_routes else 404
                assert response.status == refused, (method, path, client is reviewer, text[:300])
                leaked = [v for v in b.ids.values() if v in text and v not in theirs]  # the asked id may be echoed
                assert not leaked, (method, path, leaked)
        for method, path in guarded:
            response, text = await send(reviewer, method, concrete(path, a.ids), tokens[reviewer])
            if (method, path) in admin_routes:
                assert response.status == 403 and (method == "HEAD" or "administrators" in text), (method, path)
            else:
                assert response.status not in (403, 404) and response.status < 500, (method, path, response.status)
        for method, path in guarded:
            if method in ("GET", "HEAD"):  # every page an admin sees: headers, no inline script
                response, _ = await send(admin, method, concrete(path, a.ids), None)
                assert response.status < 500, (method, path)
    finally:
        for client in (admin, reviewer, anonymous):
            await client.close()
    await b_is_untouched(shop, b)


async def b_is_untouched(harness, b: Fixtures) -> None:
    assert (await harness.client.get("/api/v1/credits/balance", headers=b.headers)).status == 200  # key unrotated
    invoice = await (await harness.client.get(f"/api/v1/invoices/{b.ids['invoices']}", headers=b.headers)).json()
    assert invoice["status"] != "approved" and invoice["status"] != "rejected"
    purchase = await harness.db.fetchone("SELECT status FROM purchases WHERE id = ?", (b.ids["purchases"],))
    assert purchase["status"] == "open"
    events = await harness.db.fetchall("SELECT * FROM api_key_events WHERE tenant_id = ?", (b.tenant_id,))
    assert len(events) == 1
