"""``/api/v1/invoices/*`` (spec 4.5 to 4.8): prepare, attach, one-step upload, poll."""

from __future__ import annotations

import time

from aiohttp import web
from aiohttp.helpers import ETAG_ANY
from aiohttp_apigami import docs

from api.app_keys import DB, ON_ENQUEUED, QUEUE_READY, SETTINGS, TENANT
from api.docs import SECURITY, errors
from api.schemas import (
    ETAG_HEADER,
    IDEMPOTENCY_HEADER,
    IF_NONE_MATCH_HEADER,
    MAX_WAIT_SECONDS,
    UPLOAD_BODY,
    VENDOR_QUERY,
    WAIT_QUERY,
    InvoiceSchema,
    PreparedUploadSchema,
    UploadAcceptedSchema,
)
from api.uploads import received
from appliance import idempotency, invoices, uploads
from appliance.changes import RECHECK_SECONDS
from appliance.errors import BadRequest
from appliance.tenants import parse_uuid
from pipeline.schema import ProcessingStatus

routes = web.RouteTableDef()


async def _accept(request: web.Request, slot: str | None) -> web.Response:
    """Stream, check and record an upload (``appliance.uploads``, ``appliance.invoices``) into
    the slot ``slot`` (the attach path's id text; None: a one-step upload): 202 with the
    upload-accepted body, or the appliance error, with nothing kept. With an Idempotency-Key
    already recorded, the first 202 again (``appliance.idempotency``)."""
    app, tenant = request.app, request[TENANT]
    key = idempotency.key_of(request.headers)
    earlier = await idempotency.find(app[DB], tenant.id, key) if key else None
    invoice_id = None
    if earlier is None:  # a replay skips what has changed since its first 202: the slot is taken, credits spent
        if slot is not None:
            invoice_id = await invoices.check_slot(app[DB], tenant.id, slot)
        await invoices.check_balance(app[DB], tenant.id, app[SETTINGS].credits.cost_per_invoice)
    async with received(request, app[SETTINGS], tenant.id) as (upload, vendor_text):
        claim = None
        if key:
            claim = idempotency.Claim(
                key, idempotency.fingerprint(request.path, upload.sha256, upload.original_name, vendor_text)
            )
        if earlier is not None:
            return _accepted(idempotency.replay(earlier, claim), replayed=True)
        vendor_id = await invoices.check_vendor(app[DB], tenant.id, vendor_text)
        await uploads.check(app[SETTINGS], upload)
        try:
            body = await invoices.accept_upload(
                app[DB],
                app[SETTINGS],
                tenant.id,
                upload,
                invoice_id=invoice_id,
                vendor_id=vendor_id,
                queue_ready=app[QUEUE_READY],
                claim=claim,
            )
        except idempotency.KeyTaken:  # the same key raced us and won: answer as its retry
            return _accepted(idempotency.replay(await idempotency.find(app[DB], tenant.id, key), claim), replayed=True)
    app[ON_ENQUEUED]()
    return _accepted(body)


def invoice_url(invoice_id: str) -> str:
    """Where a client polls an invoice (spec 2.7's ``statusUrl``, the ``Location`` of a 202)."""
    return f"/api/v1/invoices/{invoice_id}"


def _accepted(body: dict, replayed: bool = False) -> web.Response:
    body = {**body, "statusUrl": invoice_url(body["invoice"]["id"])}
    headers = {"Location": body["statusUrl"]}
    if replayed:
        headers[idempotency.REPLAYED_HEADER] = "true"
    return web.json_response(body, status=202, headers=headers)


@docs(
    tags=["invoices"],
    operation_id="prepareUpload",
    summary="Create a pending invoice slot (no debit)",
    security=SECURITY,
    responses={202: {"schema": PreparedUploadSchema, "description": "Prepared upload"}, **errors(401, 429)},
)
@routes.post("/api/v1/invoices/upload/init")
async def prepare_upload(request: web.Request) -> web.Response:
    limits = request.app[SETTINGS].limits
    invoice_id = await invoices.create_slot(
        request.app[DB], request[TENANT].id, ttl_seconds=limits.init_slot_ttl_seconds, cap=limits.max_open_slots
    )
    return web.json_response(
        {"invoiceId": invoice_id, "processingStatus": ProcessingStatus.QUEUED},
        status=202,
        headers={"Location": invoice_url(invoice_id)},
    )


@docs(
    tags=["invoices"],
    operation_id="attachFile",
    summary="Attach the file to a prepared invoice",
    security=SECURITY,
    parameters=[
        {
            "in": "path",
            "name": "invoiceId",
            "required": True,
            "schema": {"type": "string", "format": "uuid"},
            "description": "Id returned by init",
        },
        VENDOR_QUERY,
        IDEMPOTENCY_HEADER,
    ],
    requestBody=UPLOAD_BODY,
    responses={
        202: {"schema": UploadAcceptedSchema, "description": "Accepted; poll statusUrl"},
        **errors(400, 401, 402, 404, 413, 422, 503),
    },
)
@routes.post("/api/v1/invoices/upload/{invoiceId}/file")
async def attach_file(request: web.Request) -> web.Response:
    return await _accept(request, request.match_info["invoiceId"])


@docs(
    tags=["invoices"],
    operation_id="uploadSingle",
    summary="Create an invoice and upload its file in one step",
    security=SECURITY,
    parameters=[VENDOR_QUERY, IDEMPOTENCY_HEADER],
    requestBody=UPLOAD_BODY,
    responses={
        202: {"schema": UploadAcceptedSchema, "description": "Accepted; poll statusUrl"},
        **errors(400, 401, 402, 404, 413, 422, 503),
    },
)
@routes.post("/api/v1/invoices/upload")
async def upload_single(request: web.Request) -> web.Response:
    return await _accept(request, None)


@docs(
    tags=["invoices"],
    operation_id="getInvoice",
    summary="Poll an invoice until ready",
    description="Every answer carries an ETag. A client that sends it back in If-None-Match gets 304 with no "
    f"body while the invoice is unchanged. With ?wait=SECONDS (at most {MAX_WAIT_SECONDS}) the answer waits until "
    "the invoice is ready, or, with If-None-Match, until it differs from that ETag, or until the time is up: one "
    "request instead of a poll a second (the client's own timeout must be longer).",
    security=SECURITY,
    parameters=[
        {"in": "path", "name": "id", "required": True, "schema": {"type": "string", "format": "uuid"}},
        WAIT_QUERY,
        IF_NONE_MATCH_HEADER,
    ],
    responses={
        200: {"schema": InvoiceSchema, "description": "Invoice", "headers": ETAG_HEADER},
        304: {"description": "Not modified: If-None-Match names the current ETag", "headers": ETAG_HEADER},
        **errors(400, 401, 404),
    },
)
@routes.get("/api/v1/invoices/{id}", allow_head=False)
async def get_invoice(request: web.Request) -> web.Response:
    db, tenant, invoice_id = request.app[DB], request[TENANT], request.match_info["id"]
    wait = _wait_seconds(request)
    known = {tag.value for tag in request.if_none_match or ()}  # weak comparison (RFC 9110 13.1.2)
    poll = await invoices.poll(db, invoice_id, tenant.id)
    if wait:
        deadline = time.monotonic() + wait
        # hold while nothing the client lacks has happened: unchanged from its ETag, or not ready yet
        while (
            (poll.etag in known or (not known and not poll.ready))
            and (left := deadline - time.monotonic()) > 0
            and not db.changes.closed
        ):
            await db.changes.wait(poll_id(invoice_id), min(left, RECHECK_SECONDS))
            poll = await invoices.poll(db, invoice_id, tenant.id)
    if poll.etag in known or ETAG_ANY in known:
        return web.Response(status=304, headers={"ETag": f'"{poll.etag}"'})
    return web.Response(
        body=poll.body, content_type="application/json", headers={"ETag": f'"{poll.etag}"', "Cache-Control": "no-cache"}
    )


def poll_id(invoice_id: str) -> str:
    """The canonical id a change is notified under (``appliance.invoices.record_result``)."""
    return parse_uuid(invoice_id) or invoice_id


def _wait_seconds(request: web.Request) -> float:
    text = request.query.get("wait")
    if text is None:
        return 0.0
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_WAIT_SECONDS:  # NaN fails too
        raise BadRequest(f"wait must be a number of seconds from 0 to {MAX_WAIT_SECONDS}")
    return seconds
