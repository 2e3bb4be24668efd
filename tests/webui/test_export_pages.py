"""The export pages (issue 28, "Export"): an admin gets the period form and its two CSV files,
and on an approved invoice's page the CII, UBL and Factur-X downloads, each read back by tier 0
as the invoice's data; the missing business terms as the message (422); a reviewer 403, another
tenant's invoice 404, an invoice not approved 409, a bad date 400, no log-in a redirect."""

from __future__ import annotations

import csv
import io

from appliance import review
from pipeline.einvoice.reader import read_einvoice
from tests.appliance.test_export_einvoice import approved_einvoice, uploaded
from tests.support.docs import png_with_text, receipt_text
from tests.support.export import differences
from tests.webui.test_app import PREFIX, logged_in


async def test_an_admin_downloads_the_csv_of_a_period(harness):
    tenant_id, _, body = await approved_einvoice(harness)
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        page = await client.get(PREFIX + "/export")
        html = await page.text()
        assert page.status == 200 and 'id="invoices-csv"' in html and "1 approved invoice(s)" in html
        assert f'href="{PREFIX}/export"' in html  # the admin's header links to it
        done = await client.get(PREFIX + "/export/invoices.csv", params={"from": "2000-01-01", "to": ""})
        assert done.status == 200 and done.content_type == "text/csv" and done.charset == "utf-8"
        assert done.headers["Content-Disposition"] == 'attachment; filename="invoices-2000-01-01-to-now.csv"'
        rows = list(csv.DictReader(io.StringIO(await done.text(), newline="")))
        assert [(row["invoice_id"], row["total_amount"]) for row in rows] == [(body["id"], "119.00")]
        lines = await client.get(PREFIX + "/export/lines.csv")
        assert len(list(csv.DictReader(io.StringIO(await lines.text(), newline="")))) == 2
        empty = await (await client.get(PREFIX + "/export", params={"from": "2099-01-01"})).text()
        assert "0 approved invoice(s)" in empty
        for path in ("/export", "/export/invoices.csv", "/export/lines.csv"):
            bad = await client.get(PREFIX + path, params={"from": "2024-02-30"})
            assert bad.status == 400 and "from &#39;2024-02-30&#39; is not a date" in await bad.text()
        after = await client.get(PREFIX + "/export/lines.csv", params={"from": "2024-04-02", "to": "2024-04-01"})
        assert after.status == 400
    finally:
        await client.close()


async def test_an_admin_downloads_the_e_invoices_of_an_approved_invoice(harness):
    tenant_id, _, body = await approved_einvoice(harness)
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        page = await (await client.get(f"{PREFIX}/invoices/{body['id']}")).text()
        assert 'id="einvoice"' in page
        for fmt, media_type, suffix in (
            ("cii", "application/xml", "cii.xml"),
            ("ubl", "application/xml", "ubl.xml"),
            ("facturx", "application/pdf", "facturx.pdf"),
        ):
            url = f"{PREFIX}/invoices/{body['id']}/export/{fmt}"
            assert f'href="{url}"' in page
            done = await client.get(url)
            assert done.status == 200 and done.content_type == media_type
            assert done.headers["Content-Disposition"] == f'attachment; filename="{body["id"]}-{suffix}"'
            assert differences(body["data"], read_einvoice(await done.read())) == []
        unknown = await client.get(f"{PREFIX}/invoices/{body['id']}/export/pdf")
        assert unknown.status == 404
    finally:
        await client.close()


async def test_what_the_invoice_lacks_is_the_message(harness):
    tenant_id, headers = await harness.tenant()
    body = await uploaded(harness, headers, png_with_text(receipt_text("Total EUR 12.50")), "image/png")
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        url = f"{PREFIX}/invoices/{body['id']}/export/ubl"
        pending = await client.get(url)
        assert pending.status == 409 and "not approved: approve it before exporting it" in await pending.text()
        assert 'id="einvoice"' not in await (await client.get(f"{PREFIX}/invoices/{body['id']}")).text()
        await review.decide(harness.db, body["id"], "approved", by="admin@example.com")
        refused = await client.get(url)
        html = await refused.text()
        assert refused.status == 422 and 'id="refused"' in html and "Cannot export as UBL XML" in html
        for term in ("<li>BT-31 seller VAT identifier", "<li>BT-44 buyer name", "<li>BT-55 buyer country code"):
            assert term in html
        assert f'href="{PREFIX}/invoices/{body["id"]}"' in html
    finally:
        await client.close()


async def test_reviewers_get_403_and_other_tenants_404(harness):
    tenant_id, _, body = await approved_einvoice(harness)
    reviewer, _ = await logged_in(harness, tenant_id)
    try:
        page = await (await reviewer.get(f"{PREFIX}/invoices/{body['id']}")).text()
        assert 'id="einvoice"' not in page and f'href="{PREFIX}/export"' not in page
        for path in ("/export", "/export/invoices.csv", "/export/lines.csv", f"/invoices/{body['id']}/export/cii"):
            refused = await reviewer.get(PREFIX + path)
            assert refused.status == 403 and "administrators" in await refused.text()
    finally:
        await reviewer.close()
    other_id, _ = await harness.tenant(name="other")
    admin, _ = await logged_in(harness, other_id, "admin@other.example", role="admin")
    try:
        for fmt in ("cii", "ubl", "facturx"):
            assert (await admin.get(f"{PREFIX}/invoices/{body['id']}/export/{fmt}")).status == 404
        rows = await (await admin.get(PREFIX + "/export/invoices.csv")).text()
        assert body["id"] not in rows and rows.count("\r\n") == 1  # the header only
    finally:
        await admin.close()
    anonymous = await harness.client.get(PREFIX + "/export", allow_redirects=False)
    assert anonymous.status == 302 and anonymous.headers["Location"] == PREFIX + "/login"
