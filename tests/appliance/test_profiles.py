"""Vendor profiles learned from approvals, through a real server, dispatcher and SQLite file:
an approval teaches (with and without corrections), the next invoice of the vendor is
recognised without ``vendorId``, a new IBAN for a known vendor is flagged, forget and freeze
undo and stop the learning, a rejection withdraws it, and one tenant's profile never reads
another tenant's invoice. The operator CLI shows and edits a profile."""

from __future__ import annotations

import json

import pytest

from appliance import profiles, review
from appliance.errors import BadRequest, NotFound
from tests.appliance.test_review import appliance
from tests.conftest import DATASETS, make_settings, needs_datasets
from tests.models.test_e2e_models import model_sections
from tests.support.docs import text_pdf

IBAN = "DE89 3704 0044 0532 0130 00"
OTHER_IBAN = "DE02 1203 0000 0000 2020 51"


def invoice(number: str, total: str, iban: str = IBAN) -> bytes:
    net = f"{float(total) / 1.19:.2f}"
    return text_pdf(
        [
            "Bergmann Werkzeuge GmbH",
            "Musterstrasse 1, 80331 Muenchen",
            "USt-IdNr. DE136695976",
            f"Invoice No: {number}",
            "Invoice Date: 2024-03-05",
            f"Subtotal {net}",
            f"Total EUR {total}",
            f"IBAN {iban}",
        ]
    )


async def uploaded(harness, headers, pdf: bytes) -> tuple[str, dict]:
    response = await harness.upload(headers, pdf)
    assert response.status == 202, await response.text()
    invoice_id = (await response.json())["invoice"]["id"]
    return invoice_id, await harness.wait_ready(headers, invoice_id)


async def vendor_of(harness, invoice_id: str) -> str | None:
    row = await harness.db.fetchone("SELECT vendor_id FROM invoices WHERE id = ?", (invoice_id,))
    return row["vendor_id"]


async def test_an_approval_teaches_and_the_next_invoice_is_recognised(harness):
    _, headers = await harness.tenant()
    first, _ = await uploaded(harness, headers, invoice("R-1001", "119.00"))
    await review.decide(harness.db, first, "approved", "alice")
    vendor_id = await vendor_of(harness, first)
    shown = await profiles.show(harness.db, vendor_id)
    assert shown["approvals"] == 1 and shown["invoices"] == [first]
    assert {"vat:DE136695976", "iban:DE89370400440532013000"} <= set(shown["identifiers"])
    assert shown["habits"]["invoice_number"] == {"invoice no": 1}
    assert [(e["action"], e["invoice_id"], e["by"]) for e in shown["events"]] == [("learned", first, "alice")]
    book = await profiles.book_of(
        harness.db, (await harness.db.fetchone("SELECT tenant_id FROM invoices WHERE id = ?", (first,)))["tenant_id"]
    )
    assert len(book) == 1
    second, body = await uploaded(harness, headers, invoice("R-1002", "238.00"))
    assert await vendor_of(harness, second) == vendor_id  # recognised by its identifiers, no vendorId
    assert body["data"]["invoice_number"] == "R-1002"


async def test_a_correction_teaches_the_name_as_corrected(harness):
    _, headers = await harness.tenant()
    first, _ = await uploaded(harness, headers, invoice("R-1", "119.00"))
    await review.correct(harness.db, first, ["vendor_name=Bergmann Werkzeuge GmbH & Co. KG"], [], "bob")
    await review.decide(harness.db, first, "approved", "bob")
    shown = await profiles.show(harness.db, await vendor_of(harness, first))
    assert shown["name"] == "Bergmann Werkzeuge GmbH & Co. KG"
    await review.correct(harness.db, first, ["total_amount=120.00"], [], "bob")  # withdraws the approval
    shown = await profiles.show(harness.db, await vendor_of(harness, first))
    assert shown["approvals"] == 0 and [e["action"] for e in shown["events"]] == ["learned", "forgot"]


async def test_a_new_iban_for_a_known_vendor_is_flagged(harness):
    _, headers = await harness.tenant()
    first, _ = await uploaded(harness, headers, invoice("R-1", "119.00"))
    await review.decide(harness.db, first, "approved", "alice")
    _, body = await uploaded(harness, headers, invoice("R-2", "119.00", iban=OTHER_IBAN))
    assert body["processingStatus"] == "needs_review"
    (reason,) = [e for e in body["validationErrors"] if "IBAN" in e]
    assert "DE02120300000000202051" in reason and "bank details" in reason


async def test_forget_freeze_and_reject(harness):
    _, headers = await harness.tenant()
    first, _ = await uploaded(harness, headers, invoice("R-1", "119.00"))
    second, _ = await uploaded(harness, headers, invoice("R-2", "238.00", iban=OTHER_IBAN))
    await review.decide(harness.db, first, "approved", "alice")
    vendor_id = await vendor_of(harness, first)
    await review.decide(harness.db, second, "approved", "alice")
    assert (await profiles.show(harness.db, vendor_id))["identifiers"]["iban:DE02120300000000202051"] == 1
    await profiles.forget_invoice(harness.db, second, "admin")  # the wrong approval's teaching goes
    shown = await profiles.show(harness.db, vendor_id)
    assert "iban:DE02120300000000202051" not in shown["identifiers"] and shown["invoices"] == [first]
    await profiles.set_frozen(harness.db, vendor_id, True, "admin")
    await review.decide(harness.db, second, "approved", "alice")  # frozen: learns nothing
    assert (await profiles.show(harness.db, vendor_id))["invoices"] == [first]
    await profiles.set_frozen(harness.db, vendor_id, False, "admin")
    await review.decide(harness.db, first, "rejected", "alice")  # a rejection withdraws the lesson
    assert (await profiles.show(harness.db, vendor_id))["approvals"] == 0
    with pytest.raises(NotFound):
        await profiles.forget_invoice(harness.db, first, "admin")  # it teaches nothing now


async def test_an_admin_edits_a_profile_and_every_rebuild_keeps_the_edit(harness):
    _, headers = await harness.tenant()
    first, _ = await uploaded(harness, headers, invoice("R-1", "119.00"))
    await review.decide(harness.db, first, "approved", "alice")
    vendor_id = await vendor_of(harness, first)
    edits = await profiles.edit(harness.db, vendor_id, "admin", name="Bergmann Werkzeuge GmbH & Co. KG", currency="chf")
    assert edits == {"name": "Bergmann Werkzeuge GmbH & Co. KG", "currency": "CHF"}
    iban = "iban:DE89370400440532013000"
    label = "total_amount:total"
    await profiles.edit(harness.db, vendor_id, "admin", strike_identifier=iban, strike_label=label)
    second, body = await uploaded(harness, headers, invoice("R-2", "238.00", iban=OTHER_IBAN))
    assert not any("IBAN" in e for e in body["validationErrors"])  # the struck IBAN is no reference
    assert await vendor_of(harness, second) == vendor_id  # its VAT id and the learnt name it prints
    await review.decide(harness.db, second, "approved", "alice")  # a rebuild: the edits hold
    shown = await profiles.show(harness.db, vendor_id)
    assert shown["approvals"] == 2 and shown["name"] == "Bergmann Werkzeuge GmbH & Co. KG"
    assert iban not in shown["identifiers"] and "total" not in shown["habits"].get("total_amount", {})
    assert shown["values"]["currency"] == {"CHF": 2}
    for bad in ({"currency": "euro"}, {"strike_identifier": "iban:XX"}, {"strike_label": "total_amount:nope"}, {}):
        with pytest.raises(BadRequest):
            await profiles.edit(harness.db, vendor_id, "admin", **bad)
    assert await profiles.edit(harness.db, vendor_id, "admin", clear=True) == {}
    shown = await profiles.show(harness.db, vendor_id)
    assert iban in shown["identifiers"] and shown["name"] == "Bergmann Werkzeuge GmbH"
    assert [(e["action"], e["detail"]) for e in shown["events"] if e["action"] == "edited"] == [
        ("edited", "name 'Bergmann Werkzeuge GmbH & Co. KG'; currency CHF"),
        ("edited", "struck identifier iban:DE89370400440532013000; struck label 'total' of total_amount"),
        ("edited", "cleared every edit"),
    ]
    with pytest.raises(NotFound):
        await profiles.edit(harness.db, "00000000-0000-4000-8000-000000000000", "admin", name="X")


def billed(vendor: str, vat: str, number: str, total: str, iban: str) -> bytes:
    """An invoice of ``vendor`` to the tenant, whose own VAT id stands in the bill-to block."""
    return text_pdf(
        [
            vendor,
            f"USt-IdNr. {vat}",
            "Bill to: Tenant Trading GmbH, USt-IdNr. DE811907980",
            f"Invoice No: {number}",
            "Invoice Date: 2024-03-05",
            f"Total EUR {total}",
            f"IBAN {iban}",
        ]
    )


async def test_the_buyers_own_vat_id_never_hands_one_vendors_invoice_to_another(harness):
    _, headers = await harness.tenant()
    first, _ = await uploaded(harness, headers, billed("Bergmann Werkzeuge GmbH", "DE136695976", "R-1", "119.00", IBAN))
    await review.decide(harness.db, first, "approved", "alice")
    other, body = await uploaded(
        harness, headers, billed("Kruger Papier AG", "DE129273398", "K-7", "50.00", OTHER_IBAN)
    )
    assert not any("IBAN" in e for e in body["validationErrors"])  # not "Bergmann's new IBAN"
    assert await vendor_of(harness, other) != await vendor_of(harness, first)
    await review.decide(harness.db, other, "approved", "alice")  # its lesson starts its own profile
    assert (await profiles.show(harness.db, await vendor_of(harness, first)))["invoices"] == [first]
    assert (await profiles.show(harness.db, await vendor_of(harness, other)))["invoices"] == [other]


async def test_a_profile_never_reads_another_tenants_invoice(harness):
    _, headers_a = await harness.tenant(name="a")
    _, headers_b = await harness.tenant(name="b")
    first, _ = await uploaded(harness, headers_a, invoice("R-1", "119.00"))
    await review.decide(harness.db, first, "approved", "alice")
    other, body = await uploaded(harness, headers_b, invoice("R-2", "119.00", iban=OTHER_IBAN))
    assert await vendor_of(harness, other) != await vendor_of(harness, first)
    assert not any("IBAN" in e for e in body["validationErrors"])  # tenant a's profile was not consulted


async def test_the_cli_shows_freezes_and_forgets(harness, tmp_path):
    _, headers = await harness.tenant()
    first, _ = await uploaded(harness, headers, invoice("R-1", "119.00"))
    await review.decide(harness.db, first, "approved", "alice")
    vendor_id = await vendor_of(harness, first)
    result = await appliance(tmp_path, "vendor", "show", vendor_id)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["profile"]["invoices"] == [first]
    result = await appliance(tmp_path, "vendor", "freeze", vendor_id, "--by", "carol")
    assert result.returncode == 0 and "frozen" in result.stdout
    result = await appliance(tmp_path, "vendor", "edit", vendor_id, "--currency", "EUR", "--by", "carol")
    assert result.returncode == 0 and '{"currency": "EUR"}' in result.stdout
    result = await appliance(tmp_path, "vendor", "edit", vendor_id, "--strike-label", "total_amount:nope")
    assert result.returncode == 65 and "reads no field under" in result.stderr
    result = await appliance(tmp_path, "vendor", "forget", vendor_id, "--by", "carol")
    assert result.returncode == 0 and "forgot 1 approved invoice(s)" in result.stdout
    events = json.loads((await appliance(tmp_path, "vendor", "show", vendor_id)).stdout)["profile"]["events"]
    assert [(e["action"], e["by"]) for e in events][-3:] == [
        ("froze", "carol"),
        ("edited", "carol"),
        ("reset", "carol"),
    ]
    result = await appliance(tmp_path, "vendor", "forget", vendor_id, "--invoice", first)
    assert result.returncode != 0 and "taught no vendor profile" in result.stderr
    _, headers_b = await harness.tenant(name="b")
    result = await appliance(tmp_path, "vendor", "freeze", "00000000-0000-4000-8000-000000000000")
    assert result.returncode != 0 and "no learned profile" in result.stderr


@pytest.mark.model
@pytest.mark.slow
@needs_datasets
async def test_a_real_shops_third_receipt_is_read_with_what_two_approvals_taught(harness_factory, tmp_path):
    """Three real receipts of one shop (SROIE, training set) through the real OCR and the bundled
    scorer: a clerk corrects what is wrong from the truth and approves; the second and third are
    recognised as the shop's by its registration numbers, and the third gets the approved name."""
    settings = make_settings(
        tmp_path, model_sections("ppocr", "llama_cpp", review={"scorer": True, "ask_model": "never"})
    )
    harness = await harness_factory(settings)
    _, headers = await harness.tenant()
    shop = DATASETS / "train" / "sroie"
    vendors, bodies = [], []
    for stem in ("108", "109", "110"):  # LIM SENG THO HARDWARE TRADING
        truth = json.loads((shop / f"{stem}.json").read_text())
        response = await harness.upload(
            headers, (shop / f"{stem}.jpg").read_bytes(), filename=f"{stem}.jpg", content_type="image/jpeg"
        )
        invoice_id = (await response.json())["invoice"]["id"]
        body = await harness.wait_ready(headers, invoice_id, timeout=300)
        bodies.append(body)
        vendors.append(await vendor_of(harness, invoice_id))
        fixes = [
            f"{k}={truth[k]}"
            for k in ("vendor_name", "invoice_date", "total_amount")
            if truth.get(k) is not None and body["data"].get(k) != truth[k]
        ]
        if fixes:
            await review.correct(harness.db, invoice_id, fixes, [], "clerk")
        await review.decide(harness.db, invoice_id, "approved", "clerk")
    assert vendors[0] is not None and vendors == [vendors[0]] * 3
    assert bodies[2]["data"]["vendor_name"] == "LIM SENG THO HARDWARE TRADING"
    shown = await profiles.show(harness.db, vendors[0])
    assert shown["approvals"] == 3 and {"reg:002231061T"} <= set(shown["identifiers"])
