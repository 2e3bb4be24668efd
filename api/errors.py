"""The spec's error body (section 7) and the one middleware that makes every error into it
(STYLE.md 1): our exceptions, aiohttp's own, and unknown ones (500, traceback logged, nothing leaked)."""

from __future__ import annotations

import logging
from http import HTTPStatus

from aiohttp import web

from appliance.errors import ApplianceError

log = logging.getLogger(__name__)


def error_body(status: int, message: str | list[str]) -> dict:
    """``{statusCode, message, error}`` where ``error`` is the status name (spec section 7)."""
    try:
        name = HTTPStatus(status).phrase
    except ValueError:
        name = "Error"
    return {"statusCode": status, "message": message, "error": name}


def error_response(status: int, message: str | list[str], headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(error_body(status, message), status=status, headers=headers)


@web.middleware
async def error_middleware(request: web.Request, handler):
    try:
        return await handler(request)
    except ApplianceError as exc:
        return error_response(exc.status, exc.message, exc.headers or None)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        message = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else exc.reason
        if exc.status == 413:
            message = "Request body too large"
        headers = {k: v for k, v in exc.headers.items() if k in ("Allow", "Retry-After")}
        return error_response(exc.status, message, headers)
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "Internal server error")
