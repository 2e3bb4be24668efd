"""The reference scorer (``bench/score.py`` beside the datasets folder), imported by path for
the calibration scripts. Standard library only; never imported by the serving code."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def load_scorer(datasets: Path):
    """The module ``bench/score.py`` found beside ``datasets`` or beside one of its parents
    (``../shared/datasets`` and ``../shared/datasets/train`` both find ``../shared/bench``).
    Raises FileNotFoundError when there is none."""
    root = Path(datasets).resolve()
    path = next((d / "bench" / "score.py" for d in root.parents if (d / "bench" / "score.py").is_file()), None)
    if path is None:
        raise FileNotFoundError(f"no bench/score.py beside {datasets} or above it")
    spec = importlib.util.spec_from_file_location("bench_score", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
