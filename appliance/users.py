"""People who review invoices in the browser (``webui``): accounts, passwords, log-in and lock-out.

A user belongs to one tenant and sees only its invoices. Passwords are Argon2id hashes
(argon2-cffi's defaults, RFC 9106's second recommended option); a new or reset password is
generated here and shown once, like an API key. ``LOCKOUT_FAILURES`` failed log-ins in a row lock
the account for ``LOCKOUT_SECONDS``.

Each log-in opens a session on the server (``open_session``: a row of ``user_sessions``); the
browser's cookie carries only its secret. Log-out (``end_session``), disabling the user and
resetting the password delete the row, so the session ends for every copy of the cookie at its
next request (OWASP Web Security Testing Guide, "Testing for Logout Functionality", WSTG-SESS-06:
a log-out that only removes a cookie naming the user leaves every copy of it valid).

Imports nothing of ``api`` or ``webui``.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import uuid
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from appliance.db import Database, fetchone, utcnow
from appliance.errors import ApplianceError, BadRequest, NotFound
from appliance.tenants import parse_uuid

ROLES = ("reviewer", "admin")
LOCKOUT_FAILURES = 5
LOCKOUT_SECONDS = 15 * 60
_HASHER = PasswordHasher()


LOGIN_FAILED_MESSAGE = (
    f"Wrong e-mail or password. After {LOCKOUT_FAILURES} failures in a row an account is locked for "
    f"{LOCKOUT_SECONDS // 60} minutes; an administrator can unlock it with `appliance user reset-password`."
)


class LoginFailed(ApplianceError):
    """Wrong e-mail or password, a disabled or a locked account: one message for all, and the same
    work (one Argon2 verification) for all, so that neither the answer nor its time tells a guesser
    whether an e-mail has an account (OWASP Authentication Cheat Sheet, "Authentication and Error
    Messages")."""

    status = 401
    exit_code = 77


@dataclass(frozen=True)
class User:
    """A user as sessions and pages see it."""

    id: str
    tenant_id: str
    email: str
    role: str


def _user(row) -> User:
    return User(row["id"], row["tenant_id"], row["email"], row["role"])


def new_password() -> str:
    """A random password of 16 URL-safe characters (96 bits)."""
    return secrets.token_urlsafe(12)


def _check_email(email: str) -> str:
    email = email.strip()
    if "@" not in email or len(email) > 254 or any(ch.isspace() for ch in email):
        raise BadRequest(f"not an e-mail address: {email!r}")
    return email


async def add_user(db: Database, tenant_id: str, email: str, role: str = "reviewer") -> tuple[User, str]:
    """Create a user of ``tenant_id``; returns it and its password (shown once). BadRequest for a
    bad e-mail, an unknown role or an e-mail already in use; NotFound for an unknown tenant."""
    if role not in ROLES:
        raise BadRequest(f"role must be one of {', '.join(ROLES)}")
    email, password = _check_email(email), new_password()
    digest = await asyncio.to_thread(_HASHER.hash, password)  # about 50 ms of CPU: off the loop
    user_id = str(uuid.uuid4())
    async with db.transaction() as conn:
        tenant = parse_uuid(tenant_id)
        if tenant is None or await fetchone(conn, "SELECT 1 FROM tenants WHERE id = ?", (tenant,)) is None:
            raise NotFound(f"tenant {tenant_id} not found")
        if await fetchone(conn, "SELECT 1 FROM users WHERE email = ?", (email,)):
            raise BadRequest(f"a user with e-mail {email} exists already")
        await conn.execute(
            "INSERT INTO users (id, tenant_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (user_id, tenant, email, digest, role, utcnow()),
        )
    return User(user_id, tenant, email, role), password


async def list_users(db: Database, tenant_id: str | None = None) -> list[dict]:
    """Every user (of ``tenant_id`` when given): id, tenant, e-mail, role, disabled, locked."""
    rows = await db.fetchall(
        "SELECT id, tenant_id, email, role, disabled_at, locked_until, created_at FROM users "
        "WHERE ? IS NULL OR tenant_id = ? ORDER BY tenant_id, email",
        (tenant_id, tenant_id),
    )
    now = time.time()
    return [
        {
            "id": r["id"],
            "tenantId": r["tenant_id"],
            "email": r["email"],
            "role": r["role"],
            "disabled": r["disabled_at"] is not None,
            "locked": bool(r["locked_until"] and r["locked_until"] > now),
            "createdAt": r["created_at"],
        }
        for r in rows
    ]


async def _by_email(conn, email: str):
    row = await fetchone(conn, "SELECT * FROM users WHERE email = ?", (email.strip(),))
    if row is None:
        raise NotFound(f"no user with e-mail {email}")
    return row


async def disable_user(db: Database, email: str) -> None:
    """Disable a user: no log-in from now on, and open sessions end at their next request."""
    async with db.transaction() as conn:
        row = await _by_email(conn, email)
        await conn.execute(
            "UPDATE users SET disabled_at = COALESCE(disabled_at, ?) WHERE id = ?", (utcnow(), row["id"])
        )
        await conn.execute("DELETE FROM user_sessions WHERE user_id = ?", (row["id"],))


async def reset_password(db: Database, email: str) -> str:
    """A new password for the user (shown once); clears a lock-out and ends open sessions. A
    disabled user stays disabled."""
    password = new_password()
    digest = await asyncio.to_thread(_HASHER.hash, password)
    async with db.transaction() as conn:
        row = await _by_email(conn, email)
        await conn.execute(
            "UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL WHERE id = ?",
            (digest, row["id"]),
        )
        await conn.execute("DELETE FROM user_sessions WHERE user_id = ?", (row["id"],))
    return password


async def log_in(db: Database, email: str, password: str) -> User:
    """The user whose e-mail and password these are. Raises LoginFailed (LOGIN_FAILED_MESSAGE) for
    an unknown e-mail, a wrong password, a disabled account, or one locked after LOCKOUT_FAILURES
    failures in a row (for LOCKOUT_SECONDS; even the right password is refused then, and failures
    while locked do not extend the lock). Every check comes after the one Argon2 verification, so
    that each answer costs the same; the lock is decided in the statement that writes, so parallel
    guesses count one by one (issue 28)."""
    row = await db.fetchone("SELECT * FROM users WHERE email = ?", (email.strip(),))
    digest = row["password_hash"] if row is not None else _DUMMY_HASH  # same work for unknown e-mails
    try:
        ok = await asyncio.to_thread(_HASHER.verify, digest, password)
    except (VerificationError, InvalidHashError):
        ok = False
    if row is None:
        raise LoginFailed(LOGIN_FAILED_MESSAGE)
    if not ok:
        await _count_failure(db, row["id"])
        raise LoginFailed(LOGIN_FAILED_MESSAGE)
    if not await _admit(db, row["id"]):
        raise LoginFailed(LOGIN_FAILED_MESSAGE)
    return _user(row)


async def _count_failure(db: Database, user_id: str) -> None:
    # One statement reads and writes the count: the row read before the ~50 ms of Argon2 is stale
    # by now (20 guesses in parallel all read 0 and wrote 1). SET sees the row as it was before
    # this UPDATE, so both CASEs test the same count; a locked account is left as it is.
    now = time.time()
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE users SET "
            "failed_logins = CASE WHEN failed_logins + 1 >= ? THEN 0 ELSE failed_logins + 1 END, "
            "locked_until = CASE WHEN failed_logins + 1 >= ? THEN ? ELSE locked_until END "
            "WHERE id = ? AND (locked_until IS NULL OR locked_until <= ?)",
            (LOCKOUT_FAILURES, LOCKOUT_FAILURES, now + LOCKOUT_SECONDS, user_id, now),
        )


async def _admit(db: Database, user_id: str) -> bool:
    """After the right password: clear the failure count, unless the account is locked or
    disabled as of now (a lock that parallel wrong guesses set during this verification counts)."""
    now = time.time()
    async with db.transaction() as conn:
        cursor = await conn.execute(
            "UPDATE users SET failed_logins = 0 WHERE id = ? AND disabled_at IS NULL "
            "AND (locked_until IS NULL OR locked_until <= ?) RETURNING id",
            (user_id, now),
        )
        admitted = await cursor.fetchone() is not None
        await cursor.close()
    return admitted


def _session_id(secret: str) -> str:
    # the database keeps a hash: a copy of it (a backup) opens no session
    return hashlib.sha256(secret.encode()).hexdigest()


async def open_session(db: Database, user: User, lifetime_seconds: float) -> str:
    """Open a session of ``user`` that ends after ``lifetime_seconds`` at the latest; returns its
    secret (43 URL-safe characters), for the session cookie only. Expired sessions of all users
    are removed on the way, so the table holds about one row per open browser."""
    secret, now = secrets.token_urlsafe(32), time.time()
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM user_sessions WHERE expires_at <= ?", (now,))
        await conn.execute(
            "INSERT INTO user_sessions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
            (_session_id(secret), user.id, utcnow(), now + lifetime_seconds),
        )
    return secret


async def end_session(db: Database, secret: str) -> None:
    """End the session of ``secret`` (log-out) for every copy of its cookie; nothing happens
    when it has ended already."""
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM user_sessions WHERE id = ?", (_session_id(secret),))


async def session_user(db: Database, secret: object) -> User | None:
    """The user of the session of ``secret`` (as the cookie carries it), or None when there is
    no such session: never opened, logged out, expired, or ended by disabling the user or
    resetting the password."""
    if not isinstance(secret, str):
        return None
    row = await db.lookup(
        "SELECT u.* FROM user_sessions s JOIN users u ON u.id = s.user_id "
        "WHERE s.id = ? AND s.expires_at > ? AND u.disabled_at IS NULL",
        (_session_id(secret), time.time()),
    )
    return _user(row) if row is not None else None


_DUMMY_HASH = _HASHER.hash("an unknown e-mail still costs one verification")
