"""Who may open a page of ``/review``: the logged-in user (else the log-in page), and the
admin-only mark that sends a reviewer a 403 page. The sub-app's keys live here, so that the page
modules (``webui.keys``, ``webui.billing``) and ``webui.app`` share them without importing each
other."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from aiohttp import web

from appliance.db import Database
from appliance.settings import Settings
from appliance.users import User
from webui.session import current_user

PREFIX = "/review"
DB = web.AppKey("review_db", Database)
SETTINGS = web.AppKey("review_settings", Settings)
USER = web.RequestKey("review_user", User)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def logged_in(request: web.Request) -> User:
    """The logged-in user; else a redirect to the log-in page (HTTPFound)."""
    user = await current_user(request, request.app[DB])
    if user is None:
        raise web.HTTPFound(f"{PREFIX}/login")
    return user


def admin_only(handler: Handler) -> Handler:
    """``handler`` for the tenant's admins only: nobody logged in goes to the log-in page, a
    reviewer gets 403 (a page, through ``html_errors``) before the handler reads anything; the
    handler finds the user in ``request[USER]``. Marks the handler so that tests read the admin
    routes from the router (``is_admin_only``)."""

    @functools.wraps(handler)
    async def admin_handler(request: web.Request) -> web.StreamResponse:
        user = await logged_in(request)
        if user.role != "admin":
            raise web.HTTPForbidden(text="This page is for the workspace's administrators: ask one of them.")
        request[USER] = user
        return await handler(request)

    admin_handler.admin_only = True  # type: ignore[attr-defined]
    return admin_handler


def is_admin_only(handler: Callable) -> bool:
    """Whether ``handler`` (a route's) was wrapped by ``admin_only``."""
    return getattr(handler, "admin_only", False) is True
