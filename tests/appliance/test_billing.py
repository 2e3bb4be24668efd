"""Buying credits end to end against a fake Stripe API reached by the real ``stripe`` library:
packages, checkout, confirm and the webhook, exactly once also when they race (issue 3)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from appliance.billing import package_id, sync_packages
from tests.conftest import make_settings
from tests.fakes.stripe_api import FakeStripe, completed_event, sign

WEBHOOK_SECRET = "whsec_test_0123456789abcdef"
PACKAGES = [
    {"name": "Small", "credits": 10, "active": True},
    {"name": "Large", "credits": 500, "active": True},
    {"name": "Retired", "credits": 50, "active": False},
]


@pytest.fixture
async def stripe_fake():
    fake = FakeStripe()
    runner = await fake.start()
    yield fake
    await runner.cleanup()


def billing_settings(tmp_path, fake: FakeStripe | None, **stripe):
    make_settings(
        tmp_path,
        {
            "credits": {"price_per_credit_cents": 25, "currency": "usd"},
            "stripe": {
                "secret_key": "sk_test_x" if fake else "",
                "webhook_secret": WEBHOOK_SECRET,
                "api_base": fake.base_url if fake else "",
                "max_network_retries": 0,
                **stripe,
            },
        },
    )
    # [[credits.packages]] are tables: write them into the generated config
    config = tmp_path / "config.toml"
    text = config.read_text()
    for package in PACKAGES:
        text += (
            f'\n[[credits.packages]]\nname = "{package["name"]}"\ncredits = {package["credits"]}\n'
            f"active = {str(package['active']).lower()}\n"
        )
    config.write_text(text)
    from appliance.settings import load_settings

    return load_settings(config, env={})


@pytest.fixture
async def shop(harness_factory, tmp_path, stripe_fake):
    harness = await harness_factory(billing_settings(tmp_path, stripe_fake))
    harness.fake = stripe_fake
    return harness


async def packages(harness, headers) -> dict[str, dict]:
    response = await harness.client.get("/api/v1/credits/packages", headers=headers)
    assert response.status == 200
    return {p["name"]: p for p in await response.json()}


async def checkout(harness, headers, name: str = "Small") -> str:
    package = (await packages(harness, headers))[name]
    response = await harness.client.post("/api/v1/credits/checkout", json={"packageId": package["id"]}, headers=headers)
    assert response.status == 200, await response.text()
    body = await response.json()
    assert set(body) == {"url", "sessionId"}
    return body["sessionId"]


async def confirm(harness, headers, session_id: str):
    return await harness.client.post(
        "/api/v1/credits/checkout/confirm", json={"sessionId": session_id}, headers=headers
    )


async def webhook(harness, payload: bytes, signature: str | None = None):
    headers = {
        "Content-Type": "application/json",
        "Stripe-Signature": signature if signature is not None else sign(payload, WEBHOOK_SECRET),
    }
    return await harness.client.post("/webhooks/stripe", data=payload, headers=headers)


async def test_packages_are_priced_at_the_platform_rate_with_stable_ids(shop):
    _, headers = await shop.tenant()
    listed = await packages(shop, headers)
    assert set(listed) == {"Small", "Large"}  # inactive ones are not listed
    assert listed["Small"] == {
        "id": package_id("Small"),
        "name": "Small",
        "credits": 10,
        "priceCents": 250,
        "currency": "usd",
    }
    await sync_packages(shop.db, shop.settings)  # a restart keeps the ids
    assert (await packages(shop, headers))["Large"]["id"] == listed["Large"]["id"]


async def test_happy_path_checkout_pay_confirm(shop):
    tenant_id, headers = await shop.tenant(credits=0)
    session_id = await checkout(shop, headers, "Large")
    session = shop.fake.sessions[session_id]
    assert session["mode"] == "payment" and session["amount_total"] == 12500 and session["currency"] == "usd"
    assert session["metadata"] == {"tenantId": tenant_id, "packageId": package_id("Large")}
    assert session["success_url"] == shop.settings.stripe.success_url
    await shop.fake.pay(session_id)
    response = await confirm(shop, headers, session_id)
    assert response.status == 200
    assert await response.json() == {"applied": True, "credits": 500, "balance": 500, "creditCostPerInvoice": 1}
    assert await shop.balance(headers) == 500
    row = await shop.db.fetchone("SELECT status, applied_by FROM purchases WHERE session_id = ?", (session_id,))
    assert (row["status"], row["applied_by"]) == ("applied", "confirm")


async def test_confirm_before_payment_is_400(shop):
    _, headers = await shop.tenant(credits=0)
    session_id = await checkout(shop, headers)
    response = await confirm(shop, headers, session_id)
    assert response.status == 400
    assert "Payment not completed" in (await response.json())["message"]
    assert await shop.balance(headers) == 0


async def test_confirm_twice_applies_once(shop):
    _, headers = await shop.tenant(credits=1)
    session_id = await checkout(shop, headers)
    await shop.fake.pay(session_id)
    first = await (await confirm(shop, headers, session_id)).json()
    second = await (await confirm(shop, headers, session_id)).json()
    assert first["applied"] is True and second["applied"] is False
    assert first["balance"] == second["balance"] == 11 and second["credits"] == 10


async def test_webhook_then_confirm(shop):
    _, headers = await shop.tenant(credits=0)
    session_id = await checkout(shop, headers)
    session = await shop.fake.pay(session_id)
    response = await webhook(shop, json.dumps(completed_event(session)).encode())
    assert response.status == 200 and (await response.json())["outcome"] == "applied"
    body = await (await confirm(shop, headers, session_id)).json()
    assert body == {"applied": False, "credits": 10, "balance": 10, "creditCostPerInvoice": 1}


async def test_confirm_then_webhook(shop):
    _, headers = await shop.tenant(credits=0)
    session_id = await checkout(shop, headers)
    session = await shop.fake.pay(session_id)
    assert (await (await confirm(shop, headers, session_id)).json())["applied"] is True
    response = await webhook(shop, json.dumps(completed_event(session)).encode())
    assert (await response.json())["outcome"] == "already applied"
    assert await shop.balance(headers) == 10


async def test_twenty_concurrent_confirms_and_the_webhook_add_credits_once(shop):
    _, headers = await shop.tenant(credits=0)
    session_id = await checkout(shop, headers, "Large")
    session = await shop.fake.pay(session_id)
    payload = json.dumps(completed_event(session)).encode()
    responses = await asyncio.gather(*[confirm(shop, headers, session_id) for _ in range(20)], webhook(shop, payload))
    bodies = [await r.json() for r in responses]
    assert all(r.status == 200 for r in responses)
    applied = [b for b in bodies[:20] if b["applied"]] + [b for b in bodies[20:] if b["outcome"] == "applied"]
    assert len(applied) == 1
    assert await shop.balance(headers) == 500
    rows = await shop.db.fetchall("SELECT delta FROM ledger WHERE reason = 'purchase'")
    assert [r["delta"] for r in rows] == [500]


async def test_replayed_and_forged_webhooks(shop):
    _, headers = await shop.tenant(credits=0)
    session_id = await checkout(shop, headers)
    session = await shop.fake.pay(session_id)
    payload = json.dumps(completed_event(session)).encode()
    assert (await (await webhook(shop, payload)).json())["outcome"] == "applied"
    replay = await webhook(shop, payload)
    assert replay.status == 200 and (await replay.json())["outcome"] == "duplicate"
    forged = [
        (payload.replace(b'"paid"', b'"paid" '), sign(payload, WEBHOOK_SECRET)),  # tampered body
        (payload, sign(payload, "whsec_wrong")),  # wrong secret
        (payload, sign(payload, WEBHOOK_SECRET, timestamp=int(time.time()) - 3600)),  # outside tolerance
        (payload, ""),  # no signature
        (b"not json", sign(b"not json", WEBHOOK_SECRET)),  # signed garbage
    ]
    for body, signature in forged:
        response = await webhook(shop, body, signature)
        assert response.status == 400, signature
        assert (await response.json())["statusCode"] == 400
    assert await shop.balance(headers) == 10


async def test_webhook_ignores_other_events_and_unpaid_sessions(shop):
    _, headers = await shop.tenant(credits=0)
    session_id = await checkout(shop, headers)
    other = {"id": "evt_other", "object": "event", "type": "customer.created", "data": {"object": {"id": "cus_1"}}}
    response = await webhook(shop, json.dumps(other).encode())
    assert response.status == 200 and (await response.json())["outcome"] == "ignored"
    unpaid = completed_event(shop.fake.sessions[session_id])
    assert (await (await webhook(shop, json.dumps(unpaid).encode())).json())["outcome"] == "not paid"
    assert await shop.balance(headers) == 0


async def test_another_tenants_or_unknown_session_is_404(shop):
    _, headers = await shop.tenant(credits=0)
    _, other = await shop.tenant(name="other", credits=0)
    session_id = await checkout(shop, headers)
    await shop.fake.pay(session_id)
    for who, sid in ((other, session_id), (headers, "cs_test_doesnotexist")):
        response = await confirm(shop, who, sid)
        assert response.status == 404
        assert (await response.json())["message"] == "Checkout session not found"
    assert await shop.balance(other) == 0 and await shop.balance(headers) == 0


async def test_bad_requests_on_checkout_and_confirm(shop):
    _, headers = await shop.tenant()
    post = shop.client.post
    cases = [
        ("/api/v1/credits/checkout", {"packageId": "nope"}, 400, "packageId must be a package UUID"),
        ("/api/v1/credits/checkout", {"packageId": package_id("Retired")}, 400, "Package unavailable"),
        ("/api/v1/credits/checkout", {"packageId": "00000000-0000-0000-0000-000000000000"}, 404, "Package not found"),
        ("/api/v1/credits/checkout", {}, 400, "'packageId' is required"),
        ("/api/v1/credits/checkout", [1], 400, "must be an object"),
        ("/api/v1/credits/checkout/confirm", {"sessionId": "../../x"}, 400, "Invalid session id"),
        ("/api/v1/credits/checkout/confirm", {"sessionId": 5}, 400, "'sessionId' is required"),
    ]
    for path, body, status, message in cases:
        response = await post(path, json=body, headers=headers)
        assert response.status == status, (path, body)
        assert message in (await response.json())["message"]
    response = await post(
        "/api/v1/credits/checkout", data="{bad json", headers={**headers, "Content-Type": "application/json"}
    )
    assert response.status == 400 and "Malformed JSON" in (await response.json())["message"]
    deep = '{"packageId": ' + "[" * 100_000 + "]" * 100_000 + "}"  # was a 500 (RecursionError)
    response = await post(
        "/api/v1/credits/checkout", data=deep, headers={**headers, "Content-Type": "application/json"}
    )
    assert response.status == 400 and "nested too deeply" in (await response.json())["message"]
    response = await post("/api/v1/credits/checkout", data=b"packageId=x", headers=headers)
    assert response.status == 400 and "application/json" in (await response.json())["message"]
    big = json.dumps({"sessionId": "cs_" + "a" * (10 * 1024 * 1024)})
    response = await post(
        "/api/v1/credits/checkout/confirm", data=big, headers={**headers, "Content-Type": "application/json"}
    )
    assert response.status == 413 and (await response.json())["statusCode"] == 413
    assert await shop.db.fetchone("SELECT 1 FROM purchases") is None


async def test_unconfigured_stripe_is_503_and_the_rest_works(harness_factory, tmp_path):
    harness = await harness_factory(billing_settings(tmp_path, None))
    _, headers = await harness.tenant()
    for path, body in (
        ("/api/v1/credits/checkout", {"packageId": package_id("Small")}),
        ("/api/v1/credits/checkout/confirm", {"sessionId": "cs_test_x"}),
    ):
        response = await harness.client.post(path, json=body, headers=headers)
        assert response.status == 503
        assert "not configured" in (await response.json())["message"]
    assert (await harness.client.get("/api/v1/credits/packages", headers=headers)).status == 200
    assert await harness.balance(headers) == 10


async def test_stripe_answering_500_or_down_applies_nothing(shop, harness_factory, tmp_path):
    _, headers = await shop.tenant(credits=0)
    shop.fake.fail_next(1, 500)
    response = await shop.client.post(
        "/api/v1/credits/checkout", json={"packageId": package_id("Small")}, headers=headers
    )
    assert response.status == 502 and "nothing was applied" in (await response.json())["message"]
    assert await shop.db.fetchone("SELECT 1 FROM purchases") is None
    session_id = await checkout(shop, headers)  # safe to retry
    await shop.fake.pay(session_id)
    shop.fake.fail_next(1, 503)
    assert (await confirm(shop, headers, session_id)).status == 502
    assert await shop.balance(headers) == 0
    assert (await (await confirm(shop, headers, session_id)).json())["applied"] is True

    from bench.server import free_port

    down = await harness_factory(
        billing_settings(tmp_path / "down", FakeStripe(), api_base=f"http://127.0.0.1:{free_port()}")
    )
    _, headers = await down.tenant()
    response = await down.client.post(
        "/api/v1/credits/checkout", json={"packageId": package_id("Small")}, headers=headers
    )
    assert response.status == 503 and "cannot be reached" in (await response.json())["message"]
    assert "Retry-After" in response.headers


async def test_retried_stripe_call_uses_the_library_retries(harness_factory, tmp_path, stripe_fake):
    harness = await harness_factory(billing_settings(tmp_path, stripe_fake, max_network_retries=2))
    _, headers = await harness.tenant(credits=0)
    stripe_fake.fail_next(1, 500)
    session_id = await checkout(harness, headers)  # the library retried with the same idempotency key
    creates = [h for m, p, h in stripe_fake.requests if m == "POST"]
    assert len(creates) == 2 and creates[0]["Idempotency-Key"] == creates[1]["Idempotency-Key"]
    assert session_id in stripe_fake.sessions
