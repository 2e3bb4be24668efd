"""The vendor pages (issue 26: "the vendor page shows what was learned, from which invoices,
and lets an admin freeze or forget it"): a reviewer sees the tenant's vendors and each one's
learned profile; only an admin changes it, every change in the profile's history; another
tenant's vendor is 404; a form without its CSRF token is 403. Issue 28 (``webui.vendor_pages``):
an admin creates a vendor, edits its identifiers and its template, which is checked before it is
saved and tried on one of the tenant's invoices without saving; a reviewer reads it."""

from __future__ import annotations

import re

from appliance import profiles, review, vendors
from tests.appliance.test_profiles import invoice, uploaded, vendor_of
from tests.appliance.test_vendors import ACME_TEMPLATE, upload_and_wait
from tests.support.docs import INVOICE_LINES, text_pdf
from tests.webui.test_app import PREFIX, logged_in


def token_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


async def approved_vendor(harness, headers) -> tuple[str, str]:
    """(vendor id, invoice id) of one approved invoice of a vendor with an IBAN and a VAT id."""
    invoice_id, _ = await uploaded(harness, headers, invoice("R-1001", "119.00"))
    await review.decide(harness.db, invoice_id, "approved", "alice@example.com")
    return await vendor_of(harness, invoice_id), invoice_id


async def test_a_reviewer_sees_what_approvals_taught_but_cannot_change_it(harness):
    tenant_id, headers = await harness.tenant()
    vendor_id, invoice_id = await approved_vendor(harness, headers)
    client, _ = await logged_in(harness, tenant_id)
    try:
        listing = await (await client.get(PREFIX + "/vendors")).text()
        assert vendor_id in listing and "Bergmann Werkzeuge GmbH" in listing
        page = await (await client.get(f"{PREFIX}/vendors/{vendor_id}")).text()
        assert "Learnt from 1 approved invoice(s)" in page and "DE89370400440532013000" in page
        assert "invoice no" in page and invoice_id in page and "alice@example.com" in page
        assert 'value="freeze"' not in page  # no admin buttons for a reviewer
        refused = await client.post(
            f"{PREFIX}/vendors/{vendor_id}", data={"csrf": token_of(page), "action": "freeze"}, allow_redirects=False
        )
        assert refused.status == 403
    finally:
        await client.close()
    assert (await profiles.show(harness.db, vendor_id))["frozen"] is False


async def test_an_admin_freezes_and_forgets_and_the_history_says_who(harness):
    tenant_id, headers = await harness.tenant()
    vendor_id, invoice_id = await approved_vendor(harness, headers)
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        url = f"{PREFIX}/vendors/{vendor_id}"
        page = await (await client.get(url)).text()
        done = await client.post(url, data={"csrf": token_of(page), "action": "freeze"}, allow_redirects=False)
        assert done.status == 302 and done.headers["Location"] == url
        page = await (await client.get(url)).text()
        assert "frozen" in page and 'value="thaw"' in page
        missing = await client.post(
            url, data={"csrf": token_of(page), "action": "forget_invoice", "invoice": "nope"}, allow_redirects=False
        )
        assert missing.status == 404 and "profile nothing" in await missing.text()
        bad = await client.post(url, data={"csrf": token_of(page), "action": "explode"}, allow_redirects=False)
        assert bad.status == 400
        forgot = await client.post(
            url, data={"csrf": token_of(page), "action": "forget_invoice", "invoice": invoice_id}, allow_redirects=False
        )
        assert forgot.status == 302
        no_csrf = await client.post(url, data={"action": "thaw"}, allow_redirects=False)
        assert no_csrf.status == 403
    finally:
        await client.close()
    shown = await profiles.show(harness.db, vendor_id)
    assert shown["approvals"] == 0 and shown["frozen"] is True
    assert [(e["action"], e["by"]) for e in shown["events"]][-2:] == [
        ("froze", "admin@example.com"),
        ("forgot", "admin@example.com"),
    ]


async def test_an_admin_pins_a_name_and_strikes_what_was_learnt_wrongly(harness):
    tenant_id, headers = await harness.tenant()
    vendor_id, _ = await approved_vendor(harness, headers)
    client, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        url = f"{PREFIX}/vendors/{vendor_id}"
        page = await (await client.get(url)).text()
        form = {"csrf": token_of(page), "action": "edit", "name": "Bergmann AG", "currency": "EUR"}
        assert (await client.post(url, data=form, allow_redirects=False)).status == 302
        bad = await client.post(url, data={**form, "currency": "euro"}, allow_redirects=False)
        assert bad.status == 400 and "ISO 4217" in await bad.text()
        iban = "iban:DE89370400440532013000"
        form = {"csrf": token_of(page), "action": "strike_identifier", "identifier": iban}
        assert (await client.post(url, data=form, allow_redirects=False)).status == 302
        form = {"csrf": token_of(page), "action": "strike_label", "label": "invoice_number:invoice no"}
        assert (await client.post(url, data=form, allow_redirects=False)).status == 302
        page = await (await client.get(url)).text()
        assert 'id="edits"' in page and "Bergmann AG" in page and "edited: struck identifier" in page
        identifiers = page.split('id="identifiers"', 1)[1].split("</table>", 1)[0]
        assert "DE89370400440532013000" not in identifiers
    finally:
        await client.close()
    shown = await profiles.show(harness.db, vendor_id)
    assert shown["name"] == "Bergmann AG" and iban not in shown["identifiers"]
    assert "invoice no" not in shown["habits"].get("invoice_number", {})


async def test_another_tenants_vendor_is_404(harness):
    tenant_a, _ = await harness.tenant(name="a")
    _, headers_b = await harness.tenant(name="b")
    theirs, _ = await approved_vendor(harness, headers_b)
    client, _ = await logged_in(harness, tenant_a, "admin@example.com", role="admin")
    try:
        page = await client.get(f"{PREFIX}/vendors/{theirs}")
        assert page.status == 404
        listing = await (await client.get(PREFIX + "/vendors")).text()
        assert theirs not in listing and "No vendors yet" in listing
        token = token_of(listing)
        change = await client.post(
            f"{PREFIX}/vendors/{theirs}", data={"csrf": token, "action": "forget"}, allow_redirects=False
        )
        assert change.status == 404
    finally:
        await client.close()
    assert (await profiles.show(harness.db, theirs))["approvals"] == 1


# -- new vendors, identifiers and the template editor (issue 28, webui.vendor_pages) ---------------


async def test_an_admin_creates_a_vendor_and_edits_its_identifiers(harness):
    tenant_id, _ = await harness.tenant()
    admin, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    reviewer, _ = await logged_in(harness, tenant_id)
    try:
        listing = await (await reviewer.get(PREFIX + "/vendors")).text()
        assert 'id="new-vendor"' not in listing  # reviewers read
        listing = await (await admin.get(PREFIX + "/vendors")).text()
        assert 'id="new-vendor"' in listing
        form = {"csrf": token_of(listing), "name": "ACME Tools GmbH", "tax_id": " DE123456789 ", "template": ""}
        empty = await admin.post(PREFIX + "/vendors", data={**form, "name": " "}, allow_redirects=False)
        assert empty.status == 400 and "must not be empty" in (page := await empty.text())
        assert 'value=" DE123456789 "' in page  # what was typed comes back
        broken = await admin.post(PREFIX + "/vendors", data={**form, "template": "fields: ["}, allow_redirects=False)
        assert broken.status == 400 and "not valid YAML at line" in await broken.text()
        assert await vendors.list_vendors(harness.db, tenant_id) == []  # nothing made by the refusals
        made = await admin.post(PREFIX + "/vendors", data=form, allow_redirects=False)
        assert made.status == 302
        vendor_id = made.headers["Location"].rsplit("/", 1)[1]
        page = await (await admin.get(made.headers["Location"])).text()
        assert "ACME Tools GmbH" in page and "Tax id: DE123456789" in page and 'id="identifiers-form"' in page
        url = f"{PREFIX}/vendors/{vendor_id}/identifiers"
        form = {"csrf": token_of(page), "name": "ACME Tools AG", "tax_id": ""}
        assert (await admin.post(url, data=form, allow_redirects=False)).status == 302
        refused = await admin.post(url, data={**form, "name": ""}, allow_redirects=False)
        assert refused.status == 400 and "must not be empty" in await refused.text()
        assert (await reviewer.post(url, data=form, allow_redirects=False)).status == 403
        assert (await admin.post(url, data={"name": "x"}, allow_redirects=False)).status == 403  # no CSRF token
        assert (await admin.post(PREFIX + "/vendors", data={"name": "x"}, allow_redirects=False)).status == 403
        token = token_of(await (await reviewer.get(PREFIX + "/vendors")).text())
        assert (await reviewer.post(PREFIX + "/vendors", data={"csrf": token, "name": "x"})).status == 403
        page = await (await reviewer.get(f"{PREFIX}/vendors/{vendor_id}")).text()
        assert 'id="identifiers-form"' not in page
    finally:
        await admin.close()
        await reviewer.close()
    vendor = await vendors.show_vendor(harness.db, vendor_id)
    assert (vendor["name"], vendor["tax_id"]) == ("ACME Tools AG", None)
    assert len(await vendors.list_vendors(harness.db, tenant_id)) == 1


async def test_an_admin_edits_the_template_tries_it_on_an_invoice_and_saves_it(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = (await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES)))["id"]
    vendor_id = await vendor_of(harness, invoice_id)  # matched or made from the extraction
    admin, _ = await logged_in(harness, tenant_id, "admin@example.com", role="admin")
    try:
        url = f"{PREFIX}/vendors/{vendor_id}/template"
        page = await (await admin.get(url)).text()
        assert 'id="template"' in page and "keywords:" in page and 'id="unsaved"' in page  # a skeleton to fill in
        assert f'<option value="{invoice_id}"' in page  # the vendor's invoice, to try on
        form = {"csrf": token_of(page), "template": ACME_TEMPLATE, "invoice": invoice_id}
        tried = await admin.post(url + "/preview", data=form)
        assert tried.status == 200
        page = await tried.text()
        preview = page.split('id="preview-fields"', 1)[1].split("</table>", 1)[0]
        assert "Invoice number" in preview and "INV-2024-001" in preview and "119.00" in preview
        assert "All its keywords are in this invoice" in page and 'id="unsaved"' in page
        assert "Total EUR 119.00" in page.split('id="preview-text"', 1)[1]  # the text it ran on
        assert (await vendors.show_vendor(harness.db, vendor_id))["template"] is None  # a try saves nothing
        nothing = await admin.post(
            url + "/preview", data={**form, "template": ACME_TEMPLATE.replace("Date:", "Datum:")}
        )
        assert nothing.status == 200 and "reads nothing from this invoice" in (page := await nothing.text())
        assert "Unable to parse required field(s): date" in page
        bad = ACME_TEMPLATE.replace("  amount:", "   amount:")
        refused = await admin.post(url + "/preview", data={**form, "template": bad})
        assert refused.status == 400 and "line 7, column 10: mapping values are not allowed" in (
            page := await refused.text()
        )
        assert "   amount: Total EUR" in page  # the text as typed stays in the editor
        none = await admin.post(url + "/preview", data={**form, "invoice": ""})
        assert none.status == 400 and "Choose an invoice" in await none.text()
        refused = await admin.post(url, data={**form, "template": bad}, allow_redirects=False)
        assert refused.status == 400 and "not valid YAML at line 7" in await refused.text()
        assert (await vendors.show_vendor(harness.db, vendor_id))["template"] is None  # nothing saved on error
        saved = await admin.post(
            url, data={**form, "template": ACME_TEMPLATE.replace("\n", "\r\n")}, allow_redirects=False
        )
        assert saved.status == 302 and saved.headers["Location"] == url
        page = await (await admin.get(url)).text()
        assert "Saved template: <b>ACME Tools GmbH</b>" in page and 'id="unsaved"' not in page
        vendor_page = await (await admin.get(f"{PREFIX}/vendors/{vendor_id}")).text()
        assert "Template: ACME Tools GmbH" in vendor_page and "Edit and try the template" in vendor_page
    finally:
        await admin.close()
    assert (await vendors.show_vendor(harness.db, vendor_id))["template"] == ACME_TEMPLATE


async def test_template_pages_refuse_reviewers_other_tenants_and_forms_without_a_token(harness):
    tenant_a, headers_a = await harness.tenant(name="a")
    _, headers_b = await harness.tenant(name="b")
    mine = (await upload_and_wait(harness, headers_a, text_pdf(INVOICE_LINES)))["id"]
    theirs = (await upload_and_wait(harness, headers_b, text_pdf(INVOICE_LINES)))["id"]
    vendor_id, their_vendor = await vendor_of(harness, mine), await vendor_of(harness, theirs)
    await vendors.set_template(harness.db, tenant_a, vendor_id, ACME_TEMPLATE)
    admin, _ = await logged_in(harness, tenant_a, "admin@example.com", role="admin")
    reviewer, _ = await logged_in(harness, tenant_a)
    try:
        url = f"{PREFIX}/vendors/{vendor_id}/template"
        page = await (await reviewer.get(url)).text()  # reviewers read the template
        assert 'id="template-form"' not in page and "Total EUR" in page.split('id="template"', 1)[1]
        form = {"csrf": token_of(page), "template": ACME_TEMPLATE, "invoice": mine}
        for path in (url, url + "/preview"):
            assert (await reviewer.post(path, data=form)).status == 403
        page = await (await admin.get(url)).text()
        form["csrf"] = token_of(page)
        for path in (url, url + "/preview"):
            assert (await admin.post(path, data={**form, "csrf": ""})).status == 403
        their_invoice = await admin.post(url + "/preview", data={**form, "invoice": "", "invoice_id": theirs})
        assert their_invoice.status == 404 and "Invoice not found" in await their_invoice.text()
        their_url = f"{PREFIX}/vendors/{their_vendor}/template"
        assert (await admin.get(their_url)).status == 404
        for path in (their_url, their_url + "/preview", f"{PREFIX}/vendors/{their_vendor}/identifiers"):
            assert (await admin.post(path, data={**form, "name": "Mine now"})).status == 404
    finally:
        await admin.close()
        await reviewer.close()
    assert (await vendors.show_vendor(harness.db, their_vendor))["template"] is None
    assert (await vendors.show_vendor(harness.db, their_vendor))["name"] != "Mine now"
