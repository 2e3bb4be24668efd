"""Smoke run of scripts/soak (the launcher of bench/soak.py): 5 clients for 15 s against an
appliance it starts itself (inline pool, fake models), on the real documents of
../shared/datasets; every check must pass."""

from __future__ import annotations

import subprocess

import pytest

from bench import soak
from bench.server import ROOT
from tests.conftest import DATASETS, needs_datasets


@pytest.mark.slow
@needs_datasets
def test_soak_smoke(tmp_path):
    out = tmp_path / "soak.md"
    result = subprocess.run(
        [
            str(ROOT / "scripts" / "soak"),
            "--clients",
            "5",
            "--minutes",
            "0.25",
            "--pool",
            "inline",
            "--files",
            str(DATASETS),
            "--out",
            str(out),
            "--drain",
            "60",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = out.read_text()
    assert "- [x] every accepted upload ended ready" in report
    assert "- [x] credits add up" in report and "- [x] balance = sum of the ledger" in report
    assert "| POST /invoices/upload |" in report and "p99 ms" in report


def test_soak_refuses_a_non_loopback_target(capsys):
    with pytest.raises(SystemExit) as refused:
        soak.parse_args(["--url", "http://10.0.0.1:8080", "--key", "x"])
    assert refused.value.code == 2 and "loopback" in capsys.readouterr().err
