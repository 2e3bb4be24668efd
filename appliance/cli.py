"""The operator CLI ``appliance`` (click). Command words are a contract: scripts rely on them.

Exit codes come from the exception tree (``appliance.errors``): 78 config, 65 bad input,
66 not found, 75 temporary, 1 otherwise.
"""
from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import click

from appliance.cli_common import with_db
from appliance.errors import ApplianceError
from appliance.settings import Settings, load_settings


def _run(coro):
    return asyncio.run(coro)


class ApplianceGroup(click.Group):
    """Turns our exceptions into a one-line message and their exit code."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ApplianceError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(exc.exit_code)


@click.group(cls=ApplianceGroup)
@click.option("--config", "config_path", type=click.Path(path_type=Path), envvar="APPLIANCE_CONFIG",
              help="config.toml to read (default: ./config.toml when present)")
@click.option("--data-dir", type=click.Path(path_type=Path), envvar="APPLIANCE_DATA_DIR",
              help="data directory (default: from the config)")
@click.pass_context
def main(ctx: click.Context, config_path: Path | None, data_dir: Path | None) -> None:
    """Invoice extraction appliance: operator commands."""
    from appliance.logs import setup_logging

    settings = load_settings(config_path, data_dir)
    setup_logging(settings.log.level, settings.log.format)
    ctx.obj = settings


@main.command()
@click.pass_obj
def init(settings: Settings) -> None:
    """Create or migrate the database and folders (harmless to run twice)."""
    from appliance.server import prepare_data_dir

    applied = prepare_data_dir(settings)
    click.echo(f"data dir {settings.data_dir}: " + (f"applied {', '.join(applied)}" if applied else "up to date"))


@main.command()
@click.option("--skip", multiple=True, type=click.Choice(["data_dir", "database", "ocr", "llm", "ray"]),
              help="leave a check out (repeatable)")
@click.pass_obj
def check(settings: Settings, skip: tuple[str, ...]) -> None:
    """Preflight: data dir, database and migrations, OCR engine, model files, Ray. One line per
    check; exits 78 when any fails."""
    from appliance.checks import run_checks

    results = run_checks(settings, skip)
    for result in results:
        click.echo(result.line())
    if not all(result.ok for result in results):
        sys.exit(78)  # EX_CONFIG, like every other "this host is not set up to serve" error


@main.group("config")
def config_group() -> None:
    """The effective configuration."""


@config_group.command("show")
@click.option("--json", "as_json", is_flag=True, help="a JSON list of {key, value, origin}")
@click.pass_context
def config_show(ctx: click.Context, as_json: bool) -> None:
    """Every setting with where its value came from (default, file, environment); secrets masked."""
    from appliance.config_show import effective, render
    from appliance.settings import load_settings_with_origins

    root = ctx.find_root().params  # the group's --config and --data-dir, parsed again with origins
    settings, origins = load_settings_with_origins(root["config_path"], root["data_dir"])
    rows = effective(settings, origins)
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for line in render(rows):
        click.echo(line)


@main.command()
@click.option("--host", default=None, help="address to bind (default: server.host)")
@click.option("--port", default=None, type=int, help="port (default: server.port)")
@click.pass_obj
def serve(settings: Settings, host: str | None, port: int | None) -> None:
    """Run the API, the dispatcher and the extraction pool."""
    from appliance.server import serve as run_server

    _run(run_server(settings, host or settings.server.host, port or settings.server.port))


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.pass_obj
def backup(settings: Settings, path: Path) -> None:
    """Write the database (online snapshot), uploaded files and a manifest to PATH
    (a new directory, or PATH.tar.gz); safe while the server runs. models/ is left out."""
    from appliance.backup import backup as make_backup

    done = make_backup(settings, path)
    click.echo(f"backup {done.path}: {done.counts.get('invoices', 0)} invoice(s), "
               f"{done.counts.get('ledger', 0)} ledger row(s), {done.files} file(s), {done.bytes} bytes")


@main.command()
@click.argument("path", type=click.Path(path_type=Path, exists=True))
@click.option("--force", is_flag=True, help="replace the data dir's existing database and files")
@click.pass_obj
def restore(settings: Settings, path: Path, force: bool) -> None:
    """Restore a backup (directory or .tar.gz) into the data dir, then migrate it.
    Refuses while a server runs on the data dir."""
    from appliance.backup import restore as run_restore

    done = run_restore(settings, path, force=force)
    click.echo(f"restored {done.path} into {settings.data_dir}: {done.counts.get('invoices', 0)} invoice(s), "
               f"{done.files} file(s)")


@main.group()
def tenant() -> None:
    """Tenants (workspaces)."""


@tenant.command("create")
@click.option("--name", required=True)
@click.option("--credits", default=0, type=int, show_default=True, help="opening credits (ledger grant)")
@click.option("--json", "as_json", is_flag=True, help="last line is {\"tenantId\": ..., \"apiKey\": ...}")
@click.pass_obj
def tenant_create(settings: Settings, name: str, credits: int, as_json: bool) -> None:
    """Create a tenant and print its id and API key (shown only this once)."""
    from appliance.tenants import create_tenant

    created, key = with_db(settings, lambda db: create_tenant(db, name, credits))
    click.echo(f"tenant {created.id} ({created.name}) created with {credits} credits")
    click.echo(f"API key (shown once): {key}")
    if as_json:
        click.echo(json.dumps({"tenantId": created.id, "apiKey": key}))


@tenant.command("update")
@click.argument("tenant_id")
@click.option("--company-name", default=None, help="the tenant's own company name")
@click.option("--tax-id", default=None, help="the tenant's own VAT or tax id")
@click.pass_obj
def tenant_update(settings: Settings, tenant_id: str, company_name: str | None, tax_id: str | None) -> None:
    """Set the tenant's own company: invoices it issued come back with direction "receivable"."""
    from appliance.tenants import update_tenant

    with_db(settings, lambda db: update_tenant(db, tenant_id, company_name=company_name, tax_id=tax_id))
    click.echo(f"tenant {tenant_id} updated")


@main.group()
def key() -> None:
    """API keys: one active key per tenant."""


@key.command("rotate")
@click.argument("tenant_id")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def key_rotate(settings: Settings, tenant_id: str, as_json: bool) -> None:
    """Issue a new key; the old one stops working on the next request."""
    from appliance.tenants import rotate_key

    new = with_db(settings, lambda db: rotate_key(db, tenant_id))
    click.echo(f"API key (shown once): {new}")
    if as_json:
        click.echo(json.dumps({"tenantId": tenant_id, "apiKey": new}))


@key.command("revoke")
@click.argument("tenant_id")
@click.pass_obj
def key_revoke(settings: Settings, tenant_id: str) -> None:
    """Revoke the tenant's key; every request with it gets 401 from now on."""
    from appliance.tenants import revoke_key

    count = with_db(settings, lambda db: revoke_key(db, tenant_id))
    click.echo(f"revoked {count} key(s) of tenant {tenant_id}")


@main.group()
def credits() -> None:
    """The credit ledger."""


@credits.command("grant")
@click.argument("tenant_id")
@click.argument("amount", type=int)
@click.option("--note", default=None)
@click.pass_obj
def credits_grant(settings: Settings, tenant_id: str, amount: int, note: str | None) -> None:
    """Add AMOUNT credits (negative takes them back); written to the ledger."""
    from appliance.ledger import grant
    from appliance.tenants import parse_uuid

    balance = with_db(settings, lambda db: grant(db, parse_uuid(tenant_id) or tenant_id, amount, note))
    click.echo(f"tenant {tenant_id}: balance {balance}")


@main.group()
def vendor() -> None:
    """Vendors of a tenant (``vendorId`` on upload)."""


@vendor.command("add")
@click.argument("tenant_id")
@click.option("--name", required=True)
@click.option("--tax-id", default=None, help="VAT or tax id; matches invoices to this vendor")
@click.option("--template", "template_path", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="an invoice2data YAML template for this vendor's invoices (tier 1)")
@click.pass_obj
def vendor_add(settings: Settings, tenant_id: str, name: str, tax_id: str | None, template_path: Path | None) -> None:
    """Create a vendor and print its id (clients pass it as vendorId)."""
    from appliance.vendors import create_vendor

    template = template_path.read_text() if template_path else None
    click.echo(with_db(settings, lambda db: create_vendor(db, tenant_id, name, tax_id, template)))


@vendor.command("list")
@click.argument("tenant_id")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def vendor_list(settings: Settings, tenant_id: str, as_json: bool) -> None:
    """The tenant's vendors: id, name, tax id, template, invoices seen."""
    from appliance.vendors import list_vendors

    rows = with_db(settings, lambda db: list_vendors(db, tenant_id))
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        click.echo(f"{row['id']}  {row['name']}  tax_id={row['tax_id'] or '-'}  "
                   f"template={row['template_name'] or '-'}  invoices={row['invoices']}")


@vendor.command("show")
@click.argument("vendor_id")
@click.pass_obj
def vendor_show(settings: Settings, vendor_id: str) -> None:
    """One vendor with its template."""
    from appliance.vendors import show_vendor

    click.echo(json.dumps(with_db(settings, lambda db: show_vendor(db, vendor_id)), indent=2,
                          ensure_ascii=False))


@main.group()
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


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="write DIR/<path relative to the given folder>.json instead of printing")
@click.option("--visual-only", is_flag=True, help="ignore PDF text layers: render and OCR every page")
@click.pass_obj
def extract(settings: Settings, paths: tuple[Path, ...], out_dir: Path | None, visual_only: bool) -> None:
    """Run the pipeline on files or folders (.pdf .jpg .jpeg .png, recursively), in parallel on the pool."""
    from appliance.batch import collect, run_batch, write_record

    items = collect(list(paths))
    if not items:
        raise click.UsageError("no .pdf, .jpg, .jpeg or .png files found")
    settings.models_dir.mkdir(parents=True, exist_ok=True)

    async def go() -> int:
        started, failed, done = time.perf_counter(), 0, 0
        async for item, record in run_batch(settings, items, visual_only=visual_only):
            done += 1
            failed += record["processingStatus"] == "failed"
            if out_dir is None:
                click.echo(json.dumps(record, ensure_ascii=False))
            else:
                write_record(out_dir, item, record)
                click.echo(f"[{done}/{len(items)}] {item.relative} {record['processingStatus']} "
                           f"{record['seconds']:.1f}s", err=True)
        click.echo(f"{len(items)} file(s) in {time.perf_counter() - started:.1f} s, {failed} failed", err=True)
        return failed

    _run(go())


# Queue and review commands live in their own modules (one job each) and attach here.
from appliance.cli_jobs import jobs  # noqa: E402
from appliance.cli_review import REVIEW_COMMANDS  # noqa: E402

main.add_command(jobs)
for _command in REVIEW_COMMANDS:
    invoice.add_command(_command)


if __name__ == "__main__":
    main()
