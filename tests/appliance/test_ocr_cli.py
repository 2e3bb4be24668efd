"""``appliance ocr``: what the OCR engine reads, run as a subprocess as an operator runs it;
with the fake engine for the output formats and errors, and with the shipped default engine on
a real dev receipt (marker ``model``)."""

from __future__ import annotations

import json

import pytest

from bench.server import cli
from tests.conftest import DATASETS, FAKE_MODELS, needs_datasets, write_config
from tests.fakes.ocr import DEFAULT_TEXT
from tests.support.docs import image_pdf, png_with_text


@pytest.fixture
def config(tmp_path):
    return write_config(tmp_path, FAKE_MODELS)


def test_plain_output_is_the_lines_of_each_file_in_order(config, tmp_path):
    first, second = tmp_path / "a.png", tmp_path / "b.pdf"
    first.write_bytes(png_with_text("ACME Ltd\nTotal 3.00"))
    second.write_bytes(image_pdf(pages=2))
    result = cli(config, "ocr", str(first), str(second))
    assert result.returncode == 0, result.stderr
    header, *lines = result.stdout.split("\n==> ")[0].splitlines()
    assert header == f"==> {first} <==" and lines == ["ACME Ltd", "Total 3.00"]
    # every page of a PDF is read, pages apart by a form feed, as the pipeline's text is
    pdf_part = result.stdout.split(f"==> {second} <==\n")[1]
    assert pdf_part.count("\f") == 1 and DEFAULT_TEXT.splitlines()[0] in pdf_part


def test_json_rows_give_file_page_text_box_and_confidence(config, tmp_path):
    pdf = tmp_path / "two-pages.pdf"
    pdf.write_bytes(image_pdf(pages=2))
    result = cli(config, "ocr", "--json", str(pdf))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert {row["page"] for row in rows} == {1, 2}
    for row in rows:
        assert set(row) == {"file", "page", "text", "box", "confidence"} and row["file"] == str(pdf)
        x0, y0, x1, y1 = row["box"]
        assert 0 <= x0 < x1 and 0 <= y0 < y1 and 0 <= row["confidence"] <= 1


def test_an_unreadable_file_is_named_and_the_others_still_read(config, tmp_path):
    good, bad = tmp_path / "good.png", tmp_path / "notes.txt"
    good.write_bytes(png_with_text("Total 3.00"))
    bad.write_text("not a scan")
    result = cli(config, "ocr", str(bad), str(good))
    assert result.returncode == 65
    assert f"{bad}: Unsupported file type" in result.stderr and "1 of 2 file(s) could not be read" in result.stderr
    assert "Total 3.00" in result.stdout


def test_a_missing_file_or_engine_is_refused(config, tmp_path):
    missing = cli(config, "ocr", str(tmp_path / "nope.jpg"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    image = tmp_path / "a.png"
    image.write_bytes(png_with_text("Total 3.00"))
    unknown = cli(config, "ocr", "--engine", "nonesuch", str(image))
    assert unknown.returncode != 0 and "unknown back-end 'nonesuch'" in unknown.stderr


@pytest.mark.model
@needs_datasets
def test_default_engine_reads_the_total_and_date_of_a_real_receipt(tmp_path):
    config = write_config(tmp_path, {})
    receipt = DATASETS / "sroie" / "004.jpg"  # TOTAL ROUNDED RM30.90, printed 18-11-18
    result = cli(config, "ocr", "--json", str(receipt))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    text = "\n".join(row["text"] for row in rows)
    assert "30.90" in text and "18-11-18" in text
    assert all(row["page"] == 1 and row["box"][2] <= 463 for row in rows)  # the image is 463 px wide
