"""Calibrate the per-field arbiter (pipeline/decision/arbiter_table.json) on the hold-out fold of the
training data: never on the dev set, never on documents the adapter was trained on.

    scripts/calibrate-arbiter [--train-dir ../shared/datasets/train] [--synth-dir build/train/synth-text ...]
        [--cache build/train/cache] [--adapter models/adapters/...gguf] [--limit 160] [--dry-run]
        [--records build/train/arbiter-records.json] [--from-records FILE] [--out pipeline/decision/arbiter_table.json]

For every document of fold ``training.dataset.HOLDOUT_FOLD`` (real receipts and e-invoices of
the training set, read from their text layer and as OCR'd pages, and synthetic documents), it
runs the appliance's own steps (``pipeline.steps``, in-process through ``training.extraction``)
up to the arbiter: the layout rules and the extraction model (the bundled Gemma 3 270M with the
adapter, one llama.cpp context), asked every document (serving asks it only where the scorer is
unsure), then arbitration with the rules preferred and the scorer off (the table serves the
fields the scorer does not decide, and every field where ``review.scorer = false``); and marks each
labelled header field right or wrong with the reference scorer's ``field_ok``
(../shared/bench/score.py, imported by path). Per field it counts:

* ``outcomes``: accuracy of each (decision status, winning source): ``agreed:rules``,
  ``rules:rules`` (the rules alone read it), ``model:llm``, ``disputed:rules``, ``disputed:llm``;
  and of the rules' outcomes refined by their evidence tag (``pipeline.decision.arbitrate.evidence_tags``:
  ``agreed:rules+sum``, the rules' amounts add up to their total; ``+legal``, a vendor name
  with a legal form);
* ``disputes``: how often the rules, and how often the model, were right when they disagreed.

From these it writes ``preferred`` (the model when it was right more often in at least
``MIN_DISPUTES`` disputes and also in the disputes of real documents: on synthetic ones, like
those it was trained on, it is on home ground and proves nothing alone; else the rules) and
``trusted`` (the outcomes a key field may be ``completed`` on: accuracy >= ``TRUST`` over at
least ``MIN_N`` fields, and also on the real documents alone when they hold at least
``MIN_REAL`` of them; plain ``agreed`` outcomes measured on fewer than ``MIN_N`` fields stay
trusted, refined ones do not). The OCR readings come from ``training.dataset``'s
cache when it has them (``scripts/train-extractor`` fills it). ``--records`` keeps the labelled
fields (the rules' and the model's own values, and whether each was right) and the model's
answers, so that ``--from-records`` refits the table without running the model again (with
today's rules: a change to them is refitted in a minute); ``--out`` writes a table for an operator's
own model (``llm.arbiter_table``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

from models.registry import BUNDLED_ADAPTER
from pipeline.context import JobContext
from pipeline.decision.arbitrate import TABLE_PATH, ArbiterTable, evidence_tags
from pipeline.model.llm_extract import LlmAnswer
from pipeline.schema import AMOUNT_FIELDS, HEADER_FIELDS
from pipeline.steps import select
from pipeline.values import normalise
from pipeline.values.money import to_json
from training.dataset import HOLDOUT_FOLD, fold_of, read_task, real_tasks, synth_dir_tasks
from training.extraction import extractor
from training.scorer import load_scorer
from training.train_scorer import MODEL_STEP, NO_SCORER, UP_TO_RULES

REPO = Path(__file__).resolve().parents[1]
# the texts are read already (training.dataset's cache); the line items are not scored here
UP_TO_DECISION = select(skip={"einvoice", "tier 0 forced"}, until="decide")
TRUST = 0.95  # accuracy an outcome needs before a key field may be completed on it alone
MIN_N = 12  # fields an outcome needs to be judged
MIN_REAL = 5  # real-document fields that must also clear TRUST, when there are this many
MIN_DISPUTES = 4  # disputes a field needs before the model may be preferred
# Records are taken with the rules winning every dispute; fit() re-reads a dispute the model
# wins from the model's own correctness.
RULES_FIRST = ArbiterTable(preferred={}, trusted={})


def holdout_tasks(args) -> tuple[list[tuple], dict[str, dict]]:
    """Read tasks and metadata of the hold-out fold: every real document, then synthetic ones
    sampled (seed 0) up to ``args.limit`` in all."""
    cache = str(args.cache)
    tasks, meta = real_tasks(args.train_dir, cache)
    synth_tasks = []
    for folder in args.synth_dir or ():
        more, more_meta = synth_dir_tasks(folder, cache)
        synth_tasks += more
        meta.update(more_meta)
    keep = [task for task in tasks if fold_of(meta[task[0]]["group"]) == HOLDOUT_FOLD]
    synth = [task for task in synth_tasks if fold_of(meta[task[0]]["group"]) == HOLDOUT_FOLD]
    random.Random(0).shuffle(synth)
    return keep + synth[: max(0, args.limit - len(keep))], meta


def fit(records: list[dict]) -> dict:
    """The arbiter table from labelled records (one per labelled field of a hold-out document:
    ``field``, ``real``, ``outcome`` "status:source" with the rules preferred in disputes,
    ``ok``, and ``rules_ok`` / ``model_ok``: whether each source's own value was right, None
    when it had none).

    A dispute's winner is taken from ``rules_ok`` / ``model_ok``, so the outcome of a field that
    the model wins is ``disputed:llm`` with the model's correctness."""
    outcomes: dict[str, dict[str, dict]] = defaultdict(dict)
    disputes: dict[str, dict[str, int]] = defaultdict(
        lambda: {"n": 0, "rules": 0, "llm": 0, "real_n": 0, "real_rules": 0, "real_llm": 0}
    )
    for r in records:
        if r["outcome"].startswith("disputed"):
            d = disputes[r["field"]]
            for prefix, counted in (("", True), ("real_", r["real"])):
                if counted:
                    d[prefix + "n"] += 1
                    d[prefix + "rules"] += bool(r["rules_ok"])
                    d[prefix + "llm"] += bool(r["model_ok"])
    preferred = {}
    for name in HEADER_FIELDS:
        d = disputes.get(name)
        preferred[name] = (
            "llm"
            if d and d["n"] >= MIN_DISPUTES and d["llm"] > d["rules"] and d["real_llm"] > d["real_rules"]
            else "rules"
        )
    for r in records:
        outcome, ok = r["outcome"], r["ok"]
        # amounts are settled by the arithmetic, not by preference: their outcome stands
        if outcome.startswith("disputed") and preferred[r["field"]] == "llm" and r["field"] not in AMOUNT_FIELDS:
            outcome, ok = "disputed:llm", bool(r["model_ok"])
        if outcome == "missing":
            continue
        keys = [outcome]
        if r.get("tag") and outcome.endswith(":rules"):  # the tag is evidence for the rules' value
            keys.append(f"{outcome}+{r['tag']}")
        for key in keys:
            row = outcomes[r["field"]].setdefault(key, {"n": 0, "ok": 0, "real_n": 0, "real_ok": 0})
            row["n"] += 1
            row["ok"] += ok
            row["real_n"] += r["real"]
            row["real_ok"] += ok and r["real"]
    trusted = {}
    for name in HEADER_FIELDS:
        ok_outcomes = []
        for outcome, row in sorted(outcomes.get(name, {}).items()):
            if row["n"] < MIN_N:  # too few to judge: agreement stands, evidence must prove itself
                good = outcome.startswith("agreed") and "+" not in outcome
            else:
                good = row["ok"] / row["n"] >= TRUST
                if row["real_n"] >= MIN_REAL:
                    good = good and row["real_ok"] / row["real_n"] >= TRUST
            if good:
                ok_outcomes.append(outcome)
        if not any(outcome.startswith("agreed") for outcome in outcomes.get(name, {})):
            ok_outcomes.append("agreed:rules")
        trusted[name] = sorted(set(ok_outcomes))
    return {
        "preferred": preferred,
        "trusted": trusted,
        "outcomes": {name: dict(sorted(rows.items())) for name, rows in sorted(outcomes.items())},
        "disputes": dict(sorted(disputes.items())),
        "rule": f"trusted: accuracy >= {TRUST} over >= {MIN_N} fields (and on real documents when >= {MIN_REAL}); "
        f"plain agreed outcomes with fewer fields stay trusted, refined ones (+sum, +legal) do not; "
        f"preferred: the model when it was right more often "
        f"in >= {MIN_DISPUTES} disputes and also in those of real documents, else the rules",
    }


def label(args, answers: dict[str, dict] | None = None) -> tuple[list[dict], dict[str, dict]]:
    """Run rules and model over the hold-out fold and label every field: (records for ``fit``,
    the model's header answers by document). With ``answers`` (an earlier run's) the model does
    not run: the rules run again and are arbitrated against those answers, so a change to the
    rules is refitted in a minute."""
    scorer = load_scorer(args.train_dir)
    backend = None
    if answers is None:
        from models.registry import load_llm

        backend = load_llm(
            "llama_cpp", model_path=args.model, lora_path=args.adapter or None, n_ctx=4096, n_threads=args.threads
        )
        answers = {}
    tasks, meta = holdout_tasks(args)
    print(f"{len(tasks)} hold-out documents (fold {HOLDOUT_FOLD})", file=sys.stderr)
    records = []
    started = time.perf_counter()
    # the arbiter's own decisions: the table serves the fields the scorer does not decide, and
    # every key field where an operator turns the scorer off (review.scorer = false)
    tool = extractor(llm=backend, review_scorer_dir=NO_SCORER)
    for done, task in enumerate(tasks, 1):
        key, doc = read_task(task)
        info = meta[key]
        if not doc.text.strip():
            continue
        if backend is not None:
            # every document asked, every field: serving asks the model only where the scorer is
            # unsure, which would leave few disputes to measure (the rows are not scored here)
            asked = tool.work(JobContext(key, "image/png"), doc=doc, steps=UP_TO_RULES)
            MODEL_STEP.run(asked, tool.kit)
            answers[key] = to_json(asked.answer.fields) if asked.answer else {}
        replay = LlmAnswer(fields=normalise.fields(answers.get(key, {})))
        work = tool.work(
            JobContext(key, "image/png"), doc=doc, answer=replay, arbiter=RULES_FIRST, steps=UP_TO_DECISION
        )
        rules = normalise.fields(work.rules.fields)
        model = work.answer.fields if work.answer else {}
        decisions = work.decisions
        tags = evidence_tags(decisions, rules, work.rules.line_items)
        for name in HEADER_FIELDS:
            truth = info["truth"].get(name)
            if truth is None or name not in info["asked"]:
                continue
            decision = decisions.get(name)

            def right(value, name=name, truth=truth):
                return None if value is None else bool(scorer.field_ok(name, to_json(value), truth))

            records.append(
                {
                    "doc": key,
                    "field": name,
                    "real": info["source"] != "synth",
                    "outcome": f"{decision.status}:{decision.source}" if decision else "missing",
                    "ok": right(decision.value) if decision else False,
                    "rules_ok": right(rules.get(name)),
                    "model_ok": right(model.get(name)),
                    # the values, for refits that weigh new evidence without the model
                    "rules_value": to_json(rules.get(name)),
                    "model_value": to_json(model.get(name)),
                    "value": to_json(decision.value) if decision else None,
                    "tag": tags.get(name),
                }
            )
        if done % 10 == 0:
            print(f"  {done}/{len(tasks)} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    return records, answers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="calibrate-arbiter", description=__doc__.split("\n")[0])
    parser.add_argument("--train-dir", type=Path, default=REPO.parent / "shared" / "datasets" / "train")
    parser.add_argument("--synth-dir", type=Path, action="append", help="default: build/train/synth-{text,scan}")
    parser.add_argument("--cache", type=Path, default=REPO / "build" / "train" / "cache")
    parser.add_argument("--model", help="a GGUF model of your own (llm.model_path); default: the bundled one")
    parser.add_argument("--adapter", default=BUNDLED_ADAPTER, help="LoRA GGUF ('' for the base model alone)")
    parser.add_argument("--limit", type=int, default=160, help="documents in all (real first, then synthetic)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--records", type=Path, help="also write the labelled records as JSON here")
    parser.add_argument("--from-records", type=Path, help="fit from records written by --records (no model run)")
    parser.add_argument("--out", type=Path, default=TABLE_PATH, help="the table to write (llm.arbiter_table)")
    parser.add_argument("--dry-run", action="store_true", help="print the table, do not write it")
    args = parser.parse_args(argv)
    if args.train_dir.resolve().name != "train" or not args.train_dir.is_dir():
        parser.error(f"--train-dir must be the training set (a folder named train): {args.train_dir}")
    if args.synth_dir is None:
        args.synth_dir = [d for d in (REPO / "build/train/synth-text", REPO / "build/train/synth-scan") if d.is_dir()]
    if args.from_records:
        saved = json.loads(args.from_records.read_text())
        adapter, records = saved["adapter"], saved["records"]
        if "answers" in saved:  # today's rules against the model answers of that run
            records, _ = label(args, saved["answers"])
    else:
        adapter = " + ".join(Path(p).name for p in (args.model, args.adapter) if p) or "bundled model alone"
        records, answers = label(args)
        if args.records:
            args.records.parent.mkdir(parents=True, exist_ok=True)
            args.records.write_text(json.dumps({"adapter": adapter, "records": records, "answers": answers}, indent=0))
    table = fit(records)
    table["note"] = (
        f"fitted by scripts/calibrate-arbiter on fold {HOLDOUT_FOLD} of the training data "
        f"({len({r['doc'] for r in records})} documents, {len(records)} labelled fields; adapter {adapter})"
    )
    for name in HEADER_FIELDS:
        rows = table["outcomes"].get(name, {})
        shown = ", ".join(f"{k} {v['ok']}/{v['n']}" for k, v in rows.items())
        print(f"{name:16s} preferred {table['preferred'][name]:5s} trusted {table['trusted'][name]}  [{shown}]")
    if not args.dry_run:
        args.out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
