"""Human review through the operator CLI against a real server on loopback: corrections applied
on top of the extraction in ``GET /api/v1/invoices/{id}`` with ``source: human`` evidence,
status transitions, approve/reject, reprocess keeping corrections, and every error exit."""

from __future__ import annotations

import asyncio
import json
import re
import uuid

import pytest

from api.schemas import InvoiceSchema
from appliance import review
from appliance.correction_values import header_value, line_value
from appliance.errors import BadRequest, NotFound
from appliance.invoices import create_slot
from appliance.queue import admin
from bench.server import cli
from tests.support.docs import INVOICE_LINES, text_pdf

HUMAN = {"page": None, "bbox": None, "confidence": 1.0, "source": "human"}


async def appliance(tmp_path, *args):
    """The CLI in a subprocess on the harness's config, off the event loop so the server and
    the dispatcher keep running (and keep committing) while it waits on SQLite."""
    return await asyncio.to_thread(cli, tmp_path / "config.toml", *args)


async def extracted(harness, lines=INVOICE_LINES) -> tuple[str, dict, dict]:
    """A tenant and one finished invoice: (invoice id, auth headers, the API body)."""
    _, headers = await harness.tenant(credits=5)
    response = await harness.upload(headers, text_pdf(lines))
    invoice_id = (await response.json())["invoice"]["id"]
    return invoice_id, headers, await harness.wait_ready(headers, invoice_id)


async def fetch(harness, headers, invoice_id) -> dict:
    response = await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)
    assert response.status == 200
    return await response.json()


async def test_corrections_are_applied_on_top_with_human_evidence(harness, tmp_path):
    invoice_id, headers, before = await extracted(harness)
    assert before["status"] == "extracted" and before["data"]["total_amount"] == 119.0
    result = await appliance(
        tmp_path,
        "invoice",
        "correct",
        invoice_id,
        "total_amount=120.50",
        "invoice_date=2024-03-06",
        "currency=usd",
        "--line",
        "1",
        "quantity=3",
        "--by",
        "alice",
    )
    assert result.returncode == 0, result.stderr
    assert "total_amount: 119.0 -> 120.5" in result.stdout and "line 1 quantity: 2.0 -> 3.0" in result.stdout
    body = await fetch(harness, headers, invoice_id)
    assert InvoiceSchema().validate(body) == {}
    assert body["status"] == "reviewed" and body["processingStatus"] == before["processingStatus"]
    data = body["data"]
    assert (data["total_amount"], data["invoice_date"], data["currency"]) == (120.5, "2024-03-06", "USD")
    assert data["line_items"][0]["quantity"] == 3.0
    assert data["line_items"][0]["description"] == before["data"]["line_items"][0]["description"]
    assert data["invoice_number"] == "INV-2024-001"  # untouched fields keep the extraction
    assert body["evidence"]["total_amount"] == {**HUMAN, "text": "120.5"}
    assert body["evidence"]["line_items[1].quantity"] == {**HUMAN, "text": "3.0"}
    assert body["evidence"].get("invoice_number") == before["evidence"].get("invoice_number")
    stored = await harness.db.fetchone("SELECT data_json FROM invoices WHERE id = ?", (invoice_id,))
    assert json.loads(stored["data_json"])["total_amount"] == 119.0  # beside the extraction, never over it
    rows = await harness.db.fetchall("SELECT * FROM corrections WHERE invoice_id = ? ORDER BY id", (invoice_id,))
    assert [
        (
            r["field"],
            r["line_index"],
            json.loads(r["old_value_json"]),
            json.loads(r["new_value_json"]),
            r["corrected_by"],
        )
        for r in rows
    ][0] == ("total_amount", None, 119.0, 120.5, "alice")
    assert rows[-1]["line_index"] == 1 and rows[-1]["created_at"].endswith("Z")


async def test_latest_correction_wins_and_an_empty_value_clears(harness, tmp_path):
    invoice_id, headers, _ = await extracted(harness)
    for value in ("1", "2"):
        await review.correct(harness.db, invoice_id, [f"total_amount={value}"], [], "t")
    result = await appliance(tmp_path, "invoice", "correct", invoice_id, "vendor_name=")
    assert result.returncode == 0 and 'vendor_name: "ACME Tools GmbH" -> null' in result.stdout
    body = await fetch(harness, headers, invoice_id)
    assert body["data"]["total_amount"] == 2.0 and body["data"]["vendor_name"] is None
    assert body["evidence"]["vendor_name"] == {**HUMAN, "text": None}
    olds = await harness.db.fetchall("SELECT old_value_json FROM corrections WHERE field = 'total_amount' ORDER BY id")
    assert [json.loads(r["old_value_json"]) for r in olds] == [119.0, 1.0]  # old = what was shown


async def test_approve_reject_and_a_later_correction_withdraws_the_decision(harness, tmp_path):
    invoice_id, headers, _ = await extracted(harness)
    approved = await appliance(tmp_path, "invoice", "approve", invoice_id, "--by", "bob")
    assert approved.returncode == 0 and "approved by bob" in approved.stdout
    assert (await fetch(harness, headers, invoice_id))["status"] == "approved"
    await review.decide(harness.db, invoice_id, "rejected", "bob")
    assert (await fetch(harness, headers, invoice_id))["status"] == "rejected"
    await review.correct(harness.db, invoice_id, ["payment_terms=30 days"], [], "bob")
    assert (await fetch(harness, headers, invoice_id))["status"] == "reviewed"
    assert (await appliance(tmp_path, "invoice", "approve", invoice_id, "--by", "carol")).returncode == 0
    shown = json.loads((await appliance(tmp_path, "invoice", "show", invoice_id)).stdout)
    assert shown["status"] == "approved" and shown["data"]["payment_terms"] == "30 days"
    assert shown["reviewDecision"]["decision"] == "approved" and shown["reviewDecision"]["by"] == "carol"
    assert [(c["field"], c["old"], c["new"]) for c in shown["corrections"]] == [("payment_terms", None, "30 days")]
    tenant_view = await fetch(harness, headers, invoice_id)
    assert "corrections" not in tenant_view and "reviewDecision" not in tenant_view


async def test_reprocess_keeps_corrections_and_decision_without_a_second_debit(harness, tmp_path):
    invoice_id, headers, before = await extracted(harness)
    balance = await harness.balance(headers)
    await review.correct(harness.db, invoice_id, ["total_amount=200"], [], "alice")
    await review.decide(harness.db, invoice_id, "approved", "bob")
    result = await appliance(tmp_path, "invoice", "reprocess", invoice_id)
    assert result.returncode == 0 and "no credits debited" in result.stdout
    body = await harness.wait_ready(headers, invoice_id)
    assert body["processingStatus"] == before["processingStatus"] and body["status"] == "approved"
    assert body["data"]["total_amount"] == 200.0 and body["evidence"]["total_amount"]["source"] == "human"
    assert await harness.balance(headers) == balance
    debits = await harness.db.fetchone("SELECT COUNT(*) AS n FROM ledger WHERE invoice_id = ?", (invoice_id,))
    assert debits["n"] == 1
    job = await harness.db.fetchone("SELECT state, attempts FROM jobs WHERE invoice_id = ?", (invoice_id,))
    assert (job["state"], job["attempts"]) == ("done", 1)


async def test_reprocess_status_follows_the_extraction_unless_a_human_acted(harness, tmp_path):
    plain_id, headers, _ = await extracted(harness)
    corrected_id, other, _ = await extracted(harness)
    await review.correct(harness.db, corrected_id, ["customer_name=Kunde AG"], [], "alice")
    assert (await appliance(tmp_path, "invoice", "reprocess", plain_id)).returncode == 0
    await admin.reprocess(harness.db, corrected_id)
    assert (await harness.wait_ready(headers, plain_id))["status"] == "extracted"
    corrected = await harness.wait_ready(other, corrected_id)
    assert corrected["status"] == "reviewed" and corrected["data"]["customer_name"] == "Kunde AG"


async def test_a_failed_extraction_can_be_corrected_from_nothing(harness, tmp_path):
    invoice_id, headers, _ = await extracted(harness)
    async with harness.db.transaction() as conn:  # as a document no tier could read would end
        await conn.execute(
            "UPDATE invoices SET processing_status = 'failed', status = 'pending', data_json = NULL WHERE id = ?",
            (invoice_id,),
        )
    await review.correct(harness.db, invoice_id, ["total_amount=5"], [], "alice")
    body = await fetch(harness, headers, invoice_id)
    assert body["data"]["total_amount"] == 5.0 and body["data"]["invoice_number"] is None
    assert body["data"]["line_items"] == [] and body["status"] == "reviewed"


async def test_error_exits(harness, tmp_path):
    """Each kind of error once through the real CLI (exit code and message)."""
    invoice_id, _, _ = await extracted(harness)
    for args in (("correct", str(uuid.uuid4()), "total_amount=1"), ("approve", "nope")):
        result = await appliance(tmp_path, "invoice", *args)
        assert result.returncode == 66 and "not found" in result.stderr, (args, result.stderr)
    for args, message in ((("bogus=1",), "unknown field 'bogus'"), (("invoice_date=05.03.2024",), "not an ISO date")):
        result = await appliance(tmp_path, "invoice", "correct", invoice_id, *args)
        assert result.returncode == 65 and message in result.stderr, (args, result.stderr)


async def test_every_bad_correction_is_refused_and_nothing_is_written(harness):
    """The same core the CLI calls, for every refusal (a subprocess each would take seconds)."""
    invoice_id, _, _ = await extracted(harness)
    bad = {
        ("raw_text=x",): "unknown field 'raw_text'",
        ("line_items=x",): "unknown field 'line_items'",
        ("total_amount=12,50",): "not a number",
        ("total_amount=1e3",): "not a number",
        ("due_date=2024-02-30",): "not an ISO date",
        ("currency=euro",): "ISO 4217",
        ("no-equals-sign",): "expected field=value",
        (("9", "quantity=1"),): "no line 9",
        (("1", "colour=red"),): "unknown line field 'colour'",
        (("1", "description="),): "description cannot be empty",
        (("1", "line_no=1.5"),): "not a whole number",
        (): "nothing to correct",
    }
    for given, message in bad.items():
        fields = [item for item in given if isinstance(item, str)]
        lines = [(int(n), text) for n, text in (item for item in given if isinstance(item, tuple))]
        with pytest.raises(BadRequest, match=re.escape(message)):
            await review.correct(harness.db, invoice_id, fields, lines, "t")
    with pytest.raises(BadRequest, match="bogus"):  # one bad value refuses the good ones with it
        await review.correct(harness.db, invoice_id, ["total_amount=1", "bogus=2"], [], "t")
    assert not await harness.db.fetchall("SELECT 1 FROM corrections")
    for call in (
        review.correct(harness.db, "nope", ["total_amount=1"], [], "t"),
        review.decide(harness.db, str(uuid.uuid4()), "approved", "t"),
    ):
        with pytest.raises(NotFound):
            await call
    with pytest.raises(BadRequest, match="unknown decision"):
        await review.decide(harness.db, invoice_id, "maybe", "t")


async def test_an_invoice_still_processing_cannot_be_reviewed(harness, tmp_path):
    tenant_id, _ = await harness.tenant()
    slot = await create_slot(harness.db, tenant_id)  # queued: no file yet
    result = await appliance(tmp_path, "invoice", "approve", slot)
    assert result.returncode == 65 and "still processing" in result.stderr
    with pytest.raises(BadRequest, match="still processing"):
        await review.correct(harness.db, slot, ["total_amount=1"], [], "t")
    with pytest.raises(BadRequest, match="still processing"):
        await review.decide(harness.db, slot, "rejected", "t")
    result = await appliance(tmp_path, "invoice", "reprocess", slot)
    assert result.returncode == 65 and "no file attached" in result.stderr


def test_values_are_parsed_to_the_schema_type():
    assert header_value("total_amount", " 1234.567 ") == 1234.57
    assert header_value("discount", "-5") == -5.0
    assert header_value("invoice_date", "2024-03-05") == "2024-03-05"
    assert header_value("vendor_name", "  ACME   Tools ") == "ACME Tools"
    assert header_value("currency", "") is None
    assert line_value("line_no", "2") == 2 and line_value("unit_price", "0.125") == 0.125
    for field, text in (("total_amount", "1e3"), ("total_amount", "nan"), ("invoice_date", "20240305")):
        try:
            header_value(field, text)
        except BadRequest:
            continue
        raise AssertionError(f"{field}={text} was accepted")
