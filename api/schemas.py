"""Request and response schemas of spec section 2 (marshmallow); they feed the OpenAPI document.

Handlers build plain dicts in ``appliance``; these schemas describe them (and are checked
against real responses in the tests), they do not transform them.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from pipeline.schema import (
    AMOUNT_FIELDS,
    HEADER_FIELDS,
    LINE_NUMBER_FIELDS,
    SPEC_LINE_FIELDS,
    InvoiceStatus,
    ProcessingStatus,
    Source,
)

PROCESSING_STATUS = [status.value for status in ProcessingStatus]
STATUS = [status.value for status in InvoiceStatus]


class ErrorSchema(Schema):
    """ApiErrorResponse (spec section 7)."""

    statusCode = fields.Integer(required=True)
    message = fields.Raw(
        required=True,
        metadata={
            "description": "string, or array of string",
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
        },
    )
    error = fields.String(metadata={"description": "HTTP status name"})


class BalanceSchema(Schema):
    """Credit balance (spec 2.1)."""

    balance = fields.Number(required=True)
    creditCostPerInvoice = fields.Number(required=True)


class PreparedUploadSchema(Schema):
    """Prepared upload (spec 2.5)."""

    invoiceId = fields.UUID(required=True)
    processingStatus = fields.String(required=True, validate=validate.OneOf(PROCESSING_STATUS))


class InvoiceSummarySchema(Schema):
    """Invoice summary (spec 2.6)."""

    id = fields.UUID(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUS))
    processingStatus = fields.String(required=True, validate=validate.OneOf(PROCESSING_STATUS))
    tenantId = fields.UUID()
    vendorId = fields.UUID(allow_none=True)
    invoiceNumber = fields.String(allow_none=True)
    createdAt = fields.DateTime(required=True)
    updatedAt = fields.DateTime(required=True)


class UploadAcceptedSchema(Schema):
    """Upload-accepted response (spec 2.7)."""

    invoice = fields.Nested(InvoiceSummarySchema, required=True)
    fileId = fields.UUID(required=True)
    statusUrl = fields.String(required=True, metadata={"example": "/api/v1/invoices/<invoice_id>"})


def _nullable(names: tuple[str, ...], numbers: tuple[str, ...]) -> dict[str, fields.Field]:
    """A nullable field for each of ``names`` (pipeline.schema): a number for those in ``numbers``,
    a string for the others."""
    return {
        name: fields.Number(allow_none=True) if name in numbers else fields.String(allow_none=True) for name in names
    }


class LineItemSchema(Schema):
    """Line item (spec 2.10), and beyond it ``group``."""

    class Meta:
        include = {
            "description": fields.String(required=True),
            **_nullable(SPEC_LINE_FIELDS[1:], LINE_NUMBER_FIELDS),
            "group": fields.String(
                allow_none=True,
                metadata={
                    "description": "Beyond the spec: for a line of an e-invoice nested under other lines "
                    "(Factur-X / ZUGFeRD EXTENDED sub-invoice lines), the names of those lines, outermost "
                    "first, joined by ' > '; null for a top-level line. Group subtotals and information "
                    "lines are not line items: the line totals add up to the subtotal."
                },
            ),
        }


class InvoiceDataSchema(Schema):
    """Extracted invoice data (spec 2.9); every field nullable. Dates are ISO 8601 when they parse."""

    class Meta:
        include = {
            **_nullable(HEADER_FIELDS, AMOUNT_FIELDS),
            "line_items": fields.List(fields.Nested(LineItemSchema), allow_none=True),
            "raw_text": fields.String(allow_none=True),
        }


class VendorRefSchema(Schema):
    id = fields.UUID(required=True)
    vendorName = fields.String(required=True)


class EvidenceSchema(Schema):
    """Where a field of ``data`` came from (beyond the spec): page (1-based), box in the page's
    pixels or PDF points (x0, y0, x1, y1, top-left origin), the text read there, a calibrated
    confidence in [0, 1], and the source: einvoice, template, rules, llm or human."""

    page = fields.Integer(allow_none=True)
    bbox = fields.List(fields.Number(), allow_none=True)
    text = fields.String(allow_none=True)
    confidence = fields.Number(required=True)
    source = fields.String(required=True, validate=validate.OneOf([source.value for source in Source]))


class InvoiceSchema(Schema):
    """Invoice JSON response (spec 2.8). The three platform-admin fields are never in tenant responses."""

    id = fields.UUID(required=True)
    processingStatus = fields.String(required=True, validate=validate.OneOf(PROCESSING_STATUS))
    status = fields.String(required=True, validate=validate.OneOf(STATUS))
    direction = fields.String(required=True, validate=validate.OneOf(["payable", "receivable"]))
    ready = fields.Boolean(required=True)
    data = fields.Nested(InvoiceDataSchema, allow_none=True, required=True)
    ocrConfidence = fields.Number(allow_none=True, required=True)
    validationErrors = fields.List(fields.String(), required=True)
    processingError = fields.String(allow_none=True, required=True)
    isDuplicate = fields.Boolean(required=True)
    duplicateOf = fields.UUID(
        allow_none=True,
        required=True,
        metadata={"description": "The earlier invoice this one duplicates (beyond the spec)"},
    )
    evidence = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(EvidenceSchema),
        required=True,
        metadata={
            "description": "Per filled field of data (beyond the spec); a human "
            "correction of line item N (1-based) is under line_items[N].field"
        },
    )
    vendor = fields.Nested(VendorRefSchema, allow_none=True, required=True)
    createdAt = fields.DateTime(required=True)
    updatedAt = fields.DateTime(required=True)


UPLOAD_BODY = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {
                    "file": {
                        "type": "string",
                        "format": "binary",
                        "description": "PDF, JPG, JPEG or PNG (decided by content, not by name)",
                    },
                    "vendorId": {
                        "type": "string",
                        "format": "uuid",
                        "description": "Optional vendor UUID that prefers template extraction",
                    },
                },
            }
        }
    },
}
MAX_WAIT_SECONDS = 60
WAIT_QUERY = {
    "in": "query",
    "name": "wait",
    "required": False,
    "schema": {"type": "number", "minimum": 0, "maximum": MAX_WAIT_SECONDS},
    "description": "Seconds the answer may wait until the invoice is ready (or, with If-None-Match, differs "
    "from that ETag); 0 or absent: answer at once",
}
IF_NONE_MATCH_HEADER = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "schema": {"type": "string"},
    "description": "The ETag of the client's last answer: 304 with no body while the invoice is unchanged",
}
ETAG_HEADER = {"ETag": {"schema": {"type": "string"}, "description": "Changes exactly when the body does"}}

IDEMPOTENCY_HEADER = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "Makes a retry safe (appliance.idempotency): the same key with the same file, file name and "
    "vendorId within 24 h returns the first 202 again (header Idempotent-Replayed: true) with no second debit; "
    "the same key with another request is 422. A UUID per upload is the usual choice.",
}

VENDOR_QUERY = {
    "in": "query",
    "name": "vendorId",
    "required": False,
    "schema": {"type": "string", "format": "uuid"},
    "description": "Optional vendor UUID (may instead be a form field)",
}


class PackageSchema(Schema):
    """Credit package (spec 2.2)."""

    id = fields.UUID(required=True)
    name = fields.String(required=True)
    credits = fields.Number(required=True)
    priceCents = fields.Number(required=True)
    currency = fields.String(required=True, metadata={"description": "Lower-case ISO 4217 code"})


class CheckoutRequestSchema(Schema):
    packageId = fields.UUID(required=True)


class CheckoutSessionSchema(Schema):
    """Checkout session (spec 2.3)."""

    url = fields.String(required=True)
    sessionId = fields.String(required=True)


class ConfirmRequestSchema(Schema):
    sessionId = fields.String(required=True)


class ConfirmResultSchema(Schema):
    """Confirm result (spec 2.4)."""

    applied = fields.Boolean(required=True)
    credits = fields.Number(required=True)
    balance = fields.Number(required=True)
    creditCostPerInvoice = fields.Number(required=True)
