"""scripts/install --dry-run: prints every step of an install into temporary paths and changes
nothing. (A full install takes about 1 to 2 minutes even with pip's cached llama-cpp-python
wheel, so it is run by hand, not in the suite: see README, "Install on a host".)"""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.paths import ROOT

PACKAGES = [  # the top-level packages pyproject.toml ships: ["api", "appliance", ...]
    pattern.rstrip("*")
    for pattern in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"][
        "include"
    ]
]
INSTALL = ROOT / "scripts" / "install"


def listing(folder: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p.relative_to(folder)), p.stat().st_mode, p.stat().st_size) for p in folder.rglob("*"))


def dry_run(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    paths = [
        "--prefix",
        str(tmp_path / "opt"),
        "--etc-dir",
        str(tmp_path / "etc"),
        "--state-dir",
        str(tmp_path / "state"),
        "--systemd-dir",
        str(tmp_path / "systemd"),
    ]
    return subprocess.run(
        [str(INSTALL), "--dry-run", *paths, "--no-systemctl", *extra],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )


def test_dry_run_prints_the_steps_and_changes_nothing(tmp_path):
    (tmp_path / "marker").write_text("untouched")
    before = listing(tmp_path)
    result = dry_run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert listing(tmp_path) == before  # not even a temporary file (TMPDIR points here)
    out = result.stdout
    steps = [line for line in out.splitlines() if line.startswith("[dry-run] ")]
    assert not [line for line in out.splitlines() if line.startswith("+ ")], "a command ran"
    expected = [
        f"-m venv {tmp_path}/opt/.venv",
        "-m pip install --quiet -c",
        f"write {tmp_path}/etc/config.toml from",
        f'data_dir = "{tmp_path}/state"',
        f"--data-dir {tmp_path}/state init",
        f"write {tmp_path}/systemd/invoice-appliance.service",
        f"install -d -m 0750 -o invoice-appliance -g invoice-appliance {tmp_path}/state",
    ]
    for fragment in expected:
        assert any(fragment in line for line in steps), f"{fragment!r} not among:\n" + "\n".join(steps)
    assert "user invoice-appliance exists" in out or any("useradd --system" in line for line in steps)
    assert "nothing changed" in out


def test_rejects_unknown_options_and_odd_paths(tmp_path):
    result = subprocess.run([str(INSTALL), "--dry-run", "--frobnicate"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 64 and "unknown option" in result.stderr
    result = dry_run(tmp_path, "--prefix", "relative/path")
    assert result.returncode != 0 and "absolute path" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="only meaningful for a non-root user")
def test_real_install_needs_root(tmp_path):
    result = subprocess.run(
        [str(INSTALL), "--prefix", str(tmp_path / "opt")], capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0 and "run as root" in result.stderr


@pytest.mark.slow
def test_the_wheel_carries_every_package_and_its_data(tmp_path):
    """scripts/install installs the checkout as a wheel (non-editable): every subpackage, the
    calibrated tables, the review pages' templates and scripts and our adapter must be in it, and nothing of
    tests/."""
    import shutil
    import sys
    import zipfile

    from models.registry import BUNDLED_ADAPTER

    source = tmp_path / "src"  # a clean copy: setuptools reuses a stale build/ of the checkout
    for name in (*PACKAGES, "tests"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(source)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("invoice_appliance-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {
        str(p.parent.relative_to(ROOT)) for p in ROOT.glob("*/**/__init__.py") if p.parts[len(ROOT.parts)] in PACKAGES
    }
    for package in packages:
        assert f"{package}/__init__.py" in names, package
    assert "pipeline/decision/confidence_table.json" in names
    assert "pipeline/decision/arbiter_table.json" in names
    templates = {f"webui/templates/{p.name}" for p in (ROOT / "webui" / "templates").glob("*.html")}
    assert templates and templates <= names, templates - names
    scripts = {f"webui/static/{p.name}" for p in (ROOT / "webui" / "static").glob("*.js")}
    assert scripts and scripts <= names, scripts - names  # the CSP allows no inline script: pages need these
    assert Path(BUNDLED_ADAPTER).relative_to(ROOT).as_posix() in names
    assert not any(name.startswith("tests/") for name in names)
