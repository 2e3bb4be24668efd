"""Buying credits (spec 2.2 to 2.4, 4.2 to 4.4, 6.2): packages, Stripe Checkout, and the one
fulfilment function that both confirm and the webhook call (DESIGN.md decisions).

Exactly once: the checkout session id is unique in ``purchases``; the credit (a ledger row) and
the purchase's move to ``applied`` happen in one ``BEGIN IMMEDIATE`` transaction, and the update
only matches a purchase that is not applied yet, so concurrent confirms and webhooks add the
credits once. Stripe is reached with the real ``stripe`` library (``STRIPE_API_BASE`` points it
elsewhere, for tests and proxies).

Each tenant may set where Checkout sends its customer after paying or cancelling (the web app's
billing settings, ``tenant_billing_settings``); spec 4.3 says the API's checkout uses the same
addresses, so ``Billing.checkout`` reads them for every caller. Without them, ``[stripe]``'s
``success_url`` and ``cancel_url`` apply.
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from appliance import ledger
from appliance.db import Database, fetchone, utcnow
from appliance.errors import (
    BadRequest,
    NotFound,
    PaymentNotConfigured,
    PaymentProcessorError,
    PaymentProcessorUnavailable,
)
from appliance.settings import Settings

log = logging.getLogger(__name__)
PACKAGE_NAMESPACE = uuid.UUID("6f1c3a52-8c1e-4c55-9d0a-3b7f2e51c0a1")
SESSION_ID = re.compile(r"^cs_[A-Za-z0-9_]{1,250}$")
FULFIL_EVENTS = {"checkout.session.completed", "checkout.session.async_payment_succeeded"}
MAX_URL_LENGTH = 2048  # Stripe takes longer ones; no sensible return address needs them


def package_id(name: str) -> str:
    """The stable UUID of a package: UUID v5 of its name, the same on every start and host."""
    return str(uuid.uuid5(PACKAGE_NAMESPACE, name))


async def sync_packages(db: Database, settings: Settings) -> None:
    """Write the configured packages into SQLite, priced at the platform rate; packages no longer
    configured are kept (purchases refer to them) but deactivated."""
    credits = settings.credits
    now = utcnow()
    async with db.transaction() as conn:
        await conn.execute("UPDATE packages SET active = 0, updated_at = ?", (now,))
        for package in credits.packages:
            await conn.execute(
                "INSERT INTO packages (id, name, credits, price_cents, currency, active, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET credits = excluded.credits, "
                "price_cents = excluded.price_cents, currency = excluded.currency, active = excluded.active, "
                "updated_at = excluded.updated_at",
                (
                    package_id(package.name),
                    package.name,
                    package.credits,
                    package.credits * credits.price_per_credit_cents,
                    credits.currency,
                    int(package.active),
                    now,
                ),
            )


async def list_packages(db: Database) -> list[dict[str, Any]]:
    """Active packages (spec 2.2), cheapest first."""
    rows = await db.fetchall(
        "SELECT id, name, credits, price_cents, currency FROM packages WHERE active = 1 ORDER BY price_cents, name"
    )
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "credits": r["credits"],
            "priceCents": r["price_cents"],
            "currency": r["currency"],
        }
        for r in rows
    ]


def require_string(body: Any, key: str) -> str:
    """``body[key]`` as a non-empty string; BadRequest naming the field otherwise."""
    if not isinstance(body, dict) or not isinstance(body.get(key), str) or not body[key].strip():
        raise BadRequest(f"'{key}' is required and must be a string")
    return body[key].strip()


@dataclass
class Fulfilment:
    """Outcome of one fulfilment: ``applied`` says whether this call added the credits."""

    applied: bool
    credits: int
    balance: int


async def fulfil(db: Database, session: dict[str, Any], via: str, event: tuple[str, str] | None = None) -> Fulfilment:
    """Apply a paid Checkout Session's credits once; returns whether this call applied them.

    ``session`` is the Stripe object as a dict (``id``, ``metadata.tenantId``,
    ``metadata.packageId``). A session without a local purchase row (e.g. created elsewhere with
    our metadata) gets one. ``event`` (id, type) is recorded in the same transaction so a replayed
    webhook is recognised. Raises NotFound when the metadata names no tenant or package of ours.
    """
    metadata = session.get("metadata") or {}
    async with db.transaction() as conn:
        purchase = await fetchone(conn, "SELECT * FROM purchases WHERE session_id = ?", (session["id"],))
        if purchase is None:
            purchase = await _adopt_session(conn, session["id"], metadata)
        applied = False
        cursor = await conn.execute(
            "UPDATE purchases SET status = 'applied', applied_by = ?, applied_at = ? "
            "WHERE session_id = ? AND status != 'applied'",
            (via, utcnow(), session["id"]),
        )
        if cursor.rowcount == 1:
            await ledger.post(
                conn, purchase["tenant_id"], purchase["credits"], "purchase", note=f"stripe {session['id']} via {via}"
            )
            applied = True
        if event is not None:
            await conn.execute(
                "INSERT INTO stripe_events (id, type, outcome, received_at) VALUES (?, ?, ?, ?)",
                (event[0], event[1], "applied" if applied else "already applied", utcnow()),
            )
        balance = (await fetchone(conn, "SELECT balance FROM tenants WHERE id = ?", (purchase["tenant_id"],)))[
            "balance"
        ]
    if applied:
        log.info("purchase %s: %d credits applied via %s", session["id"], purchase["credits"], via)
    return Fulfilment(applied, purchase["credits"], balance)


async def _adopt_session(conn, session_id: str, metadata: dict[str, Any]):
    tenant = await fetchone(conn, "SELECT id FROM tenants WHERE id = ?", (str(metadata.get("tenantId")),))
    package = await fetchone(conn, "SELECT * FROM packages WHERE id = ?", (str(metadata.get("packageId")),))
    if tenant is None or package is None:
        raise NotFound("Checkout session not found")
    await conn.execute(
        "INSERT INTO purchases (id, tenant_id, package_id, session_id, credits, price_cents, currency, status, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?)",
        (
            str(uuid.uuid4()),
            tenant["id"],
            package["id"],
            session_id,
            package["credits"],
            package["price_cents"],
            package["currency"],
            utcnow(),
        ),
    )
    return await fetchone(conn, "SELECT * FROM purchases WHERE session_id = ?", (session_id,))


async def record_event(db: Database, event_id: str, event_type: str, outcome: str) -> bool:
    """Record a webhook event that needs no fulfilment; False when it was seen before (replay)."""
    async with db.transaction() as conn:
        cursor = await conn.execute(
            "INSERT OR IGNORE INTO stripe_events (id, type, outcome, received_at) VALUES (?, ?, ?, ?)",
            (event_id, event_type, outcome, utcnow()),
        )
        return cursor.rowcount == 1


async def seen_event(db: Database, event_id: str) -> bool:
    return await db.fetchone("SELECT 1 FROM stripe_events WHERE id = ?", (event_id,)) is not None


def redirect_url(value: str, name: str) -> str | None:
    """``value`` as a redirect address for Checkout: None when empty (the appliance's default
    applies), else an absolute ``http(s)://host/...`` of at most MAX_URL_LENGTH characters without
    spaces, which Stripe fills ``{CHECKOUT_SESSION_ID}`` in. BadRequest naming ``name`` otherwise
    (``javascript:``, a relative path, a typo)."""
    value = value.strip()
    if not value:
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or len(value) > MAX_URL_LENGTH
        or any(ch.isspace() or ord(ch) < 32 for ch in value)
    ):
        raise BadRequest(
            f"{name} must be an absolute http:// or https:// address of at most {MAX_URL_LENGTH} characters, "
            "e.g. https://billing.example.com/paid?session_id={CHECKOUT_SESSION_ID}"
        )
    return value


async def redirect_settings(db: Database, settings: Settings, tenant_id: str) -> dict[str, Any]:
    """The tenant's billing settings (spec 4.3): ``{successUrl, cancelUrl}`` as checkout uses
    them, ``ownSuccessUrl`` and ``ownCancelUrl`` as the tenant set them (None: the appliance's
    ``[stripe]`` default applies), and ``updatedBy``, ``updatedAt`` (None when never set)."""
    row = await db.fetchone("SELECT * FROM tenant_billing_settings WHERE tenant_id = ?", (tenant_id,))
    own_success = row["success_url"] if row else None
    own_cancel = row["cancel_url"] if row else None
    return {
        "successUrl": own_success or settings.stripe.success_url,
        "cancelUrl": own_cancel or settings.stripe.cancel_url,
        "ownSuccessUrl": own_success,
        "ownCancelUrl": own_cancel,
        "updatedBy": row["updated_by"] if row else None,
        "updatedAt": row["updated_at"] if row else None,
    }


async def set_redirect_settings(db: Database, tenant_id: str, success_url: str, cancel_url: str, by: str) -> None:
    """Store the tenant's success and cancel addresses (``redirect_url``: an empty one restores
    the appliance's default), with who set them and when. BadRequest for an address
    ``redirect_url`` refuses (nothing is stored then), NotFound for an unknown tenant."""
    success, cancel = redirect_url(success_url, "The success address"), redirect_url(cancel_url, "The cancel address")
    async with db.transaction() as conn:
        if await fetchone(conn, "SELECT 1 FROM tenants WHERE id = ?", (tenant_id,)) is None:
            raise NotFound(f"tenant {tenant_id} not found")
        await conn.execute(
            "INSERT INTO tenant_billing_settings (tenant_id, success_url, cancel_url, updated_by, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(tenant_id) DO UPDATE SET success_url = excluded.success_url, "
            "cancel_url = excluded.cancel_url, updated_by = excluded.updated_by, updated_at = excluded.updated_at",
            (tenant_id, success, cancel, by, utcnow()),
        )


async def list_purchases(db: Database, tenant_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """The tenant's latest checkouts, newest first: ``{id, sessionId, package, credits,
    priceCents, currency, status, appliedBy, createdAt, appliedAt}``; ``status`` is ``open``
    (not paid, or paid and not yet confirmed) or ``applied``; ``appliedBy`` ``confirm`` or
    ``webhook``; prices in the smallest currency unit (cents)."""
    rows = await db.fetchall(
        "SELECT p.*, k.name AS package FROM purchases p LEFT JOIN packages k ON k.id = p.package_id "
        "WHERE p.tenant_id = ? ORDER BY p.created_at DESC, p.rowid DESC LIMIT ?",
        (tenant_id, limit),
    )
    return [
        {
            "id": r["id"],
            "sessionId": r["session_id"],
            "package": r["package"],
            "credits": r["credits"],
            "priceCents": r["price_cents"],
            "currency": r["currency"],
            "status": r["status"],
            "appliedBy": r["applied_by"],
            "createdAt": r["created_at"],
            "appliedAt": r["applied_at"],
        }
        for r in rows
    ]


async def purchase_session(db: Database, tenant_id: str, purchase_id: str) -> str:
    """The Checkout Session id of the tenant's purchase ``purchase_id``, to confirm it; NotFound
    for an unknown id or another tenant's purchase."""
    row = await db.fetchone(
        "SELECT session_id FROM purchases WHERE id = ? AND tenant_id = ?", (str(purchase_id), tenant_id)
    )
    if row is None:
        raise NotFound("Purchase not found")
    return row["session_id"]


class Billing:
    """Stripe Checkout for one appliance. The client is made on first use and closed by ``close``."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings
        self._client = None
        self._http = None

    @property
    def configured(self) -> bool:
        return bool(self.settings.stripe.secret_key)

    def client(self):
        """The StripeClient (async aiohttp transport); PaymentNotConfigured without a secret key."""
        if not self.configured:
            raise PaymentNotConfigured("The payment processor is not configured (STRIPE_SECRET_KEY)")
        if self._client is None:
            import stripe

            stripe_settings = self.settings.stripe
            self._http = stripe.AIOHTTPClient(timeout=stripe_settings.timeout_seconds)
            options: dict[str, Any] = {
                "http_client": self._http,
                "max_network_retries": stripe_settings.max_network_retries,
            }
            if stripe_settings.api_base:
                options["base_addresses"] = {"api": stripe_settings.api_base.rstrip("/")}
            self._client = stripe.StripeClient(stripe_settings.secret_key, **options)
        return self._client

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close_async()
            self._http = self._client = None

    async def checkout(self, tenant_id: str, raw_package_id: str) -> dict[str, str]:
        """Create a Checkout Session for a package (spec 4.3); returns ``{url, sessionId}``.
        Stripe sends the customer back to the tenant's billing settings' addresses
        (``redirect_settings``), for the API and the web app alike.

        BadRequest for a malformed or inactive package id, NotFound for an unknown one,
        PaymentNotConfigured / PaymentProcessor* for Stripe trouble (nothing is recorded then).
        """
        try:
            canonical = str(uuid.UUID(raw_package_id))
        except ValueError as exc:
            raise BadRequest("packageId must be a package UUID") from exc
        package = await self.db.fetchone("SELECT * FROM packages WHERE id = ?", (canonical,))
        if package is None:
            raise NotFound("Package not found")
        if not package["active"]:
            raise BadRequest("Package unavailable: it is no longer sold")
        urls = await redirect_settings(self.db, self.settings, tenant_id)
        params = {
            "mode": "payment",
            "line_items": [
                {
                    "quantity": 1,
                    "price_data": {
                        "currency": package["currency"],
                        "unit_amount": package["price_cents"],
                        "product_data": {"name": f"{package['name']} ({package['credits']} credits)"},
                    },
                }
            ],
            "success_url": urls["successUrl"],
            "cancel_url": urls["cancelUrl"],
            "client_reference_id": tenant_id,
            "metadata": {"tenantId": tenant_id, "packageId": package["id"]},
        }
        session = await self._call(self.client().v1.checkout.sessions.create_async, params=params)
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO purchases (id, tenant_id, package_id, session_id, credits, price_cents, currency, "
                "status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?)",
                (
                    str(uuid.uuid4()),
                    tenant_id,
                    package["id"],
                    session.id,
                    package["credits"],
                    package["price_cents"],
                    package["currency"],
                    utcnow(),
                ),
            )
        return {"url": session.url, "sessionId": session.id}

    async def confirm(self, tenant_id: str, session_id: str) -> dict[str, Any]:
        """Credit the tenant for a paid session (spec 4.4); idempotent.

        BadRequest for a malformed id or an unpaid session; NotFound for an unknown session or one
        of another tenant.
        """
        if not SESSION_ID.match(session_id):
            raise BadRequest("Invalid session id: expected a Stripe Checkout Session id (cs_...)")
        self.client()
        import stripe

        try:
            session = await self._call(self.client().v1.checkout.sessions.retrieve_async, session_id)
        except stripe.InvalidRequestError as exc:
            if exc.http_status == 404:
                raise NotFound("Checkout session not found") from exc
            raise BadRequest(f"Invalid session id: {exc.user_message or exc}") from exc
        data = session.to_dict()
        if (data.get("metadata") or {}).get("tenantId") != tenant_id:
            raise NotFound("Checkout session not found")
        if data.get("payment_status") != "paid":
            raise BadRequest("Payment not completed yet: pay at the checkout url, then confirm again")
        result = await fulfil(self.db, data, via="confirm")
        return {
            "applied": result.applied,
            "credits": result.credits,
            "balance": result.balance,
            "creditCostPerInvoice": self.settings.credits.cost_per_invoice,
        }

    async def _call(self, method, *args, **kwargs):
        import stripe

        try:
            return await method(*args, **kwargs)
        except stripe.InvalidRequestError:
            raise
        except (stripe.APIConnectionError, TimeoutError) as exc:
            log.warning("Stripe unreachable: %s", type(exc).__name__)
            raise PaymentProcessorUnavailable(
                "The payment processor cannot be reached; nothing was applied, retry later",
                headers={"Retry-After": "30"},
            ) from exc
        except stripe.StripeError as exc:
            log.warning("Stripe error %s: %s", getattr(exc, "http_status", None), type(exc).__name__)
            raise PaymentProcessorError(
                "The payment processor answered with an error; nothing was applied, retry later"
            ) from exc

    async def webhook(self, payload: bytes, signature: str | None) -> dict[str, Any]:
        """Handle ``POST /webhooks/stripe``: verify the signature (tolerance 300 s), fulfil paid
        checkout sessions, acknowledge every other event. BadRequest on a bad signature or body."""
        import stripe

        secret = self.settings.stripe.webhook_secret
        if not secret:
            raise PaymentNotConfigured("Webhook signing secret not configured (STRIPE_WEBHOOK_SECRET)")
        try:
            event = stripe.Webhook.construct_event(payload, signature, secret, tolerance=300)
        except stripe.SignatureVerificationError as exc:
            log.warning("webhook refused: bad signature")
            raise BadRequest("Invalid Stripe-Signature") from exc
        except ValueError as exc:
            raise BadRequest("Invalid webhook payload") from exc
        event_id, event_type = event["id"], event["type"]
        if await seen_event(self.db, event_id):
            return {"received": True, "outcome": "duplicate"}
        session = event["data"]["object"].to_dict() if event_type in FULFIL_EVENTS else None
        if session is None or session.get("payment_status") != "paid":
            outcome = "ignored" if session is None else "not paid"
            if not await record_event(self.db, event_id, event_type, outcome):
                outcome = "duplicate"
            return {"received": True, "outcome": outcome}
        try:
            result = await fulfil(self.db, session, via="webhook", event=(event_id, event_type))
        except NotFound:
            await record_event(self.db, event_id, event_type, "unknown session")
            return {"received": True, "outcome": "unknown session"}
        except Exception as exc:
            if await seen_event(self.db, event_id):  # the same event raced in twice
                return {"received": True, "outcome": "duplicate"}
            raise exc
        return {"received": True, "outcome": "applied" if result.applied else "already applied"}
