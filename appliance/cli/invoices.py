"""``appliance invoice show|reprocess|correct|approve|reject|delete``: an invoice as an operator
sees it, and an operator's second look at it. The work is in ``appliance.invoices``,
``appliance.queue.admin``, ``appliance.review`` and ``appliance.deletion``; this module only
parses arguments and prints."""

from __future__ import annotations

import json
from pathlib import Path

import click

from appliance.cli.common import operator_name, with_db
from appliance.settings import Settings


@click.group()
def invoice() -> None:
    """Invoices as an operator sees them."""


@invoice.command("show")
@click.argument("invoice_id")
@click.pass_obj
def invoice_show(settings: Settings, invoice_id: str) -> None:
    """Print an invoice with the operator-only fields (extractionTier, extractionProvider, routingReason)."""
    from appliance.invoices import get_invoice

    body = with_db(settings, lambda db: get_invoice(db, invoice_id, None, operator=True))
    click.echo(json.dumps(body, indent=2, ensure_ascii=False))


BY = click.option("--by", default=None, help="who acts, for the review trail (default: the login name)")


@click.command("reprocess")
@click.argument("invoice_id")
@click.option(
    "--tier", type=int, default=None, help="force one tier: 0 e-invoice XML, 1 vendor template, 2 rules + LLM"
)
@click.pass_obj
def invoice_reprocess(settings, invoice_id: str, tier: int | None) -> None:
    """Run extraction again, with no second debit; corrections stay on top of the new data."""
    from appliance.queue.admin import reprocess

    job = with_db(settings, lambda db: reprocess(db, invoice_id, tier))
    routing = "usual routing" if tier is None else f"tier {tier} forced"
    click.echo(f"invoice {job['invoiceId']} queued for reprocessing (job {job['id']}, {routing}); no credits debited")


@click.command("correct")
@click.argument("invoice_id")
@click.argument("assignments", nargs=-1, metavar="[FIELD=VALUE]...")
@click.option(
    "--line",
    "lines",
    type=(int, str),
    multiple=True,
    metavar="N FIELD=VALUE",
    help="correct a field of line item N (1-based); repeat for more",
)
@BY
@click.pass_obj
def invoice_correct(
    settings, invoice_id: str, assignments: tuple[str, ...], lines: tuple[tuple[int, str], ...], by: str | None
) -> None:
    """Store corrections beside the extraction; clients get them applied in data. Amounts are
    numbers (1234.50), dates YYYY-MM-DD, an empty value clears a field."""
    from appliance.review import correct

    changes = with_db(
        settings, lambda db: correct(db, invoice_id, list(assignments), list(lines), by or operator_name())
    )
    for change in changes:
        where = change["field"] if change["line"] is None else f"line {change['line']} {change['field']}"
        click.echo(
            f"{where}: {json.dumps(change['old'], ensure_ascii=False)} -> "
            f"{json.dumps(change['new'], ensure_ascii=False)}"
        )
    click.echo(f"invoice {invoice_id}: status reviewed")


def _decision(name: str, decision: str) -> click.Command:
    @click.command(name)
    @click.argument("invoice_id")
    @BY
    @click.pass_obj
    def command(settings, invoice_id: str, by: str | None) -> None:
        from appliance.review import decide

        who = by or operator_name()
        with_db(settings, lambda db: decide(db, invoice_id, decision, who))
        click.echo(f"invoice {invoice_id} {decision} by {who}")

    command.help = f"Mark a ready invoice {decision} (status {decision}); a later correction withdraws the decision."
    return command


@click.command("delete")
@click.argument("invoice_id")
@BY
@click.pass_obj
def invoice_delete(settings, invoice_id: str, by: str | None) -> None:
    """Delete an invoice of any tenant: its stored file, its page images and its rows. The ledger
    keeps its debit (no refund) and records the deletion. Refused (exit 75) while a worker
    extracts it; an unknown or already deleted id exits 66."""
    from appliance.deletion import delete_invoice

    who = by or operator_name()
    done = with_db(settings, lambda db: delete_invoice(db, invoice_id, None, who))
    click.echo(
        f"invoice {done.invoice_id} (tenant {done.tenant_id}) deleted by {who}: {done.bytes_freed} bytes "
        f"removed from disk; the ledger keeps its debit of {done.credits_kept} credit(s)"
    )


for _command in (
    invoice_reprocess,
    invoice_correct,
    _decision("approve", "approved"),
    _decision("reject", "rejected"),
    invoice_delete,
):
    invoice.add_command(_command)


@click.group()
def training() -> None:
    """Training data from the invoices people reviewed (scripts/train-extractor --reviewed-dir)."""


@training.command("export")
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@click.option("--tenant", "tenant_id", default=None, help="only this tenant's invoices (default: every tenant)")
@click.option("--since", default=None, help="only invoices approved on or after this date (YYYY-MM-DD)")
@click.pass_obj
def training_export(settings, out: Path, tenant_id: str | None, since: str | None) -> None:
    """Write the approved invoices (file, corrected data, text read) into OUT for retraining."""
    from appliance.approved_export import export_reviewed
    from appliance.tenants import parse_uuid

    if since is not None:
        import datetime as dt

        try:
            since = dt.date.fromisoformat(since).isoformat()
        except ValueError:
            raise click.BadParameter(f"{since!r} is not a date (YYYY-MM-DD)", param_hint="--since") from None
    tenant = parse_uuid(tenant_id) or tenant_id if tenant_id else None
    count = with_db(settings, lambda db: export_reviewed(db, out, tenant, since))
    click.echo(f"exported {count} approved invoice(s) to {out}")
    click.echo(f"train with: scripts/train-extractor --reviewed-dir {out}")
