"""Shared OpenAPI fragments: the security requirement and the error responses of section 7."""

from __future__ import annotations

from api.schemas import ErrorSchema

SECURITY = [{"api-key": []}]
ERROR_TEXT = {
    400: "Bad request (see message)",
    401: "Invalid or missing API key",
    402: "Insufficient credits",
    404: "Not found for the tenant of the API key",
    413: "File too large (MAX_FILE_SIZE_MB, or OCR_MAX_UPLOAD_MB)",
    422: "Idempotency-Key already used within 24 h for another request (another file, name, vendorId or path)",
    429: "Too many open upload slots (limits.max_open_slots); attach files or wait for slots to expire",
    502: "The payment processor answered with an error; nothing applied, safe to retry",
    503: "Extraction queue unavailable; credits refunded (Retry-After header)",
}
PAYMENT_503 = "The payment processor is not configured or cannot be reached; nothing applied"


def errors(*codes: int, **overrides: str) -> dict:
    """OpenAPI ``responses`` entries for the given error codes, each with the error body.

    ``overrides`` replace a description: ``errors(503, d503="...")``.
    """
    return {code: {"schema": ErrorSchema, "description": overrides.get(f"d{code}", ERROR_TEXT[code])} for code in codes}
