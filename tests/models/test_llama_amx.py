"""models.llama_cpp_backend on a CPU with Intel AMX: llama.cpp's AMX kernels crash at the first
completion (ggml-org/llama.cpp issue 20824), so the model loads without extra buffer types there,
and only there; the real load and completion are in tests/pipeline/model/test_llm_extract.py."""

from __future__ import annotations

import pytest

from models import llama_cpp_backend as backend

llama_cpp = pytest.importorskip("llama_cpp")


def test_a_load_on_an_amx_host_turns_extra_buffers_off_and_puts_the_defaults_back():
    import llama_cpp.llama as llama_module

    default = llama_module.llama_cpp.llama_model_default_params
    with backend._without_extra_buffers(True):
        assert llama_module.llama_cpp.llama_model_default_params().use_extra_bufts is False
    assert llama_module.llama_cpp.llama_model_default_params is default
    assert default().use_extra_bufts is True
    with backend._without_extra_buffers(False):  # another CPU: llama.cpp's own defaults
        assert llama_module.llama_cpp.llama_model_default_params is default


def test_the_amx_check_reads_llama_cpps_own_system_info(monkeypatch):
    monkeypatch.setattr(llama_cpp, "llama_print_system_info", lambda: b"CPU : AVX2 = 1 | AMX_INT8 = 1 | ")
    assert backend.amx_host() is True
    monkeypatch.setattr(llama_cpp, "llama_print_system_info", lambda: b"CPU : AVX2 = 1 | AVX512 = 1 | ")
    assert backend.amx_host() is False
