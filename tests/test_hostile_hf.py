"""Issue 26: ``hf:org/name`` offline is one line at once (huggingface_hub retried for 23.5 s and
printed 11 lines), and config.json's size is checked before it is downloaded. A local HTTP
server stands in for the Hub; huggingface_hub is faked (its download must not be reached where
the answer is already known) except in the last test, which needs the real package."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from calc.data.yaml_io import MAX_FILE_BYTES

CONFIG = Path(__file__).parent / "data" / "hf" / "mistral-7b-v0.1.json"
MODEL = "hf:mistralai/Mistral-7B-v0.1"


class Hub:
    """A stand-in Hub answering HEAD with ``status`` and a Content-Length of ``size``."""

    def __init__(self, status: int = 200, size: int = 430) -> None:
        self.status, self.size, self.requests = status, size, []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self):
                hub.requests.append(("HEAD", self.path))
                self.send_response(hub.status)
                self.send_header("Content-Length", str(hub.size))
                self.end_headers()

            def do_GET(self):
                hub.requests.append(("GET", self.path))
                self.send_response(500)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> str:
    """An address where nothing listens (connection refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def fake_hub(monkeypatch):
    """A huggingface_hub whose download returns the shipped test config and counts calls."""
    fake = types.ModuleType("huggingface_hub")
    fake.downloads = []
    fake.cache = None

    def download(repo, filename, **kw):
        fake.downloads.append((repo, filename, kw))
        return str(CONFIG)

    fake.hf_hub_download = download
    fake.try_to_load_from_cache = lambda repo, filename: fake.cache
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return fake


def one_line(r) -> str:
    assert r.code == 2 and "Traceback" not in r.err, (r.code, r.err)
    assert r.err.startswith("kvcalc: error: ") and r.err.count("\n") == 1, r.err
    return r.err


def test_unreachable_hub_is_one_line_without_a_download(cli, fake_hub, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", closed_port())
    err = one_line(cli("memory", "-m", MODEL, "--ctx", "8"))
    assert "cannot reach http://127.0.0.1" in err and "not in the local cache" in err
    assert fake_hub.downloads == []


def test_unreachable_hub_uses_the_cache(cli, fake_hub, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", closed_port())
    fake_hub.cache = str(CONFIG)
    r = cli("memory", "-m", MODEL, "--ctx", "8", "-f", "json")
    assert r.code == 0, r.err
    assert r.json()["model"] == "mistral-7b-v0.1" and fake_hub.downloads == []


def test_offline_flag_asks_nobody(cli, fake_hub, monkeypatch):
    hub = Hub()
    try:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        assert "HF_HUB_OFFLINE is set" in one_line(cli("memory", "-m", MODEL, "--ctx", "8"))
        fake_hub.cache = str(CONFIG)
        assert cli("memory", "-m", MODEL, "--ctx", "8").code == 0
        assert hub.requests == [] and fake_hub.downloads == []
    finally:
        hub.close()


@pytest.mark.parametrize(
    ("status", "size", "needle"),
    [
        (200, MAX_FILE_BYTES + 1, "config.json is 1,000,001 bytes, more than a config file"),
        (404, 10, "no such model or file (HTTP 404)"),
        (401, 10, "refused access (HTTP 401)"),
        (503, 10, "answered HTTP 503"),
    ],
)
def test_the_head_answer_decides_before_any_download(cli, fake_hub, monkeypatch, status, size,
                                                     needle):  # fmt: skip
    hub = Hub(status, size)
    try:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert needle in one_line(cli("memory", "-m", MODEL, "--ctx", "8"))
        assert hub.requests == [("HEAD", "/mistralai/Mistral-7B-v0.1/resolve/main/config.json")]
        assert fake_hub.downloads == []
    finally:
        hub.close()


def test_a_small_config_is_downloaded_from_the_stated_endpoint(cli, fake_hub, monkeypatch):
    hub = Hub(200, 430)
    try:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        r = cli("memory", "-m", MODEL, "--ctx", "8", "-f", "json")
        assert r.code == 0, r.err
        # config.json first; then the ModelOpt and safetensors-index files this stand-in Hub
        # also says it has (HEAD 200 for every path), all from the stated endpoint
        assert fake_hub.downloads == [
            ("mistralai/Mistral-7B-v0.1", name, {"endpoint": hub.url})
            for name in ("config.json", "hf_quant_config.json", "model.safetensors.index.json")
        ]
    finally:
        hub.close()


def test_real_huggingface_hub_offline_is_one_line(tmp_path):
    pytest.importorskip("huggingface_hub")
    env = {"HF_ENDPOINT": closed_port(), "HF_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    r = subprocess.run(
        [sys.executable, "-m", "calc", "memory", "-m", MODEL, "--ctx", "8"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "cannot reach" in r.stderr and "Retry" not in r.stderr
