"""Deleting an invoice (issue 28, ``appliance.deletion``; the CLI's ``appliance invoice delete``):
its file, page images and rows go, nothing of it stays on disk, the ledger keeps its debit and
says who deleted it; another tenant's id and a second delete are NotFound, a job a worker holds
is refused. The review page's delete button is tested in tests/webui/test_lifecycle_pages.py."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from appliance import ledger, profiles, review
from appliance.datadir import prepare_data_dir
from appliance.db import Database
from appliance.deletion import LEDGER_REASON, delete_invoice
from appliance.errors import JobBusy, NotFound
from appliance.invoices import create_slot
from appliance.queue import jobs
from appliance.tenants import create_tenant
from appliance.uploads import derived_dir
from bench.server import cli
from tests.appliance.test_profiles import invoice, uploaded, vendor_of
from tests.conftest import make_settings
from tests.support.docs import png_with_text
from webui import page_images

ROWS_OF_AN_INVOICE = {
    "invoices": "id",
    "files": "invoice_id",
    "jobs": "invoice_id",
    "corrections": "invoice_id",
    "idempotency_keys": "invoice_id",
    "vendor_lessons": "invoice_id",
}


def on_disk(settings) -> set[str]:
    """Every file and folder under the data dir's ``files/``, relative to it."""
    return {str(path.relative_to(settings.files_dir)) for path in settings.files_dir.rglob("*")}


async def rows_left(db, invoice_id: str) -> dict[str, int]:
    counts = {}
    for table, column in ROWS_OF_AN_INVOICE.items():
        row = await db.fetchone(f"SELECT COUNT(*) AS n FROM {table} WHERE {column} = ?", (invoice_id,))
        counts[table] = row["n"]
    return counts


async def test_delete_removes_file_page_images_and_rows_and_the_ledger_keeps_the_debit(harness):
    tenant_id, headers = await harness.tenant(credits=5)
    before = on_disk(harness.settings)
    response = await harness.upload(headers | {"Idempotency-Key": "upload-1"}, invoice("R-1001", "119.00"))
    invoice_id = (await response.json())["invoice"]["id"]
    await harness.wait_ready(headers, invoice_id)
    assert (await rows_left(harness.db, invoice_id))["idempotency_keys"] == 1
    keep_id, _ = await uploaded(harness, headers, invoice("R-1002", "238.00"))
    stored = Path((await harness.db.fetchone("SELECT path FROM files WHERE invoice_id = ?", (invoice_id,)))["path"])
    await asyncio.to_thread(page_images.page_image, stored, "application/pdf", 1)  # a cached page image
    size = stored.stat().st_size + page_images.cached_page(stored, 1).stat().st_size
    await review.correct(harness.db, invoice_id, ["total_amount=119.50"], [], by="ana")
    await review.decide(harness.db, invoice_id, "approved", "ana")  # teaches the vendor's profile
    vendor_id = await vendor_of(harness, invoice_id)
    assert (await profiles.show(harness.db, vendor_id))["invoices"] == [invoice_id]
    balance = await harness.balance(headers)

    done = await delete_invoice(harness.db, invoice_id, tenant_id, by="admin@example.com")

    assert (done.invoice_id, done.tenant_id, done.credits_kept) == (invoice_id, tenant_id, 1)
    assert done.bytes_freed == size
    assert not stored.exists() and not derived_dir(stored).exists()
    keep = (await harness.db.fetchone("SELECT path FROM files WHERE invoice_id = ?", (keep_id,)))["path"]
    assert on_disk(harness.settings) - before == {tenant_id, str(Path(keep).relative_to(harness.settings.files_dir))}
    assert await rows_left(harness.db, invoice_id) == dict.fromkeys(ROWS_OF_AN_INVOICE, 0)
    assert (await profiles.show(harness.db, vendor_id))["invoices"] == []  # its lesson withdrawn
    assert (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).status == 404
    # the ledger: append-only, balance unchanged, the debit kept and the deletion recorded
    assert await harness.balance(headers) == balance == 3
    assert await ledger.ledger_sum(harness.db, tenant_id) == balance
    rows = await harness.db.fetchall(
        "SELECT delta, reason, note FROM ledger WHERE invoice_id = ? ORDER BY id", (invoice_id,)
    )
    assert [(r["delta"], r["reason"]) for r in rows] == [(-1, "upload_debit"), (0, LEDGER_REASON)]
    assert rows[1]["note"] == "invoice deleted by admin@example.com; its debit of 1 credit(s) is kept"
    # the other invoice is untouched
    assert (await harness.client.get(f"/api/v1/invoices/{keep_id}", headers=headers)).status == 200


async def test_deleting_twice_and_another_tenants_invoice_are_not_found(harness):
    tenant_a, headers_a = await harness.tenant(name="a")
    tenant_b, _ = await harness.tenant(name="b")
    response = await harness.upload(headers_a, png_with_text("Total 1.00"), content_type="image/png")
    invoice_id = (await response.json())["invoice"]["id"]
    await harness.wait_ready(headers_a, invoice_id)
    with pytest.raises(NotFound, match="Invoice not found"):
        await delete_invoice(harness.db, invoice_id, tenant_b, by="mallory")
    assert (await rows_left(harness.db, invoice_id))["invoices"] == 1  # nothing happened
    await delete_invoice(harness.db, invoice_id, tenant_a, by="ana")
    ledger_rows = (await harness.db.fetchone("SELECT COUNT(*) AS n FROM ledger"))["n"]
    for tenant in (tenant_a, None):
        with pytest.raises(NotFound, match="was deleted"):
            await delete_invoice(harness.db, invoice_id, tenant, by="ana")
    for bad in ("nope", ""):
        with pytest.raises(NotFound):
            await delete_invoice(harness.db, bad, None, by="ana")
    assert (await harness.db.fetchone("SELECT COUNT(*) AS n FROM ledger"))["n"] == ledger_rows  # no second row


@pytest.fixture
async def bare(tmp_path):
    """A migrated database and data dir with no server: nothing leases a job but the test."""
    settings = make_settings(tmp_path)
    prepare_data_dir(settings)
    db = await Database(settings.db_path).open()
    yield settings, db
    await db.close()


async def queued_invoice(settings, db, tenant_id: str) -> tuple[str, Path]:
    """An invoice with a stored file, a debit and a queued job, as an accepted upload has them."""
    invoice_id = await create_slot(db, tenant_id)
    stored = settings.files_dir / tenant_id / f"file-of-{invoice_id}"
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_bytes(png_with_text("x"))
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO files (id, tenant_id, invoice_id, path, size, sha256, media_type, created_at) "
            "VALUES (?, ?, ?, ?, ?, 'x', 'image/png', '2026-01-01T00:00:00.000Z')",
            (f"file-of-{invoice_id}", tenant_id, invoice_id, str(stored), stored.stat().st_size),
        )
        await ledger.post(conn, tenant_id, -1, "upload_debit", invoice_id=invoice_id)
        await jobs.enqueue(conn, invoice_id, tenant_id)
    return invoice_id, stored


async def test_a_job_in_flight_is_refused_and_a_queued_or_expired_one_is_deleted(bare):
    settings, db = bare
    tenant, _ = await create_tenant(db, "t", 5)
    leased_id, leased_file = await queued_invoice(settings, db, tenant.id)
    [job] = await jobs.lease(db, "worker", lease_seconds=60)
    queued_id, queued_file = await queued_invoice(settings, db, tenant.id)
    with pytest.raises(JobBusy, match=f"being extracted right now \\(job {job.id}, lease until .*Z\\)"):
        await delete_invoice(db, leased_id, tenant.id, by="ana")
    assert leased_file.exists() and (await rows_left(db, leased_id))["jobs"] == 1
    await delete_invoice(db, queued_id, tenant.id, by="ana")  # queued, never leased: deleted, job and all
    assert not queued_file.exists() and await rows_left(db, queued_id) == dict.fromkeys(ROWS_OF_AN_INVOICE, 0)
    async with db.transaction() as conn:  # the worker died: its lease ran out
        await conn.execute("UPDATE jobs SET lease_until = ?", (time.time() - 1,))
    done = await delete_invoice(db, leased_id, tenant.id, by="ana")
    assert done.credits_kept == 1 and not leased_file.exists()
    assert await ledger.balance(db, tenant.id) == 3  # no refund, even for the one never extracted
    assert await jobs.lease(db, "worker", lease_seconds=60) == []


async def test_a_slot_without_a_file_leaves_no_ledger_row(bare):
    settings, db = bare
    tenant, _ = await create_tenant(db, "t", 5)
    slot = await create_slot(db, tenant.id)
    done = await delete_invoice(db, slot, tenant.id, by="ana")
    assert (done.bytes_freed, done.credits_kept) == (0, 0)
    assert (await db.fetchone("SELECT COUNT(*) AS n FROM ledger WHERE invoice_id = ?", (slot,)))["n"] == 0


async def test_the_cli_deletes_and_says_so(bare, tmp_path):
    settings, db = bare
    tenant, _ = await create_tenant(db, "t", 5)
    invoice_id, stored = await queued_invoice(settings, db, tenant.id)
    config = tmp_path / "config.toml"
    done = await asyncio.to_thread(cli, config, "invoice", "delete", invoice_id, "--by", "ops")
    assert done.returncode == 0, done.stderr
    assert f"invoice {invoice_id} (tenant {tenant.id}) deleted by ops" in done.stdout
    assert "the ledger keeps its debit of 1 credit(s)" in done.stdout and not stored.exists()
    again = await asyncio.to_thread(cli, config, "invoice", "delete", invoice_id)
    assert again.returncode == 66 and "Invoice not found" in again.stderr
    busy_id, _ = await queued_invoice(settings, db, tenant.id)
    await jobs.lease(db, "worker", lease_seconds=60)
    busy = await asyncio.to_thread(cli, config, "invoice", "delete", busy_id)
    assert busy.returncode == 75 and "being extracted right now" in busy.stderr
