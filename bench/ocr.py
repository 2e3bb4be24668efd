"""OCR engines side by side (`scripts/bench-ocr`): what each engine the appliance can load reads
from real receipts, against SROIE's line-level truth (``<stem>.lines.csv`` beside each receipt
of ``../shared/datasets/sroie`` (dev) and ``../shared/datasets/train/sroie``).

Two figures that do not depend on reading order:

- **amounts and dates**: the share of the truth's amount- and date-like tokens (``12.50``,
  ``1,234.00``, ``25/12/2018``) that occur verbatim in the recognised text;
- **words**: the share of the truth's words (letters only, at least 3 long, case-folded) that
  the recognised text holds as a separate word (a glued ``SDNBHD`` holds neither ``SDN`` nor
  ``BHD``); counted with multiplicity.

Each engine runs in its own process (``--worker``) through the pipeline's reading step
(``pipeline.runner.Extractor.read``, visual only): the same engine object and pre-processing the
appliance uses. Seconds are wall time per receipt after the engine is loaded; memory is the
worker process's peak resident set (``ru_maxrss``), the engine and its sessions included.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from bench.datasets import DATASETS, ROOT

ENGINES = ("rapidocr", "ppocr", "tesseract")
# 12.50, 1,234.00, 1.234,00 and 25/12/2018, 25-12-18, 2018.12.25 (SROIE prints day first)
AMOUNT = r"\d{1,3}(?:[.,]\d{3})*[.,]\d{2}(?!\d)"
DATE = r"\d{1,4}[./-]\d{1,2}[./-]\d{2,4}"
AMOUNT_OR_DATE = re.compile(rf"(?<![\d.,/-])(?:{DATE}|{AMOUNT})")
WORD_SPLIT = re.compile(r"[\W\d_]+")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def truth_text(lines_csv: Path) -> str:
    """The text of a SROIE ``<stem>.lines.csv`` (rows of 8 corner coordinates and the text,
    which may hold commas), one line per row."""
    with lines_csv.open(newline="", encoding="utf-8", errors="replace") as handle:
        return "\n".join(",".join(row[8:]) for row in csv.reader(handle) if len(row) > 8)


def amounts_and_dates(text: str) -> list[str]:
    """The amount- and date-like tokens of ``text``, in order, with repeats."""
    return AMOUNT_OR_DATE.findall(text)


def words(text: str) -> Counter:
    """Words of letters only, at least 3 long, case-folded, with their counts."""
    return Counter(word.casefold() for word in WORD_SPLIT.split(text) if len(word) >= 3)


@dataclass
class Score:
    """Counts of one receipt or a sum of receipts: truth tokens found / in the truth."""

    amounts_found: int = 0
    amounts: int = 0
    words_found: int = 0
    words: int = 0

    def __add__(self, other: Score) -> Score:
        return Score(*(a + b for a, b in zip(vars(self).values(), vars(other).values(), strict=True)))

    @property
    def amount_share(self) -> float:
        return self.amounts_found / self.amounts if self.amounts else 1.0

    @property
    def word_share(self) -> float:
        return self.words_found / self.words if self.words else 1.0


def score(truth: str, read: str) -> Score:
    """How much of ``truth`` (SROIE's text of a receipt) the recognised text ``read`` holds."""
    wanted = amounts_and_dates(truth)
    truth_words, read_words = words(truth), words(read)
    return Score(
        amounts_found=sum(token in read for token in wanted),
        amounts=len(wanted),
        words_found=sum((truth_words & read_words).values()),
        words=sum(truth_words.values()),
    )


def receipts(folder: Path, limit: int | None = None) -> list[tuple[Path, Path]]:
    """(image, lines.csv) of each receipt in ``folder`` that has a line truth, by name."""
    found = []
    for lines in sorted(folder.glob("*.lines.csv")):
        stem = lines.name.removesuffix(".lines.csv")
        image = next(
            (p for p in sorted(folder.glob(f"{stem}.*")) if p.suffix.lower() in (".jpg", ".jpeg", ".png")), None
        )
        if image is not None:
            found.append((image, lines))
    return found[:limit] if limit else found


def worker(engine: str, files: list[Path]) -> None:
    """Read ``files`` with ``engine`` through the pipeline's reading step; print one JSON line
    per file ({file, seconds, text}) and a last one with the load time and peak memory."""
    import dataclasses

    from appliance.settings import Settings
    from pipeline.context import JobContext
    from pipeline.runner import Extractor

    started = time.perf_counter()
    models = dataclasses.replace(Settings().worker_models(), ocr_engine=engine, llm_enabled=False)
    extractor = Extractor(models)
    load = time.perf_counter() - started
    for path in files:
        data = path.read_bytes()
        started = time.perf_counter()
        doc = extractor.read(JobContext(path.name, "", visual_only=True), data)
        row = {"file": str(path), "seconds": time.perf_counter() - started, "text": doc.text}
        print(json.dumps(row, ensure_ascii=False), flush=True)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"load_seconds": load, "peak_mb": peak_mb}), flush=True)


@dataclass
class EngineRun:
    """One engine over one set of receipts: per-file scores and seconds, load time, peak memory."""

    engine: str
    total: Score
    seconds: list[float]
    load_seconds: float
    peak_mb: float
    misses: list[str]


def run_engine(engine: str, pairs: list[tuple[Path, Path]]) -> EngineRun:
    """Run ``engine`` over ``pairs`` in a worker process and score what it read."""
    command = [sys.executable, "-m", "bench.ocr", "--worker", engine, *(str(image) for image, _ in pairs)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"bench-ocr worker for {engine} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    tail, rows = rows[-1], rows[:-1]
    total, seconds, misses = Score(), [], []
    for (image, lines), row in zip(pairs, rows, strict=True):
        truth = truth_text(lines)
        one = score(truth, row["text"])
        total += one
        seconds.append(row["seconds"])
        missed = [token for token in amounts_and_dates(truth) if token not in row["text"]]
        if missed:
            misses.append(f"{image.stem}: {', '.join(missed[:4])}")
    return EngineRun(engine, total, seconds, tail["load_seconds"], tail["peak_mb"], misses)


def table(runs: list[EngineRun]) -> list[str]:
    """Markdown rows of ``runs``."""
    out = [
        "| engine | amounts and dates | words | s per receipt (median, max) | load s | peak MB |",
        "|---|---|---|---|---|---|",
    ]
    for run in runs:
        t = run.total
        out.append(
            f"| {run.engine} | {t.amount_share:.3f} ({t.amounts_found} of {t.amounts}) | "
            f"{t.word_share:.3f} ({t.words_found} of {t.words}) | "
            f"{statistics.median(run.seconds):.2f}, {max(run.seconds):.2f} | "
            f"{run.load_seconds:.1f} | {run.peak_mb:.0f} |"
        )
    return out


def report(sets: dict[str, list[EngineRun]], command: str) -> str:
    """The Markdown report of every set of receipts (name -> runs)."""
    lines = [
        "# OCR engines",
        "",
        f"`{command}` on {date.today().isoformat()}, 2 threads per engine, the appliance's reading step "
        "(`pipeline.runner.Extractor.read`, visual only). Figures: `bench/ocr.py` (amounts and dates found "
        "verbatim; words of 3+ letters held as separate words).",
    ]
    for name, runs in sets.items():
        lines += ["", f"## {name} ({len(runs[0].seconds)} receipts)", "", *table(runs)]
        for run in runs:
            if run.misses:
                lines += ["", f"{run.engine} missed amounts or dates in: " + "; ".join(run.misses[:8])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="scripts/bench-ocr", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--engines", default=",".join(ENGINES), help=f"comma-separated, of: {', '.join(ENGINES)}")
    parser.add_argument("--train", action="store_true", help="also the train receipts (datasets/train/sroie)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many receipts per set")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ocr.md")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="*", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.files)
        return
    folders = {"dev receipts (datasets/sroie)": args.datasets / "sroie"}
    if args.train:
        folders["train receipts (datasets/train/sroie)"] = args.datasets / "train" / "sroie"
    sets: dict[str, list[EngineRun]] = {}
    for name, folder in folders.items():
        pairs = receipts(folder, args.limit)
        if not pairs:
            sys.exit(f"no receipts with a .lines.csv in {folder}")
        for engine in args.engines.split(","):
            run = run_engine(engine, pairs)
            print(f"bench-ocr: {name}, {engine}: {table([run])[-1]}", file=sys.stderr, flush=True)
            sets.setdefault(name, []).append(run)
    command = "scripts/bench-ocr " + " ".join(sys.argv[1:] if argv is None else argv)
    args.out.write_text(report(sets, command.strip()))
    print(f"bench-ocr: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
