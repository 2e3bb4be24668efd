"""API key authentication (spec section 5): ``Authorization: Bearer <key>`` on every ``/api/v1``
request; the key's tenant is put on the request as ``request[TENANT]``."""

from __future__ import annotations

from aiohttp import web

from api.app_keys import DB, TENANT
from appliance.errors import Unauthorized
from appliance.tenants import authenticate

API_PREFIX = "/api/v1/"


def bearer_key(header: str | None) -> str | None:
    """The key of an ``Authorization`` header; None without the required ``Bearer `` prefix."""
    if not header or not header.startswith("Bearer "):
        return None
    key = header[len("Bearer ") :].strip()
    return key or None


@web.middleware
async def auth_middleware(request: web.Request, handler):
    if request.path.startswith(API_PREFIX):
        key = bearer_key(request.headers.get("Authorization"))
        tenant = await authenticate(request.app[DB], key) if key else None
        if tenant is None:
            raise Unauthorized()
        request[TENANT] = tenant
    return await handler(request)
