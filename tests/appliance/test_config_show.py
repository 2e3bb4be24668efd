"""``appliance config show``: every effective setting once, with its origin (default, file,
environment, --data-dir), secrets masked."""

from __future__ import annotations

import json

from appliance.cli.config_show import MASK, effective, render
from appliance.settings import SECTIONS, load_settings, load_settings_with_origins
from bench.server import cli


def write(tmp_path, text: str):
    config = tmp_path / "config.toml"
    config.write_text(text)
    return config


def test_origins_default_file_environment(tmp_path, monkeypatch):
    config = write(tmp_path, 'data_dir = "d"\n[server]\nport = 9001\n[ocr]\nOCR_LANG = "en"\n')
    env = {"OCR_LANG": "th", "APPLIANCE_METRICS_PORT": "9500"}
    settings, origins = load_settings_with_origins(config, env=env)
    assert settings == load_settings(config, env=env)  # the same parsing, only the origins added
    assert origins["server.port"] == f"file {config.resolve()}"
    assert origins["ocr.OCR_LANG"] == "env OCR_LANG" and settings.ocr.OCR_LANG == "th"
    assert origins["metrics.port"] == "env APPLIANCE_METRICS_PORT" and settings.metrics.port == 9500
    assert "server.host" not in origins  # a default
    assert origins["data_dir"] == f"file {config.resolve()}"
    assert (
        load_settings_with_origins(config, env={**env, "APPLIANCE_DATA_DIR": str(tmp_path)})[1]["data_dir"]
        == "env APPLIANCE_DATA_DIR"
    )
    assert load_settings_with_origins(config, tmp_path / "x", env=env)[1]["data_dir"] == "--data-dir"
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # no ./config.toml here: nothing from a file
    assert load_settings_with_origins(None, env={}, data_dir=tmp_path)[1] == {"data_dir": "--data-dir"}


def test_every_setting_once_and_secrets_masked(tmp_path):
    config = write(tmp_path, '[stripe]\nsecret_key = "sk_live_abcdef"\n')
    rows = effective(*load_settings_with_origins(config, env={}))
    keys = [row["key"] for row in rows]
    declared = ["data_dir"] + [f"{section}.{key}" for section, model in SECTIONS.items() for key in model.model_fields]
    assert keys == declared
    shown = {row["key"]: row for row in rows}
    assert shown["stripe.secret_key"]["value"] == MASK
    assert shown["stripe.webhook_secret"]["value"] == ""  # not set stays visibly empty
    assert shown["server.port"] == {"key": "server.port", "value": 8080, "origin": "default"}
    assert "sk_live_abcdef" not in "\n".join(render(rows))


def test_cli_shows_origins_and_never_the_secret(tmp_path):
    config = write(tmp_path, f'data_dir = "{tmp_path / "data"}"\n[server]\nport = 9001\n')
    env = {
        "STRIPE_SECRET_KEY": "sk_test_supersecret",
        "APPLIANCE_SERVER_HOST": "0.0.0.0",
        "APPLIANCE_DATA_DIR": "",
        "APPLIANCE_CONFIG": "",
    }
    result = cli(config, "config", "show", env=env)
    assert result.returncode == 0, result.stderr
    assert "sk_test_supersecret" not in result.stdout + result.stderr
    lines = {line.split(" = ")[0]: line for line in result.stdout.splitlines()}
    assert lines["server.port"].startswith("server.port = 9001") and lines["server.port"].endswith(
        f"# file {config.resolve()}"
    )
    assert lines["server.host"].endswith("# env APPLIANCE_SERVER_HOST")
    assert f'"{MASK}"' in lines["stripe.secret_key"] and lines["stripe.secret_key"].endswith("# env STRIPE_SECRET_KEY")
    assert lines["queue.max_depth"].endswith("# default")
    shown = json.loads(cli(config, "--data-dir", str(tmp_path / "other"), "config", "show", "--json", env=env).stdout)
    by_key = {row["key"]: row for row in shown}
    assert by_key["data_dir"] == {
        "key": "data_dir",
        "value": str((tmp_path / "other").resolve()),
        "origin": "--data-dir",
    }
    assert by_key["stripe.secret_key"]["value"] == MASK
