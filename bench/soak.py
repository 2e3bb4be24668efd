"""Soak test: N concurrent clients upload real invoices and poll them for M minutes against an
appliance on this host, then check that nothing was lost.

    scripts/soak [--clients 50] [--minutes 5] [--files ../shared/datasets] [--out bench/results/soak.md]
                 [--url http://127.0.0.1:PORT --key KEY] [--pool ray|inline]

``--files``: the dev sources of a datasets folder (those with a manifest.json), or every PDF,
JPG and PNG below a folder that has none.

Without ``--url`` it starts its own appliance (``appliance serve`` in a temporary data dir) with
fake models loaded by name (tests.fakes.ocr:TextOcr, tests.fakes.llm:EchoLLM), so the run measures
the API, queue, ledger and pool rather than model speed. Each client loops: upload a random
file (one-step or init + attach), poll its statusUrl every ``--poll`` seconds until ready.
After the deadline the clients stop uploading and poll what they have until it is ready (at
most ``--drain`` seconds). Reported: requests per second, p50/p99 latency per route, responses
by status, final processing states, and the checks: every accepted upload ended ready, and
balance = start - accepted uploads (503 refusals are debited and refunded: net zero); with its
own server also balance = sum of the ledger in SQLite. Exit 1 when a check fails.

Loopback only: ``--url`` must name 127.0.0.1, ::1 or localhost. Every loop is bounded by the
deadline, the drain limit or a per-request timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlparse

import aiohttp

from bench.datasets import DATASETS, dev_sources
from bench.server import ServerProcess
from bench.stats import percentile
from bench.tenants import create_tenant

ROOT = Path(__file__).resolve().parents[1]

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
SUFFIXES = {".pdf", ".jpg", ".jpeg", ".png"}
READY_STATES = {"completed", "needs_review", "failed"}


class Stats:
    """Latency samples (seconds) per route and response counts per (route, status)."""

    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.statuses: Counter = Counter()
        self.transport_errors: Counter = Counter()

    def record(self, route: str, status: int, seconds: float) -> None:
        self.latency[route].append(seconds)
        self.statuses[(route, status)] += 1


async def call(session, stats: Stats, route: str, method: str, url: str, **kwargs):
    """One request; returns (status, JSON body or None). Transport errors count as status 0."""
    started = time.perf_counter()
    try:
        async with session.request(method, url, **kwargs) as response:
            body = await response.json(content_type=None)
            stats.record(route, response.status, time.perf_counter() - started)
            return response.status, body
    except (TimeoutError, aiohttp.ClientError, json.JSONDecodeError) as exc:
        stats.transport_errors[type(exc).__name__] += 1
        stats.record(route, 0, time.perf_counter() - started)
        return 0, None


def shown_path(path: Path) -> str:
    """``path`` as written in reports: relative to the checkout's parent when below it, so no
    machine's absolute paths end up in committed results."""
    try:
        return "../" + str(Path(path).resolve().relative_to(ROOT.parent))
    except ValueError:
        return str(path)


def form(data: bytes, name: str) -> aiohttp.FormData:
    body = aiohttp.FormData()
    body.add_field("file", data, filename=name, content_type="application/octet-stream")
    return body


async def upload(session, stats: Stats, base: str, data: bytes, name: str, rng: random.Random):
    """Upload one file, one-step or init + attach; returns (status, invoice id or None)."""
    if rng.random() < 0.5:
        status, body = await call(
            session, stats, "POST /invoices/upload", "POST", f"{base}/api/v1/invoices/upload", data=form(data, name)
        )
        return status, (body or {}).get("invoice", {}).get("id") if status == 202 else None
    status, body = await call(
        session, stats, "POST /invoices/upload/init", "POST", f"{base}/api/v1/invoices/upload/init"
    )
    if status != 202:
        return status, None
    slot = body["invoiceId"]
    status, body = await call(
        session,
        stats,
        "POST /invoices/upload/{id}/file",
        "POST",
        f"{base}/api/v1/invoices/upload/{slot}/file",
        data=form(data, name),
    )
    return status, slot if status == 202 else None


async def poll(session, stats: Stats, base: str, invoice_id: str, until: float, every: float) -> str | None:
    """Poll until ready or ``until`` (monotonic); returns the final processingStatus or None."""
    while time.monotonic() < until:
        status, body = await call(session, stats, "GET /invoices/{id}", "GET", f"{base}/api/v1/invoices/{invoice_id}")
        if status == 200 and body.get("ready"):
            return body["processingStatus"]
        await asyncio.sleep(every)
    return None


async def client(
    number: int, args, files: list[Path], base: str, key: str, stats: Stats, outcome: dict, deadline: float
) -> None:
    rng = random.Random(number)
    headers = {"Authorization": f"Bearer {key}"}
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(headers=headers, timeout=timeout) as session:
        while time.monotonic() < deadline:
            path = rng.choice(files)
            status, invoice_id = await upload(session, stats, base, path.read_bytes(), path.name, rng)
            if invoice_id is None:
                if status in (0, 503):
                    await asyncio.sleep(1.0)  # back off like a client honouring Retry-After (shortened)
                continue
            outcome["accepted"].append(invoice_id)
            state = await poll(session, stats, base, invoice_id, deadline + args.drain, args.poll)
            outcome["states"][invoice_id] = state


def start_server(args, workdir: Path):
    """Start ``appliance serve`` with fake models on a free loopback port; returns (proc, url, key, db)."""
    from bench.server import write_config

    config = write_config(
        workdir,
        {
            "ocr": {"engine": "tests.fakes.ocr:TextOcr"},
            "llm": {"backend": "tests.fakes.llm:EchoLLM"},
            "pool": {"backend": args.pool, "workers": args.workers},
            "log": {"level": "WARNING"},
            "ray": {"num_cpus": args.workers, "object_store_mb": 200},
        },
    )
    key = create_tenant(config, "soak", args.credits)
    server = ServerProcess(config).start(timeout=300)
    return server, server.url, key, workdir / "data" / "appliance.db"


async def balance(base: str, key: str) -> int:
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {key}"}) as session:
        async with session.get(f"{base}/api/v1/credits/balance") as response:
            return (await response.json())["balance"]


def ledger_totals(db_path: Path) -> tuple[int, int]:
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
        balance_sum = conn.execute("SELECT COALESCE(SUM(balance), 0) FROM tenants").fetchone()[0]
        ledger_sum = conn.execute("SELECT COALESCE(SUM(delta), 0) FROM ledger").fetchone()[0]
    return balance_sum, ledger_sum


def report(
    args, stats: Stats, outcome: dict, seconds: float, start: int, end: int, ledger: tuple[int, int] | None
) -> tuple[str, bool]:
    """The markdown report and whether every check passed."""
    requests = sum(stats.statuses.values())
    accepted = len(outcome["accepted"])
    upload_routes = ("POST /invoices/upload", "POST /invoices/upload/{id}/file")
    refunded = sum(n for (route, status), n in stats.statuses.items() if status == 503 and route in upload_routes)
    states = Counter(outcome["states"].get(i) or "not ready" for i in outcome["accepted"])
    lines = [
        f"# Soak: {args.clients} clients for {seconds / 60:.1f} min",
        "",
        f"- target: {args.target}; files: {len(outcome['files'])} from `{shown_path(args.files)}`",
        f"- host: {os.cpu_count()} CPUs; `scripts/soak --clients {args.clients} --minutes {args.minutes:g}`",
        f"- requests: {requests} in {seconds:.0f} s = **{requests / seconds:.1f} req/s**; "
        f"uploads accepted: {accepted} ({accepted / seconds:.2f}/s)",
        "",
        "| route | requests | p50 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for route, samples in sorted(stats.latency.items()):
        lines.append(
            f"| {route} | {len(samples)} | {percentile(samples, 0.5) * 1000:.0f} | "
            f"{percentile(samples, 0.99) * 1000:.0f} | {max(samples) * 1000:.0f} |"
        )
    lines += ["", "| route | status | count |", "|---|---:|---:|"]
    lines += [
        f"| {route} | {status or 'transport error'} | {n} |" for (route, status), n in sorted(stats.statuses.items())
    ]
    if stats.transport_errors:
        lines += ["", f"Transport errors: {dict(stats.transport_errors)}"]
    lines += [
        "",
        "Final processing states of accepted uploads: "
        + ", ".join(f"{state} {n}" for state, n in sorted(states.items())),
    ]
    ready_ok = states.get("not ready", 0) == 0
    credit_ok = end == start - accepted
    checks = [
        ("every accepted upload ended ready", ready_ok),
        (
            f"credits add up: end {end} = start {start} - accepted {accepted} "
            f"(+ {refunded} refunded 503s, debited and refunded)",
            credit_ok,
        ),
    ]
    if ledger is not None:
        checks.append((f"balance = sum of the ledger ({ledger[0]} = {ledger[1]})", ledger[0] == ledger[1]))
    lines += ["", "Checks:"] + [f"- [{'x' if ok else ' '}] {text}" for text, ok in checks]
    return "\n".join(lines) + "\n", all(ok for _, ok in checks)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="soak", description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--files", type=Path, default=DATASETS)
    parser.add_argument("--out", type=Path, default=None, help="write the markdown report here too")
    parser.add_argument("--url", default="", help="a running appliance on loopback (else one is started)")
    parser.add_argument("--key", default="", help="API key for --url")
    parser.add_argument("--pool", choices=("ray", "inline"), default="ray", help="pool of the started appliance")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--credits", type=int, default=1_000_000)
    parser.add_argument("--poll", type=float, default=0.5, help="seconds between polls")
    parser.add_argument("--drain", type=float, default=180.0, help="seconds to wait for the backlog after the run")
    args = parser.parse_args(argv)
    if args.url and urlparse(args.url).hostname not in LOOPBACK:
        parser.error("--url must be a loopback address (127.0.0.1, ::1, localhost)")
    if args.url and not args.key:
        parser.error("--url needs --key")
    if not 1 <= args.clients <= 1000 or args.minutes <= 0:
        parser.error("--clients must be 1 to 1000 and --minutes above 0")
    return args


async def run(args) -> int:
    # the dev sources (folders with a manifest.json, as score.py finds them), never train/;
    # a folder without any such source is taken as it is
    roots = dev_sources(args.files) or [args.files]
    files = sorted(p for root in roots for p in root.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())
    if not files:
        raise SystemExit(f"no PDF, JPG or PNG files under {args.files}")
    server, db_path = None, None
    with tempfile.TemporaryDirectory(prefix="soak-") as workdir:
        if args.url:
            base, key, args.target = args.url.rstrip("/"), args.key, args.url
        else:
            server, base, key, db_path = start_server(args, Path(workdir))
            args.target = f"own appliance ({args.pool} pool, {args.workers} workers, fake models)"
        try:
            start = await balance(base, key)
            stats, outcome = Stats(), {"accepted": [], "states": {}, "files": files}
            began = time.monotonic()
            deadline = began + args.minutes * 60
            await asyncio.gather(
                *(client(n, args, files, base, key, stats, outcome, deadline) for n in range(args.clients))
            )
            seconds = time.monotonic() - began
            end = await balance(base, key)
            ledger = ledger_totals(db_path) if db_path else None
        finally:
            if server is not None:
                server.stop()
    text, ok = report(args, stats, outcome, seconds, start, end, ledger)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
