"""An invoice's lifecycle on the review pages (issue 28), beside ``webui.app``, which registers
``routes()``:

- **Reprocess** (admins): extract the invoice again, optionally forcing tier 0, 1 or 2, through
  ``appliance.queue.admin.reprocess``, as ``appliance invoice reprocess`` does (spec 3.1 rule 3:
  no second debit; when the run ends, the pipeline decides the invoice's state again).
- **Delete** (admins): a page that says what goes and what stays, then
  ``appliance.deletion.delete_invoice`` (the stored file, page images and rows; the ledger keeps
  the debit), as ``appliance invoice delete`` does.
- **Next**: the next invoice of the tenant that needs attention, which "Save and approve" and
  Reject open (``next_url``) and Alt+N follows.
- The invoice page's extra context (``invoice_extras``): the wording and money formatting of
  ``webui.labels``, and the operator-only fields of spec 2.8 (extractionTier,
  extractionProvider, routingReason), which only admins see.
- The page's stylesheet and script are ``webui/static/invoice.css`` and ``invoice.js``, served
  by ``webui.security`` (no inline script: its Content-Security-Policy forbids it).

Reviewers get 403 for the admin actions, another tenant's invoice is 404 (as in the API), and
every POST carries the session's CSRF token (403 without it). Errors of the appliance come back
as the invoice page with the message (409 while a worker holds the job, 400 when there is no
file to extract again).
"""

from __future__ import annotations

from typing import Any

import aiohttp_jinja2
from aiohttp import web

from appliance import deletion, invoices
from appliance.db import Database
from appliance.errors import ApplianceError, BadRequest, NotFound
from appliance.queue import admin
from appliance.users import User
from webui import app as review
from webui.access import USER, admin_only
from webui.labels import TEMPLATE_HELPERS, currency_code
from webui.session import check_csrf

OPERATOR_FIELDS = ("extractionTier", "extractionProvider", "routingReason")
TIER_CHOICES = (
    ("", "Usual routing"),
    ("0", "Tier 0: e-invoice XML only"),
    ("1", "Tier 1: vendor template or profile only"),
    ("2", "Tier 2: rules and model only"),
)
# The queue's Needs Attention (webui.app.queue_page), less what a person has decided already.
NEEDS_ATTENTION = "processing_status IN ('needs_review', 'failed') AND review_decision IS NULL"


def routes() -> list[web.AbstractRouteDef]:
    """The routes of this module, for ``webui.app.make_review_app`` (relative to ``/review``)."""
    return [
        web.post("/invoices/{id}/reprocess", reprocess),
        web.get("/invoices/{id}/delete", delete_page),
        web.post("/invoices/{id}/delete", delete),
        web.get("/next", next_invoice),
    ]


@admin_only
async def reprocess(request: web.Request) -> web.Response:
    """POST ``/invoices/{id}/reprocess`` (form ``tier``: "", 0, 1 or 2): queue the invoice again
    (``appliance.queue.admin.reprocess``), then back to its page, which shows it queued. 403
    (reviewer, no CSRF token), 404 (another tenant's), 400 (bad tier, no file), 409 (a worker
    holds its job)."""
    user, form = request[USER], await request.post()
    await check_csrf(request, form)
    db = request.app[review.DB]
    body = await invoices.get_invoice(db, request.match_info["id"], user.tenant_id)  # NotFound: another tenant's
    try:
        await admin.reprocess(db, body["id"], _tier(str(form.get("tier", ""))))
    except NotFound:
        raise
    except ApplianceError as exc:
        return await review.invoice_page(request, errors=[exc.message], status=exc.status)
    raise web.HTTPFound(f"{review.PREFIX}/invoices/{body['id']}")


def _tier(text: str) -> int | None:
    """The form's tier: "" is the usual routing (None); else 0, 1 or 2. BadRequest otherwise."""
    if text.strip() == "":
        return None
    if text.strip() not in {"0", "1", "2"}:
        raise BadRequest(f"unknown tier {text!r}: 0 (e-invoice XML), 1 (vendor template) or 2 (rules + LLM)")
    return int(text)


@admin_only
async def delete_page(request: web.Request) -> web.Response:
    """GET ``/invoices/{id}/delete``: what deleting the invoice removes and keeps, and the button.
    403 for a reviewer, 404 for another tenant's invoice."""
    user = request[USER]
    body = await invoices.get_invoice(request.app[review.DB], request.match_info["id"], user.tenant_id)
    data = body["data"] or {}
    context = {"user": user, "invoice": body, "data": data, "currency": currency_code(data), "errors": []}
    return aiohttp_jinja2.render_template("delete.html", request, context | TEMPLATE_HELPERS)


@admin_only
async def delete(request: web.Request) -> web.Response:
    """POST ``/invoices/{id}/delete``: ``appliance.deletion.delete_invoice`` for the admin's
    tenant, then the queue. 403 (reviewer, no CSRF token), 404 (another tenant's, or deleted
    already: a second click changes nothing), 409 (a worker holds its job: the invoice page says
    so)."""
    user = request[USER]
    await check_csrf(request, await request.post())
    try:
        await deletion.delete_invoice(request.app[review.DB], request.match_info["id"], user.tenant_id, user.email)
    except NotFound:
        raise
    except ApplianceError as exc:
        return await review.invoice_page(request, errors=[exc.message], status=exc.status)
    raise web.HTTPFound(f"{review.PREFIX}/")


async def next_invoice(request: web.Request) -> web.Response:
    """GET ``/next?after=ID``: a redirect to the next invoice that needs attention (``next_url``)."""
    user = await review._user(request)
    raise web.HTTPFound(await next_url(request.app[review.DB], user.tenant_id, request.query.get("after", "")))


async def next_url(db: Database, tenant_id: str, after: str) -> str:
    """Where to go once invoice ``after`` is done: the first invoice of the tenant that needs
    attention (needs_review or failed, no approve/reject yet), other than ``after``, in the
    queue's order (needs_review first, newest first); else the queue's Needs Attention view."""
    row = await db.fetchone(
        f"SELECT id FROM invoices WHERE tenant_id = ? AND id != ? AND {NEEDS_ATTENTION} "
        "ORDER BY processing_status != 'needs_review', created_at DESC LIMIT 1",
        (tenant_id, after),
    )
    return f"{review.PREFIX}/invoices/{row['id']}" if row else f"{review.PREFIX}/?status=attention"


async def invoice_extras(db: Database, user: User, body: dict[str, Any]) -> dict[str, Any]:
    """What the invoice page adds to its context: the template helpers of ``webui.labels``, the
    invoice's currency, whether the user is an admin (then the tiers to force), and when
    retention removed its file (None while it has one). Removes the operator-only fields from
    ``body`` for anyone but an admin."""
    is_admin = user.role == "admin"
    if not is_admin:
        for key in OPERATOR_FIELDS:
            body.pop(key, None)
    file = await db.fetchone("SELECT purged_at FROM files WHERE invoice_id = ?", (body["id"],))
    return TEMPLATE_HELPERS | {
        "admin": is_admin,
        "tiers": TIER_CHOICES,
        "currency": currency_code(body["data"] or {}),
        "file_removed": file["purged_at"] if file else None,
    }
