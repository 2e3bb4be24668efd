"""``appliance check``: one line per check, a hint per failure, exit 78 when any fails."""

from __future__ import annotations

import sqlite3

import pytest

from appliance import checks
from appliance.checks import CheckResult, run_checks
from appliance.datadir import prepare_data_dir
from bench.server import cli
from models.llama_cpp_backend import DEFAULT_MODEL_NAME
from tests.conftest import FAKE_MODELS, make_settings, merged, write_config


def by_name(results: list[CheckResult]) -> dict[str, CheckResult]:
    return {result.name: result for result in results}


def test_cli_fails_before_init_then_passes(tmp_path):
    config = write_config(tmp_path, FAKE_MODELS)
    before = cli(config, "check")
    assert before.returncode == 78, before.stderr
    lines = before.stdout.splitlines()
    assert lines[0].startswith("FAIL data_dir: ") and "hint: run `appliance init`" in lines[0]
    assert lines[1].startswith("FAIL database: no database at ")
    assert cli(config, "init").returncode == 0
    after = cli(config, "check")
    assert after.returncode == 0, after.stdout + after.stderr
    lines = after.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "ok   data_dir",
        "ok   database",
        "ok   ocr",
        "ok   llm",
        "ok   arbiter",
        "ok   scorer",
        "ok   ray",
    ]
    assert lines[1].startswith("ok   database: migrated (") and lines[1].endswith(" steps)")
    assert lines[5].startswith("ok   scorer: off (review.scorer = false)")  # the fakes' config
    assert lines[6] == "ok   ray: not used (pool.backend = inline)"
    skipped = cli(config, "check", "--skip", "ray", "--skip", "ocr")
    assert [line.split(":")[0] for line in skipped.stdout.splitlines()] == [
        "ok   data_dir",
        "ok   database",
        "ok   llm",
        "ok   arbiter",
        "ok   scorer",
    ]


def test_pending_migration_and_unreadable_database(tmp_path):
    settings = make_settings(tmp_path)
    prepare_data_dir(settings)
    with sqlite3.connect(settings.db_path) as conn:
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = (SELECT MAX(name) FROM _sqlite_migrations)")
    result = checks.check_database(settings)
    assert not result.ok and "1 pending migration(s)" in result.detail and "appliance init" in result.hint
    settings.db_path.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        settings.db_path.with_name(settings.db_path.name + suffix).unlink(missing_ok=True)
    result = checks.check_database(settings)
    assert not result.ok and "cannot be read" in result.detail


def test_data_dir_not_writable(tmp_path):
    settings = make_settings(tmp_path)
    prepare_data_dir(settings)
    settings.files_dir.chmod(0o500)
    try:
        result = checks.check_data_dir(settings)
    finally:
        settings.files_dir.chmod(0o700)
    if result.ok:
        pytest.skip("running as root: permissions do not stop writes")
    assert "not writable" in result.detail and result.hint


def test_ocr_that_does_not_load(tmp_path):
    settings = make_settings(tmp_path, {"ocr": {"engine": "tests.fakes.ocr:NoSuchEngine"}})
    result = checks.check_ocr(settings)
    assert not result.ok and "NoSuchEngine" in result.detail
    assert result.line().startswith("FAIL ocr: ") and " hint: " in result.line()


def test_configured_model_path_must_be_a_gguf_file(tmp_path):
    if checks.importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    missing = make_settings(tmp_path, {"llm": {"backend": "llama_cpp", "model_path": str(tmp_path / "none.gguf")}})
    assert "does not exist" in checks.check_llm(missing).detail
    other = tmp_path / "other.bin"
    other.write_bytes(b"PK\x03\x04 not a model")
    wrong = make_settings(tmp_path, {"llm": {"backend": "llama_cpp", "model_path": str(other)}})
    assert "is not a GGUF file" in checks.check_llm(wrong).detail
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 100)
    assert checks.check_llm(make_settings(tmp_path, {"llm": {"backend": "llama_cpp", "model_path": str(gguf)}})).ok
    assert checks.check_llm(make_settings(tmp_path, {"llm": {"backend": "llama_cpp", "enabled": False}})).ok


def test_gpu_layers_need_a_llama_cpp_built_for_the_gpu(tmp_path, monkeypatch):
    if checks.importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 100)
    on_gpu = make_settings(tmp_path, {"llm": {"backend": "llama_cpp", "model_path": str(gguf), "gpu_layers": -1}})
    monkeypatch.setattr(checks, "_llama_offloads", lambda: False)
    result = checks.check_llm(on_gpu)
    assert (
        not result.ok and result.detail == "llm.gpu_layers = -1 but this llama-cpp-python was built without GPU support"
    )
    assert "scripts/setup" in result.hint and "llm.gpu_layers = 0" in result.hint
    cpu = make_settings(tmp_path, {"llm": {"backend": "llama_cpp", "model_path": str(gguf)}})
    assert checks.check_llm(cpu).ok  # gpu_layers 0: the CPU build is fine
    monkeypatch.setattr(checks, "_llama_offloads", lambda: True)
    assert checks.check_llm(on_gpu).ok


def test_arbiter_table_must_load(tmp_path):
    assert checks.check_arbiter(make_settings(tmp_path, {"llm": {"arbiter_table": ""}})).ok
    missing = checks.check_arbiter(make_settings(tmp_path, {"llm": {"arbiter_table": str(tmp_path / "none.json")}}))
    assert not missing.ok and "cannot be read" in missing.detail and "calibrate-arbiter" in missing.hint
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"preferred": {}}')
    result = checks.check_arbiter(make_settings(tmp_path, {"llm": {"arbiter_table": str(wrong)}}))
    assert not result.ok and "is not an arbiter table" in result.detail


def test_the_scorer_must_load(tmp_path):
    on = {"review": {"scorer": True}}
    result = checks.check_scorer(make_settings(tmp_path, on))
    if result.ok:  # the bundled scorer (scripts/train-scorer built it)
        assert (
            "completes text-layer documents at key confidence >= " in result.detail
            and "target precision 0.98" in result.detail
        )
        assert "asks the model from " in result.detail
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = checks.check_scorer(make_settings(tmp_path, on, {"review": {"scorer_dir": str(empty)}}))
    assert not missing.ok and "holds no scorer" in missing.detail and "scripts/train-scorer" in missing.hint
    assert checks.check_scorer(make_settings(tmp_path, {"review": {"scorer": False}})).ok


def test_bundled_gguf_with_a_wrong_sha256_fails(tmp_path):
    if checks.importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    settings = make_settings(tmp_path, {"llm": {"backend": "llama_cpp"}})
    settings.models_dir.mkdir(parents=True)
    (settings.models_dir / DEFAULT_MODEL_NAME).write_bytes(b"GGUF truncated")
    result = checks.check_llm(settings)
    assert not result.ok and "expected" in result.detail and "delete the file" in result.hint


def test_a_crashing_check_is_a_failure_not_a_traceback(tmp_path, monkeypatch):
    def boom(settings):
        raise RuntimeError("kaput")

    monkeypatch.setitem(checks.CHECKS, "ocr", boom)
    results = by_name(run_checks(make_settings(tmp_path), skip=("ray",)))
    assert not results["ocr"].ok and "kaput" in results["ocr"].detail
    assert "ray" not in results


@pytest.mark.model
def test_real_ocr_engines_load_and_bundled_gguf_is_assembled_with_its_sha256(tmp_path):
    settings = make_settings(tmp_path, {"ocr": {"engine": "ppocr"}, "llm": {"backend": "llama_cpp"}})
    assert checks.check_ocr(settings).ok
    assert checks.check_ocr(make_settings(tmp_path, {"ocr": {"engine": "rapidocr"}})).ok
    first = checks.check_llm(settings)
    assert first.ok and "assembled" in first.detail, first.line()
    again = checks.check_llm(settings)
    assert again.ok and "present, sha256 as expected" in again.detail


@pytest.mark.ray
@pytest.mark.slow
def test_local_ray_starts(tmp_path):
    config = write_config(tmp_path, merged(FAKE_MODELS, {"pool": {"backend": "ray"}, "ray": {"num_cpus": 1}}))
    assert cli(config, "init").returncode == 0
    result = cli(config, "check", "--skip", "ocr", "--skip", "llm")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith("ok   ray: a local Ray starts (1 node(s), 1 CPUs, 0 GPUs")
    assert "pool.mode single" in result.stdout  # auto, and no GPU here


@pytest.mark.ray
@pytest.mark.slow
def test_staged_pool_reserving_gpus_the_host_lacks_fails_the_check(tmp_path):
    layer = {"pool": {"backend": "ray", "mode": "staged"}, "ray": {"num_cpus": 1}, "ocr": {"num_gpus": 0.5}}
    config = write_config(tmp_path, merged(FAKE_MODELS, layer))
    assert cli(config, "init").returncode == 0
    result = cli(config, "check", "--skip", "ocr", "--skip", "llm")
    assert result.returncode != 0
    assert "ocr.num_gpus + llm.num_gpus reserve 0.5 GPU(s)" in result.stdout, result.stdout


@pytest.mark.model
def test_the_ocr_check_says_when_thai_pages_go_without_a_thai_model(tmp_path, monkeypatch):
    monkeypatch.setattr("models.tesseract_engine.DEBIAN_TESSDATA", ())
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    result = checks.check_ocr(make_settings(tmp_path, {"ocr": {"engine": "ppocr"}}))
    assert result.ok and "Thai pages are read without a Thai model" in result.detail, result.line()
    failed = checks.check_ocr(make_settings(tmp_path, {"ocr": {"engine": "ppocr", "OCR_LANG": "th"}}))
    assert not failed.ok and "tesseract-ocr-tha" in failed.detail, failed.line()
