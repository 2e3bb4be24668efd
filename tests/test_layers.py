"""The layer rules of DESIGN.md, checked on the source: every package says what it owns and what
it must not import, and no module imports across a line it must not cross."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import ROOT

PRODUCT = ("api", "appliance", "models", "pipeline", "server", "webui")
PACKAGES = sorted(path.parent for top in (*PRODUCT, "bench", "training") for path in (ROOT / top).rglob("__init__.py"))
# folder -> the modules of ours its modules must not import (DESIGN.md "Layer rules"; each
# package's docstring says its own). A name forbids the module and everything below it.
FAMILIES = ("reading", "einvoice", "templates", "rules", "model", "decision", "values", "runtime", "profiles")


def _pipeline(*families: str) -> tuple[str, ...]:
    return tuple(f"pipeline.{family}" for family in families)


FORBIDDEN = {
    "pipeline": ("api", "appliance", "webui", "server", "bench", "training", "tests", "aiohttp"),
    "models": ("api", "appliance", "pipeline", "webui", "server", "bench", "training", "tests", "aiohttp"),
    # state and rules, no HTTP: the API parses requests and writes URLs
    "appliance": ("api", "webui", "server", "bench", "training", "tests", "aiohttp"),
    "webui": ("api", "server", "bench", "training", "tests"),  # appliance's functions, never the API's
    "api": ("server", "bench", "training", "tests"),
    "server": ("bench", "training", "tests"),
    "training": ("api", "webui", "bench", "tests"),
    "bench": ("api", "webui", "training", "tests"),  # a client of the appliance: it starts one and calls it
    # the families of the pipeline (pipeline/__init__.py): values below all; reading, the value
    # proposers and the decision side by side; the steps and the runner above them; runtime on top
    "pipeline/values": _pipeline(*(f for f in FAMILIES if f != "values"), "steps", "runner"),
    "pipeline/reading": _pipeline("einvoice", "templates", "rules", "model", "decision", "runtime", "steps", "runner"),
    "pipeline/rules": _pipeline("reading", "einvoice", "templates", "model", "decision", "runtime", "steps", "runner"),
    "pipeline/templates": _pipeline("einvoice", "rules", "model", "decision", "runtime", "steps", "runner"),
    "pipeline/model": _pipeline("einvoice", "templates", "decision", "runtime", "steps", "runner"),
    "pipeline/decision": _pipeline("einvoice", "templates", "model", "runtime", "steps", "runner"),
    "pipeline/einvoice": _pipeline("templates", "model", "runtime", "steps", "runner"),
    "pipeline/profiles": _pipeline(
        "reading", "einvoice", "templates", "model", "decision", "runtime", "steps", "runner"
    ),
    "pipeline/steps.py": _pipeline("runtime"),
    "pipeline/runner.py": _pipeline("runtime"),
}
# Ray is the runtime's business: the steps run the same in a Ray actor, a thread or a tool
RAY_ONLY_IN = ("pipeline/runtime", "appliance", "server", "bench", "tests")
# the CLI's serve command starts the composition root (server/), which sits above every layer
ALLOWED = {
    "appliance/cli/service.py": ("server",),
    "bench/learning.py": ("training",),  # its synthetic vendors come from the generator (training.synth)
}


def imported(path: Path) -> set[str]:
    """Every module name ``path`` imports, at the top or inside functions."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _sources(place: str) -> list[Path]:
    target = ROOT / place
    return [target] if target.suffix == ".py" else sorted(target.rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_package_says_what_it_owns_and_must_not_import(package):
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    assert len(docstring.split()) >= 15, f"{package.name}: a docstring saying what the package owns"
    assert "must not import" in docstring.lower(), f"{package.name}: what it must not import"


@pytest.mark.parametrize("place", sorted(FORBIDDEN))
def test_no_module_imports_across_its_layer(place):
    crossings = []
    for path in _sources(place):
        relative = str(path.relative_to(ROOT))
        for name in imported(path):
            if name.split(".")[0] in ALLOWED.get(relative, ()):
                continue
            if any(name == banned or name.startswith(banned + ".") for banned in FORBIDDEN[place]):
                crossings.append(f"{relative} imports {name}")
    assert crossings == []


def test_only_the_runtime_talks_to_ray():
    users = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        relative = str(path.relative_to(ROOT))
        if relative.startswith(("tests/generated_client", ".venv")) or relative.startswith(RAY_ONLY_IN):
            continue
        if any(name == "ray" or name.startswith("ray.") for name in imported(path)):
            users.append(relative)
    assert users == []


def test_scripts_are_launchers():
    """STYLE.md 15: a script is a few lines that start an importable module; no Python of its own."""
    python = [
        path.name
        for path in sorted((ROOT / "scripts").iterdir())
        if path.read_text().startswith("#!/usr/bin/env python")
    ]
    assert python == []


def test_code_is_imported_not_loaded_by_path():
    """Issue 24: a module that scripts or tests need is importable; nobody loads a file by its
    path or edits sys.path to reach one (the launchers set PYTHONPATH)."""
    offenders = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        relative = str(path.relative_to(ROOT))
        if relative.startswith((".venv", "tests/generated_client")) or path == Path(__file__):
            continue
        text = path.read_text()
        if "SourceFileLoader" in text or "sys.path.insert" in text:
            offenders.append(relative)
    assert offenders == []


def test_the_vocabulary_is_declared_once():
    """The field sets and states live in pipeline/schema.py; no other module spells them out."""
    declarations = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        if path.parts[len(ROOT.parts)] not in PRODUCT or (path.name == "schema.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name)
                and target.id
                in ("HEADER_FIELDS", "AMOUNT_FIELDS", "LINE_FIELDS", "KEY_FIELDS", "READY_STATES", "PROCESSING_STATUS")
                for target in node.targets
            ):
                if not isinstance(node.value, (ast.Name, ast.Attribute, ast.ListComp)):
                    declarations.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert declarations == []
