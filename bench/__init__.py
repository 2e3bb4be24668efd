"""Benchmarks of the appliance, each a module with a ``main`` that a thin launcher in
``scripts/`` starts (STYLE.md 15): accuracy on the dev set (``accuracy``), the poll endpoint
against the reference app (``api``), throughput of the pool layouts (``throughput``) and a soak
run (``soak``); shared helpers for /proc, the datasets, statistics and tenants, and
``server`` (a real ``appliance serve`` subprocess, also used by the tests). Results are written
to ``bench/results/``.

Not part of the product: nothing of api, appliance, pipeline, models, webui or training may
import it. It runs the appliance as a client would; it must not import ``api``'s internals
or ``webui``.
"""
