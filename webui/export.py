"""The export pages (issue 28, "Export"), for a tenant's administrators only: the period form
that gives the accounting CSV (invoices and line items, ``appliance.export.accounting_csv``) and
the EN 16931 e-invoice downloads of an approved invoice (CII, UBL, Factur-X PDF;
``appliance.export.einvoice``), the functions ``appliance export`` calls.

A reviewer gets 403, another tenant's invoice 404 (as in the API), an invoice that is not
approved 409, and one that lacks what EN 16931 needs 422 with the page that lists the business
terms (BT-n) it lacks. ``export_routes`` gives the routes; ``webui.app`` registers them.
"""

from __future__ import annotations

import aiohttp_jinja2
from aiohttp import web

from appliance.approved_export import approved_invoices
from appliance.errors import NotExportable
from appliance.export import accounting_csv
from appliance.export.einvoice import FORMATS, export_einvoice
from webui.access import DB, USER, admin_only

FORMAT_NAMES = {"cii": "CII XML", "ubl": "UBL XML", "facturx": "Factur-X PDF"}


def export_routes() -> list[web.RouteDef]:
    """The routes of the export pages, relative to the review sub-app."""
    return [
        web.get("/export", export_page),
        web.get("/export/invoices.csv", invoices_csv),
        web.get("/export/lines.csv", lines_csv),
        web.get("/invoices/{id}/export/{format:" + "|".join(FORMATS) + "}", einvoice_download),
    ]


@admin_only
async def export_page(request: web.Request) -> web.Response:
    """The period form (approval days ``from`` to ``to``) and how many approved invoices it holds."""
    user = request[USER]
    since, until = (request.query.get(key, "").strip() for key in ("from", "to"))
    when = accounting_csv.period(since, until)  # BadRequest: the error page, 400
    count = len(await approved_invoices(request.app[DB], user.tenant_id, when.since, when.until))
    context = {"user": user, "filters": {"from": since, "to": until}, "count": count, "formats": FORMAT_NAMES}
    return aiohttp_jinja2.render_template("export.html", request, context)


@admin_only
async def invoices_csv(request: web.Request) -> web.Response:
    """The period's invoices, one row per invoice (``invoices.csv``)."""
    return await _csv(request, "invoices")


@admin_only
async def lines_csv(request: web.Request) -> web.Response:
    """The period's line items, one row per line (``lines.csv``)."""
    return await _csv(request, "lines")


async def _csv(request: web.Request, which: str) -> web.Response:
    user = request[USER]
    since, until = (request.query.get(key, "") for key in ("from", "to"))
    when = accounting_csv.period(since, until)
    result = await accounting_csv.export_csv(request.app[DB], user.tenant_id, when)
    name = f"{which}-{when.since or 'start'}-to-{when.until or 'now'}.csv"
    return web.Response(
        text=getattr(result, which),
        content_type="text/csv",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
    )


@admin_only
async def einvoice_download(request: web.Request) -> web.Response:
    """The e-invoice of an approved invoice in the route's format, as a download; the page of
    the missing business terms (422) when the invoice lacks what EN 16931 needs."""
    user = request[USER]
    invoice_id, fmt = request.match_info["id"], request.match_info["format"]
    try:
        document = await export_einvoice(request.app[DB], invoice_id, fmt, user.tenant_id)
    except NotExportable as exc:
        context = {"user": user, "invoice_id": invoice_id, "format": FORMAT_NAMES[fmt], "problems": exc.problems}
        return aiohttp_jinja2.render_template("export_refused.html", request, context, status=exc.status)
    return web.Response(
        body=document.content,
        content_type=document.media_type,
        headers={"Content-Disposition": f'attachment; filename="{document.filename}"', "Cache-Control": "no-store"},
    )
