"""``appliance training export``: the invoices people approved, written so that
``training.dataset --reviewed-dir`` (what ``scripts/train-extractor --reviewed-dir`` runs) turns
them into training examples with the corrected values as the answer (issue 13, Done-when 3)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

from appliance import review
from appliance.approved_export import export_reviewed
from bench.server import ROOT
from tests.support.docs import INVOICE_LINES, text_pdf


async def approved_invoice(harness, headers, lines, corrections=()) -> str:
    response = await harness.upload(headers, text_pdf(lines), content_type="application/pdf")
    invoice_id = (await response.json())["invoice"]["id"]
    await harness.wait_ready(headers, invoice_id)
    if corrections:
        await review.correct(harness.db, invoice_id, list(corrections), [], by="clerk")
    await review.decide(harness.db, invoice_id, "approved", by="clerk")
    return invoice_id


async def test_export_of_two_approved_invoices_reads_as_training_examples(harness, tmp_path):
    tenant_id, headers = await harness.tenant()
    # the human's value wins; training answers only values printed on the page (training.examples),
    # so the correction is one the page prints
    first = await approved_invoice(harness, headers, INVOICE_LINES, ["total_amount=100.00"])
    other_lines = [line.replace("INV-2024-001", "INV-2024-002") for line in INVOICE_LINES]
    second = await approved_invoice(harness, headers, other_lines)
    pending = await harness.upload(headers, text_pdf(INVOICE_LINES[:4]), content_type="application/pdf")
    await harness.wait_ready(headers, (await pending.json())["invoice"]["id"])  # not approved: left out
    out = tmp_path / "export"
    assert await export_reviewed(harness.db, out, tenant_id) == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert {entry["file"] for entry in manifest} == {f"{first}.pdf", f"{second}.pdf"}
    assert json.loads((out / f"{first}.json").read_text())["total_amount"] == 100.0
    assert "ACME Tools GmbH" in (out / f"{first}.txt").read_text()
    data = tmp_path / "data.jsonl.gz"
    built = subprocess.run(
        [sys.executable, "-m", "training.dataset", "--reviewed-dir", str(out), "--out", str(data), "--jobs", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    examples = [json.loads(line) for line in gzip.open(data, "rt")]
    assert len(examples) == 2 and {e["source"] for e in examples} == {"reviewed"}
    corrected = next(e for e in examples if first in e["id"])
    assert '"total_amount": "100.00"' in corrected["completion"] and "INV-2024-001" in corrected["completion"]
    assert "INV-2024-002" in next(e for e in examples if second in e["id"])["completion"]
