"""Who is logged in: the encrypted session cookie, its CSRF token, and the user behind it.

The cookie (aiohttp-session's EncryptedCookieStorage: Fernet, so encrypted and authenticated) is
HttpOnly and SameSite=Strict and lasts ``SESSION_HOURS``; its key is ``<data_dir>/session.key``
(made on first start, mode 0600; deleting it ends every session). The cookie carries the secret
of a session kept on the server (``appliance.users.open_session``), which log-out deletes: a copy
of the cookie taken before log-out is refused after it. Every form carries the
session's CSRF token (the synchronizer token pattern, OWASP's CSRF cheat sheet); a POST without
the right one is 403. aiohttp-csrf was the library candidate, but it has not been released since
2020; this is the few lines it would replace.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from aiohttp import web
from aiohttp_session import get_session, new_session
from aiohttp_session.cookie_storage import EncryptedCookieStorage
from cryptography.fernet import Fernet

from appliance.db import Database
from appliance.users import User, end_session, open_session, session_user

COOKIE = "appliance_review"
SESSION_HOURS = 12


def storage(key_file: Path) -> EncryptedCookieStorage:
    """The cookie storage with the key of ``key_file``, written (0600) when it does not exist."""
    if not key_file.exists():
        key_file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(Fernet.generate_key())
    return EncryptedCookieStorage(
        Fernet(key_file.read_bytes().strip()),
        cookie_name=COOKIE,
        max_age=SESSION_HOURS * 3600,
        httponly=True,
        samesite="Strict",
        path="/review",
    )


async def csrf_token(request: web.Request) -> str:
    """The session's CSRF token, made on first use (the log-in form has one too)."""
    session = await get_session(request)
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(32)
    return session["csrf"]


async def check_csrf(request: web.Request, form) -> None:
    """Raise 403 unless ``form`` carries the session's CSRF token."""
    session = await get_session(request)
    expected, sent = session.get("csrf"), form.get("csrf", "")
    if not expected or not isinstance(sent, str) or not hmac.compare_digest(expected, sent):
        raise web.HTTPForbidden(text="The form's security token is missing or stale: reload the page and try again")


async def log_in_session(request: web.Request, db: Database, user: User) -> None:
    """A new session for ``user``, opened on the server for ``SESSION_HOURS`` (a new cookie and a
    new CSRF token: no session fixation)."""
    session = await new_session(request)
    session["sid"] = await open_session(db, user, SESSION_HOURS * 3600)
    session["csrf"] = secrets.token_urlsafe(32)


async def log_out_session(request: web.Request, db: Database) -> None:
    """End the session on the server (every copy of the cookie is refused from now on), then
    clear the cookie, and its CSRF token with it."""
    session = await get_session(request)
    if isinstance(session.get("sid"), str):
        await end_session(db, session["sid"])
    session.invalidate()


async def current_user(request: web.Request, db: Database) -> User | None:
    """The logged-in user, or None: no session, or one that has ended on the server (log-out,
    expiry, the user disabled or the password reset). A cookie from before server-side sessions
    (``user`` and ``epoch``, no ``sid``) has none either: its owner logs in again."""
    session = await get_session(request)
    if "sid" not in session:
        return None
    user = await session_user(db, session["sid"])
    if user is None:
        session.invalidate()
    return user
