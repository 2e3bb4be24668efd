"""scripts/llama-cmake-args: which llama.cpp build scripts/setup and scripts/install make (CUDA
where an NVIDIA GPU and nvcc are found, else CPU), with fake nvidia-smi and nvcc on PATH; and
scripts/install --dry-run with a GPU takes the CUDA build."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.appliance.test_install import dry_run
from tests.paths import ROOT

ARGS = ROOT / "scripts" / "llama-cmake-args"


def fake_tool(folder: Path, name: str, output: str = "") -> Path:
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text(f"#!/bin/sh\nprintf '%s\\n' '{output}'\n")
    tool.chmod(0o755)
    return tool


def fake_nvcc(tmp_path: Path, cublas: bool = True) -> Path:
    """A fake nvcc in tmp_path/bin, with cuBLAS's header in tmp_path/include (its toolkit root)."""
    if cublas:
        (tmp_path / "include").mkdir(exist_ok=True)
        (tmp_path / "include" / "cublas_v2.h").write_text("")
    return fake_tool(tmp_path / "bin", "nvcc")


def host_path(fake_bin: Path) -> str:
    """PATH with the fakes first and no directory that holds a real nvidia-smi or nvcc."""
    real = [
        d
        for d in os.environ["PATH"].split(os.pathsep)
        if d and not any(Path(d, t).exists() for t in ("nvidia-smi", "nvcc"))
    ]
    return os.pathsep.join([str(fake_bin), *real])


def cmake_args(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("LLAMA_CUDA", "CUDACXX", "CUDA_ARCHITECTURES")}
    base["PATH"] = host_path(tmp_path / "bin")
    base["CUDA_HOME"] = str(tmp_path / "no-cuda")  # this host may have a toolkit in /usr/local/cuda
    return subprocess.run([str(ARGS)], capture_output=True, text=True, timeout=30, env={**base, **env})


def test_no_gpu_is_the_cpu_build(tmp_path):
    (tmp_path / "bin").mkdir()
    done = cmake_args(tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_gpu_and_nvcc_give_the_cuda_build_for_its_architecture(tmp_path):
    fake_tool(tmp_path / "bin", "nvidia-smi", "9.0")
    nvcc = fake_nvcc(tmp_path)
    done = cmake_args(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["-DGGML_CUDA=on", f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DCMAKE_CUDA_ARCHITECTURES=90"]
    mixed = cmake_args(tmp_path, CUDA_ARCHITECTURES="80;90")
    assert mixed.stdout.split()[-1] == "-DCMAKE_CUDA_ARCHITECTURES=80;90"


def test_a_gpu_without_nvcc_is_the_cpu_build_and_says_what_to_install(tmp_path):
    fake_tool(tmp_path / "bin", "nvidia-smi", "9.0")
    done = cmake_args(tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert "no CUDA compiler" in done.stderr and "install the CUDA toolkit" in done.stderr


@pytest.mark.skipif(Path("/usr/include/cublas_v2.h").exists(), reason="this host has cuBLAS in /usr/include")
def test_nvcc_without_cublas_is_the_cpu_build_and_says_so(tmp_path):
    # measured on the CI machine: a CUDA 13.0 nvcc without cuBLAS fails llama.cpp's CMake step
    fake_tool(tmp_path / "bin", "nvidia-smi", "9.0")
    fake_nvcc(tmp_path, cublas=False)
    done = cmake_args(tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert "no cuBLAS" in done.stderr
    forced = cmake_args(tmp_path, LLAMA_CUDA="1")
    assert forced.returncode == 1 and "no cuBLAS" in forced.stderr


def test_the_operator_forces_either_build(tmp_path):
    fake_tool(tmp_path / "bin", "nvidia-smi", "9.0")
    fake_nvcc(tmp_path)
    assert cmake_args(tmp_path, LLAMA_CUDA="0").stdout == ""
    (tmp_path / "bin" / "nvcc").unlink()
    forced = cmake_args(tmp_path, LLAMA_CUDA="1")
    assert forced.returncode == 1 and "LLAMA_CUDA=1 but" in forced.stderr


def test_install_dry_run_on_a_gpu_host_compiles_llama_cpp_with_cuda(tmp_path, monkeypatch):
    fake_tool(tmp_path / "bin", "nvidia-smi", "9.0")
    fake_nvcc(tmp_path)
    monkeypatch.setenv("PATH", host_path(tmp_path / "bin"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "no-cuda"))
    result = dry_run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    pip = [line for line in result.stdout.splitlines() if "llama-cpp-python" in line and line.startswith("[dry-run]")]
    assert len(pip) == 1 and "CMAKE_ARGS=-DGGML_CUDA=on" in pip[0].replace("\\", "")
    assert "--no-binary llama-cpp-python" in pip[0]


def onnxruntime_gpu(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "ORT_CUDA"}
    base["PATH"] = host_path(tmp_path / "bin")
    script = ROOT / "scripts" / "onnxruntime-gpu"
    return subprocess.run(
        [str(script), str(ROOT / ".venv" / "bin" / "python"), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**base, **env},
    )


def test_onnxruntime_gpu_replaces_the_cpu_build_only_where_a_gpu_answers(tmp_path):
    (tmp_path / "bin").mkdir()
    assert onnxruntime_gpu(tmp_path).stdout == ""
    assert onnxruntime_gpu(tmp_path, ORT_CUDA="1").stdout.strip() == "onnxruntime-gpu==1.31.1"
    fake_tool(tmp_path / "bin", "nvidia-smi", "GPU 0: NVIDIA H100")
    assert onnxruntime_gpu(tmp_path).stdout.strip() == "onnxruntime-gpu==1.31.1"
    assert onnxruntime_gpu(tmp_path, ORT_CUDA="0").stdout == ""


def test_install_dry_run_on_a_gpu_host_swaps_in_onnxruntime_gpu(tmp_path, monkeypatch):
    fake_tool(tmp_path / "bin", "nvidia-smi", "9.0")
    monkeypatch.setenv("PATH", host_path(tmp_path / "bin"))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "no-cuda"))
    result = dry_run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "onnxruntime-gpu==1.31.1 in place of onnxruntime" in result.stdout
