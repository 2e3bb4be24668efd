"""training.adapter_gguf without network or model weights: hashing, fetching the llama.cpp adapter
converter (pip stubbed out), and how a failing converter is reported.

The module imports torch and transformers only inside the functions that load models, so these
tests run without the train extra."""

import hashlib
import io
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.paths import ROOT
from training import adapter_gguf as export

SCRIPT = "vendor/llama.cpp/convert_lora_to_gguf.py"


def test_sha256_matches_hashlib_across_chunks(tmp_path):
    data = bytes(range(256)) * 9000  # > 2 MiB: several 1 MiB chunks
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    assert export.sha256(path) == hashlib.sha256(data).hexdigest()
    assert export.sha256(str(path)) == hashlib.sha256(data).hexdigest()


def test_sha256_of_empty_file(tmp_path):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    assert export.sha256(path) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_sha256_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        export.sha256(tmp_path / "nope.gguf")


def test_importing_export_does_not_import_torch():
    code = "import sys, training.adapter_gguf; sys.exit('torch' in sys.modules or 'transformers' in sys.modules)"
    root = ROOT
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0


def _stub_run(monkeypatch, fake):
    calls = []

    def run(cmd, *args, **kwargs):
        calls.append((list(cmd), kwargs))
        return fake(list(cmd), kwargs)

    monkeypatch.setattr(export.subprocess, "run", run)
    return calls


def test_converter_pip_failure_is_a_clear_error(tmp_path, monkeypatch):
    stderr = "ERROR: Could not find a version that satisfies the requirement llama-cpp-python==9.9.9\n"
    calls = _stub_run(monkeypatch, lambda cmd, kw: subprocess.CompletedProcess(cmd, 1, "", stderr))
    with pytest.raises(RuntimeError) as err:
        export.llama_cpp_converter(tmp_path, version="9.9.9")
    message = str(err.value)
    assert "llama-cpp-python 9.9.9 sdist" in message and "exit 1" in message
    assert "Could not find a version that satisfies" in message
    (cmd, _), *_ = calls
    assert cmd[:3] == [sys.executable, "-m", "pip"] and "download" in cmd
    assert "llama-cpp-python==9.9.9" in cmd and ":all:" in cmd and "--no-deps" in cmd
    assert list(tmp_path.iterdir()) == []  # no half-made cache folder left behind


def test_converter_pip_not_runnable(tmp_path, monkeypatch):
    def fake(cmd, kw):
        raise FileNotFoundError(2, "No such file or directory", cmd[0])

    _stub_run(monkeypatch, fake)
    with pytest.raises(RuntimeError, match="could not run pip"):
        export.llama_cpp_converter(tmp_path, version="0.3.36")
    assert list(tmp_path.iterdir()) == []


def test_converter_download_without_sdist(tmp_path, monkeypatch):
    _stub_run(monkeypatch, lambda cmd, kw: subprocess.CompletedProcess(cmd, 0, "", ""))
    with pytest.raises(RuntimeError, match=r"no llama-cpp-python 0\.3\.36 sdist"):
        export.llama_cpp_converter(tmp_path, version="0.3.36")


def _fake_sdist(folder: Path, version: str, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(folder / f"llama_cpp_python-{version}.tar.gz", "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"llama_cpp_python-{version}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_converter_unpacks_only_what_it_needs_once(tmp_path, monkeypatch):
    files = {
        SCRIPT: b"print('convert')\n",
        "vendor/llama.cpp/conversion/__init__.py": b"",
        "vendor/llama.cpp/gguf-py/gguf/__init__.py": b"",
        "vendor/llama.cpp/models/templates/x.jinja": b"{{ x }}",
        "vendor/llama.cpp/models/ggml-vocab-big.gguf": b"\0" * 1000,
        "vendor/llama.cpp/docs/build.md": b"docs",
        "llama_cpp/llama.py": b"",
    }

    def fake(cmd, kw):
        _fake_sdist(Path(cmd[cmd.index("-d") + 1]), "0.3.36", files)
        return subprocess.CompletedProcess(cmd, 0, "Saved\n", "")

    calls = _stub_run(monkeypatch, fake)
    script = export.llama_cpp_converter(tmp_path, version="0.3.36")
    assert script == tmp_path / "llama-cpp-python-0.3.36" / SCRIPT
    assert script.read_bytes() == files[SCRIPT]
    kept = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert kept == sorted(
        f"llama-cpp-python-0.3.36/{name}"
        for name in (
            SCRIPT,
            "vendor/llama.cpp/conversion/__init__.py",
            "vendor/llama.cpp/gguf-py/gguf/__init__.py",
            "vendor/llama.cpp/models/templates/x.jinja",
        )
    )
    assert export.llama_cpp_converter(tmp_path, version="0.3.36") == script
    assert len(calls) == 1  # the second call used the cache, no pip


def test_converter_sdist_without_script(tmp_path, monkeypatch):
    def fake(cmd, kw):
        _fake_sdist(Path(cmd[cmd.index("-d") + 1]), "0.3.36", {"llama_cpp/llama.py": b""})
        return subprocess.CompletedProcess(cmd, 0, "", "")

    _stub_run(monkeypatch, fake)
    with pytest.raises(FileNotFoundError, match="convert_lora_to_gguf.py"):
        export.llama_cpp_converter(tmp_path, version="0.3.36")
    assert list(tmp_path.iterdir()) == []


def test_lora_to_gguf_failure_carries_the_stderr_tail(tmp_path, monkeypatch):
    converter = tmp_path / "llama.cpp" / "convert_lora_to_gguf.py"
    converter.parent.mkdir()
    converter.write_text("")
    noise = "x" * 10_000
    stderr = f"Traceback (most recent call last):\n{noise}\nFileNotFoundError: adapter_model.bin\n"
    calls = _stub_run(monkeypatch, lambda cmd, kw: subprocess.CompletedProcess(cmd, 1, "", stderr))
    out = tmp_path / "out" / "adapter.gguf"
    with pytest.raises(RuntimeError) as err:
        export.lora_to_gguf(tmp_path / "adapter", tmp_path / "base", out, converter=converter)
    message = str(err.value)
    assert "convert_lora_to_gguf.py failed (exit 1)" in message
    assert message.endswith("FileNotFoundError: adapter_model.bin") and len(message) < 5000
    assert not out.exists() and not out.with_name("adapter.gguf.part").exists()
    (cmd, kwargs), *_ = calls
    assert cmd[:2] == [sys.executable, str(converter)]
    # the converter names the GGUF after the adapter folder: named after the output, never random
    assert cmd[cmd.index("--outtype") + 1] == "f16" and Path(cmd[-1]).name == "adapter"
    assert not Path(cmd[-1]).parent.exists()
    assert kwargs["cwd"] == converter.parent
    assert kwargs["env"]["PYTHONPATH"].split(":") == ["gguf-py", "."]


def test_lora_to_gguf_success_renames_the_part_file(tmp_path, monkeypatch):
    converter = tmp_path / "convert_lora_to_gguf.py"
    converter.write_text("")

    def fake(cmd, kw):
        Path(cmd[cmd.index("--outfile") + 1]).write_bytes(b"GGUF")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    _stub_run(monkeypatch, fake)
    out = export.lora_to_gguf(tmp_path / "a", tmp_path / "b", tmp_path / "adapter.gguf", converter=converter)
    assert out == tmp_path / "adapter.gguf" and out.read_bytes() == b"GGUF"
    assert not (tmp_path / "adapter.gguf.part").exists()


def test_main_writes_the_adapter_and_its_sha256(tmp_path, monkeypatch, capsys):
    seen = {}
    monkeypatch.setattr(export, "save_hf_base", lambda gguf, out: seen.setdefault("base", (gguf, Path(out))))
    monkeypatch.setattr(export, "llama_cpp_converter", lambda cache=None: tmp_path / "convert_lora_to_gguf.py")

    def convert(adapter, base, out, outtype="f16", converter=None):
        seen["convert"] = (adapter, Path(base), outtype, converter)
        Path(out).write_bytes(b"GGUF adapter")
        return Path(out)

    monkeypatch.setattr(export, "lora_to_gguf", convert)
    out = tmp_path / "adapters" / "a.gguf"
    out.parent.mkdir()
    args = ["--base-gguf", "base.gguf", "--adapter", str(tmp_path / "work" / "adapter"), "--out", str(out)]
    assert export.main(args) == 0
    assert seen["base"] == ("base.gguf", tmp_path / "work" / "hf-base")
    assert seen["convert"][1:] == (tmp_path / "work" / "hf-base", "f16", tmp_path / "convert_lora_to_gguf.py")
    digest = hashlib.sha256(b"GGUF adapter").hexdigest()
    assert (tmp_path / "adapters" / "a.gguf.sha256").read_text() == f"{digest}  a.gguf\n"
    assert digest in capsys.readouterr().out


def test_lora_to_gguf_passes_the_adapter_without_its_model_card(monkeypatch, tmp_path):
    """peft's README.md names the training host's paths; the converter would copy them into the GGUF."""
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    for name in ("adapter_config.json", "adapter_model.safetensors", "README.md"):
        (adapter / name).write_text("x")
    seen = []

    def run(cmd, kw):
        seen.extend(sorted(p.name for p in Path(cmd[-1]).iterdir()))
        return subprocess.CompletedProcess(cmd, 1, "", "failed")

    _stub_run(monkeypatch, run)
    with pytest.raises(RuntimeError):
        export.lora_to_gguf(adapter, tmp_path / "base", tmp_path / "a.gguf", converter=tmp_path / "c.py")
    assert seen == ["adapter_config.json", "adapter_model.safetensors"]
