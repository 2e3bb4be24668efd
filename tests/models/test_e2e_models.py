"""End to end with the real models on real documents from ../shared/datasets: the embedded OCR
engine (ppocr, the default) and the embedded GGUF (Gemma 3 270M via llama.cpp) with our bundled LoRA
adapter, one test per pipeline path.

Text-layer PDF: upload through the API to a real server, poll until ready.
Scanned image: ``appliance extract`` (the batch path) on the real Ray pool.
"""

from __future__ import annotations

import json
import re

import pytest

from bench.server import cli
from tests.conftest import DATASETS, make_settings, needs_datasets, write_config

pytestmark = [pytest.mark.model, pytest.mark.slow, needs_datasets]

ADAPTER_PROVIDER = "llama_cpp:gemma3-270m-invoice-lora"  # llm.adapter_path's default


def agreed(routing_reason: str) -> int:
    """The number of fields on which model and rules agreed, from the routing reason."""
    found = re.search(r"model and rules agree on (\d+) field", routing_reason)
    assert found, routing_reason
    return int(found.group(1))


def model_sections(ocr: str, llm: str, pool: str = "inline", **more: dict) -> dict:
    """A config's ``ocr``, ``llm`` and one-worker ``pool`` sections, the bundled learned scorer on
    (the fakes' configs switch it off), and ``more`` sections."""
    return {
        "ocr": {"engine": ocr},
        "llm": {"backend": llm},
        "pool": {"backend": pool, "workers": 1},
        "review": {"scorer": True},
        **more,
    }


def scorer_decided(routing_reason: str, provider: str, rules_provider: str) -> None:
    """The bundled scorer decided the key fields; the model took part exactly where it said it
    was asked (then it read at least one field as the rules did)."""
    assert re.search(r"scorer: key fields right with p=0\.\d{3}, 0\.\d{3} completes", routing_reason), routing_reason
    if "(model asked)" in routing_reason:
        assert provider == f"{rules_provider}+{ADAPTER_PROVIDER}" and agreed(routing_reason) >= 1, routing_reason
    else:
        assert provider == rules_provider and "(model not asked)" in routing_reason, routing_reason


REAL_MODELS = model_sections("ppocr", "llama_cpp")


async def test_text_layer_pdf_through_the_api(harness_factory, tmp_path):
    harness = await harness_factory(make_settings(tmp_path, REAL_MODELS))
    _, headers = await harness.tenant(credits=1)
    pdf = (DATASETS / "invoice2data" / "AmazonWebServices.pdf").read_bytes()
    response = await harness.upload(headers, pdf, filename="AmazonWebServices.pdf")
    assert response.status == 202
    invoice = await harness.wait_ready(headers, (await response.json())["invoice"]["id"], timeout=300)
    assert invoice["data"]["total_amount"] == 4.11
    assert invoice["data"]["invoice_number"] == "42183017"
    assert invoice["data"]["invoice_date"] == "2014-08-03"
    assert invoice["data"]["currency"] == "USD"
    assert invoice["ocrConfidence"] is None  # exact text layer, no OCR
    row = await harness.db.fetchone("SELECT extraction_tier, extraction_provider, routing_reason FROM invoices")
    assert row["extraction_tier"] == 2
    scorer_decided(row["routing_reason"], row["extraction_provider"], "rules")
    # the evidence of a key field carries the scorer's probability for it
    assert 0 < invoice["evidence"]["total_amount"]["confidence"] <= 1


def test_scanned_receipt_through_extract_on_ray(tmp_path):
    config = write_config(tmp_path, model_sections("ppocr", "llama_cpp", pool="ray", ray={"num_cpus": 2}))
    image = DATASETS / "sroie" / "004.jpg"
    truth = json.loads((DATASETS / "sroie" / "004.json").read_text())
    result = cli(config, "extract", "--out", str(tmp_path / "out"), str(image))
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads((tmp_path / "out" / "004.json").read_text())
    assert record["processingStatus"] in ("completed", "needs_review")
    assert record["data"]["total_amount"] == truth["total_amount"]
    assert record["data"]["invoice_date"] == truth["invoice_date"]
    assert record["ocrConfidence"] is not None and 0.5 < record["ocrConfidence"] <= 1
    scorer_decided(record["routingReason"], record["extractionProvider"], "ppocr+rules")
    assert 0 < record["keyConfidence"] <= 1
    # the evidence of a key field carries the scorer's probability for it
    assert 0 < record["evidence"]["total_amount"]["confidence"] <= 1


def test_e_invoice_is_read_from_its_xml_without_ocr_or_llm(tmp_path):
    """Tier 0 through the batch path: exact fields and lines, no OCR engine or model needed."""
    config = write_config(tmp_path, model_sections("tests.fakes.ocr:CrashOcr", "tests.fakes.llm:CrashLLM"))
    pdf = DATASETS / "zugferd-corpus" / "EN16931_Einfach.pdf"
    truth = json.loads(pdf.with_suffix(".json").read_text())
    result = cli(config, "extract", str(pdf))
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads(result.stdout.strip().splitlines()[-1])
    assert record["extractionTier"] == 0 and record["extractionProvider"] == "einvoice-cii"
    assert record["processingStatus"] == "completed", record["validationErrors"]
    for key in (
        "invoice_number",
        "invoice_date",
        "vendor_name",
        "vendor_tax_id",
        "currency",
        "total_amount",
        "tax_amount",
        "balance_amount",
    ):
        assert record["data"][key] == truth[key], key
    assert [line["line_total"] for line in record["data"]["line_items"]] == [
        line["line_total"] for line in truth["line_items"]
    ]
    assert "Rechnung" in record["data"]["raw_text"]  # the print's text is kept too
