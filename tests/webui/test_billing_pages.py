"""The billing pages (issue 28; spec 4.2 to 4.4): balance, packages, purchases, the ledger page by
page and the billing settings, for a workspace's admins. **Buy** goes through the API's own
``Billing`` against the fake Stripe of tests/appliance/test_billing.py; the purchase is credited
once when the web return, the Check payment button, the API's confirm and Stripe's webhook all
arrive at once. Refused: a reviewer (403), a form without its token (403), bad, unknown or retired
packages (400, 404), Stripe down (502) or not configured (503), another tenant's session or
purchase (404), an unpaid session (400), a redirect address that is not http(s) (400)."""

from __future__ import annotations

import asyncio
import json
import re

from appliance import ledger
from appliance.billing import package_id
from tests.appliance.test_billing import checkout, confirm, shop, stripe_fake, webhook  # noqa: F401 (fixtures)
from tests.fakes.stripe_api import completed_event
from tests.support.docs import jpeg, png_with_text, receipt_text
from tests.webui.test_app import PREFIX, logged_in
from tests.webui.test_vendor_pages import token_of

ADMIN = "admin@example.com"


async def buy(client, package: str = "Small"):
    page = await (await client.get(PREFIX + "/billing")).text()
    return await client.post(
        PREFIX + "/billing/buy", data={"csrf": token_of(page), "packageId": package_id(package)}, allow_redirects=False
    )


def session_of(response) -> str:
    return re.search(r"/pay/(cs_test_[0-9a-f]+)$", response.headers["Refresh"]).group(1)


async def test_buy_credits_once_when_return_button_confirm_and_webhook_all_arrive(shop):  # noqa: F811
    tenant_id, headers = await shop.tenant(credits=3)
    client, _ = await logged_in(shop, tenant_id, ADMIN, role="admin")
    try:
        page = await (await client.get(PREFIX + "/billing")).text()
        assert "Balance: <b>3</b>" in page and "2.50 USD" in page and "125.00 USD" in page
        assert "Retired" not in page and "not configured" not in page
        bought = await buy(client)
        assert bought.status == 200, await bought.text()
        session_id = session_of(bought)
        session = shop.fake.sessions[session_id]
        assert bought.headers["Refresh"] == f"0; url={session['url']}" and session["url"] in await bought.text()
        assert session["metadata"] == {"tenantId": tenant_id, "packageId": package_id("Small")}
        page = await (await client.get(PREFIX + "/billing")).text()
        purchase_id = re.search(r"/billing/purchases/([0-9a-f-]+)/confirm", page).group(1)
        unpaid = await client.get(f"{PREFIX}/billing/return", params={"session_id": session_id})
        assert unpaid.status == 400 and "Payment not completed" in await unpaid.text()
        paid = await shop.fake.pay(session_id)
        token = token_of(page)
        responses = await asyncio.gather(
            client.get(f"{PREFIX}/billing/return", params={"session_id": session_id}),
            client.post(f"{PREFIX}/billing/purchases/{purchase_id}/confirm", data={"csrf": token}),
            confirm(shop, headers, session_id),
            webhook(shop, json.dumps(completed_event(paid)).encode()),
        )
        assert [r.status for r in responses] == [200, 200, 200, 200]
        texts = [await r.text() for r in responses[:2]]
        api, hook = await responses[2].json(), await responses[3].json()
        applied = sum("credits added, the balance is 13" in t for t in texts) + api["applied"]
        applied += hook["outcome"] == "applied"
        assert applied == 1 and all("13" in t for t in texts)
        assert await shop.balance(headers) == 13
        again = await client.get(f"{PREFIX}/billing/return", params={"session_id": session_id})
        assert "were added already; the balance is 13" in await again.text()
        page = await (await client.get(PREFIX + "/billing")).text()
        assert "Balance: <b>13</b>" in page and "stripe " + session_id in page and "credited" in page
    finally:
        await client.close()
    rows = await shop.db.fetchall("SELECT delta FROM ledger WHERE tenant_id = ? AND reason = 'purchase'", (tenant_id,))
    assert [r["delta"] for r in rows] == [10]


async def test_buy_refusals(shop):  # noqa: F811
    tenant_id, headers = await shop.tenant(credits=0)
    client, _ = await logged_in(shop, tenant_id, ADMIN, role="admin")
    try:
        token = token_of(await (await client.get(PREFIX + "/billing")).text())
        cases = [
            ({"packageId": package_id("Small")}, 403, "security token"),  # no token
            ({"csrf": token}, 400, "packageId&#39; is required"),
            ({"csrf": token, "packageId": "small"}, 400, "packageId must be a package UUID"),
            ({"csrf": token, "packageId": package_id("Nope")}, 404, "Package not found"),
            ({"csrf": token, "packageId": package_id("Retired")}, 400, "no longer sold"),
        ]
        for form, status, message in cases:
            response = await client.post(PREFIX + "/billing/buy", data=form, allow_redirects=False)
            assert response.status == status and message in await response.text(), form
        shop.fake.fail_next(1, 500)
        down = await buy(client)
        assert down.status == 502 and "nothing was applied" in await down.text()
    finally:
        await client.close()
    assert shop.fake.sessions == {} and await shop.balance(headers) == 0
    assert await shop.db.fetchall("SELECT 1 FROM purchases") == []


async def test_without_stripe_buy_and_return_are_503(harness):
    tenant_id, _ = await harness.tenant()
    client, _ = await logged_in(harness, tenant_id, ADMIN, role="admin")
    try:
        page = await (await client.get(PREFIX + "/billing")).text()
        assert "Payments are not configured" in page and "disabled" in page
        assert (await buy(client, "Starter")).status == 503  # a package of the default settings
        back = await client.get(f"{PREFIX}/billing/return", params={"session_id": "cs_test_1"})
        assert back.status == 503 and "not configured" in await back.text()
    finally:
        await client.close()


async def test_another_tenants_session_or_purchase_is_404(shop):  # noqa: F811
    tenant_a, _ = await shop.tenant(name="a", credits=0)
    _, headers_b = await shop.tenant(name="b", credits=0)
    theirs = await checkout(shop, headers_b)
    await shop.fake.pay(theirs)
    purchase = (await shop.db.fetchone("SELECT id FROM purchases WHERE session_id = ?", (theirs,)))["id"]
    client, _ = await logged_in(shop, tenant_a, ADMIN, role="admin")
    try:
        page = await (await client.get(PREFIX + "/billing")).text()
        assert theirs not in page and purchase not in page
        back = await client.get(f"{PREFIX}/billing/return", params={"session_id": theirs})
        assert back.status == 404 and "Checkout session not found" in await back.text()
        button = await client.post(f"{PREFIX}/billing/purchases/{purchase}/confirm", data={"csrf": token_of(page)})
        assert button.status == 404 and "Purchase not found" in await button.text()
        missing = await client.get(f"{PREFIX}/billing/return", params={"session_id": "cs_test_nope"})
        assert missing.status == 404
        malformed = await client.get(f"{PREFIX}/billing/return", params={"session_id": "x"})
        assert malformed.status == 400 and "Invalid session id" in await malformed.text()
        no_token = await client.post(f"{PREFIX}/billing/purchases/{purchase}/confirm", data={})
        assert no_token.status == 403
    finally:
        await client.close()
    assert await shop.balance(headers_b) == 0  # nobody confirmed b's purchase


async def test_billing_settings_are_the_apis_checkout_addresses(shop):  # noqa: F811
    tenant_id, headers = await shop.tenant()
    client, _ = await logged_in(shop, tenant_id, ADMIN, role="admin")
    base = str(shop.client.make_url(PREFIX))
    success = base + "/billing/return?session_id={CHECKOUT_SESSION_ID}"
    try:
        page = await (await client.get(PREFIX + "/billing")).text()
        assert success in page  # suggested
        form = {"csrf": token_of(page), "successUrl": success, "cancelUrl": base + "/billing"}
        saved = await client.post(PREFIX + "/billing/settings", data=form, allow_redirects=False)
        assert saved.status == 302 and saved.headers["Location"] == PREFIX + "/billing"
        page = await (await client.get(PREFIX + "/billing")).text()
        assert f'value="{success}"' in page and f"Last changed by {ADMIN}" in page
        bad = await client.post(
            PREFIX + "/billing/settings", data={**form, "cancelUrl": "javascript:alert(1)"}, allow_redirects=False
        )
        text = await bad.text()
        assert bad.status == 400 and "The cancel address must be" in text and 'value="javascript:alert(1)"' in text
        refused = await client.post(PREFIX + "/billing/settings", data={**form, "csrf": ""}, allow_redirects=False)
        assert refused.status == 403
    finally:
        await client.close()
    session = shop.fake.sessions[await checkout(shop, headers)]  # the API's checkout
    assert (session["success_url"], session["cancel_url"]) == (success, base + "/billing")


async def test_the_ledger_page_by_page(harness):
    """Newest first, 50 a page by row id: grants, a debit, a refunded debit (queue closed: 503),
    the opening grant; the debits link their invoice."""
    tenant_id, headers = await harness.tenant(credits=5)
    accepted = await harness.upload(headers, png_with_text(receipt_text("Total EUR 1.00")), content_type="image/png")
    assert accepted.status == 202
    invoice_id = (await accepted.json())["invoice"]["id"]
    harness.queue_open = False
    refused = await harness.upload(headers, jpeg(), content_type="image/jpeg")
    assert refused.status == 503
    harness.queue_open = True
    for n in range(1, 55):
        await ledger.grant(harness.db, tenant_id, n, note=f"grant {n}")
    client, _ = await logged_in(harness, tenant_id, ADMIN, role="admin")
    try:
        first = await (await client.get(PREFIX + "/billing")).text()
        rows = first.split('id="ledger"', 1)[1].split("</table>", 1)[0]
        assert rows.count("<tr class=") == 50 and rows.index("grant 54<") < rows.index("grant 53<")
        assert "grant 4<" not in rows and 'id="newest"' not in first
        older = re.search(r'href="/review/billing\?before=(\d+)" id="older"', first).group(1)
        second = await (await client.get(PREFIX + "/billing", params={"before": older})).text()
        rows = second.split('id="ledger"', 1)[1].split("</table>", 1)[0]
        assert "grant 4<" in rows and "grant 5<" not in rows and 'id="newest"' in second
        assert 'id="older"' not in second and "opening credits" in rows
        kinds = re.findall(r'<tr class="(\w+)">', rows)
        assert kinds == ["grant"] * 4 + ["refund", "debit", "debit", "grant"]
        assert f'href="{PREFIX}/invoices/{invoice_id}"' in rows and "<td>-1</td>" not in rows
        assert '<td class="minus">-1</td>' in rows and '<td class="plus">+1</td>' in rows
        bad = await client.get(PREFIX + "/billing", params={"before": "abc"})
        assert bad.status == 400 and "before must be a ledger row number" in await bad.text()
    finally:
        await client.close()


async def test_the_shipped_checkout_addresses_are_pages_the_app_serves(harness):
    """``[stripe] success_url`` and ``cancel_url`` by default (the settings' and config.toml's
    alike) are absolute addresses, as Stripe needs, of the return page, which credits the session
    named in its query, and of the billing page; before issue 28 they named /billing/success and
    /billing/cancel, which no route served."""
    import tomllib
    from pathlib import Path
    from urllib.parse import urlsplit

    from appliance.settings import StripeSettings

    shipped = tomllib.loads((Path(__file__).resolve().parents[2] / "config.toml").read_text())["stripe"]
    defaults = StripeSettings()
    assert (shipped["success_url"], shipped["cancel_url"]) == (defaults.success_url, defaults.cancel_url)
    tenant_id, _ = await harness.tenant()
    client, _ = await logged_in(harness, tenant_id, ADMIN, role="admin")
    try:
        for address in (defaults.success_url, defaults.cancel_url):
            parts = urlsplit(address)
            assert parts.scheme == "http" and parts.netloc == "127.0.0.1:8080", address
            query = parts.query.replace("{CHECKOUT_SESSION_ID}", "cs_test_0123456789abcdef")
            response = await client.get(parts.path + (f"?{query}" if query else ""))
            # the billing page (the return page's answer, also when it cannot confirm: no Stripe here)
            assert 'id="balance"' in await response.text(), (address, response.status)
    finally:
        await client.close()
