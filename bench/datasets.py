"""The shared datasets the benchmarks read (``../shared/datasets`` beside the checkout) and the
scorer that comes with them (``../shared/bench/score.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"


def dev_sources(datasets: Path) -> list[Path]:
    """The dev set's source folders: those with a manifest.json, as score.py finds them (never ``train/``)."""
    return sorted(path.parent for path in datasets.glob("*/manifest.json"))


def scorer(datasets: Path) -> Path:
    """score.py of ``../shared/bench``, beside the datasets folder."""
    return datasets.parent / "bench" / "score.py"


def score(scorer: Path, truth: Path, pred: Path, json_out: Path) -> tuple[dict, str]:
    """Run score.py on the predictions in ``pred`` against ``truth`` (a datasets folder or one
    source folder): (its JSON, written to ``json_out``, and its standard output)."""
    result = subprocess.run(
        [sys.executable, str(scorer), str(truth), str(pred), "--json", str(json_out)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(json_out.read_text()), result.stdout
