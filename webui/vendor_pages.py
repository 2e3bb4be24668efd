"""Vendors made and edited in the browser (issue 28), beside the vendor pages of ``webui.app``,
which registers ``routes()``. Admins change, reviewers read:

- **New vendor** (the form under the vendors list): a name, a tax id and an optional template,
  through ``appliance.vendors.create_vendor``, the function ``appliance vendor add`` calls.
- **Identifiers** (the vendor page): its name and tax id, which extracted invoices are matched
  by (``appliance.vendors.update_vendor``, as ``appliance vendor update``).
- **Template** (``/vendors/{id}/template``): the vendor's hand-written invoice2data template in
  a text area. Save checks it first (``appliance.vendors.set_template``, as ``appliance vendor
  update --template``: a template that does not load is refused with where and why, and nothing
  is saved). **Try on this invoice** runs
  the text as it is in the area on one of the tenant's invoices through the pipeline's own
  template step, on the text the pipeline read from it (``appliance.template_trial``: no OCR,
  no model), and shows what it reads; nothing is saved. Reviewers see the template, read-only.

Another tenant's vendor or invoice is 404, a reviewer gets 403 on every change (``admin_only``),
and every form carries the session's CSRF token (403 without it). The pages' stylesheet is
``static/vendor.css``; they need no script.
"""

from __future__ import annotations

from typing import Any

import aiohttp_jinja2
from aiohttp import web

from appliance import template_trial, vendors
from appliance.db import Database
from appliance.errors import BadRequest, NotFound
from appliance.users import User
from pipeline.schema import LINE_FIELDS
from webui.access import DB, PREFIX, USER, admin_only, logged_in
from webui.labels import TEMPLATE_HELPERS
from webui.session import check_csrf

# What a new template starts from: the shape of an invoice2data template, to be filled in.
TEMPLATE_SKELETON = """issuer: {name}
keywords:
  - {name}
fields:
  invoice_number: Invoice No:\\s+(\\S+)
  amount: Total\\s+([\\d.,]+)
  date: Date:\\s+(\\d{{4}}-\\d{{2}}-\\d{{2}})
options:
  currency: EUR
  date_formats:
    - "%Y-%m-%d"
"""


def routes() -> list[web.AbstractRouteDef]:
    """The vendor routes of this module, relative to the review app."""
    return [
        web.post("/vendors", vendor_create),
        web.post("/vendors/{id}/identifiers", vendor_identifiers),
        web.get("/vendors/{id}/template", template_page),
        web.post("/vendors/{id}/template", template_save),
        web.post("/vendors/{id}/template/preview", template_preview),
    ]


@admin_only
async def vendor_create(request: web.Request) -> web.Response:
    """A new vendor of the tenant (``appliance.vendors.create_vendor``, as ``appliance vendor
    add``): its page next (302); refused with the form and the reason (400: no name, a template
    that does not load), what was typed kept."""
    user = request[USER]
    form = await request.post()
    await check_csrf(request, form)
    typed = {key: str(form.get(key, "")) for key in ("name", "tax_id", "template")}
    template = typed["template"].replace("\r\n", "\n")  # a browser's textarea sends CRLF
    tax_id = typed["tax_id"].strip() or None
    try:
        vendor_id = await vendors.create_vendor(
            request.app[DB], user.tenant_id, typed["name"], tax_id, template if template.strip() else None
        )
    except BadRequest as exc:
        context = {"user": user, "typed": typed, "errors": [exc.message]}
        return aiohttp_jinja2.render_template("vendor_new.html", request, context, status=400)
    raise web.HTTPFound(f"{PREFIX}/vendors/{vendor_id}")


@admin_only
async def vendor_identifiers(request: web.Request) -> web.Response:
    """Set the vendor's name and tax id (``appliance.vendors.update_vendor``); back to its page
    (302), or the page with the reason (400)."""
    from webui import app as review  # the vendor page is webui.app's

    user = request[USER]
    form = await request.post()
    await check_csrf(request, form)
    vendor = await vendors.tenant_vendor(request.app[DB], user.tenant_id, request.match_info["id"])
    try:
        await vendors.update_vendor(
            request.app[DB], user.tenant_id, vendor["id"], str(form.get("name", "")), str(form.get("tax_id", ""))
        )
    except BadRequest as exc:
        return await review.vendor_page(request, errors=[exc.message], status=400)
    raise web.HTTPFound(f"{PREFIX}/vendors/{vendor['id']}")


async def _page(
    request: web.Request,
    user: User,
    vendor: dict[str, Any],
    *,
    text: str | None = None,
    invoice_id: str = "",
    trial: template_trial.TemplateTrial | None = None,
    errors: list[str] | None = None,
    status: int = 200,
) -> web.Response:
    """The template page: ``text`` in the editor (None: the saved template, or the skeleton of
    a new one), the invoices to try it on, and the ``trial``'s result when there is one."""
    db = request.app[DB]
    if text is None:
        text = vendor["template"] or TEMPLATE_SKELETON.format(name=vendor["name"])
    context = TEMPLATE_HELPERS | {
        "user": user,
        "vendor": vendor,
        "text": text,
        "saved": text == (vendor["template"] or ""),
        "choices": await vendors.vendor_invoices(db, user.tenant_id, vendor["id"]),
        "invoice_id": invoice_id,
        "trial": trial,
        "line_columns": _filled_columns(trial.line_items) if trial else [],
        "errors": errors or [],
    }
    return aiohttp_jinja2.render_template("vendor_template.html", request, context, status=status)


def _filled_columns(items: list[dict[str, Any]]) -> list[str]:
    """The line-item fields (spec 2.10, in its order) that at least one of ``items`` has."""
    return [name for name in LINE_FIELDS if any(item.get(name) is not None for item in items)]


async def template_page(request: web.Request) -> web.Response:
    """The vendor's template: an editor for admins, the text for reviewers."""
    user = await logged_in(request)
    vendor = await vendors.tenant_vendor(request.app[DB], user.tenant_id, request.match_info["id"])
    return await _page(request, user, vendor)


async def _template_form(request: web.Request) -> tuple[User, Any, Database, dict, str]:
    """(user, form, database, the tenant's vendor of the path, the template text typed) of an
    admin's POST on a vendor's template, its CSRF token checked (403 without; 404 for a vendor
    that is not the tenant's)."""
    user = request[USER]
    form = await request.post()
    await check_csrf(request, form)
    db = request.app[DB]
    vendor = await vendors.tenant_vendor(db, user.tenant_id, request.match_info["id"])
    return user, form, db, vendor, str(form.get("template", ""))


@admin_only
async def template_save(request: web.Request) -> web.Response:
    """Save the template of the form (``appliance.vendors.set_template``; empty: the vendor has
    none): back to the page (302), or the page with where and why it does not load and the
    text as typed (400; nothing saved)."""
    user, form, db, vendor, text = await _template_form(request)
    try:
        await vendors.set_template(db, user.tenant_id, vendor["id"], text)
    except BadRequest as exc:
        return await _page(request, user, vendor, text=text, errors=[exc.message], status=400)
    raise web.HTTPFound(f"{PREFIX}/vendors/{vendor['id']}/template")


@admin_only
async def template_preview(request: web.Request) -> web.Response:
    """Try the template of the form, unsaved, on the invoice chosen (the list's, or the id typed)
    (``appliance.template_trial.try_template``): the page with what it reads. The page with the
    reason: 400 for a template that does not load, no invoice chosen or one with no text; 404 for
    an invoice that is not the tenant's."""
    user, form, db, vendor, text = await _template_form(request)
    invoice_id = str(form.get("invoice_id", "")).strip() or str(form.get("invoice", "")).strip()
    try:
        if not invoice_id:
            raise BadRequest("Choose an invoice to try the template on, or type its id.")
        trial = await template_trial.try_template(db, user.tenant_id, vendor["id"], invoice_id, text)
    except (BadRequest, NotFound) as exc:
        errors = [exc.message]
        return await _page(request, user, vendor, text=text, invoice_id=invoice_id, errors=errors, status=exc.status)
    return await _page(request, user, vendor, text=text, invoice_id=trial.invoice_id, trial=trial)
