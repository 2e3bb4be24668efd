"""Tier 1 vendor templates (invoice2data YAML, run by invoice2data's engine), vendor matching,
``direction`` and duplicates, through the real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from appliance.errors import BadRequest
from appliance.tenants import update_tenant
from appliance.vendors import create_vendor, normalise_name
from tests.conftest import DATASETS, needs_datasets
from tests.support.docs import INVOICE_LINES, text_pdf

ACME_TEMPLATE = r"""
issuer: ACME Tools GmbH
keywords:
  - ACME Tools
fields:
  invoice_number: Invoice No:\s+(\S+)
  amount: Total EUR\s+(\d+\.\d\d)
  date: Invoice Date:\s+(\d{4}-\d{2}-\d{2})
options:
  currency: EUR
  date_formats:
    - "%Y-%m-%d"
"""


async def upload_and_wait(harness, headers, data: bytes, **kwargs) -> dict:
    response = await harness.upload(headers, data, **kwargs)
    assert response.status == 202, await response.text()
    return await harness.wait_ready(headers, (await response.json())["invoice"]["id"])


async def operator_view(harness, invoice_id: str):
    return await harness.db.fetchone("SELECT * FROM invoices WHERE id = ?", (invoice_id,))


def other_invoice(number: str = "INV-2024-002", total: str = "119.00") -> bytes:
    lines = [line.replace("INV-2024-001", number) for line in INVOICE_LINES]
    return text_pdf([line if not line.startswith("Total") else f"Total EUR {total}" for line in lines])


async def test_template_applies_when_its_keywords_match(harness):
    tenant_id, headers = await harness.tenant()
    vendor_id = await create_vendor(harness.db, tenant_id, "ACME Tools GmbH", template=ACME_TEMPLATE)
    invoice = await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES))
    row = await operator_view(harness, invoice["id"])
    assert row["extraction_tier"] == 1
    assert row["extraction_provider"].startswith("template:ACME Tools GmbH")
    assert "template keywords matched" in row["routing_reason"]
    assert invoice["data"]["invoice_number"] == "INV-2024-001" and invoice["data"]["total_amount"] == 119.0
    assert invoice["data"]["subtotal"] == 100.0  # a field the template lacks comes from the rules
    assert invoice["vendor"] == {"id": vendor_id, "vendorName": "ACME Tools GmbH"}


async def test_vendor_id_forces_its_template_first(harness):
    tenant_id, headers = await harness.tenant()
    template = ACME_TEMPLATE.replace("  - ACME Tools", "  - Words that are not on the page")
    vendor_id = await create_vendor(harness.db, tenant_id, "ACME", template=template)
    unforced = await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES))
    assert (await operator_view(harness, unforced["id"]))["extraction_tier"] == 2
    forced = await upload_and_wait(harness, headers, other_invoice(), fields={"vendorId": vendor_id})
    row = await operator_view(harness, forced["id"])
    assert row["extraction_tier"] == 1 and "vendorId given on upload" in row["routing_reason"]
    assert forced["vendor"]["id"] == vendor_id


async def test_broken_templates_are_refused(harness):
    tenant_id, _ = await harness.tenant()
    for text in ("fields: [", "just a string", "fields:\n  amount: x\n", ACME_TEMPLATE.replace(r"(\S+)", r"(\S+")):
        with pytest.raises(BadRequest):
            await create_vendor(harness.db, tenant_id, "Broken", template=text)


async def test_a_broken_template_stored_before_the_check_is_skipped_never_fatal(harness):
    """A regex that does not compile (``re.error``, no ValueError) crashed the template step and
    failed every invoice the template was tried on; now it is skipped like any broken template."""
    tenant_id, headers = await harness.tenant()
    vendor_id = await create_vendor(harness.db, tenant_id, "ACME Tools GmbH", template=ACME_TEMPLATE)
    broken = ACME_TEMPLATE.replace(r"(\S+)", r"(\S+")
    async with harness.db.transaction() as conn:  # as an older appliance stored it, unchecked
        await conn.execute("UPDATE vendors SET template = ? WHERE id = ?", (broken, vendor_id))
    invoice = await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES), fields={"vendorId": vendor_id})
    row = await operator_view(harness, invoice["id"])
    assert invoice["processingStatus"] != "failed" and row["extraction_tier"] == 2


@needs_datasets
async def test_public_invoice2data_template_works_as_it_is(harness):
    import invoice2data

    shipped = Path(invoice2data.__file__).parent / "extract" / "templates" / "com" / "com.amazon.aws.yml"
    tenant_id, headers = await harness.tenant()
    await create_vendor(harness.db, tenant_id, "Amazon Web Services", template=shipped.read_text())
    invoice = await upload_and_wait(
        harness, headers, (DATASETS / "invoice2data" / "AmazonWebServices.pdf").read_bytes()
    )
    row = await operator_view(harness, invoice["id"])
    assert row["extraction_tier"] == 1
    assert invoice["data"]["total_amount"] == 4.11 and invoice["data"]["invoice_date"] == "2014-08-03"
    assert invoice["data"]["vendor_name"] == "Amazon Web Services, Inc."


async def test_vendors_are_matched_by_name_or_tax_id_else_created(harness):
    tenant_id, headers = await harness.tenant()
    first = await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES))
    created = first["vendor"]
    assert created["vendorName"] == "ACME Tools GmbH"
    renamed = [
        line.replace("ACME Tools GmbH", "Acme Tools").replace("INV-2024-001", "INV-2024-050") for line in INVOICE_LINES
    ]
    second = await upload_and_wait(harness, headers, text_pdf(renamed))
    assert second["vendor"]["id"] == created["id"]  # legal form and case do not matter
    by_tax = await create_vendor(harness.db, tenant_id, "Globex Holding", tax_id="DE 123 456 789")
    third = await upload_and_wait(
        harness,
        headers,
        text_pdf(["Globex Corporation", "USt-IdNr.: DE123456789", "Invoice No: G-1", "Total EUR 5.00"]),
    )
    assert third["vendor"]["id"] == by_tax
    rows = await harness.db.fetchall("SELECT name FROM vendors WHERE tenant_id = ?", (tenant_id,))
    assert sorted(r["name"] for r in rows) == ["ACME Tools GmbH", "Globex Holding"]


async def test_direction_is_receivable_when_the_tenant_issued_it(harness):
    tenant_id, headers = await harness.tenant()
    payable = await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES))
    assert payable["direction"] == "payable"
    await update_tenant(harness.db, tenant_id, company_name="ACME Tools G.m.b.H.")
    receivable = await upload_and_wait(harness, headers, other_invoice("INV-9"))
    assert receivable["direction"] == "receivable" and receivable["vendor"] is None


async def test_duplicates_by_file_or_by_vendor_number_and_total(harness):
    _, headers = await harness.tenant()
    original = await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES))
    assert original["isDuplicate"] is False and original["duplicateOf"] is None
    same_file = await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES))
    assert same_file["isDuplicate"] is True and same_file["status"] == "duplicate"
    assert same_file["duplicateOf"] == original["id"]
    same_number = await upload_and_wait(harness, headers, other_invoice("INV-2024-001") + b"\n% rescanned")
    assert same_number["duplicateOf"] == original["id"]
    other_total = await upload_and_wait(harness, headers, other_invoice("INV-2024-001", total="120.00"))
    assert other_total["isDuplicate"] is False
    other_number = await upload_and_wait(harness, headers, other_invoice("INV-2024-777"))
    assert other_number["isDuplicate"] is False and other_number["status"] == "extracted"


async def test_another_tenants_identical_file_is_no_duplicate(harness):
    _, headers = await harness.tenant()
    _, other = await harness.tenant(name="other")
    await upload_and_wait(harness, headers, text_pdf(INVOICE_LINES))
    theirs = await upload_and_wait(harness, other, text_pdf(INVOICE_LINES))
    assert theirs["isDuplicate"] is False


def test_name_normalisation():
    assert normalise_name("ACME Tools GmbH") == normalise_name("Acme tools") == "acme tools"
    assert normalise_name("MR D.I.Y. (M) SDN BHD") == "mr diy m"
    assert normalise_name("Société Générale S.A.") == "societe generale"


@needs_datasets
@pytest.mark.model
async def test_real_documents_vendor_direction_and_duplicates(harness_factory, tmp_path):
    """On real files: an e-invoice (tier 0), a text-layer PDF and a scanned receipt (real OCR)."""
    from tests.conftest import make_settings

    harness = await harness_factory(make_settings(tmp_path, {"ocr": {"engine": "rapidocr"}}))
    tenant_id, headers = await harness.tenant()
    einvoice = (DATASETS / "zugferd-corpus" / "EN16931_Einfach.pdf").read_bytes()
    first = await upload_and_wait(harness, headers, einvoice)
    assert first["vendor"]["vendorName"] == "Lieferant GmbH" and first["direction"] == "payable"
    again = await upload_and_wait(harness, headers, einvoice)
    assert again["isDuplicate"] and again["duplicateOf"] == first["id"] and again["vendor"] == first["vendor"]
    aws = await upload_and_wait(harness, headers, (DATASETS / "invoice2data" / "AmazonWebServices.pdf").read_bytes())
    assert aws["vendor"]["vendorName"] == "Amazon Web Services, Inc." and not aws["isDuplicate"]
    receipt = await upload_and_wait(
        harness, headers, (DATASETS / "sroie" / "004.jpg").read_bytes(), filename="004.jpg", content_type="image/jpeg"
    )
    assert receipt["vendor"] is not None and receipt["vendor"]["id"] not in (first["vendor"]["id"], aws["vendor"]["id"])
    await update_tenant(harness.db, tenant_id, tax_id="DE123456789")  # the seller's VAT id of the e-invoice
    own = await upload_and_wait(harness, headers, einvoice + b"\n% resent")
    assert own["direction"] == "receivable"
