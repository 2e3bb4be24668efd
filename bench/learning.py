"""Learning-stream benchmark (issue "Every approval teaches the appliance the vendor"): documents
grouped by vendor, in order, through a real ``appliance serve`` and its HTTP API; after each one
a simulated clerk corrects the wrong key fields from the truth and approves, as a person would.

    scripts/bench-learning [--datasets ../shared/datasets] [--vendors 8] [--per-vendor 10]
                           [--seed 77] [--no-baseline] [--streams "synth pdf,synth scan"]
                           [--out bench/results/learning.md]

Streams (each one vendor's documents, in file order):

- ``sroie train``: the receipts of the shops that repeat at least three times in
  ``datasets/train/sroie`` (the scorer's training set: its figures are optimistic);
- ``sroie dev``: the shops of the dev set's receipts that repeat;
- ``synth pdf`` and ``synth scan``: ``--vendors`` synthetic vendors of
  ``training.synth.generate_series`` (a seed the scorer never saw), ``--per-vendor`` documents
  each, as text-layer PDFs and as noisy scans.

The clerk works in-process on the server's SQLite file through ``appliance.review`` (what the
review page and ``appliance invoice correct|approve`` call). A document is *right* when every
key field its truth has is right by ``../shared/bench/score.py``'s ``field_ok``. Per position of
a document in its vendor's stream (1st, 2nd, 3rd-5th, 6th+) the report gives the completed share
and completed precision, with learning and, unless ``--no-baseline``, on a second tenant whose
clerk never approves (the appliance without profiles), and the seconds from upload to ready.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench.accuracy import load_score_module
from bench.datasets import DATASETS
from bench.server import ServerProcess, write_config
from bench.tenants import create_tenant
from bench.throughput import hardware

ROOT = Path(__file__).resolve().parents[1]
KEY_FIELDS = ("invoice_number", "invoice_date", "vendor_name", "currency", "total_amount")
STREAMS = ("sroie train", "sroie dev", "synth pdf", "synth scan")
BUCKETS = (("1st", 1, 1), ("2nd", 2, 2), ("3rd-5th", 3, 5), ("6th+", 6, 10**6))
MEDIA = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".pdf": "application/pdf"}


@dataclass(frozen=True)
class StreamDoc:
    """One document of a vendor's stream: its ``name``, bytes, media type and truth."""

    name: str
    data: bytes
    content_type: str
    truth: dict


@dataclass
class Outcome:
    """What one document of a stream came back as: position in its vendor's stream (1-based),
    ``processingStatus``, whether its key fields were right, seconds upload to ready."""

    stream: str
    vendor: str
    position: int
    status: str
    right: bool
    seconds: float
    learning: bool
    errors: tuple[str, ...] = ()
    routing: str = ""
    wrong: tuple[str, ...] = ()  # "field: got -> truth" of the key fields that were wrong


def repeat_shops(folder: Path, least: int) -> list[tuple[str, list[StreamDoc]]]:
    """The receipts of ``folder`` grouped by the vendor name of their truth (letters and digits
    compared), shops with at least ``least`` receipts, in file order."""
    shops: dict[str, list[StreamDoc]] = defaultdict(list)
    for truth_path in sorted(folder.glob("*.json")):
        if truth_path.name == "manifest.json":
            continue
        image = next((p for p in folder.glob(truth_path.stem + ".*") if p.suffix.lower() in MEDIA), None)
        truth = json.loads(truth_path.read_text())
        if image is None or not truth.get("vendor_name"):
            continue
        key = re.sub(r"\W+", "", truth["vendor_name"]).casefold()
        shops[key].append(StreamDoc(image.name, image.read_bytes(), MEDIA[image.suffix.lower()], truth))
    return sorted((k, v) for k, v in shops.items() if len(v) >= least)


def synth_streams(vendors: int, per_vendor: int, seed: int) -> tuple[list, list]:
    """(text-layer PDF streams, scan streams) of ``training.synth.generate_series``."""
    from training.synth import generate_series, scan

    pdfs, scans = [], []
    for series in generate_series(vendors, per_vendor, seed):
        vendor = series[0].truth["vendor_name"]
        pdfs.append((vendor, [StreamDoc(d.stem + ".pdf", d.pdf, "application/pdf", d.truth) for d in series]))
        scans.append(
            (
                vendor,
                [
                    StreamDoc(d.stem + ".jpg", scan(d.pdf, seed=seed * 100003 + i), "image/jpeg", d.truth)
                    for i, d in enumerate(series)
                ],
            )
        )
    return pdfs, scans


def right(score_py, data: dict | None, truth: dict) -> bool:
    """Every key field the truth has is right (score.py's ``field_ok``)."""
    data = data or {}
    return all(score_py.field_ok(k, data.get(k), truth[k]) for k in KEY_FIELDS if truth.get(k) is not None)


def corrections(score_py, data: dict | None, truth: dict) -> list[str]:
    """``field=value`` for each key field the truth has and the data got wrong."""
    data = data or {}
    out = []
    for name in KEY_FIELDS:
        value = truth.get(name)
        if value is not None and not score_py.field_ok(name, data.get(name), value):
            out.append(f"{name}={value}")
    return out


async def run_streams(server, key, db, score_py, streams, label: str, learning: bool) -> list[Outcome]:
    """Each vendor's documents in order through the API; the clerk corrects and approves after
    each one when ``learning``."""
    from appliance import review

    outcomes = []
    for vendor, docs in streams:
        for position, doc in enumerate(docs, 1):
            started = time.perf_counter()
            invoice_id = await asyncio.to_thread(server.upload_ready, key, doc.data, doc.name, doc.content_type)
            seconds = time.perf_counter() - started
            _, body = await asyncio.to_thread(server.request, "GET", f"/api/v1/invoices/{invoice_id}", key)
            ok = right(score_py, body.get("data"), doc.truth)
            row = await db.fetchone("SELECT routing_reason FROM invoices WHERE id = ?", (invoice_id,))
            errors = tuple(body.get("validationErrors") or ())
            fixes = corrections(score_py, body.get("data"), doc.truth)
            wrong = tuple(
                f"{fix.split('=')[0]}: {(body.get('data') or {}).get(fix.split('=')[0])!r} -> {fix.split('=', 1)[1]}"
                for fix in fixes
            )
            outcomes.append(
                Outcome(
                    label,
                    vendor,
                    position,
                    body["processingStatus"],
                    ok,
                    seconds,
                    learning,
                    errors,
                    row[0] or "",
                    wrong,
                )
            )
            if learning:
                if fixes:
                    await review.correct(db, invoice_id, fixes, [], "bench-clerk")
                await review.decide(db, invoice_id, "approved", "bench-clerk")
    return outcomes


def bucket_rows(outcomes: list[Outcome]) -> list[dict]:
    """Per stream, learning state and position bucket: documents, completed, completed share,
    completed precision, right share, median seconds."""
    rows = []
    keys = sorted({(o.stream, o.learning) for o in outcomes}, key=lambda k: (k[0], not k[1]))
    for stream, learning in keys:
        for name, low, high in BUCKETS:
            mine = [o for o in outcomes if (o.stream, o.learning) == (stream, learning) and low <= o.position <= high]
            if not mine:
                continue
            done = [o for o in mine if o.status == "completed"]
            rows.append(
                {
                    "stream": stream,
                    "learning": learning,
                    "bucket": name,
                    "documents": len(mine),
                    "completed": len(done),
                    "share": round(len(done) / len(mine), 3),
                    "precision": round(sum(o.right for o in done) / len(done), 3) if done else None,
                    "right": round(sum(o.right for o in mine) / len(mine), 3),
                    "seconds": round(statistics.median(o.seconds for o in mine), 2),
                }
            )
    return rows


def markdown(rows: list[dict], meta: dict) -> str:
    lines = [
        "# Learning-stream benchmark",
        "",
        f"`scripts/bench-learning` on commit {meta['commit']} ({meta['date']}), {meta['host']}; the shipped",
        "configuration (`ppocr`, the learned scorer, the model where it pays), one `appliance serve` on",
        "loopback. Documents of one vendor in order; after each, a simulated clerk corrects the wrong key",
        'fields from the truth and approves. "without learning": the same documents on a tenant whose',
        "clerk never approves. Right: every key field the truth has is right (score.py's `field_ok`).",
        "",
        "| stream | learning | position | documents | completed | completed share | completed precision "
        "| right share | median seconds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        precision = "-" if row["precision"] is None else row["precision"]
        lines.append(
            f"| {row['stream']} | {'with' if row['learning'] else 'without'} | {row['bucket']} | {row['documents']} "
            f"| {row['completed']} | {row['share']} | {precision} | {row['right']} | {row['seconds']} |"
        )
    lines += ["", f"Streams: {meta['streams']}. Wall: {meta['wall']} s.", ""]
    return "\n".join(lines)


async def bench(args) -> tuple[list[Outcome], dict]:
    from appliance.db import Database

    score_py = load_score_module(args.datasets)
    streams = {
        "sroie train": repeat_shops(args.datasets / "train" / "sroie", 3),
        "sroie dev": repeat_shops(args.datasets / "sroie", 2),
    }
    streams["synth pdf"], streams["synth scan"] = synth_streams(args.vendors, args.per_vendor, args.seed)
    streams = {name: streams[name] for name in args.streams}
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="bench-learning-") as tmp:
        config = write_config(Path(tmp), {})
        # a tenant per stream and state: the scans are the PDFs' documents, and one stream's
        # approvals must not teach the next one's first documents
        keys = {
            (label, state): create_tenant(config, f"{label} {state}", 100000)
            for label in streams
            for state in ("with", "without")
        }
        server = ServerProcess(config).start()
        db = await Database(Path(tmp) / "data" / "appliance.db").open()
        started = time.perf_counter()
        try:
            for label, chosen in streams.items():
                print(f"bench-learning: {label}, {sum(len(d) for _, d in chosen)} documents", flush=True)
                outcomes += await run_streams(server, keys[(label, "with")], db, score_py, chosen, label, True)
                if args.baseline:
                    outcomes += await run_streams(server, keys[(label, "without")], db, score_py, chosen, label, False)
        finally:
            await db.close()
            server.stop()
        wall = round(time.perf_counter() - started)
    meta = {
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
        "date": time.strftime("%Y-%m-%d"),
        "host": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "streams": "; ".join(
            f"{k}: {len(v)} vendors, {sum(len(d) for _, d in v)} documents" for k, v in streams.items()
        ),
        "wall": wall,
    }
    return outcomes, meta


MATCH_PAGE = "\n".join(
    ["Shop 9999 Sdn Bhd", "(1009999-X)", "GST ID: 000100009999", "Tel: 03-1000 9999", "Invoice No: CS123",
     "Date: 05/01/2017", "TOTAL: 39.00"]
)  # fmt: skip


def large_book(profiles: int = 10_000, key: str = ""):
    """A tenant's ``ProfileBook`` of ``profiles`` vendor profiles (four identifiers each): one
    taught by a page like ``MATCH_PAGE`` (other number and total), the rest fillers."""
    from pipeline.profiles.book import ProfileBook
    from pipeline.profiles.lessons import learn
    from pipeline.profiles.profile import VendorProfile, build

    fillers = tuple(
        VendorProfile(
            f"p{i}",
            f"v{i}",
            f"Shop {i} Sdn Bhd",
            {f"reg:{1000000 + i}X": 3, f"reg:{100000000 + i:012d}": 3, f"phone:3100{i:05d}": 3, f"email:shop{i}.my": 3},
            {"total_amount": {"total": 3}, "invoice_number": {"invoice no": 3}},
            {"invoice_number": {"AA999": 3}},
            {"vendor_name": {f"Shop {i} Sdn Bhd": 3}},
            ("a", "b", "c"),
        )
        for i in range(profiles - 1)
    )
    taught = MATCH_PAGE.replace("CS123", "CS100").replace("39.00", "12.00")
    mine = build("mine", [learn("x", taught, {"vendor_name": "Shop 9999 Sdn Bhd", "invoice_number": "CS100"})])
    return ProfileBook((*fillers, mine), key=key)


def _ms(fn, times: int):
    started = time.perf_counter()
    for _ in range(times):
        result = fn()
    return round((time.perf_counter() - started) * 1000 / times, 3), result


def match_figures(profiles: int = 10_000, repeat: int = 200) -> dict[str, float]:
    """Milliseconds of the profile path at scale, in-process: building a tenant's book of
    ``profiles`` vendor profiles (``large_book``, as the dispatcher does once per change), one
    page's identifiers + match + proposals against it, the match alone, and pickling the book
    (what putting a new version of it into Ray's object store costs once, and each worker's
    first job on that version), with its size in MB."""
    import pickle

    from pipeline.profiles.book import ProfileBook
    from pipeline.profiles.identifiers import identifiers
    from pipeline.profiles.profile import propose

    page = MATCH_PAGE
    every = tuple(large_book(profiles).profiles.values())
    build_ms, book = _ms(lambda: ProfileBook(every), 3)
    # as the profile step runs: the page's text checks that the matched vendor's name is printed
    path_ms, proposed = _ms(lambda: propose(book.match(identifiers(page), text=page).profile, page), repeat)
    assert proposed["invoice_number"].value == "CS123"
    ids = identifiers(page)
    match_ms, _ = _ms(lambda: book.match(ids, text=page), repeat)
    pickle_ms, blob = _ms(lambda: pickle.dumps(book), 5)
    unpickle_ms, _ = _ms(lambda: pickle.loads(blob), 5)
    return {
        "host": hardware(),
        "profiles": profiles,
        "build_ms": build_ms,
        "page_ms": path_ms,
        "match_ms": match_ms,
        "pickle_ms": pickle_ms,
        "unpickle_ms": unpickle_ms,
        "pickle_mb": round(len(blob) / 1e6, 2),
    }


TRANSPORT_DOC = DATASETS / "invoice2data" / "AzureInterior.pdf"  # a text-layer invoice without XML


def transport_figures(document: Path = TRANSPORT_DOC, profiles: int = 10_000, jobs: int = 30) -> dict[str, float]:
    """Milliseconds a tenant's book adds to a job on the product's pool: the pool that
    ``config.toml`` configures (Ray, one worker with the shipped models; ``start_worker_pool``,
    as ``appliance serve`` starts it) extracts ``document`` ``jobs`` times with no book and
    ``jobs`` times with a book of ``profiles`` profiles, alternating, after one warm-up job of
    each (the first job on a book version pays the object-store put and the worker's unpickling
    once: ``first_ms``). Returns the median job of each and their difference."""
    import tempfile

    import ray

    from appliance.queue.dispatcher import start_worker_pool
    from appliance.settings import load_settings
    from pipeline.context import JobContext

    data = document.read_bytes()
    book = large_book(profiles, key="bench:1:1")

    async def run() -> dict[str, float]:
        with tempfile.TemporaryDirectory() as tmp:
            settings = load_settings(ROOT / "config.toml", data_dir=Path(tmp), env={})
            pool = await start_worker_pool(settings)  # as `appliance serve` starts it
            try:

                async def job(with_book: bool) -> float:
                    ctx = JobContext("bench", "application/pdf", profiles=book if with_book else None)
                    started = time.perf_counter()
                    await pool.submit(ctx, data)
                    return (time.perf_counter() - started) * 1000

                await job(False)
                first_ms = await job(True)
                plain, booked = [], []
                for _ in range(jobs):
                    plain.append(await job(False))
                    booked.append(await job(True))
            finally:
                await pool.close()
                ray.shutdown()
        none_ms, with_ms = statistics.median(plain), statistics.median(booked)
        return {
            "host": hardware(),
            "profiles": profiles,
            "jobs": jobs,
            "document": document.name,
            "none_ms": round(none_ms, 1),
            "book_ms": round(with_ms, 1),
            "added_ms": round(with_ms - none_ms, 1),
            "first_ms": round(first_ms, 1),
        }

    return asyncio.run(run())


def _section(heading: str, intro: str, column: str, rows: list[tuple[str, object]]) -> str:
    """A report section: ``## heading``, its ``intro`` and a two-column table of ``rows``."""
    table = [f"| {label} | {value} |" for label, value in rows]
    return "\n".join(["", f"## {heading}", "", intro, "", f"| {column} | milliseconds |", "|---|---|", *table, ""])


def match_markdown(figures: dict[str, float]) -> str:
    return _section(
        "Matching at scale",
        f"A tenant's book of {figures['profiles']:,} vendor profiles, in-process on "
        f"{figures['host']} (`scripts/bench-learning --match-only`):",
        "step",
        [
            ("build the book (once per profile change, cached by the dispatcher)", figures["build_ms"]),
            ("one page: identifiers, match and proposals", figures["page_ms"]),
            ("the match alone", figures["match_ms"]),
            (f"pickle the book (once per version, into Ray's object store; {figures['pickle_mb']} MB)",
             figures["pickle_ms"]),
            ("unpickle it (once per version and worker)", figures["unpickle_ms"]),
        ],
    )  # fmt: skip


def transport_markdown(figures: dict[str, float]) -> str:
    return _section(
        "A large book on the product's pool",
        f"Median job of {figures['jobs']} on a real Ray pool on {figures['host']} (one worker, the "
        f"shipped models), `{figures['document']}`, with no profiles and with a book of "
        f"{figures['profiles']:,} (`scripts/bench-learning --match-only`). The book goes into Ray's "
        "object store once per version and each worker unpickles it once "
        "(`pipeline.runtime.pool.RayPool._light`):",
        "job",
        [
            ("no profiles", figures["none_ms"]),
            (f"book of {figures['profiles']:,} profiles", figures["book_ms"]),
            ("added by the book", figures["added_ms"]),
            ("first job on a new version of the book (put and unpickle once)", figures["first_ms"]),
        ],
    )


def scale_markdown() -> str:
    """The report's sections at scale: matching in-process, and the book on the product's pool."""
    return match_markdown(match_figures()) + transport_markdown(transport_figures())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-learning", description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--vendors", type=int, default=8)
    parser.add_argument("--per-vendor", type=int, default=10)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--no-baseline", dest="baseline", action="store_false")
    parser.add_argument(
        "--streams",
        type=lambda text: [name.strip() for name in text.split(",")],
        default=list(STREAMS),
        help=f"which streams, comma-separated (default: {','.join(STREAMS)})",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "learning.md")
    parser.add_argument(
        "--match-only", action="store_true", help="only the matching figures at scale, appended to --out"
    )
    args = parser.parse_args(argv)
    if args.match_only:
        text = args.out.read_text() if args.out.is_file() else "# Learning-stream benchmark\n"
        text = text.split("\n## Matching at scale")[0].rstrip("\n") + "\n" + scale_markdown()
        args.out.write_text(text)
        print(text)
        return 0
    outcomes, meta = asyncio.run(bench(args))
    rows = bucket_rows(outcomes)
    args.out.write_text(markdown(rows, meta) + scale_markdown())
    args.out.with_suffix(".json").write_text(json.dumps([o.__dict__ for o in outcomes], indent=1) + "\n")
    print(args.out.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
