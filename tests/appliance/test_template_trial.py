"""A vendor's identifiers and template changed by the tenant, and a template tried on one
invoice before it is saved (issue 28, ``appliance.vendors``, ``appliance.template_trial``): the
text the pipeline read is kept with each invoice (and goes with it), a trial runs the pipeline's
template step on it, forced, and saves nothing; a template that does not load is refused saying
where; another tenant's vendor or invoice is not found."""

from __future__ import annotations

import pytest

from appliance import invoices
from appliance.deletion import delete_invoice
from appliance.errors import BadRequest, NotFound
from appliance.template_trial import try_template
from appliance.vendors import create_vendor, set_template, show_vendor, update_vendor, vendor_invoices
from pipeline.reading.text import pdf_text
from pipeline.templates.invoice2data import layout_text
from tests.appliance.test_vendors import ACME_TEMPLATE, upload_and_wait
from tests.support.docs import INVOICE_LINES, text_pdf

LINES_TEMPLATE = (
    ACME_TEMPLATE
    + r"""lines:
  start: Description
  end: Subtotal
  line: (?P<name>\w+)\s+(?P<qty>\d+)\s+(?P<price_unit>\d+\.\d\d)\s+(?P<price_subtotal>\d+\.\d\d)
"""
)


def _no_ocr():
    raise AssertionError("a text-layer PDF needs no OCR")


async def extracted(harness, headers) -> str:
    return (await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES)))["id"]


async def test_an_invoice_keeps_the_text_the_pipeline_read_until_it_is_deleted(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await extracted(harness, headers)
    kept = await invoices.kept_text(harness.db, invoice_id)
    assert kept == layout_text(pdf_text(text_pdf(INVOICE_LINES), _no_ocr, max_ocr_pages=0))
    await delete_invoice(harness.db, invoice_id, tenant_id, by="admin@example.com")
    assert await harness.db.fetchone("SELECT 1 FROM invoice_texts WHERE invoice_id = ?", (invoice_id,)) is None


async def test_a_trial_reads_the_fields_and_lines_and_saves_nothing(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await extracted(harness, headers)
    vendor_id = await create_vendor(harness.db, tenant_id, "ACME Tools GmbH")
    trial = await try_template(harness.db, tenant_id, vendor_id, invoice_id, LINES_TEMPLATE.replace("\n", "\r\n"))
    assert trial.applied and trial.text_kept and trial.template_name == "ACME Tools GmbH"
    assert trial.fields["invoice_number"] == "INV-2024-001" and str(trial.fields["total_amount"]) == "119.00"
    assert trial.fields["invoice_date"] == "2024-03-05" and trial.fields["currency"] == "EUR"
    assert [(item["description"], item["quantity"]) for item in trial.line_items] == [("Hammer", 2), ("Saw", 1)]
    assert trial.missing_keywords == [] and "Total EUR 119.00" in trial.text
    assert (await show_vendor(harness.db, vendor_id))["template"] is None  # nothing saved
    elsewhere = await try_template(
        harness.db, tenant_id, vendor_id, invoice_id, ACME_TEMPLATE.replace("  - ACME Tools", "  - Globex")
    )
    assert elsewhere.applied and elsewhere.missing_keywords == ["Globex"]  # forced, as with vendorId
    no_date = await try_template(
        harness.db, tenant_id, vendor_id, invoice_id, ACME_TEMPLATE.replace("Invoice Date:", "Datum:")
    )
    assert not no_date.applied and no_date.fields == {} and "date" in no_date.misses[0]


async def test_an_invoice_extracted_before_texts_were_kept_is_tried_on_its_raw_text(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await extracted(harness, headers)
    async with harness.db.transaction() as conn:
        await conn.execute("DELETE FROM invoice_texts WHERE invoice_id = ?", (invoice_id,))
    vendor_id = await create_vendor(harness.db, tenant_id, "ACME Tools GmbH")
    trial = await try_template(harness.db, tenant_id, vendor_id, invoice_id, ACME_TEMPLATE)
    assert trial.applied and not trial.text_kept and trial.fields["invoice_number"] == "INV-2024-001"


async def test_a_broken_template_or_another_tenants_vendor_or_invoice_is_refused(harness):
    tenant_id, headers = await harness.tenant(name="a")
    other_id, other_headers = await harness.tenant(name="b")
    mine, theirs = await extracted(harness, headers), await extracted(harness, other_headers)
    vendor_id = await create_vendor(harness.db, tenant_id, "ACME Tools GmbH")
    their_vendor = await create_vendor(harness.db, other_id, "ACME Tools GmbH")
    bad_yaml = ACME_TEMPLATE.replace("  amount:", "   amount:")
    with pytest.raises(BadRequest, match="not valid YAML at line 7, column 10: mapping values are not allowed"):
        await try_template(harness.db, tenant_id, vendor_id, mine, bad_yaml)
    with pytest.raises(NotFound):
        await try_template(harness.db, tenant_id, vendor_id, theirs, ACME_TEMPLATE)
    with pytest.raises(NotFound):
        await try_template(harness.db, tenant_id, their_vendor, mine, ACME_TEMPLATE)
    with pytest.raises(NotFound):
        await try_template(harness.db, tenant_id, vendor_id, "not-an-id", ACME_TEMPLATE)


async def test_identifiers_and_template_are_changed_by_the_tenant_only(harness):
    tenant_id, headers = await harness.tenant(name="a")
    other_id, _ = await harness.tenant(name="b")
    vendor_id = await create_vendor(harness.db, tenant_id, "Acme")
    await update_vendor(harness.db, tenant_id, vendor_id, "  ACME Tools GmbH ", " DE123456789 ")
    assert (
        await set_template(harness.db, tenant_id, vendor_id, ACME_TEMPLATE.replace("\n", "\r\n")) == "ACME Tools GmbH"
    )
    vendor = await show_vendor(harness.db, vendor_id)
    assert (vendor["name"], vendor["tax_id"], vendor["template"]) == ("ACME Tools GmbH", "DE123456789", ACME_TEMPLATE)
    broken = ACME_TEMPLATE.replace(r"(\S+)", r"(\S+")
    with pytest.raises(BadRequest, match=r"line 6, fields.invoice_number: the regex .* does not compile"):
        await set_template(harness.db, tenant_id, vendor_id, broken)
    with pytest.raises(BadRequest, match="must not be empty"):
        await update_vendor(harness.db, tenant_id, vendor_id, " ", None)
    for change in (
        update_vendor(harness.db, other_id, vendor_id, "Mine", None),
        set_template(harness.db, other_id, vendor_id, ""),
    ):
        with pytest.raises(NotFound):
            await change
    assert await show_vendor(harness.db, vendor_id) == vendor  # nothing changed by the refusals
    assert await set_template(harness.db, tenant_id, vendor_id, "  \n") is None  # empty: no template
    vendor = await show_vendor(harness.db, vendor_id)
    assert (vendor["template"], vendor["template_name"], vendor["tax_id"]) == (None, None, "DE123456789")
    invoice_id = (await upload_and_wait(harness, headers, text_pdf([*INVOICE_LINES, "VAT ID: DE123456789"])))["id"]
    assert (await vendor_invoices(harness.db, tenant_id, vendor_id))[0]["id"] == invoice_id
    assert await vendor_invoices(harness.db, other_id, vendor_id) == []


async def test_the_cli_updates_a_vendor_as_the_web_app_does(harness, tmp_path):
    import asyncio

    from bench.server import cli

    tenant_id, _ = await harness.tenant()
    vendor_id = await create_vendor(harness.db, tenant_id, "Acme", tax_id="DE999")
    template = tmp_path / "acme.yml"
    config = tmp_path / "config.toml"

    async def appliance(*args):
        return await asyncio.to_thread(cli, config, "vendor", "update", vendor_id, *args)

    template.write_text(ACME_TEMPLATE.replace(r"(\S+)", r"(\S+"))
    refused = await appliance("--name", "ACME Tools GmbH", "--template", str(template))
    assert refused.returncode == 65 and "line 6, fields.invoice_number" in refused.stderr
    assert (await show_vendor(harness.db, vendor_id))["name"] == "Acme"  # nothing changed
    template.write_text(ACME_TEMPLATE)
    done = await appliance("--name", "ACME Tools GmbH", "--template", str(template))
    assert done.returncode == 0 and "ACME Tools GmbH  tax_id=DE999  template=ACME Tools GmbH" in done.stdout
    done = await appliance("--tax-id", "", "--no-template")
    assert done.returncode == 0 and "tax_id=-  template=-" in done.stdout
    vendor = await show_vendor(harness.db, vendor_id)
    assert (vendor["name"], vendor["tax_id"], vendor["template"]) == ("ACME Tools GmbH", None, None)
