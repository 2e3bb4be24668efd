"""``appliance retention run``: remove now the stored files that ``retention.days`` says have
been kept long enough (the server does it every ``retention.interval_minutes``). The work is in
``appliance.retention``; this module only parses arguments and prints."""

from __future__ import annotations

import click

from appliance.cli.common import with_db


@click.group()
def retention() -> None:
    """Stored files of approved invoices, removed after retention.days (the data stays)."""


@retention.command("run")
@click.option(
    "--days",
    type=click.IntRange(min=1),
    default=None,
    help="remove the files of invoices approved more than this many days ago (default: retention.days)",
)
@click.option("--dry-run", is_flag=True, help="remove nothing: say how many files would go")
@click.pass_obj
def retention_run(settings, days: int | None, dry_run: bool) -> None:
    """Remove the stored files and page images of invoices approved more than N days ago; their
    extracted data, corrections and ledger rows stay. Exit 65 when retention is off and no
    --days is given."""
    from appliance.retention import run_now

    swept = with_db(settings, lambda db: run_now(db, settings, days, dry_run=dry_run))
    if dry_run:
        click.echo(f"would remove {swept.files} file(s), {swept.bytes} bytes (page images not counted)")
        return
    click.echo(f"removed {swept.files} file(s), {swept.bytes} bytes freed")
    if swept.failed:
        click.echo(f"error: {swept.failed} file(s) could not be removed (see the log); run again", err=True)
        raise SystemExit(1)
