"""Tenants and what belongs to them: ``tenant``, ``key``, ``credits`` and ``vendor``. Each
command parses its arguments and calls ``appliance.tenants``, ``appliance.ledger`` or
``appliance.vendors`` on the data dir's database (``common.with_db``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from appliance.cli.common import with_db
from appliance.settings import Settings


@click.group()
def tenant() -> None:
    """Tenants (workspaces)."""


@click.group()
def key() -> None:
    """API keys: one active key per tenant."""


@click.group()
def credits() -> None:
    """The credit ledger."""


@click.group()
def vendor() -> None:
    """Vendors of a tenant (``vendorId`` on upload)."""


@click.group()
def user() -> None:
    """People who review invoices in the browser (/review); API clients use keys instead."""


ACCOUNT_GROUPS = (tenant, key, credits, vendor, user)


def _echo_rows(rows: list[dict], as_json: bool, line: Callable[[dict], str], **dumps: Any) -> None:
    """A listing: ``rows`` as indented JSON (``dumps``: more json.dumps options), else one
    ``line(row)`` per row."""
    if as_json:
        click.echo(json.dumps(rows, indent=2, **dumps))
        return
    for row in rows:
        click.echo(line(row))


@tenant.command("create")
@click.option("--name", required=True)
@click.option("--credits", default=0, type=int, show_default=True, help="opening credits (ledger grant)")
@click.option("--json", "as_json", is_flag=True, help='last line is {"tenantId": ..., "apiKey": ...}')
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


@vendor.command("add")
@click.argument("tenant_id")
@click.option("--name", required=True)
@click.option("--tax-id", default=None, help="VAT or tax id; matches invoices to this vendor")
@click.option(
    "--template",
    "template_path",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="an invoice2data YAML template for this vendor's invoices (tier 1)",
)
@click.pass_obj
def vendor_add(settings: Settings, tenant_id: str, name: str, tax_id: str | None, template_path: Path | None) -> None:
    """Create a vendor and print its id (clients pass it as vendorId)."""
    from appliance.vendors import create_vendor

    template = template_path.read_text() if template_path else None
    click.echo(with_db(settings, lambda db: create_vendor(db, tenant_id, name, tax_id, template)))


@vendor.command("update")
@click.argument("vendor_id")
@click.option("--name", default=None, help="the vendor's name")
@click.option("--tax-id", default=None, help="VAT or tax id ('' removes it)")
@click.option(
    "--template",
    "template_path",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="an invoice2data YAML template, in place of the vendor's (checked first)",
)
@click.option("--no-template", is_flag=True, help="remove the vendor's template")
@click.pass_obj
def vendor_update(
    settings: Settings,
    vendor_id: str,
    name: str | None,
    tax_id: str | None,
    template_path: Path | None,
    no_template: bool,
) -> None:
    """Change a vendor's name, tax id or template, as its page in the web app does; what is not
    given stays. A template that does not load is refused (65) with where and why, and nothing
    changes."""
    from appliance.vendors import set_template, show_vendor, update_vendor, validate_template

    if template_path and no_template:
        raise click.UsageError("--template and --no-template exclude each other")
    template = template_path.read_text() if template_path else ("" if no_template else None)

    async def change(db) -> dict:
        vendor = await show_vendor(db, vendor_id)
        if template:  # refused before anything changes
            validate_template(template, name or vendor["name"])
        if name is not None or tax_id is not None:
            new_name = vendor["name"] if name is None else name
            new_tax_id = vendor["tax_id"] if tax_id is None else tax_id
            await update_vendor(db, vendor["tenant_id"], vendor["id"], new_name, new_tax_id)
        if template is not None:
            await set_template(db, vendor["tenant_id"], vendor["id"], template)
        return await show_vendor(db, vendor["id"])

    out = with_db(settings, change)
    click.echo(f"{out['id']}  {out['name']}  tax_id={out['tax_id'] or '-'}  template={out['template_name'] or '-'}")


@vendor.command("list")
@click.argument("tenant_id")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def vendor_list(settings: Settings, tenant_id: str, as_json: bool) -> None:
    """The tenant's vendors: id, name, tax id, template, invoices seen."""
    from appliance.vendors import list_vendors

    _echo_rows(with_db(settings, lambda db: list_vendors(db, tenant_id)), as_json, _vendor_line, ensure_ascii=False)


def _vendor_line(row: dict) -> str:
    return (
        f"{row['id']}  {row['name']}  tax_id={row['tax_id'] or '-'}  "
        f"template={row['template_name'] or '-'}  invoices={row['invoices']}"
    )


@vendor.command("show")
@click.argument("vendor_id")
@click.pass_obj
def vendor_show(settings: Settings, vendor_id: str) -> None:
    """One vendor with its template and the profile approvals taught (``profile``: identifiers,
    habits per field, the invoices it learnt from, its change history; null before any approval)."""
    from appliance import profiles
    from appliance.errors import NotFound
    from appliance.vendors import show_vendor

    async def both(db):
        out = await show_vendor(db, vendor_id)
        try:
            out["profile"] = await profiles.show(db, vendor_id)
        except NotFound:
            out["profile"] = None
        return out

    click.echo(json.dumps(with_db(settings, both), indent=2, ensure_ascii=False))


_BY = click.option("--by", default=None, help="who acts, for the profile's history (default: the login name)")


@vendor.command("freeze")
@click.argument("vendor_id")
@click.option("--thaw", is_flag=True, help="resume learning instead")
@_BY
@click.pass_obj
def vendor_freeze(settings: Settings, vendor_id: str, thaw: bool, by: str | None) -> None:
    """Stop (or, with --thaw, resume) learning the vendor's profile from approvals; a frozen
    profile still proposes what it learnt."""
    from appliance import profiles
    from appliance.cli.common import operator_name

    with_db(settings, lambda db: profiles.set_frozen(db, vendor_id, not thaw, by or operator_name()))
    click.echo(f"vendor {vendor_id}: profile {'learning again' if thaw else 'frozen'}")


@vendor.command("forget")
@click.argument("vendor_id")
@click.option("--invoice", "invoice_id", default=None, help="forget only what this invoice taught")
@_BY
@click.pass_obj
def vendor_forget(settings: Settings, vendor_id: str, invoice_id: str | None, by: str | None) -> None:
    """Forget what approvals taught the vendor's profile: every lesson, or one invoice's (the
    undo of a wrong approval)."""
    from appliance import profiles
    from appliance.cli.common import operator_name

    who = by or operator_name()
    if invoice_id:
        with_db(settings, lambda db: profiles.forget_invoice(db, invoice_id, who))
        click.echo(f"vendor {vendor_id}: forgot what invoice {invoice_id} taught")
    else:
        count = with_db(settings, lambda db: profiles.reset(db, vendor_id, who))
        click.echo(f"vendor {vendor_id}: forgot {count} approved invoice(s)")


@vendor.command("edit")
@click.argument("vendor_id")
@click.option("--name", default=None, help="pin the vendor name the profile proposes ('' unpins)")
@click.option("--currency", default=None, help="pin its ISO 4217 currency ('' unpins)")
@click.option("--strike-identifier", default=None, metavar="KIND:VALUE", help="never match on this identifier again")
@click.option("--strike-label", default=None, metavar="FIELD:LABEL", help="stop reading FIELD after this label key")
@click.option("--clear", is_flag=True, help="drop every edit first")
@_BY
@click.pass_obj
def vendor_edit(
    settings: Settings,
    vendor_id: str,
    name: str | None,
    currency: str | None,
    strike_identifier: str | None,
    strike_label: str | None,
    clear: bool,
    by: str | None,
) -> None:
    """Edit the vendor's learned profile by hand: what approvals taught stays, the edits apply
    over it on every rebuild (``vendor show`` lists both, and the history who edited what)."""
    from appliance import profiles
    from appliance.cli.common import operator_name

    edits = with_db(
        settings,
        lambda db: profiles.edit(
            db,
            vendor_id,
            by or operator_name(),
            name=name,
            currency=currency,
            strike_identifier=strike_identifier,
            strike_label=strike_label,
            clear=clear,
        ),
    )
    click.echo(f"vendor {vendor_id}: edits {json.dumps(edits, ensure_ascii=False)}")


@user.command("add")
@click.argument("tenant_id")
@click.option("--email", required=True)
@click.option("--role", type=click.Choice(["reviewer", "admin"]), default="reviewer", show_default=True)
@click.option("--json", "as_json", is_flag=True, help='last line is {"userId": ..., "password": ...}')
@click.pass_obj
def user_add(settings: Settings, tenant_id: str, email: str, role: str, as_json: bool) -> None:
    """Create a user of TENANT_ID and print its password (shown only this once)."""
    from appliance.users import add_user

    created, password = with_db(settings, lambda db: add_user(db, tenant_id, email, role))
    click.echo(f"user {created.email} ({created.role}) of tenant {created.tenant_id} created")
    click.echo(f"password (shown once): {password}")
    if as_json:
        click.echo(json.dumps({"userId": created.id, "password": password}))


@user.command("list")
@click.option("--tenant", "tenant_id", default=None, help="only this tenant's users")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def user_list(settings: Settings, tenant_id: str | None, as_json: bool) -> None:
    """Users: e-mail, role, tenant, disabled or locked."""
    from appliance.users import list_users

    _echo_rows(with_db(settings, lambda db: list_users(db, tenant_id)), as_json, _user_line)


def _user_line(row: dict) -> str:
    state = "disabled" if row["disabled"] else "locked" if row["locked"] else "active"
    return f"{row['email']}  {row['role']}  tenant={row['tenantId']}  {state}"


@user.command("disable")
@click.argument("email")
@click.pass_obj
def user_disable(settings: Settings, email: str) -> None:
    """Disable a user: no log-in, and open sessions end at their next request."""
    from appliance.users import disable_user

    with_db(settings, lambda db: disable_user(db, email))
    click.echo(f"user {email} disabled")


@user.command("reset-password")
@click.argument("email")
@click.pass_obj
def user_reset_password(settings: Settings, email: str) -> None:
    """Give a user a new password (shown once); clears a lock-out, ends open sessions."""
    from appliance.users import reset_password

    click.echo(f"password (shown once): {with_db(settings, lambda db: reset_password(db, email))}")
