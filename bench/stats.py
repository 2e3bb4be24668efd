"""Figures from samples, as the benchmarks report them."""

from __future__ import annotations


def percentile(samples: list[float], q: float) -> float:
    """The sample at quantile ``q`` (0 to 1) by nearest rank; NaN when there are none."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")
