"""Build the extraction model's training set: every training document read the way the
appliance reads it, turned into examples (``training.examples``), with folds by group.

    python -m training.dataset --train-dir ../shared/datasets/train --out build/train/data.jsonl.gz
        [--synth-dir DIR ...] [--reviewed-dir DIR ...] [--only text_layer|ocr]
        [--cache build/train/cache] [--jobs 2]

``--reviewed-dir`` reads what ``appliance training export`` wrote: invoices a person approved
on the appliance, the customer's own documents. ``--synth-dir`` reads synthetic documents
written by ``python -m training.synth --out DIR [--scans]`` (<stem>.pdf read from its text
layer, <stem>.jpg OCR'd), so OCR can run on another host without the generator's
dependencies; ``--only`` keeps one reading of every document.

Fold 0 of 5 (by group: shop, e-invoice producer, synthetic document) is held out of adapter
training; it chooses hyper-parameters and calibrates the arbiter's confidence
(``scripts/calibrate-confidence``). Only ``--train-dir`` is read: the dev set is never touched.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from training.examples import Example, cached_document, make_example, read_document, write_jsonl

FOLDS = 5
HOLDOUT_FOLD = 0


def fold_of(group: str) -> int:
    """The fold of a group: a stable hash, so a shop's receipts always land in one fold."""
    return int(hashlib.sha256(group.encode()).hexdigest(), 16) % FOLDS


# The OCR engine the committed adapter's training text was read with: rapidocr (PP-OCRv4 "ch",
# the embedded default until ppocr replaced it). Kept so that scripts/train-extractor rebuilds
# that adapter; training it on ppocr's text is a new adapter, to be measured before it ships.
# The scorer (scripts/train-scorer) reads with the shipped engine, "ppocr".
ADAPTER_ENGINE = "rapidocr"
THAI_ENGINE = "tesseract"  # serving's reader of Thai pages (``pipeline.runner.thai_routed``)


def _engine(lang: str, name: str = ADAPTER_ENGINE):
    """OCR engine ``name`` (its "ch" model). For ``ADAPTER_ENGINE`` (the adapter's recipe),
    Tesseract for the documents whose ``lang`` is Thai; for any other (the scorer's ``ppocr``),
    the engine as serving loads it (``pipeline.runner.thai_routed``): the document's language
    is not known there, so a page is read as Thai where the router finds it so."""
    from models.registry import load_ocr

    if name != ADAPTER_ENGINE:
        from pipeline.runner import thai_routed

        return thai_routed(load_ocr(name, lang="ch", threads=1), THAI_ENGINE, required=False, threads=1)
    if lang == "th":
        try:
            return load_ocr(THAI_ENGINE, lang="th")
        except Exception:  # tesserocr or its Thai data missing: the default engine's reading
            pass
    return load_ocr(name, lang="ch", threads=1)


_ENGINES: dict[tuple[str, str], object] = {}


def read_task(task: tuple) -> tuple:
    """Worker: (key, bytes or path, is_pdf, use_text_layer, lang, cache[, engine]) -> (key,
    DocumentText); ``engine`` is an OCR engine's name, ``ADAPTER_ENGINE`` when left out."""
    key, payload, is_pdf, use_text_layer, lang, cache, *rest = task
    name = rest[0] if rest else ADAPTER_ENGINE
    data = Path(payload).read_bytes() if isinstance(payload, str) else payload

    def build():
        engine = _ENGINES.get((lang, name)) or _ENGINES.setdefault((lang, name), _engine(lang, name))
        return read_document(data, is_pdf=is_pdf, engine=engine, use_text_layer=use_text_layer)

    return key, cached_document(Path(cache) if cache else None, key, build)


def real_tasks(train_dir: Path, cache: str | None) -> tuple[list[tuple], dict[str, dict]]:
    """Read tasks and metadata for ``train_dir``'s sroie and zugferd-corpus documents."""
    tasks, meta = [], {}
    for source in ("sroie", "zugferd-corpus"):
        folder = train_dir / source
        if not (folder / "manifest.json").is_file():
            continue
        for entry in json.loads((folder / "manifest.json").read_text()):
            truth = json.loads((folder / entry["truth"]).read_text())
            asked = [name for name in entry["labeled_fields"] if name != "line_items"]
            path = str(folder / entry["file"])
            stem = Path(entry["file"]).stem
            if source == "sroie":
                group = "shop:" + " ".join(str(truth.get("vendor_name") or stem).casefold().split())
                modes = [("ocr", False)]
            else:
                group = "producer:" + entry["path"].split("/")[-2]
                modes = [("text_layer", True), ("ocr", False)]
            for mode, layer in modes:
                key = f"{source}:{stem}:{mode}"
                tasks.append((key, path, entry["file"].endswith(".pdf"), layer, entry.get("language", "en"), cache))
                meta[key] = {"truth": truth, "asked": asked, "source": source, "mode": mode, "group": group}
    return tasks, meta


SERIES_MARK = "series.txt"  # in a folder of repeat vendors' documents (``training.synth --series``)


def synth_dir_tasks(folder: Path, cache: str | None) -> tuple[list[tuple], dict[str, dict]]:
    """Read tasks for the synthetic documents saved in ``folder`` (<stem>.json truth with
    <stem>.pdf and/or <stem>.jpg; the language is the stem's last part). Each document is its
    own group, except in a folder of repeat vendors (``training.synth --series``: a
    ``SERIES_MARK`` file), where a vendor's documents are one group (one fold)."""
    series = (folder / SERIES_MARK).is_file()
    tasks, meta = [], {}
    for truth_path in sorted(folder.glob("*.json")):
        truth = json.loads(truth_path.read_text())
        stem, lang = truth_path.stem, truth_path.stem.rsplit("-", 1)[-1]
        group = f"synth:{folder.name}-{stem}"
        if series:
            group = f"synth:{folder.name}-vendor{int(stem.split('-')[1]) // 1000}"
        # The generator's truth is complete (null where the print shows nothing), so its
        # prompts ask every field, as serving does, and the answer leaves the absent ones out.
        asked = [name for name in truth if name != "line_items"]
        for suffix, mode, is_pdf in ((".pdf", "text_layer", True), (".jpg", "ocr", False)):
            if (folder / f"{stem}{suffix}").is_file():
                key = f"synth:{folder.name}-{stem}:{mode}"
                tasks.append((key, str(folder / f"{stem}{suffix}"), is_pdf, is_pdf, lang, cache))
                meta[key] = {"truth": truth, "asked": asked, "source": "synth", "mode": mode, "group": group}
    return tasks, meta


def reviewed_tasks(folder: Path, cache: str | None) -> tuple[list[tuple], dict[str, dict]]:
    """Read tasks for invoices a person approved, as ``appliance training export`` writes them
    (a manifest.json in the datasets' format; the group is the vendor). A PDF is read as the
    appliance reads it (its text layer, OCR where a page has none); an image is OCR'd."""
    tasks, meta = [], {}
    for entry in json.loads((folder / "manifest.json").read_text()):
        truth = json.loads((folder / entry["truth"]).read_text())
        asked = [name for name in entry["labeled_fields"] if name != "line_items"]
        is_pdf = entry["file"].endswith(".pdf")
        mode = "text_layer" if is_pdf else "ocr"
        key = f"reviewed:{folder.name}-{Path(entry['file']).stem}:{mode}"
        tasks.append((key, str(folder / entry["file"]), is_pdf, is_pdf, entry.get("language", "en"), cache))
        meta[key] = {"truth": truth, "asked": asked, "source": "reviewed", "mode": mode, "group": entry["group"]}
    return tasks, meta


def build(args) -> list[Example]:
    started = time.perf_counter()
    cache = str(args.cache) if args.cache else None
    tasks, meta = real_tasks(args.train_dir, cache) if args.train_dir else ([], {})
    for folder in args.synth_dir or ():
        more_tasks, more_meta = synth_dir_tasks(folder, cache)
        tasks += more_tasks
        meta.update(more_meta)
    for folder in args.reviewed_dir or ():
        more_tasks, more_meta = reviewed_tasks(folder, cache)
        tasks += more_tasks
        meta.update(more_meta)
    if args.only:
        tasks = [task for task in tasks if meta[task[0]]["mode"] == args.only]
    print(f"reading {len(tasks)} documents with {args.jobs} processes ...", flush=True)
    examples = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for done, (key, doc) in enumerate(pool.map(read_task, tasks, chunksize=4), 1):
            info = meta[key]
            if doc.text.strip():
                examples.append(
                    make_example(
                        doc,
                        info["truth"],
                        info["asked"],
                        ident=key,
                        source=info["source"],
                        mode=info["mode"],
                        group=info["group"],
                    )
                )
            if done % 100 == 0:
                print(f"  {done}/{len(tasks)} read ({time.perf_counter() - started:.0f} s)", flush=True)
    counts = Counter((e.source, e.mode, "holdout" if fold_of(e.group) == HOLDOUT_FOLD else "train") for e in examples)
    for key in sorted(counts):
        print(f"  {key[0]:15s} {key[1]:11s} {key[2]:8s} {counts[key]}")
    print(f"{len(examples)} examples in {time.perf_counter() - started:.0f} s", flush=True)
    return examples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train-dir", type=Path, default=None)
    parser.add_argument("--synth-dir", type=Path, action="append", help="may be given more than once")
    parser.add_argument(
        "--reviewed-dir", type=Path, action="append", help="an `appliance training export` folder; may repeat"
    )
    parser.add_argument("--only", choices=["text_layer", "ocr"], default=None)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if args.train_dir and args.train_dir.resolve().name != "train":
        parser.error(f"--train-dir must be the training set (a folder named train), not {args.train_dir}")
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    examples = build(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(examples, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
