"""``/api/v1/invoices/*`` (spec 4.5 to 4.8): prepare, attach, one-step upload, poll."""
from __future__ import annotations

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage
from aiohttp_apigami import docs

from api.docs import SECURITY, errors
from api.keys import DB, ON_ENQUEUED, QUEUE_READY, SETTINGS, TENANT
from api.schemas import (UPLOAD_BODY, VENDOR_QUERY, InvoiceSchema, PreparedUploadSchema,
                         UploadAcceptedSchema)
from appliance import inspection, invoices
from appliance.errors import BadRequest
from appliance.files import MB, stream_to_disk

routes = web.RouteTableDef()
MAX_FIELD_BYTES = 256  # a vendorId is 36 characters; anything longer is not one


async def _read_upload(request: web.Request):
    """Stream the multipart body: the ``file`` part to disk, ``vendorId`` as text.

    Returns (StoredUpload, vendorId or None). Raises BadRequest for a body that is not
    multipart or has no file, UnsupportedFileType (400) and FileTooLarge (413).
    """
    if not request.content_type.startswith("multipart/"):
        raise BadRequest("Expected a multipart/form-data body with a 'file' field")
    settings = request.app[SETTINGS]
    tenant = request[TENANT]
    upload, vendor_id = None, request.query.get("vendorId")
    try:
        reader = await request.multipart()
        async for part in reader:
            if part.name == "file" and upload is None:
                upload = await stream_to_disk(part, settings.files_dir, tenant.id,
                                              settings.limits.MAX_FILE_SIZE_MB * MB)
            elif part.name == "vendorId":
                raw = await part.read_chunk(MAX_FIELD_BYTES + 1)
                vendor_id = raw.decode("utf-8", "replace").strip() if len(raw) <= MAX_FIELD_BYTES else "invalid"
            else:
                await part.release()
    except (ValueError, BadHttpMessage) as exc:  # malformed multipart framing or part headers
        if upload:
            upload.discard()
        raise BadRequest(f"Malformed multipart body: {exc}") from exc
    except BaseException:
        if upload:
            upload.discard()
        raise
    if upload is None:
        raise BadRequest("The 'file' field is required")
    return upload, vendor_id


async def _accept(request: web.Request, invoice_id: str | None) -> web.Response:
    app = request.app
    tenant = request[TENANT]
    upload, vendor_id = await _read_upload(request)
    try:
        vendor_id = await invoices.check_vendor(app[DB], tenant.id, vendor_id)
        invoices.check_ocr_limit(app[SETTINGS], upload)
        await inspection.check_document(app[SETTINGS], upload)
    except BaseException:
        upload.discard()
        raise
    body = await invoices.accept_upload(app[DB], app[SETTINGS], tenant.id, upload, invoice_id=invoice_id,
                                        vendor_id=vendor_id, queue_ready=app[QUEUE_READY])
    app[ON_ENQUEUED]()
    return web.json_response(body, status=202, headers={"Location": body["statusUrl"]})


@docs(tags=["invoices"], operation_id="prepareUpload", summary="Create a pending invoice slot (no debit)",
      security=SECURITY,
      responses={202: {"schema": PreparedUploadSchema, "description": "Prepared upload"}, **errors(401)})
@routes.post("/api/v1/invoices/upload/init")
async def prepare_upload(request: web.Request) -> web.Response:
    invoice_id = await invoices.create_slot(request.app[DB], request[TENANT].id)
    return web.json_response({"invoiceId": invoice_id, "processingStatus": "queued"}, status=202,
                             headers={"Location": f"/api/v1/invoices/{invoice_id}"})


@docs(tags=["invoices"], operation_id="attachFile", summary="Attach the file to a prepared invoice",
      security=SECURITY,
      parameters=[{"in": "path", "name": "invoiceId", "required": True,
                   "schema": {"type": "string", "format": "uuid"}, "description": "Id returned by init"},
                  VENDOR_QUERY],
      requestBody=UPLOAD_BODY,
      responses={202: {"schema": UploadAcceptedSchema, "description": "Accepted; poll statusUrl"},
                 **errors(400, 401, 402, 404, 413, 503)})
@routes.post("/api/v1/invoices/upload/{invoiceId}/file")
async def attach_file(request: web.Request) -> web.Response:
    invoice_id = await invoices.check_slot(request.app[DB], request[TENANT].id, request.match_info["invoiceId"])
    return await _accept(request, invoice_id)


@docs(tags=["invoices"], operation_id="uploadSingle", summary="Create an invoice and upload its file in one step",
      security=SECURITY, parameters=[VENDOR_QUERY], requestBody=UPLOAD_BODY,
      responses={202: {"schema": UploadAcceptedSchema, "description": "Accepted; poll statusUrl"},
                 **errors(400, 401, 402, 404, 413, 503)})
@routes.post("/api/v1/invoices/upload")
async def upload_single(request: web.Request) -> web.Response:
    return await _accept(request, None)


@docs(tags=["invoices"], operation_id="getInvoice", summary="Poll an invoice until ready",
      security=SECURITY,
      parameters=[{"in": "path", "name": "id", "required": True, "schema": {"type": "string", "format": "uuid"}}],
      responses={200: {"schema": InvoiceSchema, "description": "Invoice"}, **errors(401, 404)})
@routes.get("/api/v1/invoices/{id}", allow_head=False)
async def get_invoice(request: web.Request) -> web.Response:
    body = await invoices.get_invoice(request.app[DB], request.match_info["id"], request[TENANT].id)
    return web.json_response(body)
