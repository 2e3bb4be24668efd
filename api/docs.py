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
    503: "Extraction queue unavailable; credits refunded (Retry-After header)",
}


def errors(*codes: int) -> dict:
    """OpenAPI ``responses`` entries for the given error codes, each with the error body."""
    return {code: {"schema": ErrorSchema, "description": ERROR_TEXT[code]} for code in codes}
