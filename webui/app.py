"""The ``/review`` sub-app: routes, the session middleware and the templates (package docstring)."""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import web
from aiohttp_session import session_middleware

from appliance import invoices, profiles, review, vendors
from appliance.billing import Billing
from appliance.correction_values import header_value, line_value
from appliance.db import Database
from appliance.errors import ApplianceError, BadRequest, NotFound
from appliance.settings import Settings
from appliance.users import LoginFailed, User, log_in
from pipeline.schema import HEADER_FIELDS, LINE_FIELDS, ProcessingStatus
from webui import billing as billing_pages
from webui import keys as key_pages
from webui import lifecycle, page_images, security, vendor_pages
from webui.access import DB, PREFIX, SETTINGS, USER, admin_only
from webui.export import export_routes
from webui.session import check_csrf, csrf_token, current_user, log_in_session, log_out_session, storage

QUEUE_LIMIT = 200
DECISIONS = {"approve": "approved", "reject": "rejected"}
PROFILE_ACTIONS = (
    *("freeze", "thaw", "forget", "forget_invoice"),
    *("edit", "strike_identifier", "strike_label", "clear_edits"),
)
STATUS_FILTERS = ("attention", "all", *(s.value for s in ProcessingStatus))


def make_review_app(db: Database, settings: Settings, billing: Billing | None = None) -> web.Application:
    """The sub-app to mount at ``PREFIX`` (``app.add_subapp``); its key is ``<data_dir>/session.key``.
    ``billing`` is the API's (one Stripe client); None: one of its own, closed with the app."""
    app = web.Application(middlewares=[session_middleware(storage(settings.data_dir / "session.key")), html_errors])
    app[DB], app[SETTINGS] = db, settings
    app.on_response_prepare.append(security.headers)
    billing_pages.attach(app, billing)
    aiohttp_jinja2.setup(
        app,
        loader=jinja2.PackageLoader("webui", "templates"),
        autoescape=jinja2.select_autoescape(default=True),
        context_processors=[_context],
    )
    app.add_routes(
        [
            web.get("/login", login_page),
            web.post("/login", login_submit),
            web.post("/logout", logout),
            web.get("/", queue_page),
            web.get("/invoices/{id}", invoice_page),
            web.post("/invoices/{id}", invoice_save),
            web.get("/invoices/{id}/pages/{number}", page_file),
            web.get("/vendors", vendors_page),
            web.get("/vendors/{id}", vendor_page),
            web.post("/vendors/{id}", vendor_change),
        ]
    )
    app.add_routes(security.routes())  # /static: the pages' scripts and stylesheets
    app.add_routes(lifecycle.routes())  # reprocess, delete, next (issue 28)
    app.add_routes(export_routes())
    app.add_routes(key_pages.routes())
    app.add_routes(billing_pages.routes())
    app.add_routes(vendor_pages.routes())  # new vendor, identifiers, template editor and its trial
    return app


@web.middleware
async def html_errors(request: web.Request, handler):
    """Errors as a page for people (the API's error middleware answers JSON): 400, 403, 404."""
    try:
        return await handler(request)
    except ApplianceError as exc:
        status, message = exc.status, exc.message
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        status, message = exc.status, exc.text or exc.reason
    context = {"status": status, "reason": HTTPStatus(status).phrase, "message": message, "user": None}
    return aiohttp_jinja2.render_template("error.html", request, context, status=status)


async def _context(request: web.Request) -> dict:
    return {"csrf": await csrf_token(request), "prefix": PREFIX}


async def _user(request: web.Request) -> User:
    """The logged-in user; else a redirect to the log-in page (HTTPFound)."""
    user = await current_user(request, request.app[DB])
    if user is None:
        raise web.HTTPFound(f"{PREFIX}/login")
    return user


async def login_page(request: web.Request) -> web.Response:
    return aiohttp_jinja2.render_template("login.html", request, {"error": None, "email": ""})


async def login_submit(request: web.Request) -> web.Response:
    form = await request.post()
    await check_csrf(request, form)
    email = str(form.get("email", ""))
    try:
        user = await log_in(request.app[DB], email, str(form.get("password", "")))
    except LoginFailed as exc:
        context = {"error": exc.message, "email": email}
        return aiohttp_jinja2.render_template("login.html", request, context, status=401)
    await log_in_session(request, request.app[DB], user)
    raise web.HTTPFound(f"{PREFIX}/")


async def logout(request: web.Request) -> web.Response:
    await check_csrf(request, await request.post())
    await log_out_session(request, request.app[DB])
    raise web.HTTPFound(f"{PREFIX}/login")


async def queue_page(request: web.Request) -> web.Response:
    """The tenant's invoices, Needs Attention first; filters: status, vendor, created from/to."""
    user = await _user(request)
    status = request.query.get("status", "all")
    status = status if status in STATUS_FILTERS else "all"
    vendor, since, until = (request.query.get(k, "").strip() for k in ("vendor", "from", "to"))
    where, params = ["i.tenant_id = ?"], [user.tenant_id]
    if status == "attention":
        where.append("i.processing_status IN ('needs_review', 'failed')")
    elif status != "all":
        where.append("i.processing_status = ?")
        params.append(status)
    if vendor:
        where.append("(v.name LIKE ? OR json_extract(i.data_json, '$.vendor_name') LIKE ?)")
        params += [f"%{vendor}%"] * 2
    if since:
        where.append("i.created_at >= ?")
        params.append(since)
    if until:
        where.append("i.created_at < date(?, '+1 day')")
        params.append(until)
    db = request.app[DB]
    rows = await db.fetchall(
        "SELECT i.id, i.status, i.processing_status, i.invoice_number, i.total_amount, i.created_at, "
        "i.validation_errors_json, i.processing_error, COALESCE(v.name, json_extract(i.data_json, '$.vendor_name')) "
        "AS vendor FROM invoices i LEFT JOIN vendors v ON v.id = i.vendor_id WHERE "
        + " AND ".join(where)
        + " ORDER BY i.processing_status != 'needs_review', i.created_at DESC LIMIT ?",
        (*params, QUEUE_LIMIT),
    )
    counts = await db.fetchall(
        "SELECT processing_status, COUNT(*) AS n FROM invoices WHERE tenant_id = ? GROUP BY processing_status",
        (user.tenant_id,),
    )
    context = {
        "user": user,
        "rows": [dict(row) | {"reason": _reason(row)} for row in rows],
        "counts": {row["processing_status"]: row["n"] for row in counts},
        "filters": {"status": status, "vendor": vendor, "from": since, "to": until},
        "statuses": STATUS_FILTERS,
    }
    return aiohttp_jinja2.render_template("queue.html", request, context)


def _reason(row) -> str:
    errors = json.loads(row["validation_errors_json"] or "[]")
    return row["processing_error"] or "; ".join(errors)


async def _file(db: Database, invoice_id: str) -> tuple[Path, str] | None:
    row = await db.fetchone(  # a file retention removed has no pages to show
        "SELECT path, media_type FROM files WHERE invoice_id = ? AND purged_at IS NULL", (invoice_id,)
    )
    return (Path(row["path"]), row["media_type"]) if row else None


async def invoice_page(request: web.Request, errors: list[str] | None = None, status: int = 200) -> web.Response:
    """One invoice: its pages, the fields of spec 2.9 with confidence and source, line items,
    validation errors, the review trail. Another tenant's invoice is 404, as in the API."""
    user = await _user(request)
    db, settings = request.app[DB], request.app[SETTINGS]
    body = await invoices.get_invoice(db, request.match_info["id"], user.tenant_id, operator=True)
    stored = await _file(db, body["id"])
    views = await asyncio.to_thread(page_images.pages, stored[0], stored[1], settings.ocr.dpi) if stored else []
    data = body["data"] or review.empty_data()
    context = {
        "user": user,
        "invoice": body,
        "data": data,
        "header_fields": HEADER_FIELDS,
        "line_fields": LINE_FIELDS,
        "evidence": body.get("evidence") or {},
        "pages": views,
        "field_errors": _field_errors(body["validationErrors"]),
        "errors": errors or [],
        "editable": body["ready"],
    }
    context.update(await lifecycle.invoice_extras(db, user, body))  # words, money, admin-only fields
    return aiohttp_jinja2.render_template("invoice.html", request, context, status=status)


def _field_errors(messages: list[str]) -> dict[str, list[str]]:
    """The validation errors that name a field (``subtotal``, ``line items``...), by field, so
    that the page shows each beside the field it is about (pipeline.values.validate words them so)."""
    by_field: dict[str, list[str]] = {}
    for name in (*HEADER_FIELDS, "line_items"):
        words = name.replace("_", " ")
        found = [m for m in messages if words in m.lower()]
        if found:
            by_field[name] = found
    return by_field


async def invoice_save(request: web.Request) -> web.Response:
    """Save the changed fields as corrections (``appliance.review.correct``, as the CLI), then
    apply the decision of the button pressed (``approve``/``reject``, ``appliance.review.decide``)
    and open the next invoice that needs attention (``webui.lifecycle.next_url``); Save stays."""
    user = await _user(request)
    form = await request.post()
    await check_csrf(request, form)
    db, invoice_id = request.app[DB], request.match_info["id"]
    body = await invoices.get_invoice(db, invoice_id, user.tenant_id)  # NotFound for another tenant's
    data = body["data"] or review.empty_data()
    try:
        fields, lines = _changes(form, data)
        if fields or lines:
            await review.correct(db, body["id"], fields, lines, by=user.email)
        action = form.get("action", "save")
        if action in DECISIONS:
            await review.decide(db, body["id"], DECISIONS[action], by=user.email)
    except ApplianceError as exc:
        if isinstance(exc, NotFound):
            raise
        return await invoice_page(request, errors=[exc.message], status=400)
    if form.get("action") in DECISIONS:  # decided: on to the next invoice that needs attention
        raise web.HTTPFound(await lifecycle.next_url(db, user.tenant_id, body["id"]))
    raise web.HTTPFound(f"{PREFIX}/invoices/{body['id']}")


def _changes(form, data: dict) -> tuple[list[str], list[tuple[int, str]]]:
    """``field=value`` of each header field and ``(line, field=value)`` of each line-item cell
    whose value in the form differs from the data shown (typed compare: ``12.50`` == ``12.5``)."""
    fields = []
    for name in HEADER_FIELDS:
        key = f"f.{name}"
        if key in form and header_value(name, str(form[key])) != data.get(name):
            fields.append(f"{name}={form[key]}")
    lines = []
    for number, item in enumerate(data.get("line_items") or [], start=1):
        for name in LINE_FIELDS:
            key = f"l.{number}.{name}"
            if key in form and line_value(name, str(form[key])) != item.get(name):
                lines.append((number, f"{name}={form[key]}"))
    return fields, lines


async def page_file(request: web.Request) -> web.Response:
    """Page N of the invoice's file as an image (a PNG for PDF pages)."""
    user = await _user(request)
    db = request.app[DB]
    body = await invoices.get_invoice(db, request.match_info["id"], user.tenant_id)
    stored = await _file(db, body["id"])
    try:
        number = int(request.match_info["number"])
        if stored is None:
            raise IndexError(number)
        content, media_type = await asyncio.to_thread(page_images.page_image, stored[0], stored[1], number)
    except (ValueError, IndexError):
        raise NotFound("No such page") from None
    return web.Response(body=content, content_type=media_type)  # Cache-Control: no-store (webui.security)


async def vendors_page(request: web.Request) -> web.Response:
    """The tenant's vendors with what approvals taught each (approvals, frozen), by name."""
    user = await _user(request)
    db = request.app[DB]
    rows = await vendors.list_vendors(db, user.tenant_id)
    learned = {
        row["vendor_id"]: row
        for row in await db.fetchall(
            "SELECT vendor_id, frozen, json_array_length(profile_json, '$.invoices') AS approvals "
            "FROM vendor_profiles WHERE tenant_id = ?",
            (user.tenant_id,),
        )
    }
    for row in rows:
        profile = learned.get(row["id"])
        row["approvals"] = profile["approvals"] if profile else 0
        row["frozen"] = bool(profile and profile["frozen"])
    return aiohttp_jinja2.render_template("vendors.html", request, {"user": user, "rows": rows})


async def _tenant_vendor(request: web.Request, user: User) -> dict:
    """The vendor of the route's id; NotFound for another tenant's, as in the API."""
    vendor = await vendors.show_vendor(request.app[DB], request.match_info["id"])
    if vendor["tenant_id"] != user.tenant_id:
        raise NotFound(f"vendor {request.match_info['id']} not found")
    return vendor


async def vendor_page(request: web.Request, errors: list[str] | None = None, status: int = 200) -> web.Response:
    """One vendor: its identifiers and template name, and the profile its approvals taught
    (``appliance.profiles.show``: identifiers, label habits, invoices, history); an admin can
    freeze, thaw or forget it, or forget one invoice's teaching."""
    user = await _user(request)
    vendor = await _tenant_vendor(request, user)
    try:
        profile = await profiles.show(request.app[DB], vendor["id"])
    except NotFound:
        profile = None
    context = {"user": user, "vendor": vendor, "profile": profile, "errors": errors or []}
    return aiohttp_jinja2.render_template("vendor.html", request, context, status=status)


@admin_only
async def vendor_change(request: web.Request) -> web.Response:
    """An admin's change to the vendor's learned profile (``PROFILE_ACTIONS``; an edit as
    ``appliance.profiles.edit``), written to its history with the admin's e-mail; 403 for a
    reviewer, 400 (the page with the reason) for an edit the profile cannot take."""
    user = request[USER]
    form = await request.post()
    await check_csrf(request, form)
    vendor = await _tenant_vendor(request, user)
    db, action = request.app[DB], str(form.get("action", ""))
    try:
        if action == "freeze" or action == "thaw":
            await profiles.set_frozen(db, vendor["id"], action == "freeze", user.email)
        elif action == "forget":
            await profiles.reset(db, vendor["id"], user.email)
        elif action == "forget_invoice":
            invoice_id = str(form.get("invoice", ""))
            shown = await profiles.show(db, vendor["id"])
            if invoice_id not in shown["invoices"]:
                raise NotFound(f"invoice {invoice_id} taught this vendor's profile nothing")
            await profiles.forget_invoice(db, invoice_id, user.email)
        elif action == "edit":
            pins = {key: str(form.get(key, "")) for key in ("name", "currency")}
            await profiles.edit(db, vendor["id"], user.email, **pins)
        elif action == "strike_identifier":
            await profiles.edit(db, vendor["id"], user.email, strike_identifier=str(form.get("identifier", "")))
        elif action == "strike_label":
            await profiles.edit(db, vendor["id"], user.email, strike_label=str(form.get("label", "")))
        elif action == "clear_edits":
            await profiles.edit(db, vendor["id"], user.email, clear=True)
        else:
            raise web.HTTPBadRequest(text=f"action must be one of {', '.join(PROFILE_ACTIONS)}")
    except NotFound as exc:
        return await vendor_page(request, errors=[exc.message], status=404)
    except BadRequest as exc:
        return await vendor_page(request, errors=[exc.message], status=400)
    raise web.HTTPFound(f"{PREFIX}/vendors/{vendor['id']}")
