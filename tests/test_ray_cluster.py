"""``ray.address`` joins an existing Ray cluster instead of starting one (how the appliance grows
past one host): a head node started here with ``ray start --head --block``, then ``appliance
extract`` whose pool runs on that cluster."""

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

from tests.conftest import FAKE_MODELS, merged, write_config
from tests.docs import INVOICE_LINES, text_pdf
from tests.serverproc import cli, free_port

pytestmark = [pytest.mark.ray, pytest.mark.slow]


@pytest.fixture
def ray_head(tmp_path):
    import tempfile

    port = free_port()
    temp_dir = tempfile.mkdtemp(prefix="rh-")  # AF_UNIX socket paths must stay under 107 bytes
    ray_bin = Path(sys.executable).parent / "ray"
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
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
    result = cli(config, "extract", "--out", str(tmp_path / "out"), str(tmp_path / "in"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"joined the Ray cluster at {ray_head}" in result.stderr
    record = json.loads((tmp_path / "out" / "a.json").read_text())
    assert record["data"]["total_amount"] == 119.0
