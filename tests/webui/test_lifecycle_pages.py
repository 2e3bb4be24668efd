"""An invoice's lifecycle on the review pages (issue 28, ``webui.lifecycle``): an admin
reprocesses (forcing a tier, no second debit) and deletes; a reviewer gets 403 for both and sees
no operator-only fields; another tenant's invoice is 404; a form without its CSRF token is 403; a
job a worker holds is 409; "Save and approve" opens the next invoice that needs attention; the
page reads as a product (words, money, static script and stylesheet, no inline script)."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path

from appliance import ledger, retention
from appliance.db import utc_ago
from tests.support.docs import hybrid_pdf
from tests.webui.test_app import PREFIX, logged_in, ready_invoice
from webui.labels import amount_text, label, money, state


def token_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


async def page_and_token(client, invoice_id: str) -> tuple[str, str]:
    page = await (await client.get(f"{PREFIX}/invoices/{invoice_id}")).text()
    return page, token_of(page)


async def operator_row(harness, invoice_id: str):
    return await harness.db.fetchone("SELECT * FROM invoices WHERE id = ?", (invoice_id,))


async def einvoice(harness, headers) -> str:
    response = await harness.upload(headers, hybrid_pdf())
    invoice_id = (await response.json())["invoice"]["id"]
    await harness.wait_ready(headers, invoice_id)
    return invoice_id


async def test_an_admin_reprocesses_forcing_a_tier_with_no_second_debit(harness):
    tenant_id, headers = await harness.tenant(credits=5)
    invoice_id = await einvoice(harness, headers)
    row = await operator_row(harness, invoice_id)
    assert row["extraction_tier"] == 0
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        page, token = await page_and_token(client, invoice_id)
        assert 'id="operator"' in page and "Extraction provider" in page and html.escape(row["routing_reason"]) in page
        assert row["extraction_provider"] in page and 'id="reprocess-form"' in page
        balance = await harness.balance(headers)
        url = f"{PREFIX}/invoices/{invoice_id}/reprocess"
        done = await client.post(url, data={"csrf": token, "tier": "2"}, allow_redirects=False)
        assert done.status == 302 and done.headers["Location"] == f"{PREFIX}/invoices/{invoice_id}"
        body = await harness.wait_ready(headers, invoice_id)
        row = await operator_row(harness, invoice_id)
        assert row["extraction_tier"] == 2 and "tier 2 forced" in row["routing_reason"]
        assert body["processingStatus"] in ("completed", "needs_review")  # the pipeline decides again
        done = await client.post(url, data={"csrf": token, "tier": ""}, allow_redirects=False)  # usual routing
        assert done.status == 302
        await harness.wait_ready(headers, invoice_id)
        assert (await operator_row(harness, invoice_id))["extraction_tier"] == 0
        assert await harness.balance(headers) == balance  # no second debit
        bad = await client.post(url, data={"csrf": token, "tier": "7"})
        assert bad.status == 400 and "unknown tier" in await bad.text() and 'id="review"' in await bad.text()
    finally:
        await client.close()


async def test_a_reviewer_gets_403_and_sees_no_operator_fields(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await einvoice(harness, headers)
    row = await operator_row(harness, invoice_id)
    client, _ = await logged_in(harness, tenant_id)
    try:
        page, token = await page_and_token(client, invoice_id)
        assert "Extraction provider" not in page and html.escape(row["routing_reason"]) not in page
        assert row["extraction_provider"] not in page
        assert 'id="reprocess-form"' not in page and 'id="delete"' not in page
        for path in ("reprocess", "delete"):
            refused = await client.post(
                f"{PREFIX}/invoices/{invoice_id}/{path}", data={"csrf": token, "tier": "2"}, allow_redirects=False
            )
            assert refused.status == 403 and "administrators" in await refused.text(), path
        confirm = await client.get(f"{PREFIX}/invoices/{invoice_id}/delete")
        assert confirm.status == 403
    finally:
        await client.close()
    assert (await operator_row(harness, invoice_id))["extraction_tier"] == 0  # not reprocessed, not deleted
    assert (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).status == 200


async def test_no_csrf_token_is_403_and_another_tenants_invoice_is_404(harness):
    tenant_a, _ = await harness.tenant(name="a")
    tenant_b, headers_b = await harness.tenant(name="b")
    theirs = await ready_invoice(harness, headers_b)
    client, _ = await logged_in(harness, tenant_a, "admin@a.example", role="admin")
    try:
        token = token_of(await (await client.get(PREFIX + "/")).text())
        for path in ("reprocess", "delete"):
            forged = await client.post(f"{PREFIX}/invoices/{theirs}/{path}", data={"tier": "2"})
            assert forged.status == 403 and "security token is missing" in await forged.text(), path
            missing = await client.post(f"{PREFIX}/invoices/{theirs}/{path}", data={"csrf": token})
            assert missing.status == 404 and "Invoice not found" in await missing.text(), path
        assert (await client.get(f"{PREFIX}/invoices/{theirs}/delete")).status == 404
    finally:
        await client.close()
    body = await (await harness.client.get(f"/api/v1/invoices/{theirs}", headers=headers_b)).json()
    assert body["ready"] and body["processingStatus"] != "queued"


async def test_a_job_in_flight_is_409_for_reprocess_and_delete(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await ready_invoice(harness, headers)
    async with harness.db.transaction() as conn:  # a worker of another process holds it
        await conn.execute(
            "UPDATE jobs SET state = 'leased', lease_until = ?, lease_owner = 'elsewhere' WHERE invoice_id = ?",
            (time.time() + 60, invoice_id),
        )
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        _, token = await page_and_token(client, invoice_id)
        busy = await client.post(f"{PREFIX}/invoices/{invoice_id}/reprocess", data={"csrf": token, "tier": ""})
        assert busy.status == 409 and "being processed right now" in await busy.text()
        busy = await client.post(f"{PREFIX}/invoices/{invoice_id}/delete", data={"csrf": token})
        text = await busy.text()
        assert busy.status == 409 and "being extracted right now" in text and "once extraction has finished" in text
    finally:
        await client.close()
    assert (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).status == 200
    async with harness.db.transaction() as conn:
        await conn.execute("UPDATE jobs SET state = 'done', lease_until = NULL WHERE invoice_id = ?", (invoice_id,))


async def test_an_admin_deletes_and_nothing_is_left_on_disk(harness):
    tenant_id, headers = await harness.tenant(credits=3)
    invoice_id = await einvoice(harness, headers)
    stored = Path((await harness.db.fetchone("SELECT path FROM files WHERE invoice_id = ?", (invoice_id,)))["path"])
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        assert (await client.get(f"{PREFIX}/invoices/{invoice_id}/pages/1")).status == 200  # a page image cached
        page, _ = await page_and_token(client, invoice_id)
        assert f'href="{PREFIX}/invoices/{invoice_id}/delete"' in page
        confirm = await client.get(f"{PREFIX}/invoices/{invoice_id}/delete")
        text = await confirm.text()
        assert confirm.status == 200 and "cannot be undone" in text and "ledger keeps the debit" in text
        done = await client.post(
            f"{PREFIX}/invoices/{invoice_id}/delete", data={"csrf": token_of(text)}, allow_redirects=False
        )
        assert done.status == 302 and done.headers["Location"] == f"{PREFIX}/"
        assert list(harness.settings.files_dir.rglob("*")) == [stored.parent]  # the tenant's folder, empty
        assert (await client.get(f"{PREFIX}/invoices/{invoice_id}")).status == 404
        again = await client.post(f"{PREFIX}/invoices/{invoice_id}/delete", data={"csrf": token_of(text)})
        assert again.status == 404 and "was deleted" in await again.text()  # a second click changes nothing
    finally:
        await client.close()
    assert (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).status == 404
    assert await harness.balance(headers) == 2 == await ledger.ledger_sum(harness.db, tenant_id)
    row = await harness.db.fetchone("SELECT delta, note FROM ledger WHERE reason = 'invoice_deleted'")
    assert row["delta"] == 0 and "deleted by admin@example.com" in row["note"]


async def test_save_and_approve_opens_the_next_invoice_that_needs_attention(harness):
    tenant_id, headers = await harness.tenant()
    older = await ready_invoice(harness, headers, "Total EUR 1.00")
    newer = await ready_invoice(harness, headers, "Total EUR 2.00")
    done_one = await ready_invoice(harness, headers, "Total EUR 3.00")
    async with harness.db.transaction() as conn:
        await conn.execute("UPDATE invoices SET processing_status = 'needs_review' WHERE id IN (?, ?)", (older, newer))
        await conn.execute("UPDATE invoices SET processing_status = 'completed' WHERE id = ?", (done_one,))
    client, _ = await logged_in(harness, tenant_id)
    try:
        _, token = await page_and_token(client, done_one)
        saved = await client.post(
            f"{PREFIX}/invoices/{done_one}", data={"csrf": token, "action": "save"}, allow_redirects=False
        )
        assert saved.headers["Location"] == f"{PREFIX}/invoices/{done_one}"  # Save stays
        approved = await client.post(
            f"{PREFIX}/invoices/{done_one}", data={"csrf": token, "action": "approve"}, allow_redirects=False
        )
        assert approved.headers["Location"] == f"{PREFIX}/invoices/{newer}"  # the queue's first: newest
        approved = await client.post(
            f"{PREFIX}/invoices/{newer}", data={"csrf": token, "action": "approve"}, allow_redirects=False
        )
        assert approved.headers["Location"] == f"{PREFIX}/invoices/{older}"
        following = await client.get(f"{PREFIX}/next?after={older}", allow_redirects=False)
        assert following.headers["Location"] == f"{PREFIX}/?status=attention"  # none left but this one
        following = await client.get(f"{PREFIX}/next?after={done_one}", allow_redirects=False)
        assert following.headers["Location"] == f"{PREFIX}/invoices/{older}"
        rejected = await client.post(
            f"{PREFIX}/invoices/{older}", data={"csrf": token, "action": "reject"}, allow_redirects=False
        )
        assert rejected.headers["Location"] == f"{PREFIX}/?status=attention"  # all done: the queue
    finally:
        await client.close()
    body = await (await harness.client.get(f"/api/v1/invoices/{newer}", headers=headers)).json()
    assert body["status"] == "approved"


async def test_the_page_reads_as_a_product(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await ready_invoice(harness, headers, "Total EUR 1234.50")
    client, _ = await logged_in(harness, tenant_id)
    try:
        page = await (await client.get(f"{PREFIX}/invoices/{invoice_id}")).text()
        assert '<label for="f.invoice_number">Invoice number</label>' in page
        assert '<label for="f.total_amount">Total</label>' in page and ">total_amount<" not in page
        assert "1,234.50 EUR" in page and 'value="1234.50"' in page and '<span class="unit">EUR</span>' in page
        assert 'id="next"' in page and 'title="Alt+N"' in page and 'id="zoom-in"' in page
        scripts = re.findall(r"<script([^>]*)>", page)
        assert scripts and all('src="' in attributes for attributes in scripts)  # no inline script
        assert "<style" not in page.split("<main>")[1]  # the page's own styles are a static file
        for name, kind in (("invoice.js", "javascript"), ("invoice.css", "text/css")):
            served = await client.get(f"{PREFIX}/static/{name}")
            assert served.status == 200 and kind in served.content_type, name
        assert (await client.get(f"{PREFIX}/static/../app.py")).status == 404
    finally:
        await client.close()


async def test_a_file_removed_by_retention_shows_the_data_and_says_why(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await einvoice(harness, headers)
    async with harness.db.transaction() as conn:
        await conn.execute(
            "UPDATE invoices SET status = 'approved', review_decision = 'approved', decided_at = ? WHERE id = ?",
            (utc_ago(40 * retention.DAY), invoice_id),
        )
    assert (await retention.sweep(harness.db, harness.settings, days=30)).files == 1
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        response = await client.get(f"{PREFIX}/invoices/{invoice_id}")
        page = await response.text()
        assert response.status == 200 and 'id="file-removed"' in page and "retention policy" in page
        assert 'class="page"' not in page and 'value="119.00"' in page  # the data, no page image
        assert re.search(r'<button id="reprocess"\s+disabled', page)
        assert (await client.get(f"{PREFIX}/invoices/{invoice_id}/pages/1")).status == 404
        refused = await client.post(
            f"{PREFIX}/invoices/{invoice_id}/reprocess", data={"csrf": token_of(page), "tier": ""}
        )
        assert refused.status == 400 and "retention removed it" in await refused.text()
    finally:
        await client.close()


def test_words_and_money():
    assert label("invoice_number") == "Invoice number" and label("vendor_tax_id") == "Vendor tax ID"
    assert label("something_new") == "Something new" and state("needs_review") == "Needs attention"
    assert money(1234.5, "EUR") == "1,234.50 EUR" and money(-1234567.891, "USD") == "-1,234,567.891 USD"
    assert money(1200.0, "JPY") == "1,200 JPY" and money(12.5, "BHD") == "12.500 BHD"
    assert money(5, "") == "5.00" and money(None, "EUR") == ""
    # the input keeps a plain number, never fewer digits than the value: no correction by rounding
    assert amount_text(12.5, "EUR") == "12.50" and amount_text(12.345, "EUR") == "12.345"
    assert amount_text(None) == "" and amount_text("n/a") == "n/a"
