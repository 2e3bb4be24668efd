"""API benchmark: the poll endpoint against the minimal aiohttp + aiosqlite app of
``../shared/bench/api_reference.py``, measured with wrk in one run on this host (issue 12).

    scripts/bench-api [--seconds 10] [--connections 64] [--uploaders 4] [--profile]
                      [--datasets ../shared/datasets] [--out bench/results/api.md]

Starts the reference app and a real ``appliance serve`` (default config: Ray pool, real models)
in a temporary data dir, uploads one real invoice and waits until it is ready, then runs
``wrk -t1 -cN -dS --latency`` against, in this order:

- ``reference hello``: the reference app's hello route (aiohttp's own ceiling on this host);
- ``reference poll``: its poll route (key hash, key lookup, invoice row; a 2 KB body);
- ``appliance poll``: ``GET /api/v1/invoices/{id}`` with auth, tenant scope and the full JSON;
- ``appliance poll, 304``: the same with ``If-None-Match`` (what a client that keeps the ETag sends);
- ``appliance balance``: ``GET /api/v1/credits/balance``;
- ``appliance poll, N uploading``: the poll while N clients of another tenant upload the same
  real invoice in a loop (a separate process; 503 once that tenant's queue share is full is still
  a streamed upload, refunded), and the pool extracts what was queued.

Each row: requests/s, latency p50/p90/p99 and max, and non-2xx/3xx responses. ``--profile`` runs
one more appliance under cProfile for the poll and appends its top functions (the event loop's
thread: time in SQLite's own thread shows as waiting). Needs wrk (Debian's package ``wrk``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.datasets import DATASETS
from bench.server import ServerProcess, free_port
from bench.tenants import create_tenant

ROOT = Path(__file__).resolve().parents[1]

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def parse_wrk(output: str) -> dict:
    """Requests/s, latency percentiles (ms) and non-2xx/3xx count from ``wrk --latency`` output."""

    def ms(text: str) -> float:
        value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
        return float(value) * UNITS[unit]

    figures = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))}
    for pct in ("50", "90", "99"):
        figures[f"p{pct}"] = ms(re.search(rf"^\s+{pct}%\s+(\S+)", output, re.M).group(1))
    figures["max"] = ms(re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    figures["errors"] = int(errors.group(1)) if errors else 0
    figures["requests"] = int(re.search(r"(\d+) requests in", output).group(1))
    return figures


def wrk(url: str, seconds: int, connections: int, headers: dict[str, str]) -> dict:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", url]
    for name, value in headers.items():
        command[1:1] = ["-H", f"{name}: {value}"]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return parse_wrk(output)


def wait_http(url: str, timeout: float = 60) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {timeout} s")


def invoice_file(datasets: Path) -> Path:
    """The first text-layer PDF of invoice2data (a real invoice). Exits when there is none."""
    manifest = datasets / "invoice2data" / "manifest.json"
    if manifest.is_file():
        files = sorted(e["file"] for e in json.loads(manifest.read_text()) if e["file"].endswith(".pdf"))
        if files:
            return datasets / "invoice2data" / files[0]
    sys.exit(f"bench-api: no text-layer PDF in {manifest.parent} (../shared/datasets)")


async def _upload_until(base: str, key: str, path: Path, clients: int, stop_at: float) -> dict[int, int]:
    import aiohttp

    counts: dict[int, int] = {}
    body = path.read_bytes()

    async def one(session) -> None:
        while time.monotonic() < stop_at:
            form = aiohttp.FormData()
            form.add_field("file", body, filename=path.name, content_type="application/pdf")
            async with session.post(f"{base}/api/v1/invoices/upload", data=form) as response:
                await response.read()
                counts[response.status] = counts.get(response.status, 0) + 1

    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {key}"}) as session:
        await asyncio.gather(*(one(session) for _ in range(clients)))
    return counts


def upload_load(base: str, key: str, path: Path, clients: int, seconds: float) -> subprocess.Popen:
    """``clients`` uploaders in a child process (this module, ``--upload-load``) for ``seconds``;
    it prints ``{status: count}``."""
    args = [sys.executable, "-m", "bench.api", "--upload-load", base, key, str(path), str(clients), str(seconds)]
    python_path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": python_path})


def appliance(folder: Path, profile: Path | None = None):
    """A real appliance (default models, Ray pool) with a poll tenant holding one ready invoice
    and an upload tenant with plenty of credits: (server, poll key, invoice id, upload key)."""
    from bench.server import write_config

    config = write_config(folder, {})  # the defaults, access log included (log.access = "changes")
    keys = [create_tenant(config, name, credits, "a tenant") for name, credits in (("poll", 10), ("upload", 100000))]
    server = ServerProcess(config)
    if profile is not None:
        server.command = [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "appliance.cli"]
    return server.start(timeout=600), keys[0], keys[1]


def etag_of(url: str, key: str) -> str:
    import urllib.request

    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    return urllib.request.urlopen(request, timeout=10).headers.get("ETag") or ""


def profile_top(path: Path, count: int = 25) -> str:
    import io
    import pstats

    out = io.StringIO()
    pstats.Stats(str(path), stream=out).strip_dirs().sort_stats("tottime").print_stats(count)
    text = out.getvalue()
    return text[text.find("   ncalls") :] if "   ncalls" in text else text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-api", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--uploaders", type=int, default=4)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "api.md")
    parser.add_argument(  # internal: the uploaders' own process (upload_load)
        "--upload-load", nargs=5, metavar=("URL", "KEY", "FILE", "CLIENTS", "SECONDS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.upload_load:  # the uploaders' own process (upload_load)
        base, key, file, clients, seconds = args.upload_load
        stop_at = time.monotonic() + float(seconds)
        print(json.dumps(asyncio.run(_upload_until(base, key, Path(file), int(clients), stop_at))))
        return 0
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed: apt-get install wrk (Debian's package)")
    reference = args.datasets.parent / "bench" / "api_reference.py"
    if not reference.is_file():
        raise SystemExit(f"{reference} is missing: the reference app comes with ../shared")
    work = Path(tempfile.mkdtemp(prefix="bench-api-"))
    path = invoice_file(args.datasets)
    ref_port = free_port()
    ref = subprocess.Popen(
        [sys.executable, str(reference), str(ref_port), str(work / "reference.sqlite")],
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    rows: list[tuple[str, dict]] = []
    notes: list[str] = []
    server = None
    try:
        ref_base = f"http://127.0.0.1:{ref_port}"
        wait_http(ref_base + "/hello")
        server, key, upload_key = appliance(work / "appliance")
        invoice_id = server.upload_ready(key, path.read_bytes(), path.name, "application/pdf")
        poll_url = f"{server.url}/api/v1/invoices/{invoice_id}"
        auth = {"Authorization": f"Bearer {key}"}
        n, s = args.connections, args.seconds
        rows.append(("reference hello", wrk(ref_base + "/hello", s, n, {})))
        rows.append(
            ("reference poll", wrk(ref_base + "/api/v1/invoices/i1", s, n, {"Authorization": "Bearer " + "k" * 40}))
        )
        rows.append(("appliance poll", wrk(poll_url, s, n, auth)))
        etag = etag_of(poll_url, key)
        if etag:
            rows.append(("appliance poll, 304", wrk(poll_url, s, n, {**auth, "If-None-Match": etag})))
        rows.append(("appliance balance", wrk(server.url + "/api/v1/credits/balance", s, n, auth)))
        load = upload_load(server.url, upload_key, path, args.uploaders, s + 2)
        time.sleep(1)
        rows.append((f"appliance poll, {args.uploaders} uploading", wrk(poll_url, s, n, auth)))
        counts = json.loads(load.communicate(timeout=120)[0] or "{}")
        notes.append(
            f"Uploads during the loaded run ({args.uploaders} clients, {path.name}, {path.stat().st_size // 1024} KB): "
            + ", ".join(f"{count} x {status}" for status, count in sorted(counts.items()))
        )
        server.stop()
        server = None
        profile = None
        if args.profile:
            stats = work / "poll.prof"
            server, key, _ = appliance(work / "profiled", profile=stats)
            invoice_id = server.upload_ready(key, path.read_bytes(), path.name, "application/pdf")
            wrk(f"{server.url}/api/v1/invoices/{invoice_id}", s, n, {"Authorization": f"Bearer {key}"})
            server.stop()
            server = None
            profile = profile_top(stats)
    finally:
        if server is not None:
            server.stop()
        ref.kill()  # its aiosqlite thread outlives SIGTERM (the reference app never closes its connection)
        ref.wait(10)
    write(args, rows, notes, profile)
    shutil.rmtree(work, ignore_errors=True)
    return 0


def kept_findings(path: Path) -> str:
    """The hand-written ``## Findings`` section of an earlier results file (kept across runs)."""
    if not path.is_file():
        return ""
    text = path.read_text()
    start = text.find("## Findings")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None].rstrip() + "\n"


def write(args, rows: list[tuple[str, dict]], notes: list[str], profile: str | None) -> None:
    ref = dict(rows)["reference poll"]
    lines = [
        "# API benchmark (`scripts/bench-api`)",
        "",
        f"Host: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"`wrk -t1 -c{args.connections} -d{args.seconds}s --latency`, all rows in one run, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Targets (issue 12): the appliance's poll at least "
        "as fast as the reference poll, p99 <= 30 ms, also while clients upload.",
        "",
        "| run | requests/s | vs reference poll | p50 ms | p90 ms | p99 ms | max ms | non-2xx/3xx |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, f in rows:
        lines.append(
            f"| {name} | {f['rps']:,.0f} | {f['rps'] / ref['rps']:.2f}x | {f['p50']:.1f} | {f['p90']:.1f} | "
            f"{f['p99']:.1f} | {f['max']:.0f} | {f['errors']} |"
        )
    lines += ["", *notes, ""]
    if profile:
        lines += [
            "## Profile of the poll (cProfile, event loop thread, by own time)",
            "",
            "```",
            profile.rstrip(),
            "```",
            "",
        ]
    findings = kept_findings(args.out)
    if findings:
        lines += [findings]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
