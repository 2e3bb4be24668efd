"""A fake Stripe API on loopback for tests and demos: Checkout Sessions as Stripe's API serves
them (form-encoded requests with nested ``a[b][0][c]`` keys, JSON objects with ``id``, ``url``,
``payment_status``, ``metadata``), reached by the real ``stripe`` library through
``STRIPE_API_BASE``.

Test hooks: ``pay(session_id)`` marks a session paid (as does opening its ``url``, which stands in
for the hosted payment page) and, when ``webhook_url`` is set, sends the signed
``checkout.session.completed`` event there, as Stripe would; ``fail_next(n, status)`` answers the
next n API calls with an error.

Run standalone: ``python -m tests.fakes.stripe_api --port 12111 [--webhook-url URL --webhook-secret S]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import secrets
import time
from typing import Any

from aiohttp import ClientSession, web


def unflatten(form: dict[str, str]) -> dict[str, Any]:
    """Stripe's form encoding (``line_items[0][price_data][unit_amount]=1999``) into nested objects."""
    root: dict[str, Any] = {}
    for key, value in form.items():
        parts = re.findall(r"[^\[\]]+", key)
        node: Any = root
        for part, following in zip(parts, parts[1:] + [None], strict=True):
            container = [] if following is not None and following.isdigit() else {}
            if isinstance(node, list):
                index = int(part)
                while len(node) <= index:
                    node.append(None)
                if following is None:
                    node[index] = value
                else:
                    node[index] = node[index] if node[index] is not None else container
                    node = node[index]
            else:
                if following is None:
                    node[part] = value
                else:
                    node = node.setdefault(part, container)
    return root


def sign(payload: bytes, secret: str, timestamp: int | None = None) -> str:
    """A ``Stripe-Signature`` header for ``payload``, computed the way Stripe does (HMAC-SHA256)."""
    import stripe

    return stripe.WebhookSignature.generate_signature_header(
        payload.decode(), secret, timestamp=timestamp if timestamp is not None else int(time.time())
    )


def completed_event(session: dict[str, Any], event_type: str = "checkout.session.completed") -> dict[str, Any]:
    return {
        "id": "evt_" + secrets.token_hex(12),
        "object": "event",
        "type": event_type,
        "api_version": "2026-10-28.endive",
        "created": int(time.time()),
        "data": {"object": session},
    }


class FakeStripe:
    """The fake's state and its aiohttp app. ``base_url`` is set once it listens."""

    def __init__(self, webhook_url: str | None = None, webhook_secret: str | None = None) -> None:
        self.sessions: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.webhook_url = webhook_url
        self.webhook_secret = webhook_secret
        self.base_url = ""
        self._failures: list[int] = []
        self.app = web.Application()
        self.app.add_routes(
            [
                web.post("/v1/checkout/sessions", self._create),
                web.get("/v1/checkout/sessions/{id}", self._retrieve),
                web.get("/pay/{id}", self._hosted_page),
            ]
        )

    def fail_next(self, count: int = 1, status: int = 500) -> None:
        self._failures.extend([status] * count)

    async def pay(self, session_id: str) -> dict[str, Any]:
        session = self.sessions[session_id]
        session.update(payment_status="paid", status="complete")
        if self.webhook_url and self.webhook_secret:
            payload = json.dumps(completed_event(session)).encode()
            async with ClientSession() as client:
                await client.post(
                    self.webhook_url,
                    data=payload,
                    headers={
                        "Stripe-Signature": sign(payload, self.webhook_secret),
                        "Content-Type": "application/json",
                    },
                )
        return session

    def _error(self, status: int, message: str, code: str | None = None) -> web.Response:
        body = {
            "error": {
                "type": "invalid_request_error" if status < 500 else "api_error",
                "message": message,
                **({"code": code} if code else {}),
            }
        }
        return web.json_response(body, status=status)

    def _gate(self, request: web.Request) -> web.Response | None:
        self.requests.append((request.method, request.path, dict(request.headers)))
        if not request.headers.get("Authorization", "").startswith("Bearer sk_"):
            return self._error(401, "Invalid API Key provided")
        if self._failures:
            return self._error(self._failures.pop(0), "Simulated failure")
        return None

    async def _create(self, request: web.Request) -> web.Response:
        refused = self._gate(request)
        if refused is not None:
            return refused
        params = unflatten(dict(await request.post()))
        for required in ("mode", "success_url", "line_items"):
            if required not in params:
                return self._error(400, f"Missing required param: {required}.", "parameter_missing")
        session_id = "cs_test_" + secrets.token_hex(16)
        price = params["line_items"][0]["price_data"]
        session = {
            "id": session_id,
            "object": "checkout.session",
            "mode": params["mode"],
            "url": f"{self.base_url}/pay/{session_id}",
            "status": "open",
            "payment_status": "unpaid",
            "amount_total": int(price["unit_amount"]) * int(params["line_items"][0].get("quantity", 1)),
            "currency": price["currency"],
            "client_reference_id": params.get("client_reference_id"),
            "metadata": params.get("metadata", {}),
            "success_url": params["success_url"],
            "cancel_url": params.get("cancel_url"),
            "created": int(time.time()),
        }
        self.sessions[session_id] = session
        return web.json_response(session)

    async def _retrieve(self, request: web.Request) -> web.Response:
        refused = self._gate(request)
        if refused is not None:
            return refused
        session = self.sessions.get(request.match_info["id"])
        if session is None:
            return self._error(404, f"No such checkout.session: '{request.match_info['id']}'", "resource_missing")
        return web.json_response(session)

    async def _hosted_page(self, request: web.Request) -> web.Response:
        if request.match_info["id"] not in self.sessions:
            raise web.HTTPNotFound()
        session = await self.pay(request.match_info["id"])
        return web.Response(text=f"paid {session['amount_total']} {session['currency']}\n")

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> web.AppRunner:
        runner = web.AppRunner(self.app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://{host}:{port}"
        return runner


async def _main() -> None:
    parser = argparse.ArgumentParser(description="Fake Stripe API for tests and demos")
    parser.add_argument("--port", type=int, default=12111)
    parser.add_argument("--webhook-url")
    parser.add_argument("--webhook-secret")
    args = parser.parse_args()
    fake = FakeStripe(args.webhook_url, args.webhook_secret)
    await fake.start(port=args.port)
    print(f"fake Stripe API on {fake.base_url}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(_main())
