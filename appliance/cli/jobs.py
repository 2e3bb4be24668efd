"""``appliance jobs``: the extraction queue for operators (list, retry). The work is in
``appliance.queue.admin``; this module only parses arguments and prints."""

from __future__ import annotations

import json

import click

from appliance.cli.common import with_db
from appliance.queue.admin import STATES


@click.group()
def jobs() -> None:
    """The extraction queue: one job per uploaded invoice."""


@jobs.command("list")
@click.option(
    "--state",
    type=click.Choice(STATES),
    default=None,
    help="only jobs in this state (failed: done, and the invoice failed)",
)
@click.option("--limit", default=100, show_default=True, type=click.IntRange(min=1), help="newest first")
@click.option("--json", "as_json", is_flag=True, help="a JSON array instead of one line per job")
@click.pass_obj
def jobs_list(settings, state: str | None, limit: int, as_json: bool) -> None:
    """Jobs with their invoice, tenant, attempts, busy retries, last error and times (UTC)."""
    from appliance.queue.admin import list_jobs

    rows = with_db(settings, lambda db: list_jobs(db, state, limit))
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        tier = "-" if row["forceTier"] is None else row["forceTier"]
        click.echo(
            f"{row['id']}  {row['state']:<6}  invoice={row['invoiceId']}  tenant={row['tenantId']}  "
            f"{row['processingStatus']}  attempts={row['attempts']}  busy_retries={row['busyRetries']}  "
            f"available_at={row['availableAt']}  lease_until={row['leaseUntil'] or '-'}  tier={tier}  "
            f"last_error={row['lastError'] or '-'}"
        )


@jobs.command("retry")
@click.argument("ident", metavar="ID")
@click.pass_obj
def jobs_retry(settings, ident: str) -> None:
    """Put a done or failed job back in the queue now, attempts reset (ID: a job or an invoice
    id). No credits move. A job leased right now is refused (exit 75)."""
    from appliance.queue.admin import retry

    job = with_db(settings, lambda db: retry(db, ident))
    click.echo(f"job {job['id']} (invoice {job['invoiceId']}) queued again; no credits debited")
