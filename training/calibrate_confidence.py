"""Fit the field-confidence table (pipeline/decision/confidence_table.json) on the dev datasets.

    scripts/calibrate-confidence [DATASETS] [--cache DIR] [--llm-model GGUF] [--records FILE] [--dry-run]

DATASETS defaults to ../shared/datasets next to the repository (<source>/<stem>.{pdf,jpg,json}
and <source>/manifest.json). Every document runs through the appliance's own steps
(``pipeline.steps``, in-process through ``training.extraction``, no Ray), each source of
fields in a run of its own:

* e-invoice PDFs: tier 0 (the ``einvoice`` step: XML and print check) -> fields of source
  ``einvoice``; and the same PDFs once more through tier 2 on their text, as if they had no XML;
* every document: tier 2 with the model off (``sources = rules``; OCR with RapidOCR, one
  thread) -> fields of source ``rules``;
* with ``--llm-model``: tier 2 with the rules off (``sources = model``) -> fields of source
  ``llm``; ``--llm-model bundled`` is the bundled GGUF with the bundled extraction adapter, as
  the appliance serves it.

Each filled header field whose truth is labelled (non-null) is marked right or wrong with the
reference scorer's ``field_ok`` (../shared/bench/score.py, imported by path); its features are
those the pipeline's evidence step computes (``pipeline.decision.evidence.field_evidence``).
Then the table is fitted (``pipeline.decision.confidence.fit``), written, and a reliability
table is printed: bins of predicted confidence -> observed accuracy and counts, in-sample and
leave-one-document-out, with the expected calibration error (ECE). ``--cache DIR`` keeps the
texts and the model's answers (DIR/<source>/<stem>.pkl, .llm.pkl) so a second run needs no OCR
and no model.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

from pipeline.context import JobContext
from pipeline.decision.confidence import TABLE_PATH, fit, predict_with, reliability
from pipeline.decision.evidence import field_evidence
from pipeline.reading.sniff import PDF, sniff
from pipeline.runner import Extractor
from pipeline.schema import Source
from pipeline.steps import Work, select
from pipeline.values.money import to_json
from training.extraction import extractor, read_text
from training.scorer import load_scorer

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATASETS = REPO.parent / "shared" / "datasets"
TIER0 = select(until="einvoice")
TIER2 = select(skip={"einvoice", "tier 0 forced"})


class LazyOcr:
    """The shipped OCR engine (``ocr.engine``'s default) with one thread, loaded when a page
    first needs it (a full cache needs none): the confidence table is fitted on the text of the
    engine that ships."""

    def __init__(self) -> None:
        from training.extraction import shipped_models

        self.models = shipped_models(ocr_threads=1)
        self.name = self.models.ocr_engine
        self._engine = None

    def recognize(self, image) -> list:
        if self._engine is None:
            from pipeline.runner import ocr_engine

            self._engine = ocr_engine(self.models)
        return self._engine.recognize(image)


def cached(path: Path | None, build):
    """``build()`` once, pickled at ``path`` (None: no cache)."""
    if path is not None and path.exists():
        with path.open("rb") as handle:
            return pickle.load(handle)
    value = build()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            pickle.dump(value, handle)
    return value


def features_of(work: Work, source: Source) -> dict[str, dict]:
    """Field -> confidence features of every field of ``work``'s result that came from
    ``source``, as the evidence step computed them."""
    result = work.result
    if result is None or result.data is None:
        return {}
    found = field_evidence(
        result.data,
        doc=work.doc,
        source_by_field=result.field_sources,
        default_source=Source.EINVOICE if result.extraction_tier == 0 else Source.RULES,
        rules_evidence=work.rules.evidence if work.rules else None,
        errors=result.validation_errors,
    )
    return {name: feats for name, (_, origin, feats) in found.items() if origin == source}


def runs_of(rules_tool: Extractor, llm_tool: Extractor | None, path: Path, cache: Path | None) -> list[tuple]:
    """(source, data, features per field) of every run over one document."""
    data = path.read_bytes()
    is_pdf = sniff(data[:1024]) == PDF
    doc = cached(cache and cache.with_suffix(".pkl"), lambda: read_text(rules_tool, data, is_pdf=is_pdf))
    ctx = JobContext(path.stem, PDF if is_pdf else "image/jpeg")
    runs = []
    if is_pdf:
        zero = rules_tool.work(ctx, data, steps=TIER0)
        if zero.result is not None and zero.result.extraction_tier == 0:
            runs.append((Source.EINVOICE, zero.result.data, features_of(zero, Source.EINVOICE)))
    rules = rules_tool.work(JobContext(path.stem, ctx.media_type, sources=("rules",)), doc=doc, steps=TIER2)
    runs.append((Source.RULES, rules.result.data, features_of(rules, Source.RULES)))
    if llm_tool is not None:
        answer_cache = cache and cache.with_suffix(".llm.pkl")
        answer = cached(answer_cache, lambda: llm_tool.work(ctx, doc=doc, steps=select(until="model")).answer)
        model = llm_tool.work(
            JobContext(path.stem, ctx.media_type, sources=("model",)), doc=doc, answer=answer, steps=TIER2
        )
        runs.append((Source.MODEL, model.result.data, features_of(model, Source.MODEL)))
    return runs


def collect(
    datasets: Path, cache: Path | None = None, llm_model: str | None = None, sources: set[str] | None = None
) -> list[dict]:
    """One record per filled, labelled header field: doc, field, source, features, ok.

    ``sources``: only these dataset folders (all when None)."""
    scorer = load_scorer(datasets)
    ocr = LazyOcr()
    rules_tool = extractor(ocr=ocr)
    llm_tool = None
    if llm_model:
        from models.registry import BUNDLED_ADAPTER, load_llm

        # the bundled model is served with the bundled adapter; another GGUF without one
        adapter = BUNDLED_ADAPTER if llm_model == "bundled" else None
        llm = load_llm("llama_cpp", model_path=None if adapter else llm_model, lora_path=adapter, n_ctx=4096)
        llm_tool = extractor(ocr=ocr, llm=llm)
    records: list[dict] = []
    for manifest in sorted(datasets.glob("*/manifest.json")):
        source = manifest.parent.name
        if sources is not None and source not in sources:
            continue
        for entry in json.loads(manifest.read_text()):
            path = manifest.parent / entry["file"]
            truth = json.loads((manifest.parent / f"{path.stem}.json").read_text())
            started = time.perf_counter()
            for origin, data, feats in runs_of(
                rules_tool, llm_tool, path, cache / source / path.stem if cache else None
            ):
                for name, features in feats.items():
                    if truth.get(name) is None:
                        continue
                    alt = entry.get("subtotal_alt") if name == "subtotal" else None
                    ok = bool(scorer.field_ok(name, to_json(data.get(name)), truth[name], alt))
                    records.append(
                        {
                            "doc": f"{source}/{path.stem}",
                            "field": name,
                            "source": origin,
                            "features": features,
                            "ok": ok,
                        }
                    )
            print(f"  {source}/{path.stem}: {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return records


def print_table(title: str, table: dict) -> None:
    """The reliability table: confidence bin -> n, mean confidence, observed accuracy; then ECE."""
    print(f"\n{title}")
    print(f"{'confidence':<12} {'n':>5} {'mean conf':>10} {'accuracy':>9}")
    for row in table["bins"]:
        if row["n"]:
            span = f"{row['lo']:.1f}-{row['hi']:.1f}"
            print(f"{span:<12} {row['n']:>5} {row['confidence']:>10.3f} {row['accuracy']:>9.3f}")
    print(f"ECE = {table['ece']:.4f} over {table['n']} fields; accuracy {table['accuracy']:.3f}")


def leave_one_document_out(records: list[dict]) -> list[tuple[float, bool]]:
    """(confidence, ok) of every record (in order), predicted by a table fitted without its document."""
    tables = {doc: fit([r for r in records if r["doc"] != doc]) for doc in {r["doc"] for r in records}}
    return [(predict_with(tables[r["doc"]], r["field"], r["source"], r["features"]), r["ok"]) for r in records]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="calibrate-confidence", description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="?", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--cache", type=Path, help="keep the texts and the model's answers here")
    parser.add_argument("--llm-model", help="a GGUF file, or 'bundled': also calibrate the llm source")
    parser.add_argument("--records", type=Path, help="also write the labelled records as JSON here")
    parser.add_argument("--dry-run", action="store_true", help="print the tables, do not write the table file")
    args = parser.parse_args(argv)
    if not args.datasets.is_dir():
        parser.error(f"no datasets folder at {args.datasets}")
    records = collect(args.datasets, args.cache, args.llm_model)
    if args.records:
        args.records.write_text(json.dumps(records, indent=1))
    table = fit(
        records,
        note=f"fitted by scripts/calibrate-confidence on {args.datasets.name} "
        f"({len({r['doc'] for r in records})} documents, {len(records)} labelled fields)",
    )
    in_sample = reliability([(predict_with(table, r["field"], r["source"], r["features"]), r["ok"]) for r in records])
    cross_pairs = leave_one_document_out(records)
    print_table("reliability, in-sample", in_sample)
    print_table("reliability, leave-one-document-out", reliability(cross_pairs))
    for source in sorted({r["source"] for r in records}):
        pairs = [pair for pair, r in zip(cross_pairs, records, strict=True) if r["source"] == source]
        print_table(f"reliability, leave-one-document-out, source {source}", reliability(pairs))
    if not args.dry_run:
        TABLE_PATH.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
        print(f"wrote {TABLE_PATH.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
