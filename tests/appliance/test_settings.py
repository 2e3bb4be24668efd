"""Settings: defaults, config.toml, environment overrides, and the shipped config documents every key."""

from __future__ import annotations

import tomllib

import pytest
from pydantic import ValidationError

from appliance.errors import ConfigError
from appliance.settings import SECTIONS, Settings, env_names, load_settings
from tests.paths import ROOT


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
    for section in SECTIONS:
        declared = getattr(defaults, section).model_dump()
        # llm.adapter_path's default is where the package is installed: documented commented out
        declared.pop("adapter_path", None)
        assert set(shipped[section]) == set(declared), section
        for key, default in declared.items():
            if key == "packages":
                default = list(default)
            assert shipped[section][key] == default, f"{section}.{key}"
    text = (ROOT / "config.toml").read_text()
    assert "# adapter_path = " in text
    for keys in shipped.values():
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
    env = {
        "OCR_MAX_PDF_PAGES": "7",
        "OCR_LANG": "en",
        "APPLIANCE_SERVER_PORT": "9002",
        "APPLIANCE_LLM_ENABLED": "false",
        "APPLIANCE_DATA_DIR": str(tmp_path / "e"),
    }
    settings = load_settings(config, env=env)
    assert settings.limits.OCR_MAX_PDF_PAGES == 7 and settings.ocr.OCR_LANG == "en"
    assert settings.server.port == 9002 and settings.llm.enabled is False
    assert settings.data_dir == tmp_path / "e"
    assert load_settings(config, env=env, data_dir=tmp_path / "f").data_dir == tmp_path / "f"


def test_gpu_layers_reach_the_workers(tmp_path):
    assert load_settings(None, env={}, data_dir=tmp_path).worker_models().llm_gpu_layers == 0
    settings = load_settings(None, env={"APPLIANCE_LLM_GPU_LAYERS": "-1"}, data_dir=tmp_path)
    assert settings.worker_models().llm_gpu_layers == -1
    with pytest.raises(ConfigError, match="gpu_layers"):
        load_settings(None, env={"APPLIANCE_LLM_GPU_LAYERS": "-2"}, data_dir=tmp_path)


def test_config_from_environment_variable(tmp_path):
    config = tmp_path / "other.toml"
    config.write_text("[server]\nport = 9100\n")
    assert load_settings(None, env={"APPLIANCE_CONFIG": str(config)}).server.port == 9100


@pytest.mark.parametrize(
    "text, message",
    [
        ("[server]\nnope = 1\n", "unknown setting server.nope"),
        ("[nothing]\nx = 1\n", "unknown setting nothing"),
        ('[ocr]\nOCR_LANG = "de"\n', "ocr.OCR_LANG = 'de': expected 'ch', 'en' or 'th'"),
        (
            "[limits]\nMAX_FILE_SIZE_MB = 10\nOCR_MAX_UPLOAD_MB = 20\n",
            r"limits.OCR_MAX_UPLOAD_MB \(20\) cannot exceed limits.MAX_FILE_SIZE_MB \(10\)",
        ),
        ('[pool]\nbackend = "threads"\n', "pool.backend = 'threads'"),
        (
            "[limits]\njob_timeout_seconds = 400\n",
            r"limits.job_timeout_seconds \(400\) must be below queue.lease_seconds",
        ),
        (
            '[[credits.packages]]\nname = "A"\ncredits = 1\n[[credits.packages]]\nname = "A"\ncredits = 2\n',
            "names must be unique",
        ),
        ('[[credits.packages]]\nname = "A"\ncredits = "5"\n', r"credits.packages\[0\].credits = '5'"),
        ('[[credits.packages]]\nname = "A"\nprice = 5\n', r"unknown setting credits.packages\[0\].price"),
        ("[server]\nport = 70000\n", "server.port = 70000: expected less than or equal to 65535"),
        (
            "[limits]\nmax_pdf_page_points = 20000\n",
            "limits.max_pdf_page_points = 20000: expected less than or equal to 14400",
        ),
        ("server = 3\n", r"server = 3: expected a table"),
        ("data_dir = 5\n", "data_dir = 5: expected a quoted path"),
        ("not toml [", "Expected"),
    ],
)
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


# One wrong value per section, each of a kind the old hand-written loader let through or crashed
# on (issue 9): a quoted number, a quoted boolean, a number where text belongs, a value out of range.
WRONG_VALUE_PER_SECTION = [
    ("server", "port", '"eighty"', "expected a whole number"),
    ("limits", "OCR_MAX_PDF_PAGES", "0", "expected greater than or equal to 1"),
    ("credits", "cost_per_invoice", '"1"', "expected a whole number"),
    ("stripe", "timeout_seconds", '"30"', "expected a number"),
    ("ocr", "dpi", "2000", "expected less than or equal to 600"),
    ("llm", "enabled", '"no"', "expected true or false"),
    ("review", "line_items", '"keep"', "expected 'block' or 'drop'"),
    ("queue", "max_attempts", "2.5", "expected a whole number"),
    ("pool", "workers", '"2"', "expected a whole number"),
    ("ray", "address", "1", "expected a quoted string"),
    ("log", "level", '"LOUD"', "expected 'DEBUG', 'INFO', 'WARNING', 'ERROR' or 'CRITICAL'"),
    ("metrics", "enabled", '"yes"', "expected true or false"),
    ("retention", "days", "-1", "expected greater than or equal to 0"),
]


def test_every_section_is_in_the_wrong_value_table():
    assert {section for section, *_ in WRONG_VALUE_PER_SECTION} == set(SECTIONS)


@pytest.mark.parametrize("section, key, value, expected", WRONG_VALUE_PER_SECTION)
def test_a_wrong_type_or_range_names_the_key_the_value_and_what_is_expected(tmp_path, section, key, value, expected):
    config = tmp_path / "config.toml"
    config.write_text(f"[{section}]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(config, env={})
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"file {config.resolve()}: {section}.{key} = ")
    assert expected in message


def test_environment_values_are_read_from_text(tmp_path):
    env = {
        "APPLIANCE_LLM_ENABLED": "no",
        "APPLIANCE_POOL_WORKERS": "3",
        "APPLIANCE_QUEUE_BACKOFF_SECONDS": "1",
        "APPLIANCE_LOG_LEVEL": "DEBUG",
    }
    settings = load_settings(None, env=env, data_dir=tmp_path)
    assert settings.llm.enabled is False and settings.pool.workers == 3
    assert settings.queue.backoff_seconds == 1.0 and settings.log.level == "DEBUG"
    with pytest.raises(ConfigError, match=r"environment APPLIANCE_LLM_ENABLED: llm.enabled = 'maybe': "):
        load_settings(None, env={"APPLIANCE_LLM_ENABLED": "maybe"}, data_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"env APPLIANCE_POOL_WORKERS: pool.workers = 0: expected greater"):
        load_settings(None, env={"APPLIANCE_POOL_WORKERS": "0"}, data_dir=tmp_path)


def test_every_scalar_setting_has_an_environment_name():
    names = env_names()
    for section, model in SECTIONS.items():
        for key in model.model_fields:
            if key != "packages":
                assert f"APPLIANCE_{section}_{key}".upper() in names


def test_settings_are_read_only():
    with pytest.raises(ValidationError, match="frozen"):
        Settings().server.port = 1  # type: ignore[misc]


def test_when_the_model_reads_the_header_is_an_operator_setting(tmp_path):
    assert load_settings(None, env={}, data_dir=tmp_path).worker_models().review_ask_model == "unsure"
    env = {"APPLIANCE_REVIEW_ASK_MODEL": "always"}
    assert load_settings(None, env=env, data_dir=tmp_path).worker_models().review_ask_model == "always"
    config = tmp_path / "config.toml"
    config.write_text('[review]\nask_model = "sometimes"\n')
    with pytest.raises(ConfigError, match="expected 'unsure', 'always' or 'never'"):
        load_settings(config, env={})
