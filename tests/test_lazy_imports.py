"""Heavy libraries stay off the light path (STYLE.md 11): the CLI and the API import without
llama_cpp, onnxruntime, torch or ray, checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

from tests.paths import ROOT


def test_cli_and_api_import_without_heavy_libraries():
    code = (
        "import sys, appliance.cli, api.app, server.run, pipeline.runner, pipeline.runtime.pool\n"
        "heavy = [m for m in ('llama_cpp', 'onnxruntime', 'torch', 'ray', 'rapidocr_onnxruntime', 'rapidocr', 'cv2')"
        " if m in sys.modules]\n"
        "print(heavy); sys.exit(1 if heavy else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
