"""OCR engines side by side (`scripts/bench-ocr`): what each engine the appliance can load reads
from real receipts, against SROIE's line-level truth (``<stem>.lines.csv`` beside each receipt
of ``../shared/datasets/sroie`` (dev) and ``../shared/datasets/train/sroie``).

Two figures that do not depend on reading order:

- **amounts and dates**: the share of the truth's amount- and date-like tokens (``12.50``,
  ``1,234.00``, ``25/12/2018``) that occur verbatim in the recognised text;
- **words**: the share of the truth's words (letters only, at least 3 long, case-folded) that
  the recognised text holds as a separate word (a glued ``SDNBHD`` holds neither ``SDN`` nor
  ``BHD``); counted with multiplicity.

Sets: the dev receipts (truth: ``<stem>.lines.csv``), the dev set's PDFs rendered as scans
(``invoice2data`` and ``zugferd-corpus``: truth is each page's own text layer, which the
visual-only read ignores; the pages the pipeline OCRs, at most ``OCR_MAX_PDF_PAGES``), and with
``--train`` the train receipts.

Rows are the engines the appliance can load (``ocr.engine``) and ``VARIANTS`` of them: one
engine's detector with another's recogniser, page pre-processing, other render dpi. Each row
runs in its own process (``--worker``) through the pipeline's reading step
(``pipeline.runner.Extractor.read``, visual only): the same engine object and pre-processing the
appliance uses. Seconds are wall time per receipt or page after the engine is loaded; memory is
the worker process's peak resident set (``ru_maxrss``), the engine and its sessions included.
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
from models.ocr import OcrEngine

ENGINES = ("rapidocr", "ppocr", "tesseract")
# Variants of the default engine: row name -> (engine, ModelConfig fields to replace). "<v4 det>"
# is rapidocr-onnxruntime's PP-OCRv4 detector, resolved in the worker.
VARIANTS = {
    "ppocr+v4det": ("ppocr", {"ocr_options": (("det_model", "<v4 det>"),)}),
    "ppocr+autocontrast": ("bench.ocr:AutocontrastPpOcr", {}),
    "ppocr@150dpi": ("ppocr", {"dpi": 150}),
    "ppocr@300dpi": ("ppocr", {"dpi": 300}),
}
VARIANT_NOTES = {
    "ppocr+v4det": "rapidocr's PP-OCRv4 det with ppocr's PP-OCRv6 small rec (`ocr.ppocr_det_model`)",
    "ppocr+autocontrast": "ppocr on the page in grey, contrast stretched (PIL `ImageOps.autocontrast`, 1% cut-off)",
    "ppocr@150dpi": "ppocr, PDF pages rendered at 150 dpi (`ocr.dpi`; default 200)",
    "ppocr@300dpi": "ppocr, PDF pages rendered at 300 dpi",
}
RECEIPT_ROWS = (*ENGINES, "ppocr+v4det", "ppocr+autocontrast")
PAGE_ROWS = (*ENGINES, "ppocr+v4det", "ppocr@150dpi", "ppocr@300dpi")
PAGE_SOURCES = ("invoice2data", "zugferd-corpus")
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


def pdf_pages(folder: Path, limit: int | None = None) -> list[tuple[Path, None]]:
    """(pdf, None) of the dev PDFs of ``PAGE_SOURCES`` under ``folder`` (the datasets): their
    truth is their own text layer, read by the worker."""
    found = [(pdf, None) for source in PAGE_SOURCES for pdf in sorted((folder / source).glob("*.pdf"))]
    return found[:limit] if limit else found


class AutocontrastPpOcr(OcrEngine):
    """ppocr on the page in grey with its contrast stretched: a pre-processing row of the table
    (loaded by its ``module:Class`` name like any engine)."""

    name = "ppocr+autocontrast"

    def __init__(self, **options) -> None:
        from models.registry import load_ocr

        self._engine = load_ocr("ppocr", **options)

    def recognize(self, image):
        from PIL import ImageOps

        return self._engine.recognize(ImageOps.autocontrast(ImageOps.grayscale(image), cutoff=1).convert("RGB"))


def row_models(row: str):
    """The worker's ``ModelConfig`` for a row: an engine name, or a ``VARIANTS`` name."""
    import dataclasses

    from appliance.settings import Settings

    engine, fields = VARIANTS.get(row, (row, {}))
    if "ocr_options" in fields:
        from models.rapidocr_engine import bundled_detector

        options = tuple((k, str(bundled_detector()) if v == "<v4 det>" else v) for k, v in fields["ocr_options"])
        fields = fields | {"ocr_options": options}
    return dataclasses.replace(Settings().worker_models(), ocr_engine=engine, llm_enabled=False, **fields)


def worker(row: str, files: list[Path]) -> None:
    """Read ``files`` with the row's engine through the pipeline's reading step; print one JSON
    line per file ({file, seconds, pages: [text of each page read], truth_pages: the text layer
    of those pages, "" where a page has none, for a PDF}) and a last one with the load time and
    peak memory."""
    from pipeline.context import JobContext
    from pipeline.runner import Extractor

    started = time.perf_counter()
    models = row_models(row)
    extractor = Extractor(models)
    load = time.perf_counter() - started
    for path in files:
        data = path.read_bytes()
        started = time.perf_counter()
        doc = extractor.read(JobContext(path.name, "", visual_only=True), data)
        out = {"file": str(path), "seconds": time.perf_counter() - started, "pages": [p.text for p in doc.pages]}
        if path.suffix.lower() == ".pdf":
            layer = extractor.read(JobContext(path.name, "", max_ocr_pages=0), data)
            by_number = {p.number: p.text for p in layer.pages if p.source == "text_layer"}
            out["truth_pages"] = [by_number.get(p.number, "") for p in doc.pages]
        print(json.dumps(out, ensure_ascii=False), flush=True)
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


def run_engine(engine: str, pairs: list[tuple[Path, Path | None]]) -> EngineRun:
    """Run the row ``engine`` over ``pairs`` ((file, lines.csv), or (pdf, None): truth from its
    text layer) in a worker process and score what it read. A PDF counts its pages with a text
    layer, each page's seconds its share of the document's."""
    command = [sys.executable, "-m", "bench.ocr", "--worker", engine, *(str(image) for image, _ in pairs)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"bench-ocr worker for {engine} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    tail, rows = rows[-1], rows[:-1]
    total, seconds, misses = Score(), [], []
    for (image, lines), row in zip(pairs, rows, strict=True):
        if lines is not None:
            units = [(image.stem, truth_text(lines), "\n".join(row["pages"]), row["seconds"])]
        else:
            each = row["seconds"] / max(len(row["pages"]), 1)
            units = [
                (f"{image.stem} p{n}", truth, read, each)
                for n, (truth, read) in enumerate(zip(row["truth_pages"], row["pages"], strict=True), 1)
                if truth.strip()
            ]
        for name, truth, read, spent in units:
            total += score(truth, read)
            seconds.append(spent)
            missed = [token for token in amounts_and_dates(truth) if token not in read]
            if missed:
                misses.append(f"{name}: {', '.join(missed[:4])}")
    return EngineRun(engine, total, seconds, tail["load_seconds"], tail["peak_mb"], misses)


def table(runs: list[EngineRun]) -> list[str]:
    """Markdown rows of ``runs``."""
    out = [
        "| engine | amounts and dates | words | s per receipt or page (median, max) | load s | peak MB |",
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
    variants = sorted({run.engine for runs in sets.values() for run in runs} & set(VARIANT_NOTES))
    if variants:
        lines += ["", "Variants: " + "; ".join(f"`{v}`: {VARIANT_NOTES[v]}" for v in variants) + "."]
    for name, runs in sets.items():
        lines += ["", f"## {name} ({len(runs[0].seconds)})", "", *table(runs)]
        for run in runs:
            if run.misses:
                lines += ["", f"{run.engine} missed amounts or dates in: " + "; ".join(run.misses[:8])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="scripts/bench-ocr", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    choices = ", ".join((*ENGINES, *VARIANTS))
    parser.add_argument("--engines", default=None, help=f"rows, comma-separated, of: {choices} (default: all)")
    parser.add_argument("--no-pages", action="store_true", help="leave out the dev PDFs rendered as scans")
    parser.add_argument("--train", action="store_true", help="also the train receipts (datasets/train/sroie)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many receipts per set")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ocr.md")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="*", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.files)
        return
    chosen = args.engines.split(",") if args.engines else None
    plan = {"dev receipts (datasets/sroie), receipts": (receipts(args.datasets / "sroie", args.limit), RECEIPT_ROWS)}
    if not args.no_pages:
        name = "dev PDFs rendered as scans (invoice2data, zugferd-corpus; truth: their text layers), pages"
        plan[name] = (pdf_pages(args.datasets, args.limit), PAGE_ROWS)
    if args.train:
        train = receipts(args.datasets / "train" / "sroie", args.limit)
        plan["train receipts (datasets/train/sroie), receipts"] = (train, ENGINES)
    sets: dict[str, list[EngineRun]] = {}
    for name, (pairs, rows) in plan.items():
        if not pairs:
            sys.exit(f"no documents with a truth for {name} in {args.datasets}")
        for engine in chosen or rows:
            run = run_engine(engine, pairs)
            print(f"bench-ocr: {name}, {engine}: {table([run])[-1]}", file=sys.stderr, flush=True)
            sets.setdefault(name, []).append(run)
    command = "scripts/bench-ocr " + " ".join(sys.argv[1:] if argv is None else argv)
    args.out.write_text(report(sets, command.strip()))
    print(f"bench-ocr: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
