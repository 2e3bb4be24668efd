"""The durable queue and the dispatcher: leases, busy-OCR retries, attempts, and failures that
end an invoice without taking the server down."""

from __future__ import annotations

import time

import pytest

from appliance.invoices import create_slot
from appliance.queue import jobs
from tests.conftest import make_settings
from tests.support.docs import png_with_text, receipt_text


async def test_busy_ocr_is_retried_without_counting_an_attempt(harness_factory, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_OCR_SECONDS", "0.3")
    harness = await harness_factory(make_settings(tmp_path, {"pool": {"workers": 3}, "ocr": {"concurrency": 1}}))
    _, headers = await harness.tenant(credits=5)
    ids = []
    for n in range(3):
        response = await harness.upload(headers, png_with_text(receipt_text(f"Total {n}.50")), content_type="image/png")
        ids.append((await response.json())["invoice"]["id"])
    for n, invoice_id in enumerate(ids):
        result = await harness.wait_ready(headers, invoice_id)
        assert result["processingStatus"] == "completed"
        assert result["data"]["total_amount"] == n + 0.5
    stats = await harness.db.fetchall("SELECT attempts, busy_retries, state FROM jobs")
    assert all(row["state"] == "done" and row["attempts"] == 1 for row in stats)
    assert sum(row["busy_retries"] for row in stats) >= 1  # three jobs, one OCR slot
    assert await harness.balance(headers) == 2


async def test_crashing_stage_retries_then_fails_with_one_debit(harness_factory, tmp_path):
    harness = await harness_factory(
        make_settings(tmp_path, {"ocr": {"engine": "tests.fakes.ocr:CrashOcr"}, "queue": {"max_attempts": 2}})
    )
    _, headers = await harness.tenant(credits=1)
    invoice_id = (await (await harness.upload(headers, png_with_text("x"), content_type="image/png")).json())[
        "invoice"
    ]["id"]
    result = await harness.wait_ready(headers, invoice_id)
    assert result["processingStatus"] == "failed" and result["status"] == "pending"
    assert "fake OCR crash" in result["processingError"] and "after 2 attempts" in result["processingError"]
    assert (await harness.db.fetchone("SELECT attempts FROM jobs"))["attempts"] == 2
    assert await harness.balance(headers) == 0


async def test_blank_page_fails_and_crashing_llm_keeps_rules(harness_factory, tmp_path):
    blank = await harness_factory(make_settings(tmp_path / "a", {"ocr": {"engine": "tests.fakes.ocr:EmptyOcr"}}))
    _, headers = await blank.tenant()
    invoice_id = (await (await blank.upload(headers, png_with_text(), content_type="image/png")).json())["invoice"][
        "id"
    ]
    result = await blank.wait_ready(headers, invoice_id)
    assert result["processingStatus"] == "failed"
    assert result["processingError"] == "No text could be read from the document"

    crash = await harness_factory(make_settings(tmp_path / "b", {"llm": {"backend": "tests.fakes.llm:CrashLLM"}}))
    _, headers = await crash.tenant()
    invoice_id = (
        await (
            await crash.upload(headers, png_with_text(receipt_text("Total EUR 5.00")), content_type="image/png")
        ).json()
    )["invoice"]["id"]
    result = await crash.wait_ready(headers, invoice_id)
    assert result["data"]["total_amount"] == 5.0


async def test_missing_total_is_needs_review(harness):
    _, headers = await harness.tenant()
    response = await harness.upload(headers, png_with_text("Some Company Ltd\nhello world"), content_type="image/png")
    result = await harness.wait_ready(headers, (await response.json())["invoice"]["id"])
    assert result["processingStatus"] == "needs_review" and result["ready"] is True
    assert "total_amount is missing" in result["validationErrors"]
    assert result["status"] == "extracted"


async def _queued_job(db, tenant_id: str) -> str:
    invoice_id = await create_slot(db, tenant_id)
    async with db.transaction() as conn:
        await jobs.enqueue(conn, invoice_id, tenant_id)
    return invoice_id


@pytest.fixture
async def queue_db(tmp_path):
    """A migrated appliance database, for the queue's own functions."""
    from appliance.datadir import prepare_data_dir
    from appliance.db import Database

    settings = make_settings(tmp_path)
    prepare_data_dir(settings)
    db = await Database(settings.db_path).open()
    yield db
    await db.close()


async def test_expired_lease_is_leased_again(queue_db):
    from appliance.tenants import create_tenant

    db = queue_db
    tenant, _ = await create_tenant(db, "t")
    invoice_id = await _queued_job(db, tenant.id)
    first = await jobs.lease(db, "a", lease_seconds=0.05)
    assert [j.invoice_id for j in first] == [invoice_id]
    assert await jobs.lease(db, "b", lease_seconds=60) == []  # still held
    time.sleep(0.1)
    second = await jobs.lease(db, "b", lease_seconds=60)
    assert [j.attempts for j in second] == [2]
    assert await jobs.release_orphans(db, "c") == 1  # a restart frees leases of dead owners
    row = await db.fetchone("SELECT state FROM jobs")
    assert row["state"] == "queued"
    invoice = await db.fetchone("SELECT processing_status FROM invoices WHERE id = ?", (invoice_id,))
    assert invoice["processing_status"] == "queued"


async def test_busy_ocr_is_known_by_its_type_not_its_message(harness_factory, tmp_path, monkeypatch):
    """An OCR engine at capacity raises OcrBusy: retried as busy (no attempt spent) whatever its
    message says; max_attempts 1 would fail the job at its first counted retry."""
    from tests.fakes.ocr import BusyThenTextOcr

    monkeypatch.setattr(BusyThenTextOcr, "refusals", 0)
    harness = await harness_factory(
        make_settings(tmp_path, {"ocr": {"engine": "tests.fakes.ocr:BusyThenTextOcr"}, "queue": {"max_attempts": 1}})
    )
    _, headers = await harness.tenant()
    response = await harness.upload(headers, png_with_text(receipt_text("Total EUR 5.00")), content_type="image/png")
    result = await harness.wait_ready(headers, (await response.json())["invoice"]["id"])
    assert result["processingStatus"] != "failed", result["processingError"]
    job = await harness.db.fetchone("SELECT attempts, busy_retries FROM jobs")
    assert (job["attempts"], job["busy_retries"]) == (1, 2)


async def test_other_temporary_errors_spend_attempts_even_when_they_say_busy(harness_factory, tmp_path):
    harness = await harness_factory(
        make_settings(
            tmp_path, {"ocr": {"engine": "tests.fakes.ocr:TemporaryTroubleOcr"}, "queue": {"max_attempts": 2}}
        )
    )
    _, headers = await harness.tenant()
    response = await harness.upload(headers, png_with_text(receipt_text("Total EUR 5.00")), content_type="image/png")
    result = await harness.wait_ready(headers, (await response.json())["invoice"]["id"], timeout=20)
    assert result["processingStatus"] == "failed"
    assert "device busy resetting" in result["processingError"]
    job = await harness.db.fetchone("SELECT attempts, busy_retries FROM jobs")
    assert (job["attempts"], job["busy_retries"]) == (2, 0)


async def test_tenants_take_turns(queue_db):
    from appliance.tenants import create_tenant

    db = queue_db
    big, _ = await create_tenant(db, "big")
    small, _ = await create_tenant(db, "small")
    batch = [await _queued_job(db, big.id) for _ in range(5)]
    single = await _queued_job(db, small.id)  # uploaded after the whole batch
    first = await jobs.lease(db, "w", lease_seconds=60)
    assert [j.invoice_id for j in first] == [batch[0]]  # the oldest job of all
    async with db.transaction() as conn:
        await jobs.finish(conn, first[0].id)
    second = await jobs.lease(db, "w", lease_seconds=60)
    assert [j.invoice_id for j in second] == [single]  # not after the other four: the small tenant's turn
    rest = await jobs.lease(db, "w", lease_seconds=60, limit=10)
    assert [j.invoice_id for j in rest] == batch[1:]  # within a tenant, oldest first
