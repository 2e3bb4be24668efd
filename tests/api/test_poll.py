"""``GET /api/v1/invoices/{id}`` beyond the spec (issue 12): an ETag on every answer, 304 for
``If-None-Match``, and ``?wait=SECONDS`` that answers as soon as the invoice is ready (or
changed); the body is the same JSON as before, key revocation by another process still counts
at the next request."""

from __future__ import annotations

import asyncio
import json
import time

from appliance import review
from appliance.tenants import revoke_key
from tests.conftest import make_settings
from tests.support.docs import png_with_text, receipt_text


async def upload(harness, headers, text="Total EUR 12.50"):
    response = await harness.upload(headers, png_with_text(receipt_text(text)), content_type="image/png")
    return (await response.json())["invoice"]["id"]


async def test_etag_and_304(harness):
    _, headers = await harness.tenant()
    invoice_id = await upload(harness, headers)
    await harness.wait_ready(headers, invoice_id)
    first = await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)
    etag = first.headers["ETag"]
    assert first.status == 200 and etag.startswith('"') and len(etag) == 34
    assert first.headers["Content-Type"].startswith("application/json")
    same = await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers={**headers, "If-None-Match": etag})
    assert same.status == 304 and same.headers["ETag"] == etag and await same.read() == b""
    weak = await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers={**headers, "If-None-Match": "W/" + etag})
    assert weak.status == 304  # If-None-Match compares weakly
    other = await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers={**headers, "If-None-Match": '"x"'})
    assert other.status == 200 and other.headers["ETag"] == etag
    # a human correction changes the body, so the ETag
    await review.correct(harness.db, invoice_id, ["total_amount=13.50"], [], by="clerk")
    changed = await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers={**headers, "If-None-Match": etag})
    assert changed.status == 200 and changed.headers["ETag"] != etag
    assert (await changed.json())["data"]["total_amount"] == 13.5


async def test_the_fast_body_is_the_json_of_get_invoice(harness_factory, tmp_path, monkeypatch):
    from appliance.invoices import get_invoice

    monkeypatch.setenv("FAKE_OCR_SECONDS", "1.5")  # the invoice is not ready yet at the first look
    harness = await harness_factory(make_settings(tmp_path))
    tenant_id, headers = await harness.tenant()
    invoice_id = await upload(harness, headers)
    queued = await (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).json()
    assert queued["ready"] is False
    assert queued == json.loads(json.dumps(await get_invoice(harness.db, invoice_id, tenant_id)))
    await harness.wait_ready(headers, invoice_id)
    served = await (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).json()
    assert served == json.loads(json.dumps(await get_invoice(harness.db, invoice_id, tenant_id)))
    assert served["data"]["total_amount"] == 12.5 and served["evidence"]
    await review.correct(harness.db, invoice_id, ["total_amount=13.50"], [], by="clerk")  # the decoded path
    corrected = await (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).json()
    assert corrected == json.loads(json.dumps(await get_invoice(harness.db, invoice_id, tenant_id)))
    assert corrected["data"]["total_amount"] == 13.5


async def test_wait_answers_when_the_invoice_is_ready(harness_factory, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_OCR_SECONDS", "1.5")
    harness = await harness_factory(make_settings(tmp_path))
    _, headers = await harness.tenant()
    invoice_id = await upload(harness, headers)
    started = time.monotonic()
    response = await harness.client.get(f"/api/v1/invoices/{invoice_id}?wait=30", headers=headers)
    body = await response.json()
    assert body["ready"] is True and body["data"]["total_amount"] == 12.5
    assert time.monotonic() - started < 10  # answered when ready, not after 30 s
    # ready already, no If-None-Match: at once
    started = time.monotonic()
    assert (await harness.client.get(f"/api/v1/invoices/{invoice_id}?wait=30", headers=headers)).status == 200
    assert time.monotonic() - started < 1
    # unchanged from the client's ETag: waits the whole time, then 304
    etag = response.headers["ETag"]
    started = time.monotonic()
    held = await harness.client.get(f"/api/v1/invoices/{invoice_id}?wait=1", headers={**headers, "If-None-Match": etag})
    assert held.status == 304 and time.monotonic() - started >= 0.9
    assert len(harness.db.changes) == 0  # no waiter left behind


async def test_wait_sees_a_change_made_by_another_process(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await upload(harness, headers)
    await harness.wait_ready(headers, invoice_id)
    etag = (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).headers["ETag"]
    held = asyncio.create_task(
        harness.client.get(f"/api/v1/invoices/{invoice_id}?wait=10", headers={**headers, "If-None-Match": etag})
    )
    await asyncio.sleep(0.3)
    assert not held.done()
    other = await type(harness.db)(harness.db.path).open()  # the CLI's own connection: no notification here
    try:
        await review.correct(other, invoice_id, ["total_amount=99.00"], [], by="clerk")
    finally:
        await other.close()
    response = await asyncio.wait_for(held, 5)
    assert response.status == 200 and (await response.json())["data"]["total_amount"] == 99.0


async def test_bad_wait_is_400(harness):
    _, headers = await harness.tenant()
    invoice_id = await upload(harness, headers)
    for bad in ("61", "-1", "soon", "nan", "inf"):
        response = await harness.client.get(f"/api/v1/invoices/{invoice_id}?wait={bad}", headers=headers)
        body = await response.json()
        assert response.status == 400 and body["message"] == "wait must be a number of seconds from 0 to 60", bad


async def test_a_key_revoked_by_another_process_fails_the_next_poll(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await upload(harness, headers)
    assert (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).status == 200
    other = await type(harness.db)(harness.db.path).open()  # as `appliance key revoke` does, in its own process
    try:
        assert await revoke_key(other, tenant_id) == 1
    finally:
        await other.close()
    refused = await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)
    assert refused.status == 401


async def test_shutdown_answers_waiting_polls_at_once(harness_factory, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_OCR_SECONDS", "5")
    harness = await harness_factory(make_settings(tmp_path))
    _, headers = await harness.tenant()
    invoice_id = await upload(harness, headers)
    held = asyncio.create_task(harness.client.get(f"/api/v1/invoices/{invoice_id}?wait=60", headers=headers))
    await asyncio.sleep(0.3)
    started = time.monotonic()
    harness.db.changes.close()  # what server.run does when it stops
    response = await asyncio.wait_for(held, 5)
    assert response.status == 200 and (await response.json())["ready"] is False
    assert time.monotonic() - started < 1
