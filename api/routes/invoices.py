"""``/api/v1/invoices/*`` (spec 4.5 to 4.8): prepare, attach, one-step upload, poll."""

from __future__ import annotations

from aiohttp import web
from aiohttp_apigami import docs

from api.docs import SECURITY, errors
from api.keys import DB, ON_ENQUEUED, QUEUE_READY, SETTINGS, TENANT
from api.schemas import UPLOAD_BODY, VENDOR_QUERY, InvoiceSchema, PreparedUploadSchema, UploadAcceptedSchema
from appliance import invoices, uploads
from pipeline.schema import ProcessingStatus

routes = web.RouteTableDef()


async def _accept(request: web.Request, invoice_id: str | None) -> web.Response:
    """Stream, check and record an upload (``appliance.uploads``, ``appliance.invoices``): 202
    with the upload-accepted body, or the appliance error, with nothing kept."""
    app, tenant = request.app, request[TENANT]
    await invoices.check_balance(app[DB], tenant.id, app[SETTINGS].credits.cost_per_invoice)
    async with uploads.received(request, app[SETTINGS], tenant.id) as (upload, vendor_id):
        vendor_id = await invoices.check_vendor(app[DB], tenant.id, vendor_id)
        await uploads.check(app[SETTINGS], upload)
        body = await invoices.accept_upload(
            app[DB],
            app[SETTINGS],
            tenant.id,
            upload,
            invoice_id=invoice_id,
            vendor_id=vendor_id,
            queue_ready=app[QUEUE_READY],
        )
    app[ON_ENQUEUED]()
    return web.json_response(body, status=202, headers={"Location": body["statusUrl"]})


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
        headers={"Location": f"/api/v1/invoices/{invoice_id}"},
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
    ],
    requestBody=UPLOAD_BODY,
    responses={
        202: {"schema": UploadAcceptedSchema, "description": "Accepted; poll statusUrl"},
        **errors(400, 401, 402, 404, 413, 503),
    },
)
@routes.post("/api/v1/invoices/upload/{invoiceId}/file")
async def attach_file(request: web.Request) -> web.Response:
    invoice_id = await invoices.check_slot(request.app[DB], request[TENANT].id, request.match_info["invoiceId"])
    return await _accept(request, invoice_id)


@docs(
    tags=["invoices"],
    operation_id="uploadSingle",
    summary="Create an invoice and upload its file in one step",
    security=SECURITY,
    parameters=[VENDOR_QUERY],
    requestBody=UPLOAD_BODY,
    responses={
        202: {"schema": UploadAcceptedSchema, "description": "Accepted; poll statusUrl"},
        **errors(400, 401, 402, 404, 413, 503),
    },
)
@routes.post("/api/v1/invoices/upload")
async def upload_single(request: web.Request) -> web.Response:
    return await _accept(request, None)


@docs(
    tags=["invoices"],
    operation_id="getInvoice",
    summary="Poll an invoice until ready",
    security=SECURITY,
    parameters=[{"in": "path", "name": "id", "required": True, "schema": {"type": "string", "format": "uuid"}}],
    responses={200: {"schema": InvoiceSchema, "description": "Invoice"}, **errors(401, 404)},
)
@routes.get("/api/v1/invoices/{id}", allow_head=False)
async def get_invoice(request: web.Request) -> web.Response:
    body = await invoices.get_invoice(request.app[DB], request.match_info["id"], request[TENANT].id)
    return web.json_response(body)
