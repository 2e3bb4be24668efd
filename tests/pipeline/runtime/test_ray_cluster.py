"""``ray.address`` joins an existing Ray cluster instead of starting one (how the appliance grows
past one host): a head node started here with ``ray start --head --block`` and token
authentication, then ``appliance extract`` whose pool runs on that cluster with the cluster's
token in ``data_dir/ray-auth-token``; without the token nobody joins."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.server import cli, free_port
from tests.conftest import FAKE_MODELS, merged, write_config
from tests.support.docs import INVOICE_LINES, text_pdf

pytestmark = [pytest.mark.ray, pytest.mark.slow]


TOKEN = "0123456789abcdef" * 4


def without_ray_auth(env: dict[str, str]) -> dict[str, str]:
    """``env`` without the pytest process's own Ray token settings (an in-process pool's)."""
    return {k: v for k, v in env.items() if k not in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")}


@pytest.fixture
def ray_head(tmp_path):
    import tempfile

    port = free_port()
    temp_dir = tempfile.mkdtemp(prefix="rh-")  # AF_UNIX socket paths must stay under 107 bytes
    ray_bin = Path(sys.executable).parent / "ray"
    env = {**without_ray_auth(os.environ), "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN}
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    head = subprocess.Popen(
        [
            str(ray_bin),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp_dir}",
        ],
        env=env,
        stdout=open(tmp_path / "head.log", "wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and b"Ray runtime started" not in (tmp_path / "head.log").read_bytes():
        assert head.poll() is None, (tmp_path / "head.log").read_text()
        time.sleep(0.2)
    yield f"127.0.0.1:{port}"
    os.killpg(head.pid, signal.SIGINT)  # what Ctrl-C sends to `ray start --block`
    try:
        head.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait(15)
    shutil.rmtree(temp_dir, ignore_errors=True)


def test_extract_runs_on_an_existing_cluster(ray_head, tmp_path):
    config = write_config(
        tmp_path, merged(FAKE_MODELS, {"pool": {"backend": "ray", "workers": 1}, "ray": {"address": ray_head}})
    )
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.pdf").write_bytes(text_pdf(INVOICE_LINES))
    env = without_ray_auth(os.environ)

    # No token: a clear error naming the file, nothing extracted.
    result = cli(config, "extract", "--out", str(tmp_path / "out"), str(tmp_path / "in"), env=env, clean_env=True)
    assert result.returncode != 0
    assert "ray-auth-token does not exist" in result.stderr, result.stderr[-3000:]

    # A wrong token: the cluster refuses.
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "ray-auth-token").write_text("f" * 64)
    result = cli(config, "extract", "--out", str(tmp_path / "out"), str(tmp_path / "in"), env=env, clean_env=True)
    assert result.returncode != 0
    assert not (tmp_path / "out" / "a.json").exists()

    (tmp_path / "data" / "ray-auth-token").write_text(TOKEN)
    result = cli(config, "extract", "--out", str(tmp_path / "out"), str(tmp_path / "in"), env=env, clean_env=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"joined the Ray cluster at {ray_head}" in result.stderr
    record = json.loads((tmp_path / "out" / "a.json").read_text())
    assert record["data"]["total_amount"] == 119.0
