"""A tenant's billing settings (issue 28; spec 4.3: the success and cancel addresses of the web
app's billing settings are those of the API's checkout), the ledger page by page, and the
purchase list the billing page shows, against the fake Stripe of tests/appliance/test_billing.py."""

from __future__ import annotations

import pytest

from appliance import ledger
from appliance.billing import (
    list_purchases,
    purchase_session,
    redirect_settings,
    redirect_url,
    set_redirect_settings,
)
from appliance.errors import BadRequest, NotFound
from tests.appliance.test_billing import checkout, shop, stripe_fake  # noqa: F401 (fixtures)

SUCCESS = "https://billing.example.com/paid?session_id={CHECKOUT_SESSION_ID}"
CANCEL = "https://billing.example.com/cancelled"


async def test_the_apis_checkout_sends_the_customer_to_the_tenants_addresses(shop):  # noqa: F811
    tenant_a, headers_a = await shop.tenant(name="a")
    _, headers_b = await shop.tenant(name="b")
    await set_redirect_settings(shop.db, tenant_a, SUCCESS, CANCEL, by="admin@a.example")
    mine = shop.fake.sessions[await checkout(shop, headers_a)]
    assert (mine["success_url"], mine["cancel_url"]) == (SUCCESS, CANCEL)
    theirs = shop.fake.sessions[await checkout(shop, headers_b)]  # b set nothing: the appliance's default
    assert (theirs["success_url"], theirs["cancel_url"]) == (
        shop.settings.stripe.success_url,
        shop.settings.stripe.cancel_url,
    )
    settings = await redirect_settings(shop.db, shop.settings, tenant_a)
    assert settings["ownSuccessUrl"] == SUCCESS and settings["updatedBy"] == "admin@a.example"
    await set_redirect_settings(shop.db, tenant_a, "", " ", by="admin@a.example")  # empty: the default again
    again = shop.fake.sessions[await checkout(shop, headers_a)]
    assert again["success_url"] == shop.settings.stripe.success_url
    assert (await redirect_settings(shop.db, shop.settings, tenant_a))["ownCancelUrl"] is None


@pytest.mark.parametrize(
    "bad",
    [
        "javascript:alert(1)",
        "/review/billing",
        "ftp://example.com/x",
        "https://",
        "https://example.com/a b",
        "https://example.com/a\nb",
        "https://[::1",
        "https://example.com/" + "x" * 2048,
    ],
)
def test_a_redirect_address_must_be_absolute_http(bad):
    with pytest.raises(BadRequest, match="The success address must be an absolute"):
        redirect_url(bad, "The success address")


def test_redirect_addresses_that_pass():
    assert redirect_url("  ", "x") is None
    assert redirect_url(" http://127.0.0.1:8080/review/billing ", "x") == "http://127.0.0.1:8080/review/billing"
    assert redirect_url(SUCCESS, "x") == SUCCESS


async def test_a_bad_address_stores_nothing_and_an_unknown_tenant_is_404(shop):  # noqa: F811
    tenant_id, _ = await shop.tenant()
    await set_redirect_settings(shop.db, tenant_id, SUCCESS, CANCEL, by="a")
    with pytest.raises(BadRequest, match="cancel address"):
        await set_redirect_settings(shop.db, tenant_id, SUCCESS, "javascript:x", by="b")
    assert (await redirect_settings(shop.db, shop.settings, tenant_id))["updatedBy"] == "a"
    with pytest.raises(NotFound):
        await set_redirect_settings(shop.db, "00000000-0000-0000-0000-000000000000", SUCCESS, CANCEL, by="a")


async def test_the_ledger_page_by_page_newest_first(shop):  # noqa: F811
    tenant_id, _ = await shop.tenant(credits=5)  # row 1: the opening grant
    for credits in (1, 2, 3, -4):
        await ledger.grant(shop.db, tenant_id, credits, note=f"adjust {credits}")
    other, _ = await shop.tenant(credits=9, name="other")  # never on tenant_id's pages
    first, before = await ledger.history(shop.db, tenant_id, limit=2)
    assert [r["delta"] for r in first] == [-4, 3] and before == first[-1]["id"]
    second, before = await ledger.history(shop.db, tenant_id, before=before, limit=2)
    assert [r["delta"] for r in second] == [2, 1]
    last, before = await ledger.history(shop.db, tenant_id, before=before, limit=2)
    assert [(r["delta"], r["kind"], r["note"]) for r in last] == [(5, "grant", "opening credits")] and before is None
    exact, before = await ledger.history(shop.db, other, limit=1)
    assert [r["delta"] for r in exact] == [9] and before is None  # a full last page has no next one


async def test_purchases_of_one_tenant_only(shop):  # noqa: F811
    tenant_a, headers_a = await shop.tenant(name="a")
    tenant_b, _ = await shop.tenant(name="b")
    session_id = await checkout(shop, headers_a, "Large")
    (purchase,) = await list_purchases(shop.db, tenant_a)
    assert purchase["sessionId"] == session_id and purchase["package"] == "Large"
    assert (purchase["credits"], purchase["priceCents"], purchase["status"]) == (500, 12500, "open")
    assert await purchase_session(shop.db, tenant_a, purchase["id"]) == session_id
    assert await list_purchases(shop.db, tenant_b) == []
    for tenant, purchase_id in ((tenant_b, purchase["id"]), (tenant_a, "nope")):
        with pytest.raises(NotFound):
            await purchase_session(shop.db, tenant, purchase_id)
