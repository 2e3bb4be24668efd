"""The accounting CSV of a period (issue 28, "Export"): the invoices approved in it, one row per
invoice and one per line item, amounts as decimal strings; the period by the day of approval;
bad dates, an empty period and an unknown tenant refused; formulas defused; and
``appliance export csv`` writing both files."""

from __future__ import annotations

import csv
import io

import pytest

from appliance import review
from appliance.cli.export import lines_path
from appliance.errors import BadRequest, NotFound
from appliance.export.accounting_csv import INVOICE_COLUMNS, LINE_COLUMNS, cell, export_csv, period
from bench.server import cli
from tests.appliance.test_export_einvoice import MISSING, hybrid_invoice, uploaded
from tests.support.docs import png_with_text, receipt_text

EVERYTHING = period(None, None)


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


async def approved(harness, headers, content: bytes, content_type: str, at: str) -> str:
    """An uploaded invoice, approved at ``at`` (an ISO timestamp of decided_at)."""
    body = await uploaded(harness, headers, content, content_type)
    await review.decide(harness.db, body["id"], "approved", by="clerk@example.com")
    async with harness.db.transaction() as conn:
        await conn.execute("UPDATE invoices SET decided_at = ? WHERE id = ?", (at, body["id"]))
    return body["id"]


async def test_the_approved_invoices_and_their_lines(harness):
    tenant_id, headers = await harness.tenant()
    einvoice = await approved(harness, headers, hybrid_invoice(), "application/pdf", "2024-03-10T09:00:00.000Z")
    receipt_png = png_with_text(receipt_text("Total EUR 12.50"))
    receipt = await approved(harness, headers, receipt_png, "image/png", "2024-03-11T09:00:00.000Z")
    await uploaded(harness, headers, png_with_text(receipt_text("Total EUR 9.99")), "image/png")  # not approved
    _, other_headers = await harness.tenant(name="other")
    await approved(harness, other_headers, hybrid_invoice(), "application/pdf", "2024-03-10T10:00:00.000Z")

    result = await export_csv(harness.db, tenant_id, EVERYTHING)
    assert result.invoices.startswith(",".join(INVOICE_COLUMNS) + "\r\n")
    assert result.lines.startswith(",".join(LINE_COLUMNS) + "\r\n")
    heads = rows(result.invoices)
    assert [row["invoice_id"] for row in heads] == [einvoice, receipt] and result.invoice_count == 2
    first = heads[0]
    assert {k: first[k] for k in ("vendor_name", "vendor_tax_id", "invoice_number", "invoice_date", "due_date")} == {
        "vendor_name": "ACME Tools GmbH",
        "vendor_tax_id": "DE136695976",
        "invoice_number": "INV-2024-001",
        "invoice_date": "2024-03-05",
        "due_date": "2024-04-04",
    }
    assert (first["currency"], first["net_amount"], first["tax_amount"], first["total_amount"]) == (
        "EUR",
        "100.00",
        "19.00",
        "119.00",
    )
    assert (first["approved_at"], first["approved_by"], first["direction"], first["line_count"]) == (
        "2024-03-10T09:00:00.000Z",
        "clerk@example.com",
        "payable",
        "2",
    )
    assert heads[1]["total_amount"] == "12.50" and heads[1]["net_amount"] == "" and heads[1]["line_count"] == "0"
    lines = rows(result.lines)
    assert result.line_count == 2 and [line["invoice_id"] for line in lines] == [einvoice, einvoice]
    assert lines[1] == {
        "invoice_id": einvoice,
        "invoice_number": "INV-2024-001",
        "invoice_date": "2024-03-05",
        "vendor_name": "ACME Tools GmbH",
        "currency": "EUR",
        "line": "2",
        "line_no": "2",
        "sku": "S-2",
        "description": "Saw",
        "quantity": "1",
        "unit": "C62",
        "unit_price": "85.00",
        "discount": "5.00",
        "tax_rate": "19",
        "line_amount": "80.00",
    }


async def test_the_period_is_the_day_of_approval_both_ends_included(harness):
    tenant_id, headers = await harness.tenant()
    days = (
        "2024-03-31T23:59:59.999Z",
        "2024-04-01T00:00:00.000Z",
        "2024-04-30T23:59:59.999Z",
        "2024-05-01T00:00:00.000Z",
    )
    ids = [
        await approved(harness, headers, png_with_text(receipt_text(f"Total EUR {n}.00")), "image/png", at)
        for n, at in enumerate(days, start=1)
    ]

    async def exported(since, until) -> list[str]:
        return [
            row["invoice_id"] for row in rows((await export_csv(harness.db, tenant_id, period(since, until))).invoices)
        ]

    assert await exported("2024-04-01", "2024-04-30") == ids[1:3]
    assert await exported(None, "2024-03-31") == ids[:1]
    assert await exported("2024-05-01", "") == ids[3:]
    assert await exported("2024-06-01", "2024-06-30") == []


@pytest.mark.parametrize(
    "since, until, message",
    [
        ("2024-13-01", None, "from '2024-13-01' is not a date (YYYY-MM-DD)"),
        (None, "yesterday", "to 'yesterday' is not a date (YYYY-MM-DD)"),
        ("2024-04-02", "2024-04-01", "from 2024-04-02 is after to 2024-04-01"),
    ],
)
def test_bad_periods_are_refused(since, until, message):
    with pytest.raises(BadRequest) as refused:
        period(since, until)
    assert refused.value.status == 400 and message in refused.value.message


async def test_an_unknown_tenant_is_not_found(harness):
    for tenant_id in (MISSING, "acme"):
        with pytest.raises(NotFound, match="Tenant not found"):
            await export_csv(harness.db, tenant_id, EVERYTHING)


async def test_text_from_documents_cannot_become_a_formula(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await approved(
        harness, headers, png_with_text(receipt_text("Total EUR 5.00")), "image/png", "2024-03-01T00:00:00.000Z"
    )
    await review.correct(harness.db, invoice_id, ['vendor_name==HYPERLINK("http://x.example","y")'], [], by="clerk")
    await review.decide(harness.db, invoice_id, "approved", by="clerk")
    head = rows((await export_csv(harness.db, tenant_id, EVERYTHING)).invoices)[0]
    assert head["vendor_name"] == '\'=HYPERLINK("http://x.example","y")'
    assert cell("total_amount", -12.5) == "-12.50" and cell("vendor_name", "-5 off") == "'-5 off"
    assert cell("unit_price", 0.1234) == "0.1234" and cell("quantity", 2.0) == "2" and cell("discount", None) == ""


async def test_the_cli_writes_both_files(harness, tmp_path):
    tenant_id, headers = await harness.tenant()
    await approved(harness, headers, hybrid_invoice(), "application/pdf", "2024-03-10T09:00:00.000Z")
    config, out = tmp_path / "config.toml", tmp_path / "march.csv"
    done = cli(
        config, "export", "csv", "--tenant", tenant_id, "--from", "2024-03-01", "--to", "2024-03-31", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert lines_path(out) == tmp_path / "march-lines.csv"
    assert f"exported 1 approved invoice(s) to {out}" in done.stdout and "exported 2 line item(s)" in done.stdout
    assert rows(out.read_text(encoding="utf-8"))[0]["total_amount"] == "119.00"
    assert len(rows(lines_path(out).read_text(encoding="utf-8"))) == 2
    bad = cli(config, "export", "csv", "--tenant", tenant_id, "--from", "March", "--out", str(tmp_path / "x.csv"))
    assert bad.returncode == 65 and "from 'March' is not a date" in bad.stderr
    unknown = cli(config, "export", "csv", "--tenant", MISSING, "--out", str(tmp_path / "x.csv"))
    assert unknown.returncode == 66 and "Tenant not found" in unknown.stderr
    assert cli(config, "export", "csv", "--out", str(tmp_path / "x.csv")).returncode == 2  # --tenant is required
    assert not (tmp_path / "x.csv").exists()
