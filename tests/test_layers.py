"""The layer rules of DESIGN.md, checked on the source: every package says what it owns and what
it must not import, and no module imports across a line it must not cross."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(
    path.parent
    for top in ("api", "appliance", "models", "pipeline", "webui")
    for path in (ROOT / top).rglob("__init__.py")
)
# package -> the packages of ours its modules must not import (DESIGN.md "Layer rules")
FORBIDDEN = {
    "pipeline": ("api", "appliance", "webui"),
    "models": ("api", "appliance", "pipeline", "webui"),
    "appliance": ("api", "webui"),
    "webui": ("api",),  # the review pages use appliance's functions, never the API's routes or auth
}
ALLOWED = {"appliance/server.py"}  # the one module of appliance that assembles the web app


def imported(path: Path) -> set[str]:
    """Every module name ``path`` imports, at the top or inside functions."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_package_says_what_it_owns_and_must_not_import(package):
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    assert len(docstring.split()) >= 15, f"{package.name}: a docstring saying what the package owns"
    assert "must not import" in docstring.lower(), f"{package.name}: what it must not import"


@pytest.mark.parametrize("top", sorted(FORBIDDEN))
def test_no_module_imports_across_its_layer(top):
    crossings = []
    for path in sorted((ROOT / top).rglob("*.py")):
        relative = str(path.relative_to(ROOT))
        if relative in ALLOWED:
            continue
        for name in imported(path):
            if name.split(".")[0] in FORBIDDEN[top]:
                crossings.append(f"{relative} imports {name}")
    assert crossings == []


def test_the_vocabulary_is_declared_once():
    """The field sets and states live in pipeline/schema.py; no other module spells them out."""
    declarations = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        if path.parts[len(ROOT.parts)] not in ("api", "appliance", "models", "pipeline", "webui") or (
            path.name == "schema.py"
        ):
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
