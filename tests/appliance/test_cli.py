"""The operator CLI, run as a subprocess exactly as scripts use it."""

from __future__ import annotations

import json

import pytest

from bench.server import cli
from tests.conftest import FAKE_MODELS, write_config
from tests.support.docs import INVOICE_LINES, jpeg, png_with_text, text_pdf


@pytest.fixture
def config(tmp_path):
    return write_config(tmp_path, FAKE_MODELS)


def test_init_twice_is_harmless(config):
    first = cli(config, "init")
    assert first.returncode == 0 and "applied 0001_initial" in first.stdout
    second = cli(config, "init")
    assert second.returncode == 0 and "up to date" in second.stdout


def test_tenant_key_and_credits_commands(config):
    created = cli(config, "tenant", "create", "--name", "Acme", "--credits", "4", "--json")
    assert created.returncode == 0
    last = json.loads(created.stdout.strip().splitlines()[-1])
    assert set(last) == {"tenantId", "apiKey"} and last["apiKey"].startswith("inv_")
    assert cli(config, "credits", "grant", last["tenantId"], "6").stdout.strip().endswith("balance 10")
    over = cli(config, "credits", "grant", "--", last["tenantId"], "-11")
    assert over.returncode == 75 and "Insufficient credits" in over.stderr
    rotated = cli(config, "key", "rotate", last["tenantId"], "--json")
    new_key = json.loads(rotated.stdout.strip().splitlines()[-1])["apiKey"]
    assert new_key != last["apiKey"]
    assert "revoked 1 key(s)" in cli(config, "key", "revoke", last["tenantId"]).stdout
    missing = cli(config, "key", "rotate", "00000000-0000-0000-0000-000000000000")
    assert missing.returncode == 66 and "not found" in missing.stderr


def test_bad_config_exits_78(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[server]\nbogus = 1\n")
    result = cli(config, "init")
    assert result.returncode == 78 and "unknown setting server.bogus" in result.stderr


def test_extract_folder_writes_mirrored_json(config, tmp_path):
    source = tmp_path / "in" / "vendor-a"
    source.mkdir(parents=True)
    (source / "one.pdf").write_bytes(text_pdf(INVOICE_LINES))
    (source / "two.png").write_bytes(png_with_text("Total 3.00"))
    (source / "three.JPG").write_bytes(jpeg())
    (source / "notes.txt").write_text("ignored")
    result = cli(config, "extract", "--out", str(tmp_path / "out"), str(tmp_path / "in"))
    assert result.returncode == 0, result.stderr
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.json"))
    assert written == ["vendor-a/one.json", "vendor-a/three.json", "vendor-a/two.json"]
    one = json.loads((tmp_path / "out" / "vendor-a" / "one.json").read_text())
    for key in ("file", "processingStatus", "validationErrors", "processingError", "data"):
        assert key in one
    assert one["data"]["total_amount"] == 119.0
    assert json.loads((tmp_path / "out" / "vendor-a" / "two.json").read_text())["data"]["total_amount"] == 3.0


def test_extract_prints_one_json_object_per_file(config, tmp_path):
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(text_pdf(INVOICE_LINES))
    result = cli(config, "extract", str(pdf))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.strip().splitlines()]
    assert len(records) == 1 and records[0]["data"]["invoice_number"] == "INV-2024-001"


def test_extract_sources_leave_the_rules_or_the_model_out(config, tmp_path):
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(text_pdf(INVOICE_LINES))
    providers = {}
    for sources in ("rules", "model", "template,rules,model"):
        result = cli(config, "extract", "--sources", sources, str(pdf))
        assert result.returncode == 0, result.stderr
        providers[sources] = json.loads(result.stdout.strip().splitlines()[-1])["extractionProvider"].split("+")
    assert "rules" in providers["rules"] and len(providers["rules"]) == 1
    assert "rules" not in providers["model"] and len(providers["model"]) == 1
    assert providers["template,rules,model"] == ["rules", *providers["model"]]


def test_extract_refuses_unknown_sources(config, tmp_path):
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(text_pdf(INVOICE_LINES))
    result = cli(config, "extract", "--sources", "rules,oracle", str(pdf))
    assert result.returncode == 2 and "choose from template, rules, model" in result.stderr
    assert result.stdout == ""


def test_invoice_show_has_operator_fields(config, tmp_path):
    import asyncio

    from appliance.db import Database
    from appliance.invoices import create_slot
    from appliance.settings import load_settings

    created = cli(config, "tenant", "create", "--name", "Acme", "--json")
    tenant_id = json.loads(created.stdout.strip().splitlines()[-1])["tenantId"]
    settings = load_settings(config, env={})

    async def make() -> str:
        db = await Database(settings.db_path).open()
        try:
            return await create_slot(db, tenant_id)
        finally:
            await db.close()

    invoice_id = asyncio.run(make())
    shown = json.loads(cli(config, "invoice", "show", invoice_id).stdout)
    assert shown["id"] == invoice_id
    for key in ("extractionTier", "extractionProvider", "routingReason", "tenantId"):
        assert key in shown
    assert cli(config, "invoice", "show", "nope").returncode == 66


@pytest.mark.parametrize(
    "section, key, value", [("pool", "workers", '"2"'), ("llm", "enabled", '"no"'), ("server", "port", '"eighty"')]
)
@pytest.mark.parametrize("command", [["serve"], ["check", "--skip", "ray"]])
def test_a_wrong_type_stops_serve_and_check_with_exit_78(tmp_path, command, section, key, value):
    config = tmp_path / "config.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[{section}]\n{key} = {value}\n')
    result = cli(config, *command)
    assert result.returncode == 78, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    assert lines[0].startswith("error: file ") and f"{section}.{key} = " in lines[0] and "expected" in lines[0]
