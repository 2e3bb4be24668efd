"""``pipeline.runtime.pool.ray_auth``: Ray's token authentication stays on, with the appliance's own
token file; ``connect_ray`` refuses to join a cluster without it (issue 12, finding 1)."""

from __future__ import annotations

import stat

import pytest

from pipeline.runtime.pool import connect_ray, ray_auth


@pytest.fixture(autouse=True)
def no_ray_auth_env(monkeypatch):
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(name, raising=False)


def test_a_local_ray_gets_a_private_token(tmp_path, monkeypatch):
    token = tmp_path / "data" / "ray-auth-token"
    assert ray_auth(token) == "token"
    assert len(token.read_text()) == 64 and stat.S_IMODE(token.stat().st_mode) == 0o600
    import os

    assert os.environ["RAY_AUTH_TOKEN_PATH"] == str(token)
    first = token.read_text()
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH")
    ray_auth(token)
    assert token.read_text() == first  # kept across restarts


def test_joining_without_the_clusters_token_names_the_file(tmp_path):
    with pytest.raises(RuntimeError, match="ray-auth-token does not exist.*ray get-auth-token"):
        ray_auth(tmp_path / "ray-auth-token", create=False)


def test_the_operators_choices_win(tmp_path, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    assert ray_auth(tmp_path / "t") == "disabled" and not (tmp_path / "t").exists()
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", "/etc/ray/token")
    assert ray_auth(tmp_path / "t") == "token" and not (tmp_path / "t").exists()


def test_joining_a_cluster_with_authentication_off_is_refused(tmp_path, monkeypatch):
    # a local Ray on loopback may run without a token (the operator's choice); a cluster may not
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with pytest.raises(RuntimeError, match="requires Ray's token authentication.*RAY_AUTH_MODE is 'disabled'"):
        connect_ray("10.0.0.5:6379", token_file=tmp_path / "ray-auth-token")
