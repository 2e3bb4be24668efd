"""Nothing the appliance opens listens beyond loopback unless the operator configured it (issue 12,
finding 1): a real ``appliance serve`` with a local Ray pool, its listening sockets read from the
kernel (psutil) for the server and every process it started (Ray's GCS, raylet, agents, workers)."""

from __future__ import annotations

import ipaddress

import psutil
import pytest

from bench.server import ServerProcess
from tests.conftest import FAKE_MODELS, merged, write_config

pytestmark = [pytest.mark.ray, pytest.mark.slow]


def listening(pid: int) -> list[tuple[str, int, str]]:
    """(address, port, process name) of every TCP socket in LISTEN state held by ``pid`` or a
    descendant of it."""
    root = psutil.Process(pid)
    found = []
    for proc in [root, *root.children(recursive=True)]:
        try:
            conns = proc.net_connections(kind="inet")
            name = proc.name()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        found += [(c.laddr.ip, c.laddr.port, name) for c in conns if c.status == psutil.CONN_LISTEN]
    return found


def is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # Ray's gRPC servers bind [::ffff:127.0.0.1]
    return ip.is_loopback


def test_a_running_appliance_listens_on_loopback_only(tmp_path):
    config = write_config(tmp_path, merged(FAKE_MODELS, {"pool": {"backend": "ray", "workers": 1}}))
    server = ServerProcess(config).start(timeout=180)
    try:
        sockets = listening(server.proc.pid)
    finally:
        server.stop()
    ports = {port for _, port, _ in sockets}
    assert server.port in ports and server.metrics_port in ports, sockets
    assert any(name == "gcs_server" for _, _, name in sockets), f"Ray's sockets were not seen: {sockets}"
    exposed = [s for s in sockets if not is_loopback(s[0])]
    assert not exposed, f"listening beyond loopback: {exposed}"


def test_the_address_helper_reads_mapped_and_wildcard_addresses():
    assert is_loopback("::ffff:127.0.0.1") and is_loopback("127.0.0.1") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("192.0.2.2")
