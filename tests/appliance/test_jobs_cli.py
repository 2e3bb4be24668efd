"""The queue for operators: ``appliance jobs list|retry`` and ``appliance invoice reprocess
[--tier N]`` against a real server and dispatcher, plus forced tiers in the pipeline itself."""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid

import pytest

from appliance.datadir import prepare_data_dir
from appliance.db import Database
from appliance.errors import BadRequest, JobBusy, NotFound
from appliance.invoices import create_slot
from appliance.queue import admin, jobs
from appliance.tenants import create_tenant
from appliance.vendors import create_vendor
from bench.server import cli
from pipeline.context import JobContext
from pipeline.reading.sniff import PDF
from pipeline.runner import Extractor
from tests.appliance.test_vendors import ACME_TEMPLATE
from tests.conftest import fake_models, make_settings
from tests.support.docs import INVOICE_LINES, hybrid_pdf, png_with_text, receipt_text, text_pdf

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
FAKES = fake_models()


async def appliance(config, *args):
    """The CLI in a subprocess, off the event loop so the in-process server keeps running."""
    return await asyncio.to_thread(cli, config, *args)


async def upload(harness, headers, data: bytes, content_type: str = "application/pdf") -> str:
    response = await harness.upload(headers, data, content_type=content_type)
    assert response.status == 202, await response.text()
    invoice_id = (await response.json())["invoice"]["id"]
    await harness.wait_ready(headers, invoice_id)
    return invoice_id


async def operator_row(harness, invoice_id: str):
    return await harness.db.fetchone("SELECT * FROM invoices WHERE id = ?", (invoice_id,))


async def test_jobs_list_shows_the_queue(harness, tmp_path):
    config = tmp_path / "config.toml"
    tenant_id, headers = await harness.tenant()
    first = await upload(harness, headers, png_with_text(receipt_text("Total 1.50")), "image/png")
    second = await upload(harness, headers, png_with_text(receipt_text("Total 2.50")), "image/png")
    listed = await appliance(config, "jobs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert {row["invoiceId"] for row in rows} == {first, second}
    for row in rows:
        assert (row["state"], row["tenantId"], row["attempts"], row["busyRetries"]) == ("done", tenant_id, 1, 0)
        assert ISO.match(row["availableAt"]) and row["leaseUntil"] is None and row["lastError"] is None
        assert row["processingStatus"] == "completed" and row["forceTier"] is None
    assert await admin.list_jobs(harness.db, "queued") == []
    assert len(await admin.list_jobs(harness.db, "done", limit=1)) == 1
    text = await appliance(config, "jobs", "list", "--state", "done")
    assert text.returncode == 0 and first in text.stdout and "attempts=1" in text.stdout
    bad = await appliance(config, "jobs", "list", "--state", "lost")
    assert bad.returncode == 2 and "lost" in bad.stderr  # click refuses it before any work
    with pytest.raises(BadRequest, match="unknown state"):
        await admin.list_jobs(harness.db, "lost")


async def test_retry_requeues_a_failed_job_with_attempts_reset_and_no_debit(harness_factory, tmp_path):
    harness = await harness_factory(
        make_settings(tmp_path, {"ocr": {"engine": "tests.fakes.ocr:CrashOcr"}, "queue": {"max_attempts": 1}})
    )
    _, headers = await harness.tenant(credits=3)
    invoice_id = await upload(harness, headers, png_with_text("x"), "image/png")
    failed = await admin.list_jobs(harness.db, "failed")
    assert [row["invoiceId"] for row in failed] == [invoice_id] and "fake OCR crash" in failed[0]["lastError"]
    result = await appliance(tmp_path / "config.toml", "jobs", "retry", invoice_id)
    assert result.returncode == 0 and "queued again" in result.stdout, result.stderr
    body = await harness.wait_ready(headers, invoice_id)
    assert body["processingStatus"] == "failed" and "after 1 attempts" in body["processingError"]  # reset, not 2
    assert await harness.balance(headers) == 2
    by_job_id = await admin.retry(harness.db, failed[0]["id"])
    assert (by_job_id["state"], by_job_id["attempts"], by_job_id["processingStatus"]) == ("queued", 0, "queued")


async def test_reprocess_forces_a_tier_and_completes_again(harness, tmp_path):
    config = tmp_path / "config.toml"
    tenant_id, headers = await harness.tenant(credits=5)
    einvoice = await upload(harness, headers, hybrid_pdf())
    assert (await operator_row(harness, einvoice))["extraction_tier"] == 0
    assert (await appliance(config, "invoice", "reprocess", einvoice, "--tier", "2")).returncode == 0
    body = await harness.wait_ready(headers, einvoice)
    row = await operator_row(harness, einvoice)
    assert row["extraction_tier"] == 2 and "tier 2 forced" in row["routing_reason"]
    assert body["data"]["total_amount"] == 119.0
    await admin.reprocess(harness.db, einvoice, 0)
    await harness.wait_ready(headers, einvoice)
    assert (await operator_row(harness, einvoice))["extraction_tier"] == 0

    printed = await upload(harness, headers, text_pdf(INVOICE_LINES))
    result = await appliance(config, "invoice", "reprocess", printed, "--tier", "0")
    assert result.returncode == 0 and "tier 0 forced" in result.stdout
    body = await harness.wait_ready(headers, printed)
    assert body["processingStatus"] == "failed" and body["status"] == "pending"
    assert body["processingError"] == "Tier 0 forced, but the document embeds no e-invoice XML"
    await admin.reprocess(harness.db, printed, 1)
    body = await harness.wait_ready(headers, printed)
    assert body["processingError"] == "Tier 1 forced, but no vendor template applies (no vendor template)"
    await create_vendor(harness.db, tenant_id, "ACME Tools GmbH", template=ACME_TEMPLATE)
    job = await admin.retry(harness.db, printed)  # a retry keeps the forced tier
    assert job["forceTier"] == 1
    body = await harness.wait_ready(headers, printed)
    assert body["processingStatus"] != "failed" and (await operator_row(harness, printed))["extraction_tier"] == 1
    await admin.reprocess(harness.db, printed, 2)  # templates skipped although one applies
    await harness.wait_ready(headers, printed)
    assert (await operator_row(harness, printed))["extraction_tier"] == 2
    await admin.reprocess(harness.db, printed)  # no --tier: the usual routing, force cleared
    await harness.wait_ready(headers, printed)
    assert (await operator_row(harness, printed))["extraction_tier"] == 1
    receipt = await upload(harness, headers, png_with_text(receipt_text("Total EUR 5.00")), "image/png")
    await admin.reprocess(harness.db, receipt, 2)
    assert (await harness.wait_ready(headers, receipt))["processingStatus"] == "completed"  # completed again
    assert await harness.balance(headers) == 2  # three uploads, five reprocesses
    bad = await appliance(config, "invoice", "reprocess", receipt, "--tier", "3")
    assert bad.returncode == 65 and "unknown tier 3" in bad.stderr


def test_forced_tiers_in_the_pipeline():
    extractor = Extractor(FAKES)
    template = (("v1", ACME_TEMPLATE),)
    printed = text_pdf(INVOICE_LINES)
    assert extractor.extract(JobContext("x", PDF, force_tier=0), hybrid_pdf()).extraction_tier == 0
    no_xml = extractor.extract(JobContext("x", PDF, force_tier=0), printed)
    assert no_xml.processing_status == "failed" and no_xml.processing_error.startswith("Tier 0 forced")
    image = extractor.extract(JobContext("x", "image/png", force_tier=0), png_with_text(receipt_text("Total 1.00")))
    assert image.processing_status == "failed" and "no e-invoice XML" in image.processing_error
    assert extractor.extract(JobContext("x", PDF, force_tier=2), hybrid_pdf()).extraction_tier == 2
    assert extractor.extract(JobContext("x", PDF, force_tier=1, templates=template), hybrid_pdf()).extraction_tier == 1
    assert extractor.extract(JobContext("x", PDF, force_tier=2, templates=template), printed).extraction_tier == 2
    unmatched = (("v1", ACME_TEMPLATE.replace("  - ACME Tools", "  - Not on the page")),)
    failed = extractor.extract(JobContext("x", PDF, force_tier=1, templates=unmatched), printed)
    assert failed.processing_error == (
        "Tier 1 forced, but no vendor template applies (no vendor template applied (1 tried))"
    )
    assert (
        extractor.extract(JobContext("x", PDF, templates=template), printed).extraction_tier == 1
    )  # unforced as before


async def test_a_leased_job_is_refused_and_unknown_ids_are_not_found(tmp_path):
    settings = make_settings(tmp_path)  # no server: nothing leases but this test
    prepare_data_dir(settings)
    db = await Database(settings.db_path).open()
    try:
        tenant, _ = await create_tenant(db, "t")
        invoice_id = await create_slot(db, tenant.id)
        async with db.transaction() as conn:
            await jobs.enqueue(conn, invoice_id, tenant.id)
        [job] = await jobs.lease(db, "worker", lease_seconds=60)
        config = tmp_path / "config.toml"
        listed = json.loads((await appliance(config, "jobs", "list", "--json", "--state", "leased")).stdout)
        assert [row["id"] for row in listed] == [job.id] and ISO.match(listed[0]["leaseUntil"])
        for args in (("jobs", "retry", job.id), ("invoice", "reprocess", invoice_id)):
            result = await appliance(config, *args)
            assert result.returncode == 75 and "being processed right now" in result.stderr, (args, result.stderr)
        for ident in (str(uuid.uuid4()), "nope"):
            result = await appliance(config, "jobs", "retry", ident)
            assert result.returncode == 66 and "No job for" in result.stderr
        result = await appliance(config, "invoice", "reprocess", str(uuid.uuid4()))
        assert result.returncode == 66 and "Invoice not found" in result.stderr
        with pytest.raises(NotFound):
            await admin.reprocess(db, "nope")
        with pytest.raises(JobBusy):
            await admin.retry(db, invoice_id)
        async with db.transaction() as conn:  # the worker died: its lease ran out
            await conn.execute("UPDATE jobs SET lease_until = ?", (time.time() - 1,))
        again = await admin.retry(db, invoice_id)
        assert (again["state"], again["attempts"], again["leaseUntil"]) == ("queued", 0, None)
    finally:
        await db.close()
