"""Idempotency-Key on uploads and attach (issue 12, beyond the spec; Stripe's convention): a
retry with the same key and the same request gets the first 202 again, with no second debit;
the same key with another request is 422; nothing a refused request sent is kept."""

from __future__ import annotations

import asyncio

from appliance import ledger
from tests.api.test_uploads import files_on_disk, rows
from tests.conftest import make_settings
from tests.support.docs import jpeg, png_with_text, receipt_text


async def assert_one_upload_kept(harness, headers, balance: int) -> None:
    assert await harness.balance(headers) == balance
    assert await rows(harness.db, "invoices") == 1 and len(files_on_disk(harness.settings)) == 1


async def test_a_retried_upload_is_answered_again_without_a_second_debit(harness):
    _, headers = await harness.tenant(credits=3)
    keyed = {**headers, "Idempotency-Key": "b8e1c7c2-upload-1"}
    first = await harness.upload(keyed, jpeg(), content_type="image/jpeg")
    assert first.status == 202 and "Idempotent-Replayed" not in first.headers
    again = await harness.upload(keyed, jpeg(), content_type="image/jpeg")
    assert again.status == 202 and again.headers["Idempotent-Replayed"] == "true"
    assert await again.json() == await first.json()
    assert again.headers["Location"] == first.headers["Location"]
    await assert_one_upload_kept(harness, headers, balance=2)


async def test_the_same_key_with_another_request_is_422_and_keeps_nothing(harness):
    _, headers = await harness.tenant(credits=3)
    keyed = {**headers, "Idempotency-Key": "k-1"}
    assert (await harness.upload(keyed, jpeg(), content_type="image/jpeg")).status == 202
    other_file = await harness.upload(keyed, png_with_text("other"), content_type="image/png")
    other_name = await harness.upload(keyed, jpeg(), content_type="image/jpeg", filename="renamed.jpg")
    for response in (other_file, other_name):
        body = await response.json()
        assert response.status == 422 and body["error"] == "Unprocessable Entity"
        assert "Idempotency-Key was used within 24 hours for another request" in body["message"]
    await assert_one_upload_kept(harness, headers, balance=2)
    # keys are the tenant's: another tenant's same key is a new upload
    _, others = await harness.tenant(credits=1, name="other")
    assert (await harness.upload({**others, "Idempotency-Key": "k-1"}, jpeg(), content_type="image/jpeg")).status == 202


async def test_a_retried_attach_is_answered_again(harness):
    _, headers = await harness.tenant(credits=2)
    slot = (await (await harness.client.post("/api/v1/invoices/upload/init", headers=headers)).json())["invoiceId"]
    keyed = {**headers, "Idempotency-Key": "attach-1"}
    path = f"/api/v1/invoices/upload/{slot}/file"
    first = await harness.upload(keyed, jpeg(), content_type="image/jpeg", path=path)
    again = await harness.upload(keyed, jpeg(), content_type="image/jpeg", path=path)
    assert first.status == again.status == 202 and await again.json() == await first.json()
    without_key = await harness.upload(headers, jpeg(), content_type="image/jpeg", path=path)
    assert without_key.status == 400 and "already attached" in (await without_key.json())["message"]
    # the same key on the one-step endpoint is another request
    assert (await harness.upload(keyed, jpeg(), content_type="image/jpeg")).status == 422
    assert await harness.balance(headers) == 1


async def test_racing_retries_debit_once(harness):
    _, headers = await harness.tenant(credits=5)
    keyed = {**headers, "Idempotency-Key": "race"}
    answers = await asyncio.gather(*(harness.upload(keyed, jpeg(), content_type="image/jpeg") for _ in range(4)))
    assert [a.status for a in answers] == [202] * 4
    assert len({(await a.json())["invoice"]["id"] for a in answers}) == 1
    assert sum(a.headers.get("Idempotent-Replayed") == "true" for a in answers) == 3
    await assert_one_upload_kept(harness, headers, balance=4)


async def test_a_refused_upload_is_not_recorded_and_its_retry_runs_again(harness):
    tenant_id, headers = await harness.tenant(credits=0)
    keyed = {**headers, "Idempotency-Key": "broke"}
    assert (await harness.upload(keyed, jpeg(), content_type="image/jpeg")).status == 402
    async with harness.db.transaction() as conn:
        await ledger.post(conn, tenant_id, 1, "operator_grant")
    assert (await harness.upload(keyed, jpeg(), content_type="image/jpeg")).status == 202
    assert await harness.balance(headers) == 0


async def test_a_key_expires_after_24_hours(harness):
    _, headers = await harness.tenant(credits=3)
    keyed = {**headers, "Idempotency-Key": "old"}
    assert (await harness.upload(keyed, jpeg(), content_type="image/jpeg")).status == 202
    async with harness.db.transaction() as conn:
        await conn.execute("UPDATE idempotency_keys SET created_at = '2026-01-01T00:00:00.000Z'")
    again = await harness.upload(keyed, png_with_text(receipt_text("Total 2.00")), content_type="image/png")
    assert again.status == 202 and "Idempotent-Replayed" not in again.headers
    assert await harness.balance(headers) == 1
    assert (await harness.db.fetchone("SELECT created_at FROM idempotency_keys"))["created_at"] > "2026-01-02"


async def test_a_malformed_key_is_400_before_anything_is_read(harness_factory, tmp_path):
    harness = await harness_factory(make_settings(tmp_path))
    _, headers = await harness.tenant(credits=1)
    for bad in ("", "x" * 256, "caf\u00e9"):
        response = await harness.upload(
            {**headers, "Idempotency-Key": bad.encode().decode("latin-1")}, jpeg(), content_type="image/jpeg"
        )
        body = await response.json()
        assert response.status == 400 and "Idempotency-Key must be 1 to 255 printable ASCII" in body["message"]
    assert await harness.balance(headers) == 1 and files_on_disk(harness.settings) == []
