"""``appliance export csv|einvoice``: approved invoices out of the appliance. The work is in
``appliance.export``; this module only parses arguments, writes the files and prints."""

from __future__ import annotations

from pathlib import Path

import click

from appliance.cli.common import with_db
from appliance.settings import Settings


@click.group("export")
def export() -> None:
    """Approved invoices out of the appliance: CSV for an accounting import, EN 16931 e-invoices."""


@export.command("csv")
@click.option("--tenant", "tenant_id", required=True, help="the tenant whose approved invoices to export")
@click.option("--from", "since", default=None, help="first day of approval to include (YYYY-MM-DD, UTC)")
@click.option("--to", "until", default=None, help="last day of approval to include (YYYY-MM-DD, UTC)")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="the invoices CSV; the line items go beside it as <name>-lines<suffix>",
)
@click.pass_obj
def export_csv(settings: Settings, tenant_id: str, since: str | None, until: str | None, out: Path) -> None:
    """Write the invoices approved in the period as two CSV files: one row per invoice (OUT) and
    one row per line item (OUT's name with -lines)."""
    from appliance.export import accounting_csv

    when = accounting_csv.period(since, until)  # BadRequest (exit 65) before the database opens
    result = with_db(settings, lambda db: accounting_csv.export_csv(db, tenant_id, when))
    lines_out = lines_path(out)
    out.write_text(result.invoices, encoding="utf-8", newline="")
    lines_out.write_text(result.lines, encoding="utf-8", newline="")
    click.echo(f"exported {result.invoice_count} approved invoice(s) to {out}")
    click.echo(f"exported {result.line_count} line item(s) to {lines_out}")


def lines_path(out: Path) -> Path:
    """Where ``export csv --out OUT`` writes the line items: ``march.csv`` -> ``march-lines.csv``."""
    return out.with_name(f"{out.stem}-lines{out.suffix or '.csv'}")


@export.command("einvoice")
@click.argument("invoice_id")
@click.option(
    "--format", "fmt", type=click.Choice(["cii", "ubl", "facturx"]), required=True, help="CII XML, UBL XML or PDF"
)
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), required=True, help="the file to write")
@click.pass_obj
def export_einvoice(settings: Settings, invoice_id: str, fmt: str, out: Path) -> None:
    """Write the EN 16931 e-invoice of an approved invoice: CII XML (Factur-X/ZUGFeRD profile
    EN 16931), UBL 2.1 XML, or the Factur-X PDF/A-3 with the CII embedded. Checked against the
    official XSD; an invoice lacking what EN 16931 needs is refused with the BT-n it lacks."""
    from appliance.export.einvoice import export_einvoice as make

    document = with_db(settings, lambda db: make(db, invoice_id, fmt))
    out.write_bytes(document.content)
    for note in document.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote the {fmt} e-invoice of invoice {invoice_id} to {out} ({len(document.content)} bytes)")
