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
documents completed, completed precision and flagged documents that were right, the reasons
that held documents back and, for the configurations the learned scorer decides, the completed
share and precision at each target precision's threshold and the calibration error of the
key-field confidences; for "full"
also per-field and per-source accuracy, the outcome of every document per source (e-invoices
read from their XML apart), seconds per document (median and max per document type) and the
peak memory (PSS) of the whole process tree, Ray workers included, and of its largest process
(the worker holding the models), sampled every 0.5 s.
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
from bench.procfs import tree_and_largest_pss_kb
from pipeline.schema import HEADER_FIELDS

ROOT = Path(__file__).resolve().parents[1]

MODES = {"as-uploaded": [], "visual-only": ["--visual-only"]}
# What each value proposer brings: the appliance as shipped, and with one of rules/model left out
# (`appliance extract --sources`); the detailed tables are of "full".
CONFIGS = {"full": "template,rules,model", "rules alone": "template,rules", "model alone": "template,model"}
# With the rules on, the learned scorer decides the key fields: "full" is the scorer with the
# model (asked where the scorer is not sure), "rules alone" the scorer without it.
SCORER_ROWS = {"full": "scorer with model", "rules alone": "scorer without model"}
TARGETS = ("0.95", "0.98", "0.99")  # the completed precisions the bundled scorer has thresholds for
SCORER_REASONS = ("is not certain (", "not found in the document")


def load_score_module(datasets: Path):
    """../shared/bench/score.py as a module (its ``field_ok`` and ``KEY_FIELDS``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_score", shared.scorer(datasets))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def coverage(
    pred: Path, datasets: Path, thresholds: dict[str, dict[str, float]], drop_lines: bool = False
) -> dict[str, tuple[int, int, int]]:
    """Target precision -> (documents, completed, completed right) had the appliance completed
    at that target's threshold for the document's reading (text layer, or OCR where the record
    has an ``ocrConfidence``): a document completes when its ``keyConfidence`` reaches the
    threshold and nothing but the scorer's own reasons flagged it (a document the scorer did not
    decide, tier 0, keeps its status). The model was asked as the shipped target decided.
    ``drop_lines``: as ``review.line_items = "drop"`` would (line items that do not add up do
    not hold a document back)."""
    score_py = load_score_module(datasets)
    rows = []
    for source in shared.dev_sources(datasets):
        for entry in json.loads((source / "manifest.json").read_text()):
            stem = Path(entry["file"]).stem
            truth = json.loads((source / f"{stem}.json").read_text())
            path = pred / source.name / f"{stem}.json"
            record = json.loads(path.read_text()) if path.is_file() else {}
            data = record.get("data") or {}
            right = all(
                score_py.field_ok(name, data.get(name), truth[name])
                for name in score_py.KEY_FIELDS
                if truth.get(name) is not None
            )
            rows.append((record, right))
    out = {}
    for target, threshold in thresholds.items():
        done = right_done = 0
        for record, right in rows:
            confidence = record.get("keyConfidence")
            if confidence is None:
                completes = record.get("processingStatus") == "completed"
            else:
                others = [
                    e
                    for e in record.get("validationErrors") or []
                    if not any(r in e for r in SCORER_REASONS) and not (drop_lines and e.startswith("line items sum"))
                ]
                reading = "text_layer" if record.get("ocrConfidence") is None else "ocr"
                completes = confidence >= threshold[reading] and not others
            done += completes
            right_done += completes and right
        out[target] = (len(rows), done, right_done)
    return out


def calibration_error(pred: Path, datasets: Path, bins: int = 10) -> tuple[float, int] | None:
    """Expected calibration error of the key fields' evidence ``confidence`` against score.py's
    ``field_ok`` over the labelled key fields the predictions filled (equal-width bins), and
    how many fields; None when there are none."""
    score_py = load_score_module(datasets)
    pairs = []
    for source in shared.dev_sources(datasets):
        for entry in json.loads((source / "manifest.json").read_text()):
            stem = Path(entry["file"]).stem
            path = pred / source.name / f"{stem}.json"
            if not path.is_file():
                continue
            truth = json.loads((source / f"{stem}.json").read_text())
            record = json.loads(path.read_text())
            data, evidence = record.get("data") or {}, record.get("evidence") or {}
            for name in score_py.KEY_FIELDS:
                confidence = (evidence.get(name) or {}).get("confidence")
                if truth.get(name) is None or data.get(name) is None or confidence is None:
                    continue
                pairs.append((float(confidence), bool(score_py.field_ok(name, data[name], truth[name]))))
    if not pairs:
        return None
    error = 0.0
    for b in range(bins):
        inside = [(p, ok) for p, ok in pairs if b / bins <= p < (b + 1) / bins or (b == bins - 1 and p >= 1.0)]
        if inside:
            mean_p = sum(p for p, _ in inside) / len(inside)
            error += len(inside) / len(pairs) * abs(mean_p - sum(ok for _, ok in inside) / len(inside))
    return round(error, 4), len(pairs)


def held_back(pred: Path) -> dict[str, int]:
    """Reasons that kept documents from ``completed``, counted once per document and kind."""
    counts: dict[str, int] = {}
    for path in sorted(pred.glob("*/*.json")):
        record = json.loads(path.read_text())
        if record.get("processingStatus") == "completed":
            continue
        kinds = {_reason_kind(message) for message in record.get("validationErrors") or []}
        if record.get("processingStatus") == "failed":
            kinds.add("failed: " + (record.get("processingError") or "")[:40])
        for kind in kinds:
            counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _reason_kind(message: str) -> str:
    """A validation message's kind: "<field> not certain", "<field> not found", "line items do
    not add up", "totals do not add up", "print differs from XML", or its first words."""
    words = message.split()
    if "is not certain (" in message:
        return f"{words[0]} not certain (scorer)"
    if message.endswith("not found in the document"):
        return f"{words[0]} not found"
    if message.startswith("line items sum to"):
        return "line items do not add up"
    if message.startswith("totals do not add up"):
        return "totals do not add up"
    if message.startswith("printed "):
        return "print differs from the e-invoice XML"
    if "not confirmed" in message or "still not reliable" in message:
        return f"{words[0]} not confirmed (arbiter)"
    return f"{words[0]} {'implausible' if words[0] in HEADER_FIELDS else 'other'}"


def run_extract(source: Path, out: Path, flags: list[str], data_dir: Path) -> tuple[float, int, int, str]:
    """Run `appliance extract` on one source folder; returns (wall seconds, peak PSS of the process
    tree in kB, peak PSS of its largest process in kB, stderr tail)."""
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
    peak = largest = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak, largest
        while not stop.is_set():
            tree, worker = tree_and_largest_pss_kb(proc.pid)
            peak, largest = max(peak, tree), max(largest, worker)
            stop.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = proc.communicate()
    stop.set()
    sampler.join()
    if proc.returncode != 0:
        sys.exit(f"appliance extract failed ({proc.returncode}):\n{stderr[-3000:]}")
    return time.perf_counter() - started, peak, largest, stderr


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


def bundled_thresholds() -> dict[str, dict[str, float]]:
    """Target precision -> reading -> document probability, of the bundled scorer (empty
    without one)."""
    from pipeline.decision.scorer import SCORER_DIR, Scorer, ScorerError

    try:
        scorer = Scorer.load(SCORER_DIR)
    except ScorerError:
        return {}
    return {target: scorer.thresholds[target] for target in TARGETS if target in scorer.thresholds}


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
            "mode | sources | summary line (score.py) | key acc per source | wall | peak memory (PSS, process tree) "
            "| peak memory of the worker (PSS, largest process)",
            '"full" is the appliance as shipped (vendor templates, layout rules, the learned scorer deciding '
            "the key fields and the extraction model asked where the scorer is not sure): the scorer with the "
            'model; "rules alone" runs without the model (the scorer without it), "model alone" without the '
            "rules (and so without the scorer, which reads the rules' lines; the arbiter table decides) "
            "(`appliance extract --sources`). Key accuracy per source is score.py run on that source alone.",
        ),
    ]
    for (config, mode), r in configs.items():
        per_source = ", ".join(f"{name} {value:.3f}" for name, value in r["source_key"].items())
        lines.append(
            f"| {mode} | {config} | `{r['summary']}` | {per_source} | {r['wall']:.0f} s "
            f"| {r['peak_kb'] / 1024:.0f} MB | {r['worker_kb'] / 1024:.0f} MB |"
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
    scored = [(config, mode, r) for (config, mode), r in configs.items() if r.get("coverage")]
    if scored:
        lines += _section(
            "Coverage and precision of the learned scorer",
            "mode | row | "
            + " | ".join(f"completed share at {t} | precision" for t in TARGETS)
            + " | completed share at 0.98, rows dropped | precision"
            + " | ECE of key-field confidence (fields)",
            "Had the appliance completed at the threshold the bundled scorer fitted on the training folds "
            "for each target precision (`review.target_precision`; 0.98 ships): the share of documents "
            "completed and the share of those whose key fields are all right (score.py's field_ok). A "
            "document completes when its key confidence reaches the threshold and nothing but the scorer's "
            "own reasons flagged it; e-invoices read from their XML keep their status. The model was asked "
            'where the shipped target (0.98) found the scorer unsure. "Rows dropped": as '
            '`review.line_items = "drop"` would complete them (line items that do not add up do not hold a '
            'document back; "block" ships). ECE: expected calibration error of the '
            "evidence confidence of the filled, labelled key fields against score.py's field_ok (10 bins).",
        )
        for config, mode, r in scored:
            cells = []
            for target in TARGETS:
                n, done, right = r["coverage"].get(target, (0, 0, 0))
                cells += [f"{done / n:.3f} ({done})" if n else "n/a", f"{right / done:.3f}" if done else "n/a"]
            n, done, right = r["coverage_drop"].get("0.98", (0, 0, 0))
            cells += [f"{done / n:.3f} ({done})" if n else "n/a", f"{right / done:.3f}" if done else "n/a"]
            ece = r.get("ece")
            cells.append(f"{ece[0]:.3f} ({ece[1]})" if ece else "n/a")
            lines.append(_row(mode, SCORER_ROWS[config], *cells))
    held = [(config, mode, r) for (config, mode), r in configs.items() if r.get("held_back")]
    if held:
        kinds = sorted(
            {k for _, _, r in held for k in r["held_back"]},
            key=lambda k: -sum(r["held_back"].get(k, 0) for _, _, r in held),
        )
        lines += _section(
            "Reasons that held documents back",
            "reason | " + " | ".join(f"{mode}, {config}" for config, mode, _ in held),
            "Documents not completed, per kind of reason in their validationErrors (a document counts once per kind).",
        )
        for kind in kinds:
            lines.append(_row(kind, *(r["held_back"].get(kind, 0) for _, _, r in held)))
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
    thresholds = bundled_thresholds()
    results, configs = {}, {}
    for config in args.configs.split(","):
        for mode in args.modes.split(","):
            pred = work / config.replace(" ", "-") / mode
            print(f"bench-accuracy: {mode}, {config} ...", file=sys.stderr, flush=True)
            flags = [*MODES[mode], "--sources", CONFIGS[config]]
            wall, peak, worker = 0.0, 0, 0
            for source in sources:
                seconds, source_peak, source_worker, _ = run_extract(source, pred / source.name, flags, work / "data")
                wall, peak, worker = wall + seconds, max(peak, source_peak), max(worker, source_worker)
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
                "worker_kb": worker,
                "score": scored,
                "source_key": source_key,
                "timings": timings(pred),
                "outcomes": outcomes(pred),
                "coverage": coverage(pred, args.datasets, thresholds) if config in SCORER_ROWS else {},
                "coverage_drop": coverage(pred, args.datasets, thresholds, True) if config in SCORER_ROWS else {},
                "held_back": held_back(pred),
                "ece": calibration_error(pred, args.datasets),
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
