"""People who review invoices in the browser (``webui``): accounts, passwords, log-in and lock-out.

A user belongs to one tenant and sees only its invoices. Passwords are Argon2id hashes
(argon2-cffi's defaults, RFC 9106's second recommended option); a new or reset password is
generated here and shown once, like an API key. ``LOCKOUT_FAILURES`` failed log-ins in a row lock
the account for ``LOCKOUT_SECONDS``. Disabling a user or resetting the password bumps
``session_epoch``, which every session carries, so open sessions end at their next request.

Imports nothing of ``api`` or ``webui``.
"""

from __future__ import annotations

import asyncio
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
    session_epoch: int


def _user(row) -> User:
    return User(row["id"], row["tenant_id"], row["email"], row["role"], row["session_epoch"])


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
    return User(user_id, tenant, email, role, 0), password


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
            "UPDATE users SET disabled_at = COALESCE(disabled_at, ?), session_epoch = session_epoch + 1 WHERE id = ?",
            (utcnow(), row["id"]),
        )


async def reset_password(db: Database, email: str) -> str:
    """A new password for the user (shown once); clears a lock-out and ends open sessions. A
    disabled user stays disabled."""
    password = new_password()
    digest = await asyncio.to_thread(_HASHER.hash, password)
    async with db.transaction() as conn:
        row = await _by_email(conn, email)
        await conn.execute(
            "UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL, "
            "session_epoch = session_epoch + 1 WHERE id = ?",
            (digest, row["id"]),
        )
    return password


async def log_in(db: Database, email: str, password: str) -> User:
    """The user whose e-mail and password these are. Raises LoginFailed (LOGIN_FAILED_MESSAGE) for
    an unknown e-mail, a wrong password, a disabled account, or one locked after LOCKOUT_FAILURES
    failures in a row (for LOCKOUT_SECONDS; even the right password is refused then, and failures
    while locked do not extend the lock)."""
    row = await db.fetchone("SELECT * FROM users WHERE email = ?", (email.strip(),))
    now = time.time()
    digest = row["password_hash"] if row is not None else _DUMMY_HASH  # same work for unknown e-mails
    try:
        ok = await asyncio.to_thread(_HASHER.verify, digest, password)
    except (VerificationError, InvalidHashError):
        ok = False
    if row is not None and row["locked_until"] and row["locked_until"] > now:
        raise LoginFailed(LOGIN_FAILED_MESSAGE)  # only after the verification, so it costs the same
    if row is None or not ok or row["disabled_at"] is not None:
        if row is not None and not ok:
            async with db.transaction() as conn:
                failures = row["failed_logins"] + 1
                locked = now + LOCKOUT_SECONDS if failures >= LOCKOUT_FAILURES else None
                await conn.execute(
                    "UPDATE users SET failed_logins = ?, locked_until = ? WHERE id = ?",
                    (0 if locked else failures, locked, row["id"]),
                )
        raise LoginFailed(LOGIN_FAILED_MESSAGE)
    if row["failed_logins"]:
        async with db.transaction() as conn:
            await conn.execute("UPDATE users SET failed_logins = 0 WHERE id = ?", (row["id"],))
    return _user(row)


async def session_user(db: Database, user_id: str, epoch: int) -> User | None:
    """The user of a session, or None when the user is gone, disabled, or its sessions were
    ended since (``epoch`` no longer current)."""
    row = await db.lookup("SELECT * FROM users WHERE id = ?", (user_id,))
    if row is None or row["disabled_at"] is not None or row["session_epoch"] != epoch:
        return None
    return _user(row)


_DUMMY_HASH = _HASHER.hash("an unknown e-mail still costs one verification")
