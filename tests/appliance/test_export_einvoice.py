"""E-invoices of approved invoices through the running appliance (issue 28, "Export"): an
uploaded e-invoice, read by tier 0 and approved, exported as CII, UBL and Factur-X PDF and read
back by tier 0 as the data the API shows; refused when not approved, unknown, another tenant's,
or lacking what EN 16931 needs; and ``appliance export einvoice`` with its exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from appliance import review
from appliance.errors import BadRequest, NotApproved, NotExportable, NotFound
from appliance.export.einvoice import export_einvoice, render_xml
from appliance.export.en16931 import Parties, business_terms, code_lists
from appliance.tenants import update_tenant
from bench.server import cli
from pipeline.einvoice.reader import read_einvoice
from tests.support.docs import INVOICE_LINES, embed_xml, png_with_text, receipt_text, text_pdf
from tests.support.export import TENANT_VAT, complete_data, differences

MISSING = "00000000-0000-0000-0000-000000000000"


def hybrid_invoice() -> bytes:
    """A Factur-X made by the export itself from ``complete_data``: what tier 0 reads exactly."""
    terms = business_terms("source", complete_data(), Parties("payable", TENANT_VAT), code_lists())
    return embed_xml(text_pdf(INVOICE_LINES), render_xml(terms, "cii").decode())


async def uploaded(harness, headers, content: bytes, content_type: str = "application/pdf") -> dict:
    response = await harness.upload(headers, content, content_type=content_type)
    assert response.status == 202, await response.text()
    return await harness.wait_ready(headers, (await response.json())["invoice"]["id"])


async def approved_einvoice(harness) -> tuple[str, dict, dict]:
    """(tenant id, API headers, the API's body) of an approved e-invoice of a tenant with a VAT id."""
    tenant_id, headers = await harness.tenant()
    await update_tenant(harness.db, tenant_id, tax_id=TENANT_VAT)
    body = await uploaded(harness, headers, hybrid_invoice())
    await review.decide(harness.db, body["id"], "approved", by="clerk")
    response = await harness.client.get(f"/api/v1/invoices/{body['id']}", headers=headers)
    return tenant_id, headers, await response.json()


@pytest.mark.parametrize("fmt", ["cii", "ubl", "facturx"])
async def test_an_approved_e_invoice_goes_out_and_comes_back_the_same(harness, fmt):
    tenant_id, _, body = await approved_einvoice(harness)
    assert body["status"] == "approved" and body["data"]["invoice_number"] == "INV-2024-001"
    document = await export_einvoice(harness.db, body["id"], fmt, tenant_id)
    suffix = {"cii": "cii.xml", "ubl": "ubl.xml", "facturx": "facturx.pdf"}[fmt]
    assert document.filename == f"{body['id']}-{suffix}"
    read = read_einvoice(document.content)
    assert read is not None and differences(body["data"], read) == []
    assert document.media_type == ("application/pdf" if fmt == "facturx" else "application/xml")
    if fmt == "facturx":
        assert document.content.startswith(b"%PDF-") and read.xml_name == "factur-x.xml"


async def test_corrections_are_what_goes_out(harness):
    tenant_id, _, body = await approved_einvoice(harness)
    await review.correct(harness.db, body["id"], ["payment_terms=14 days net"], [(1, "sku=H-100")], by="clerk")
    with pytest.raises(NotApproved) as refused:  # a correction withdraws the approval
        await export_einvoice(harness.db, body["id"], "ubl", tenant_id)
    assert refused.value.status == 409 and "reviewed, not approved" in refused.value.message
    await review.decide(harness.db, body["id"], "approved", by="clerk")
    read = read_einvoice((await export_einvoice(harness.db, body["id"], "ubl", tenant_id)).content)
    assert read.fields["payment_terms"] == "14 days net" and read.line_items[0]["sku"] == "H-100"


async def test_unknown_other_tenants_and_bad_format_are_refused(harness):
    tenant_id, _, body = await approved_einvoice(harness)
    other_id, _ = await harness.tenant(name="other")
    for invoice_id, tenant in ((MISSING, tenant_id), ("not-a-uuid", tenant_id), (body["id"], other_id)):
        with pytest.raises(NotFound):
            await export_einvoice(harness.db, invoice_id, "cii", tenant)
    with pytest.raises(BadRequest, match="unknown e-invoice format 'pdf'"):
        await export_einvoice(harness.db, body["id"], "pdf", tenant_id)


async def test_a_factur_x_without_its_stored_file_is_refused_and_the_xml_still_goes_out(harness):
    # retention.days removes the upload of an old approved invoice: its data stays exportable
    # as XML, but the PDF/A-3's visible pages are made from that file
    tenant_id, _, body = await approved_einvoice(harness)
    row = await harness.db.fetchone("SELECT path FROM files WHERE invoice_id = ?", (body["id"],))
    Path(row["path"]).unlink()
    with pytest.raises(NotFound, match="retention.days may have removed it.*CII or UBL"):
        await export_einvoice(harness.db, body["id"], "facturx", tenant_id)
    assert read_einvoice((await export_einvoice(harness.db, body["id"], "cii", tenant_id)).content) is not None


async def test_a_receipt_lacking_what_en16931_needs_is_refused_with_the_terms(harness):
    tenant_id, headers = await harness.tenant()
    body = await uploaded(harness, headers, png_with_text(receipt_text("Total EUR 12.50")), "image/png")
    with pytest.raises(NotApproved):
        await export_einvoice(harness.db, body["id"], "cii", tenant_id)
    await review.decide(harness.db, body["id"], "approved", by="clerk")
    with pytest.raises(NotExportable) as refused:
        await export_einvoice(harness.db, body["id"], "facturx", tenant_id)
    message = refused.value.message
    assert refused.value.status == 422 and message.startswith(f"Invoice {body['id']} cannot be exported as an EN 16931")
    for term in ("BT-31 ", "BT-44 ", "BT-55 ", "BG-25 "):
        assert term in message


async def test_the_cli_writes_the_document_and_exits_with_the_error_codes(harness, tmp_path):
    _, _, body = await approved_einvoice(harness)
    config = tmp_path / "config.toml"
    out = tmp_path / "out.pdf"
    done = cli(config, "export", "einvoice", body["id"], "--format", "facturx", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"wrote the facturx e-invoice of invoice {body['id']} to {out}" in done.stdout
    assert differences(body["data"], read_einvoice(out.read_bytes())) == []
    assert "note: BT-55 buyer country code DE" in done.stderr
    missing = cli(config, "export", "einvoice", MISSING, "--format", "cii", "--out", str(tmp_path / "x.xml"))
    assert missing.returncode == 66 and "Invoice not found" in missing.stderr
    bad = cli(config, "export", "einvoice", body["id"], "--format", "pdf", "--out", str(tmp_path / "x.xml"))
    assert bad.returncode == 2 and "'pdf' is not one of" in bad.stderr
    await review.decide(harness.db, body["id"], "rejected", by="clerk")
    rejected = cli(config, "export", "einvoice", body["id"], "--format", "ubl", "--out", str(tmp_path / "x.xml"))
    assert rejected.returncode == 65 and "is rejected, not approved" in rejected.stderr
    assert not (tmp_path / "x.xml").exists()
