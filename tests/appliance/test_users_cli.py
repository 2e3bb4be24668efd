"""``appliance user add|list|disable|reset-password`` and ``appliance training export`` from the
command line, with their errors (issue 13)."""

from __future__ import annotations

import json

from bench.server import cli
from tests.conftest import FAKE_MODELS, write_config


def test_user_commands_and_their_errors(tmp_path):
    config = write_config(tmp_path, FAKE_MODELS)
    tenant = json.loads(cli(config, "tenant", "create", "--name", "acme", "--json").stdout.splitlines()[-1])["tenantId"]
    added = cli(config, "user", "add", tenant, "--email", "ana@acme.example", "--role", "admin", "--json")
    assert added.returncode == 0 and len(json.loads(added.stdout.splitlines()[-1])["password"]) == 16
    again = cli(config, "user", "add", tenant, "--email", "ANA@acme.example")
    assert again.returncode == 65 and "exists already" in again.stderr  # e-mails are case-insensitive
    assert cli(config, "user", "add", tenant, "--email", "not-an-address").returncode == 65
    assert cli(config, "user", "add", "00000000-0000-0000-0000-000000000000", "--email", "b@x.example").returncode == 66
    listed = json.loads(cli(config, "user", "list", "--json").stdout)
    assert [(u["email"], u["role"], u["disabled"]) for u in listed] == [("ana@acme.example", "admin", False)]
    reset = cli(config, "user", "reset-password", "ana@acme.example")
    assert reset.returncode == 0 and "password (shown once)" in reset.stdout
    assert cli(config, "user", "disable", "ana@acme.example").returncode == 0
    assert json.loads(cli(config, "user", "list", "--json").stdout)[0]["disabled"] is True
    assert cli(config, "user", "disable", "nobody@acme.example").returncode == 66


def test_training_export_command(tmp_path):
    config = write_config(tmp_path, FAKE_MODELS)
    out = tmp_path / "export"
    done = cli(config, "training", "export", str(out), "--since", "2026-01-01")
    assert done.returncode == 0 and "exported 0 approved invoice(s)" in done.stdout
    assert json.loads((out / "manifest.json").read_text()) == [] and (out / "README.md").is_file()
    bad = cli(config, "training", "export", str(out), "--since", "yesterday")
    assert bad.returncode == 2 and "not a date" in bad.stderr
