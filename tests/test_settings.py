"""Settings: defaults, config.toml, environment overrides, and the shipped config documents every key."""
from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from appliance.errors import ConfigError
from appliance.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_match_the_spec(tmp_path):
    settings = load_settings(None, env={}, data_dir=tmp_path)
    assert settings.limits.MAX_FILE_SIZE_MB == 50
    assert settings.limits.OCR_MAX_UPLOAD_MB == 25
    assert settings.limits.OCR_MAX_PDF_PAGES == 3
    assert settings.ocr.concurrency == 1
    assert settings.ocr.OCR_LANG == "ch"


def test_shipped_config_documents_every_key_with_its_default():
    shipped = tomllib.loads((ROOT / "config.toml").read_text())
    defaults = Settings()
    for section in (f.name for f in dataclasses.fields(Settings) if f.name != "data_dir"):
        declared = {f.name for f in dataclasses.fields(getattr(defaults, section))}
        assert set(shipped[section]) == declared, section
        for key in declared:
            default = getattr(getattr(defaults, section), key)
            if key == "packages":
                default = [dataclasses.asdict(p) for p in default]
            assert shipped[section][key] == default, f"{section}.{key}"
    text = (ROOT / "config.toml").read_text()
    for section, keys in shipped.items():
        if isinstance(keys, dict):
            for key in keys:  # each key has a comment line right above it (packages: above the tables)
                if key == "packages":
                    continue
                lines = text.splitlines()
                index = next(i for i, line in enumerate(lines) if line.startswith(f"{key} ="))
                assert lines[index - 1].startswith("#"), key


def test_file_then_environment(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('data_dir = "d"\n[server]\nport = 9001\n[limits]\nOCR_MAX_PDF_PAGES = 5\n')
    settings = load_settings(config, env={})
    assert settings.server.port == 9001 and settings.limits.OCR_MAX_PDF_PAGES == 5
    assert settings.data_dir == (tmp_path / "d").resolve()
    env = {"OCR_MAX_PDF_PAGES": "7", "OCR_LANG": "en", "APPLIANCE_SERVER_PORT": "9002",
           "APPLIANCE_LLM_ENABLED": "false", "APPLIANCE_DATA_DIR": str(tmp_path / "e")}
    settings = load_settings(config, env=env)
    assert settings.limits.OCR_MAX_PDF_PAGES == 7 and settings.ocr.OCR_LANG == "en"
    assert settings.server.port == 9002 and settings.llm.enabled is False
    assert settings.data_dir == tmp_path / "e"
    assert load_settings(config, env=env, data_dir=tmp_path / "f").data_dir == tmp_path / "f"


def test_config_from_environment_variable(tmp_path):
    config = tmp_path / "other.toml"
    config.write_text("[server]\nport = 9100\n")
    assert load_settings(None, env={"APPLIANCE_CONFIG": str(config)}).server.port == 9100


@pytest.mark.parametrize("text, message", [
    ("[server]\nnope = 1\n", "unknown setting server.nope"),
    ("[nothing]\nx = 1\n", "unknown setting 'nothing'"),
    ("[ocr]\nOCR_LANG = \"de\"\n", "OCR_LANG"),
    ("[limits]\nMAX_FILE_SIZE_MB = 10\nOCR_MAX_UPLOAD_MB = 20\n", "cannot exceed"),
    ("[pool]\nbackend = \"threads\"\n", "pool.backend"),
    ("not toml [", "Expected"),
])
def test_bad_config_is_refused_with_the_setting_named(tmp_path, text, message):
    config = tmp_path / "config.toml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_settings(config, env={})


def test_bad_environment_value(tmp_path):
    with pytest.raises(ConfigError, match="APPLIANCE_SERVER_PORT"):
        load_settings(None, env={"APPLIANCE_SERVER_PORT": "eighty"}, data_dir=tmp_path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "missing.toml", env={})
