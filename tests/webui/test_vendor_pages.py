"""The vendor pages (issue 26: "the vendor page shows what was learned, from which invoices,
and lets an admin freeze or forget it"): a reviewer sees the tenant's vendors and each one's
learned profile; only an admin changes it, every change in the profile's history; another
tenant's vendor is 404; a form without its CSRF token is 403."""

from __future__ import annotations

import re

from appliance import profiles, review
from tests.appliance.test_profiles import invoice, uploaded, vendor_of
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
