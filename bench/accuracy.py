"""Accuracy benchmark: `appliance extract` over the dev sources of ../shared/datasets in two
modes and three source configurations, scored by ../shared/bench/score.py (its rules,
unchanged), written to bench/results/accuracy.md.

    scripts/bench-accuracy [--datasets DIR] [--out FILE] [--modes as-uploaded,visual-only]
        [--configs "full,rules alone,model alone"] [--keep DIR]

Modes: "as uploaded" (the files as a client would upload them: embedded e-invoice XML and PDF
text layers are used) and "visual only" (`extract --visual-only`: XML and text layers ignored,
every page rendered and OCR'd). Configurations: "full" (the appliance as shipped), "rules
alone" (model off) and "model alone" (rules off), by `extract --sources`. The dev sources are
the folders of DIR with a manifest.json (score.py's rule); ``train/`` is never extracted.
Reports per configuration and mode the summary line, key accuracy per source, the share of
documents completed, completed precision and flagged documents that were right; for "full"
also per-field and per-source accuracy, the outcome of every document per source (e-invoices
read from their XML apart), seconds per document (median and max per document type) and the
peak memory (PSS) of the whole process tree, Ray workers included, sampled every 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench import datasets as shared
from bench.procfs import tree_pss_kb

ROOT = Path(__file__).resolve().parents[1]

MODES = {"as-uploaded": [], "visual-only": ["--visual-only"]}
# What each value proposer brings: the appliance as shipped, and with one of rules/model left out
# (`appliance extract --sources`); the detailed tables are of "full".
CONFIGS = {"full": "template,rules,model", "rules alone": "template,rules", "model alone": "template,model"}


def run_extract(source: Path, out: Path, flags: list[str], data_dir: Path) -> tuple[float, int, str]:
    """Run `appliance extract` on one source folder; returns (wall seconds, peak PSS in kB, stderr tail)."""
    command = [
        str(ROOT / ".venv" / "bin" / "appliance"),
        "--data-dir",
        str(data_dir),
        "extract",
        "--out",
        str(out),
        *flags,
        str(source),
    ]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, tree_pss_kb(proc.pid))
            stop.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = proc.communicate()
    stop.set()
    sampler.join()
    if proc.returncode != 0:
        sys.exit(f"appliance extract failed ({proc.returncode}):\n{stderr[-3000:]}")
    return time.perf_counter() - started, peak, stderr


def score(scorer: Path, truth: Path, pred: Path, json_out: Path) -> tuple[dict, str, str]:
    """score.py on the predictions: (its JSON, its summary line, its status line or "").
    ``truth`` is the datasets folder, or one source folder to score that source alone."""
    scored, stdout = shared.score(scorer, truth, pred, json_out)
    lines = stdout.strip().splitlines()
    status = next((line for line in lines if line.startswith("status ")), "")
    return scored, lines[-1], status


def outcomes(pred: Path) -> dict[str, dict[str, int]]:
    """Per source folder: documents per processingStatus, and e-invoices (tier 0) per status."""
    counts: dict[str, dict[str, int]] = {}
    for path in sorted(pred.glob("*/*.json")):
        record = json.loads(path.read_text())
        row = counts.setdefault(path.parent.name, {})
        status = record.get("processingStatus", "missing")
        row[status] = row.get(status, 0) + 1
        if record.get("extractionTier") == 0:
            row[f"einvoice {status}"] = row.get(f"einvoice {status}", 0) + 1
    return counts


def doc_type(record: dict) -> str:
    if record.get("mediaType", "").startswith("image/"):
        return "image"
    if record.get("extractionTier") == 0:
        return "e-invoice PDF (XML)"
    if "ocr" in (record.get("routingReason") or ""):
        return "PDF, OCR'd"
    return "PDF, text layer"


def timings(pred: Path) -> dict[str, dict[str, float]]:
    """Per document type: processing seconds (the pipeline's stages) and wall seconds in the batch."""
    by_type: dict[str, list[tuple[float, float]]] = {}
    for path in pred.rglob("*.json"):
        if path.name == "score.json":
            continue
        record = json.loads(path.read_text())
        processing = sum((record.get("timings") or {}).values())
        by_type.setdefault(doc_type(record), []).append((processing, record.get("seconds", 0.0)))
    return {
        kind: {
            "n": len(rows),
            "median": statistics.median(r[0] for r in rows),
            "max": max(r[0] for r in rows),
            "wall_median": statistics.median(r[1] for r in rows),
            "wall_max": max(r[1] for r in rows),
        }
        for kind, rows in sorted(by_type.items())
    }


def _share(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _section(title: str, columns: str, note: str = "") -> list[str]:
    """The lines that open a section of the report: a blank line, its heading, ``note`` as a
    paragraph when there is one, and the head of its table (``columns``: "a | b | c")."""
    return [
        "",
        f"## {title}",
        "",
        *([note, ""] if note else []),
        f"| {columns} |",
        "|" + "---|" * len(columns.split(" | ")),
    ]


def _row(*cells) -> str:
    """A row of a Markdown table."""
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def ocr_engine() -> str:
    """The OCR engine that `appliance extract` (run in the checkout) loads: ``ocr.engine`` of
    the checkout's config.toml and the environment (``APPLIANCE_OCR_ENGINE``)."""
    from appliance.settings import load_settings

    config = ROOT / "config.toml"
    return load_settings(config if config.is_file() else None).ocr.engine


def report(results: dict[str, dict], configs: dict[str, dict[str, dict]], datasets: Path) -> str:
    """The Markdown report: ``results`` (mode -> run of the full appliance) in the detailed
    tables, ``configs`` ((config, mode) -> run) in the summary and straight-through tables."""
    lines = [
        "# Accuracy benchmark",
        "",
        f"`scripts/bench-accuracy` on {datasets.name}/ ({time.strftime('%Y-%m-%d')}), the configured models "
        f"(OCR `{ocr_engine()}`, Gemma 3 270M with the bundled LoRA adapter via llama.cpp), 2-core CPU. "
        "Scored by `../shared/bench/score.py`.",
        *_section(
            "Summary",
            "mode | sources | summary line (score.py) | key acc per source | wall | peak memory (PSS, process tree)",
            '"full" is the appliance as shipped (vendor templates, layout rules and the extraction model, '
            'arbitrated per field); "rules alone" runs without the model, "model alone" without the rules '
            "(`appliance extract --sources`). Key accuracy per source is score.py run on that source alone.",
        ),
    ]
    for (config, mode), r in configs.items():
        per_source = ", ".join(f"{name} {value:.3f}" for name, value in r["source_key"].items())
        lines.append(
            f"| {mode} | {config} | `{r['summary']}` | {per_source} | {r['wall']:.0f} s "
            f"| {r['peak_kb'] / 1024:.0f} MB |"
        )
    lines += _section(
        "Straight-through processing",
        "mode | sources | documents | completed | completed share | completed precision | flagged | flagged right",
        "Is a `completed` invoice right? Completed precision: the share of `completed` documents whose "
        "key fields are all right; flagged right: documents sent to Needs Attention whose key fields were "
        "all right anyway (score.py's status line).",
    )
    for (config, mode), r in configs.items():
        st = r["score"]["status"]
        lines.append(
            f"| {mode} | {config} | {st['documents']} | {st['completed']} | {_share(st['completed_share'])} | "
            f"{_share(st['completed_precision'])} | {st['flagged']} | {st['flagged_key_right']} |"
        )
    lines.append("")
    if not results:
        return "\n".join(lines) + "\n"
    first = next(iter(results.values()))["score"]
    lines += _section("Per field (full)", "field | n | " + " | ".join(results))
    for name, field in first["fields"].items():
        cells = [f"{r['score']['fields'][name]['accuracy']:.3f}" for r in results.values()]
        lines.append(f"| {name} | {field['labelled']} | " + " | ".join(cells) + " |")
    lines += ["", "Line items:", ""]
    for mode, r in results.items():
        ln = r["score"]["lines"]
        lines.append(
            f"- {mode}: matched {ln['matched']} of {ln['truth']} (predicted {ln['pred']}), "
            f"P={ln['precision']:.3f} R={ln['recall']:.3f} F1={ln['f1']:.3f}; field accuracy "
            + ", ".join(f"{k} {v:.3f}" for k, v in ln["fields"].items() if v is not None)
        )
    lines += _section("Per source, all header fields (full)", "source | docs | " + " | ".join(results))
    for source, row in first["sources"].items():
        cells = [f"{r['score']['sources'][source]['accuracy']:.3f}" for r in results.values()]
        lines.append(f"| {source} | {row['documents']} | " + " | ".join(cells) + " |")
    lines += _section(
        "Outcomes (processingStatus, full)",
        "mode | source | docs | completed | needs_review | failed | e-invoice completed | e-invoice needs_review",
        'Documents per status, per source and mode; "e-invoice" counts the documents read from their '
        "embedded XML (tier 0). `needs_review` is shown to users as Needs Attention.",
    )
    statuses = ("completed", "needs_review", "failed", "einvoice completed", "einvoice needs_review")
    for mode, r in results.items():
        for source, row in r["outcomes"].items():
            docs = sum(n for key, n in row.items() if not key.startswith("einvoice "))
            lines.append(_row(mode, source, docs, *(row.get(status, 0) for status in statuses)))
    lines += _section(
        "Seconds per document (full)",
        "mode | type | n | processing median | processing max | wall median | wall max",
        "Processing = the pipeline's own stages (text, OCR, template/rules, LLM); wall = from submit to "
        "result in the batch, including waits for the one OCR slot (`ocr.concurrency = 1`).",
    )
    lines += [
        _row(mode, kind, t["n"], *(f"{t[key]:.2f}" for key in ("median", "max", "wall_median", "wall_max")))
        for mode, r in results.items()
        for kind, t in r["timings"].items()
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-accuracy", description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", type=Path, default=shared.DATASETS)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "accuracy.md")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--configs", default=",".join(CONFIGS), help=f"comma-separated, of: {', '.join(CONFIGS)}")
    parser.add_argument("--keep", type=Path, default=None, help="keep the predictions in this folder")
    args = parser.parse_args(argv)
    if not args.datasets.is_dir():
        sys.exit(f"no datasets at {args.datasets}")
    scorer = shared.scorer(args.datasets)
    sources = shared.dev_sources(args.datasets)
    if not sources:
        sys.exit(f"no dev sources (folders with a manifest.json) in {args.datasets}")
    work = Path(tempfile.mkdtemp(prefix="bench-accuracy-")) if args.keep is None else args.keep
    results, configs = {}, {}
    for config in args.configs.split(","):
        for mode in args.modes.split(","):
            pred = work / config.replace(" ", "-") / mode
            print(f"bench-accuracy: {mode}, {config} ...", file=sys.stderr, flush=True)
            flags = [*MODES[mode], "--sources", CONFIGS[config]]
            wall, peak = 0.0, 0
            for source in sources:
                seconds, source_peak, _ = run_extract(source, pred / source.name, flags, work / "data")
                wall, peak = wall + seconds, max(peak, source_peak)
            scored, summary, status = score(scorer, args.datasets, pred, pred.parent / f"{mode}-score.json")
            source_key = {
                source.name: score(scorer, source, pred / source.name, pred.parent / f"{mode}-{source.name}.json")[0][
                    "key_accuracy"
                ]
                for source in sources
            }
            run = {
                "summary": summary,
                "status": status,
                "wall": wall,
                "peak_kb": peak,
                "score": scored,
                "source_key": source_key,
                "timings": timings(pred),
                "outcomes": outcomes(pred),
            }
            configs[(config, mode)] = run
            if config == "full":
                results[mode] = run
            print(f"bench-accuracy: {mode}, {config}: {summary}; {status} in {wall:.0f} s", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(results, configs, args.datasets))
    print(f"bench-accuracy: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
