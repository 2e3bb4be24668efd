"""Uploads, polling and every error path of spec 4.5 to 4.8, against a real server on loopback."""

from __future__ import annotations

import uuid

from appliance.vendors import create_vendor
from tests.conftest import make_settings
from tests.support.docs import INVOICE_LINES, jpeg, png_with_text, text_pdf

ERROR_KEYS = {"statusCode", "message", "error"}


async def rows(db, table: str) -> int:
    return (await db.fetchone(f"SELECT COUNT(*) AS n FROM {table}"))["n"]


def files_on_disk(settings) -> list:
    return [p for p in settings.files_dir.rglob("*") if p.is_file()]


async def test_one_step_upload_debits_and_becomes_ready(harness):
    _, headers = await harness.tenant(credits=3)
    response = await harness.upload(headers, text_pdf(INVOICE_LINES))
    assert response.status == 202
    body = await response.json()
    invoice_id = body["invoice"]["id"]
    assert body["statusUrl"] == f"/api/v1/invoices/{invoice_id}"
    assert response.headers["Location"] == body["statusUrl"]
    assert body["invoice"]["status"] == "pending" and body["invoice"]["processingStatus"] == "queued"
    assert uuid.UUID(body["fileId"])
    assert await harness.balance(headers) == 2
    result = await harness.wait_ready(headers, invoice_id)
    assert result["processingStatus"] in ("completed", "needs_review")
    assert result["status"] == "extracted"
    assert result["data"]["total_amount"] == 119.0
    assert result["data"]["invoice_date"] == "2024-03-05"
    assert "Invoice No" in result["data"]["raw_text"]
    for hidden in ("extractionTier", "extractionProvider", "routingReason"):
        assert hidden not in result
    assert await harness.balance(headers) == 2  # one debit in total


async def test_init_then_attach(harness):
    _, headers = await harness.tenant(credits=1)
    response = await harness.client.post("/api/v1/invoices/upload/init", headers=headers)
    assert response.status == 202
    prepared = await response.json()
    assert prepared["processingStatus"] == "queued"
    assert await harness.balance(headers) == 1  # init does not debit
    poll = await (await harness.client.get(f"/api/v1/invoices/{prepared['invoiceId']}", headers=headers)).json()
    assert poll["ready"] is False and poll["data"] is None and poll["status"] == "pending"
    path = f"/api/v1/invoices/upload/{prepared['invoiceId']}/file"
    response = await harness.upload(
        headers, png_with_text("Total 12.50"), filename="scan.png", content_type="image/png", path=path
    )
    assert response.status == 202, await response.text()
    body = await response.json()
    assert body["invoice"]["id"] == prepared["invoiceId"]
    assert await harness.balance(headers) == 0
    result = await harness.wait_ready(headers, prepared["invoiceId"])
    assert result["data"]["total_amount"] == 12.5
    assert result["ocrConfidence"] == 0.9


async def test_attach_twice_is_400_and_debits_once(harness):
    _, headers = await harness.tenant(credits=5)
    slot = (await (await harness.client.post("/api/v1/invoices/upload/init", headers=headers)).json())["invoiceId"]
    path = f"/api/v1/invoices/upload/{slot}/file"
    assert (await harness.upload(headers, jpeg(), content_type="image/jpeg", path=path)).status == 202
    response = await harness.upload(headers, jpeg(), content_type="image/jpeg", path=path)
    assert response.status == 400
    body = await response.json()
    assert set(body) == ERROR_KEYS and "already attached" in body["message"]
    assert await harness.balance(headers) == 4
    assert len(files_on_disk(harness.settings)) == 1


async def test_unknown_malformed_and_foreign_slots_are_404(harness):
    _, headers = await harness.tenant()
    _, other = await harness.tenant(name="other")
    foreign = (await (await harness.client.post("/api/v1/invoices/upload/init", headers=other)).json())["invoiceId"]
    for slot in (str(uuid.uuid4()), "not-a-uuid", foreign, "1%27%20OR%201=1"):
        response = await harness.upload(
            headers, jpeg(), content_type="image/jpeg", path=f"/api/v1/invoices/upload/{slot}/file"
        )
        assert response.status == 404, slot
        assert (await response.json())["statusCode"] == 404
    assert files_on_disk(harness.settings) == []
    assert await harness.balance(headers) == 10


async def test_poll_other_tenant_malformed_and_unknown_is_404(harness):
    _, headers = await harness.tenant()
    _, other = await harness.tenant(name="other")
    invoice_id = (await (await harness.upload(headers, jpeg(), content_type="image/jpeg")).json())["invoice"]["id"]
    for path_id, who in ((invoice_id, other), ("nope", headers), (str(uuid.uuid4()), headers), ("%00", headers)):
        response = await harness.client.get(f"/api/v1/invoices/{path_id}", headers=who)
        assert response.status == 404
        body = await response.json()
        assert body == {"statusCode": 404, "message": "Invoice not found", "error": "Not Found"}


async def test_type_is_decided_by_magic_bytes(harness):
    _, headers = await harness.tenant()
    for data, name, declared in (
        (b"hello, not a pdf" * 100, "invoice.pdf", "application/pdf"),
        (b"", "empty.pdf", "application/pdf"),
        (b"GIF89a" + b"\0" * 2000, "x.png", "image/png"),
    ):
        response = await harness.upload(headers, data, filename=name, content_type=declared)
        assert response.status == 400, name
        assert "Unsupported file type" in (await response.json())["message"]
    # a real PNG declared as a PDF is accepted: the content decides
    response = await harness.upload(
        headers, png_with_text("Total 1.00"), filename="x.pdf", content_type="application/pdf"
    )
    assert response.status == 202
    assert await harness.balance(headers) == 9
    assert len(files_on_disk(harness.settings)) == 1
    assert await rows(harness.db, "jobs") == 1


async def test_too_large_is_413_while_streaming(harness_factory, tmp_path):
    settings = make_settings(tmp_path, {"limits": {"MAX_FILE_SIZE_MB": 1, "OCR_MAX_UPLOAD_MB": 1}})
    harness = await harness_factory(settings)
    _, headers = await harness.tenant()
    big = text_pdf(INVOICE_LINES) + b"%" * (1024 * 1024)
    response = await harness.upload(headers, big)
    assert response.status == 413
    body = await response.json()
    assert body["statusCode"] == 413 and "MAX_FILE_SIZE_MB" in body["message"]
    assert files_on_disk(settings) == [] and await harness.balance(headers) == 10
    assert await rows(harness.db, "invoices") == 0


async def test_over_ocr_limit_refused_before_debit_unless_configured(harness_factory, tmp_path):
    pdf = text_pdf(INVOICE_LINES) + b"%" * (1024 * 1024 + 10) + b"\n%%EOF\n"  # still ends like a PDF
    strict = await harness_factory(
        make_settings(tmp_path / "a", {"limits": {"MAX_FILE_SIZE_MB": 3, "OCR_MAX_UPLOAD_MB": 1}})
    )
    _, headers = await strict.tenant()
    response = await strict.upload(headers, pdf)
    assert response.status == 413
    assert "OCR_MAX_UPLOAD_MB" in (await response.json())["message"]
    assert await strict.balance(headers) == 10 and files_on_disk(strict.settings) == []

    lenient = await harness_factory(
        make_settings(
            tmp_path / "b", {"limits": {"MAX_FILE_SIZE_MB": 3, "OCR_MAX_UPLOAD_MB": 1, "accept_over_ocr_limit": True}}
        )
    )
    _, headers = await lenient.tenant()
    assert (await lenient.upload(headers, pdf)).status == 202
    assert await lenient.balance(headers) == 9


async def test_no_credits_is_402_and_keeps_nothing(harness):
    _, headers = await harness.tenant(credits=0)
    response = await harness.upload(headers, text_pdf(INVOICE_LINES))
    assert response.status == 402
    body = await response.json()
    assert body["statusCode"] == 402 and body["error"] == "Payment Required"
    assert files_on_disk(harness.settings) == []
    assert await rows(harness.db, "invoices") == 0 and await rows(harness.db, "jobs") == 0
    assert await rows(harness.db, "ledger") == 0


async def test_queue_unavailable_is_503_refunded_and_slot_stays_attachable(harness):
    _, headers = await harness.tenant(credits=2)
    slot = (await (await harness.client.post("/api/v1/invoices/upload/init", headers=headers)).json())["invoiceId"]
    harness.queue_open = False
    path = f"/api/v1/invoices/upload/{slot}/file"
    response = await harness.upload(headers, jpeg(), content_type="image/jpeg", path=path)
    assert response.status == 503
    assert int(response.headers["Retry-After"]) > 0
    assert "refunded" in (await response.json())["message"]
    one_step = await harness.upload(headers, jpeg(), content_type="image/jpeg")
    assert one_step.status == 503 and "Retry-After" in one_step.headers
    assert await harness.balance(headers) == 2
    assert files_on_disk(harness.settings) == [] and await rows(harness.db, "jobs") == 0
    reasons = [r["reason"] for r in await harness.db.fetchall("SELECT reason FROM ledger ORDER BY id")]
    assert reasons == ["operator_grant", "upload_debit", "queue_refund", "upload_debit", "queue_refund"]
    harness.queue_open = True
    assert (await harness.upload(headers, jpeg(), content_type="image/jpeg", path=path)).status == 202
    assert await harness.balance(headers) == 1


async def test_backlog_at_max_depth_is_503(harness_factory, tmp_path):
    harness = await harness_factory(make_settings(tmp_path, {"queue": {"max_depth": 0}}))
    _, headers = await harness.tenant(credits=1)
    response = await harness.upload(headers, jpeg(), content_type="image/jpeg")
    assert response.status == 503 and "Retry-After" in response.headers
    assert await harness.balance(headers) == 1


async def test_one_tenant_gets_its_share_of_the_queue_not_all_of_it(harness_factory, tmp_path, monkeypatch):
    # issue 12, finding 5: queue.max_depth was global, so one tenant's batch refused everyone else
    monkeypatch.setenv("FAKE_OCR_SECONDS", "2")  # jobs stay in the queue while the test uploads
    settings = make_settings(tmp_path, {"queue": {"max_depth": 10, "max_depth_per_tenant": 2}})
    harness = await harness_factory(settings)
    _, batch = await harness.tenant(credits=5, name="batch")
    _, single = await harness.tenant(credits=1, name="single")
    for _ in range(2):
        assert (await harness.upload(batch, jpeg(), content_type="image/jpeg")).status == 202
    refused = await harness.upload(batch, jpeg(), content_type="image/jpeg")
    assert refused.status == 503 and "Retry-After" in refused.headers
    assert "queue full for this tenant (2 invoices" in (await refused.json())["message"]
    assert await harness.balance(batch) == 3  # the refused upload was refunded
    assert (await harness.upload(single, jpeg(), content_type="image/jpeg")).status == 202
    assert await rows(harness.db, "jobs") == 3


async def test_vendor_id_as_query_or_form_field(harness):
    tenant_id, headers = await harness.tenant()
    other_id, _ = await harness.tenant(name="other")
    vendor = await create_vendor(harness.db, tenant_id, "ACME Tools GmbH")
    foreign = await create_vendor(harness.db, other_id, "Foreign Ltd")
    ok_form = await harness.upload(headers, jpeg(), content_type="image/jpeg", fields={"vendorId": vendor})
    assert ok_form.status == 202
    assert (await ok_form.json())["invoice"]["vendorId"] == vendor
    ok_query = await harness.upload(headers, jpeg(), content_type="image/jpeg", params={"vendorId": vendor})
    assert ok_query.status == 202
    invoice = await harness.wait_ready(headers, (await ok_query.json())["invoice"]["id"])
    assert invoice["vendor"] == {"id": vendor, "vendorName": "ACME Tools GmbH"}
    for bad in (foreign, str(uuid.uuid4()), "not-a-uuid"):
        response = await harness.upload(headers, jpeg(), content_type="image/jpeg", fields={"vendorId": bad})
        assert response.status == 404, bad
        assert "Vendor not found" in (await response.json())["message"]
    assert await harness.balance(headers) == 8
    assert len(files_on_disk(harness.settings)) == 2


async def test_json_body_or_missing_file_is_400(harness):
    _, headers = await harness.tenant()
    response = await harness.client.post("/api/v1/invoices/upload", json={"file": "x"}, headers=headers)
    assert response.status == 400
    assert "multipart" in (await response.json())["message"]
    from aiohttp import FormData

    form = FormData()
    form.add_field("vendorId", "")
    form.add_field("other", b"x", filename="x.bin")
    response = await harness.client.post("/api/v1/invoices/upload", data=form, headers=headers)
    assert response.status == 400
    assert "'file' field is required" in (await response.json())["message"]
    assert files_on_disk(harness.settings) == [] and await harness.balance(headers) == 10


async def test_hostile_file_name_is_never_used_on_disk(harness):
    tenant_id, headers = await harness.tenant()
    response = await harness.upload(headers, jpeg(), filename="../../etc/passwd\u202e.jpg", content_type="image/jpeg")
    assert response.status == 202
    file_id = (await response.json())["fileId"]
    stored = files_on_disk(harness.settings)
    assert [p.name for p in stored] == [file_id]
    assert stored[0].parent == harness.settings.files_dir / tenant_id
    row = await harness.db.fetchone("SELECT original_name FROM files")
    assert row["original_name"] == "passwd.jpg"


async def test_unreadable_document_is_refused_before_the_debit(harness):
    """Inspected at upload (appliance.uploads; more cases in test_hostile_input.py): 400, no debit."""
    _, headers = await harness.tenant()
    corrupt = b"%PDF-1.4\n" + b"garbage" * 300
    response = await harness.upload(headers, corrupt)
    assert response.status == 400
    assert "Unreadable PDF" in (await response.json())["message"]
    assert await harness.balance(headers) == 10 and files_on_disk(harness.settings) == []
    assert await rows(harness.db, "invoices") == 0


async def test_evidence_for_each_filled_field(harness):
    _, headers = await harness.tenant()
    response = await harness.upload(headers, text_pdf(INVOICE_LINES))
    invoice = await harness.wait_ready(headers, (await response.json())["invoice"]["id"])
    evidence = invoice["evidence"]
    filled = {k for k, v in invoice["data"].items() if v is not None and k not in ("raw_text", "line_items")}
    assert set(evidence) == filled
    total = evidence["total_amount"]
    assert total["source"] == "rules" and total["page"] == 1 and "119.00" in total["text"]
    assert len(total["bbox"]) == 4 and 0 <= total["confidence"] <= 1


async def test_no_credits_is_402_before_the_body_is_read(harness):
    import asyncio

    _, headers = await harness.tenant(credits=0)
    boundary = "bnd"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n%PDF-1.7\n"
    ).encode()
    rest_sent = asyncio.Event()

    async def body():  # the first bytes, then nothing until the test has its answer
        yield head
        await asyncio.sleep(30)
        rest_sent.set()
        yield b"\n%%EOF\r\n--" + boundary.encode() + b"--\r\n"

    response = await asyncio.wait_for(
        harness.client.post(
            "/api/v1/invoices/upload",
            data=body(),
            headers={**headers, "Content-Type": f"multipart/form-data; boundary={boundary}"},
        ),
        10,
    )
    assert response.status == 402 and not rest_sent.is_set()
    assert files_on_disk(harness.settings) == []


async def test_open_slots_are_capped_per_tenant_and_expire(harness_factory, tmp_path):
    harness = await harness_factory(
        make_settings(tmp_path, {"limits": {"max_open_slots": 2, "init_slot_ttl_seconds": 60}})
    )
    _, headers = await harness.tenant()
    _, other = await harness.tenant(name="other")

    async def init(key):
        return await harness.client.post("/api/v1/invoices/upload/init", headers=key)

    first = (await (await init(headers)).json())["invoiceId"]
    assert (await init(headers)).status == 202
    refused = await init(headers)  # used to be free and unlimited (3,177 left by one fuzzing run)
    assert refused.status == 429
    body = await refused.json()
    assert body["statusCode"] == 429 and body["error"] == "Too Many Requests" and "max_open_slots" in body["message"]
    assert (await init(other)).status == 202  # the cap is per tenant
    path = f"/api/v1/invoices/upload/{first}/file"
    assert (await harness.upload(headers, jpeg(), content_type="image/jpeg", path=path)).status == 202
    assert (await init(headers)).status == 202  # an attached slot no longer counts
    # a slot past its time is gone at the next init: attaching to it is 404
    async with harness.db.transaction() as conn:
        await conn.execute("UPDATE invoices SET created_at = '2000-01-01T00:00:00.000Z' WHERE id != ?", (first,))
    assert (await init(headers)).status == 202
    stale = await harness.db.fetchall(
        "SELECT id FROM invoices WHERE created_at = '2000-01-01T00:00:00.000Z' AND tenant_id = "
        "(SELECT tenant_id FROM invoices WHERE id = ?)",
        (first,),
    )
    assert stale == []
    # first (attached), the new slot, and the other tenant's (expired too, dropped at its own next init)
    assert await rows(harness.db, "invoices") == 3
