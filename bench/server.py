"""Run ``appliance serve`` as a real subprocess on a free loopback port (for kill -9 tests)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """``appliance --config CONFIG serve`` in a subprocess; ``url`` once ``start()`` returns."""

    def __init__(self, config: Path, env: dict[str, str] | None = None) -> None:
        self.config = config
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.metrics_port = free_port()  # never the shared default 9464: tests run beside real appliances
        self.env = {
            **os.environ,
            "APPLIANCE_METRICS_PORT": str(self.metrics_port),
            **(env or {}),
        }
        self.proc: subprocess.Popen | None = None
        self.log = config.parent / f"server-{self.port}.log"
        self.command = [sys.executable, "-m", "appliance.cli"]  # scripts/bench-api runs it under cProfile

    def start(self, timeout: float = 120) -> ServerProcess:
        self.proc = subprocess.Popen(
            [*self.command, "--config", str(self.config), "serve", "--port", str(self.port)],
            cwd=ROOT,
            env=self.env,
            stdout=open(self.log, "ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(self.url + "/readyz", timeout=1)  # 503 (an HTTPError) until the pool is up
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        raise RuntimeError(f"server not up after {timeout} s: {self.log.read_text()[-3000:]}")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)

    def request(
        self, method: str, path: str, key: str, body: bytes | None = None, content_type: str | None = None
    ) -> tuple[int, dict]:
        headers = {"Authorization": f"Bearer {key}"}
        if content_type:
            headers["Content-Type"] = content_type
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def upload_ready(self, key: str, data: bytes, filename: str, content_type: str, timeout: float = 300) -> str:
        """Upload ``data`` in one step with ``key``, then long-poll (``?wait=``) until the invoice
        is ready; returns its id. AssertionError when the upload is refused or the invoice is not
        ready within ``timeout`` seconds."""
        body, multipart_type = multipart(data, filename, content_type)
        status, accepted = self.request("POST", "/api/v1/invoices/upload", key, body, multipart_type)
        assert status == 202, accepted
        invoice_id = accepted["invoice"]["id"]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.request("GET", f"/api/v1/invoices/{invoice_id}?wait=5", key)[1]["ready"]:
                return invoice_id
        tail = self.log.read_text(errors="replace")[-4000:] if self.log.is_file() else ""
        raise AssertionError(f"invoice {invoice_id} not ready after {timeout} s; the server's log ends:\n{tail}")


def multipart(data: bytes, filename: str, content_type: str) -> tuple[bytes, str]:
    """A multipart/form-data body with one ``file`` field; returns (body, content type header)."""
    boundary = "----appliance-test-boundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def cli(
    config: Path, *args: str, env: dict[str, str] | None = None, clean_env: bool = False
) -> subprocess.CompletedProcess:
    """``appliance --config CONFIG ARGS`` in a subprocess; ``env`` is added to this process's
    environment, or replaces it with ``clean_env``."""
    return subprocess.run(
        [sys.executable, "-m", "appliance.cli", "--config", str(config), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(env or {}) if clean_env else {**os.environ, **(env or {})},
    )


def toml_value(value: Any) -> str:
    """``value`` (bool, str or number) as a TOML literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def write_config(folder: Path, sections: dict[str, dict[str, Any]], data_dir: Path | None = None) -> Path:
    """Write a config.toml with ``sections`` (``{"ocr": {"engine": ...}}``) into ``folder``."""
    lines = [f"data_dir = {toml_value(str(data_dir or folder / 'data'))}"]
    for section, values in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {toml_value(value)}" for key, value in values.items()]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def merged(*layers: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Config sections of ``layers`` merged, later keys winning."""
    out: dict[str, dict[str, Any]] = {}
    for layer in layers:
        for section, values in layer.items():
            out.setdefault(section, {}).update(values)
    return out
