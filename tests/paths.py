"""Where things are, for every test: the checkout (``ROOT``), ``../shared`` beside it (``SHARED``,
absent on a customer's machine) and our own small test files (``DATA``)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATASETS = SHARED / "datasets"
DATA = ROOT / "tests" / "data"
