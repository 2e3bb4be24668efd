"""surya-ocr 0.22.1 for GPU hosts (``ocr.engine = "surya"``; docs/surya.md has the decision).

surya pins Pillow<11 and pulls torch, so it lives in its own environment, ``.venv-surya``
(scripts/setup-surya), and this process never imports it: ``SuryaEngine`` runs ONE child process,
``<ocr.surya_python> -I models/surya_worker.py``, and talks to it over its stdin/stdout pipes (JSON
lines, pages as base64 PNG; no listener of ours). The child loads surya's text detector with torch
(``ocr.device``) from the local folder ``ocr.surya_detector_path`` and sends recognition to surya's
VLM behind an OpenAI-compatible server at ``ocr.surya_recognizer_url``: one the operator runs, or
one this engine starts from ``ocr.surya_recognizer_command`` (its own process group; waited on at
``GET <url without /v1>/health``) and stops on ``close()`` or at exit. Nothing is downloaded at
run time (the child sets ``HF_HUB_OFFLINE=1`` and turns off surya's server autostart).

``missing(...)`` is the preflight of ``appliance check``: one line per missing thing, no network,
no child process beyond asking the surya interpreter whether surya is installed.
"""

from __future__ import annotations

import atexit
import base64
import io
import json
import logging
import os
import queue
import shlex
import shutil
import signal
import subprocess
import threading
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from pathlib import Path

from models.ocr import OcrEngine, OcrLine

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("surya_worker.py")
DEFAULT_PYTHON = ROOT / ".venv-surya" / "bin" / "python"
DETECTOR_FILES = ("config.json", "model.safetensors", "preprocessor_config.json")
SETUP_HINT = 'run scripts/setup-surya and put the weights in place (docs/surya.md; README "GPU host")'


def surya_python(python: str = "") -> Path:
    """The interpreter of surya's environment: ``ocr.surya_python``, or ``<checkout>/.venv-surya/bin/python``."""
    return Path(python).expanduser() if python else DEFAULT_PYTHON


def health_url(recognizer_url: str) -> str:
    """``http://host:port/v1`` -> ``http://host:port/health`` (what vLLM and llama-server answer)."""
    base = recognizer_url.rstrip("/")
    return (base[: -len("/v1")] if base.endswith("/v1") else base) + "/health"


def missing(
    python: str = "", detector_path: str = "", recognizer_url: str = "", recognizer_command: str = ""
) -> list[str]:
    """What ``ocr.engine = "surya"`` lacks on this host, one line each (empty: nothing): the surya
    interpreter (or surya in it), each weight file of the detector folder, the recognizer URL,
    and the recognizer command's executable. Reads files only; never opens a connection."""
    lines = []
    interpreter = surya_python(python)
    if not interpreter.is_file() or not os.access(interpreter, os.X_OK):
        lines.append(f"surya's Python {interpreter} not found (ocr.surya_python; scripts/setup-surya makes it)")
    elif not _has_surya(interpreter):
        lines.append(f"surya-ocr is not installed in {interpreter} (scripts/setup-surya installs it)")
    if not detector_path:
        lines.append(
            "ocr.surya_detector_path is empty: set it to the text detector's folder (" + ", ".join(DETECTOR_FILES) + ")"
        )
    elif not Path(detector_path).expanduser().is_dir():
        lines.append(f"detector folder {detector_path} (ocr.surya_detector_path) does not exist")
    else:
        folder = Path(detector_path).expanduser()
        lines += [
            f"detector file {folder / name} is missing" for name in DETECTOR_FILES if not (folder / name).is_file()
        ]
    if not recognizer_url:
        what = "the URL the server of ocr.surya_recognizer_command listens on" if recognizer_command else "its URL"
        lines.append(
            "ocr.surya_recognizer_url is empty: the recognition server (OpenAI-compatible, e.g. "
            f"http://127.0.0.1:8011/v1) needs {what}"
        )
    elif (
        urllib.parse.urlsplit(recognizer_url).scheme not in ("http", "https")
        or not urllib.parse.urlsplit(recognizer_url).netloc
    ):
        lines.append(f"ocr.surya_recognizer_url {recognizer_url!r} is not an http:// URL")
    if recognizer_command:
        try:
            argv = shlex.split(recognizer_command)
        except ValueError as exc:
            argv = []
            lines.append(f"ocr.surya_recognizer_command cannot be split into words ({exc})")
        if argv and not _executable(argv[0]):
            lines.append(f"recognizer command's executable {argv[0]} not found (ocr.surya_recognizer_command)")
    return lines


def _executable(name: str) -> bool:
    if os.sep in name:
        path = Path(name).expanduser()
        return path.is_file() and os.access(path, os.X_OK)
    return shutil.which(name) is not None


def _has_surya(interpreter: Path) -> bool:
    """Whether ``import surya`` would find the package (``find_spec``: nothing is imported)."""
    try:
        done = subprocess.run(
            [
                str(interpreter),
                "-I",
                "-c",
                "import importlib.util, sys; sys.exit(not importlib.util.find_spec('surya'))",
            ],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


class SuryaEngine(OcrEngine):
    """OCR with surya-ocr 0.22.1 in its own environment (module docstring). ``device`` ``cpu`` or
    ``cuda`` (the detector's torch device); ``threads`` torch threads of the child on CPU;
    ``python``, ``detector_path``, ``recognizer_url``, ``recognizer_command``: the ``ocr.surya_*``
    keys. ``lang`` is not used: surya's VLM reads every script it was trained on (Thai included).

    Raises FileNotFoundError listing every missing file or setting (``missing``), RuntimeError when
    the recognizer command's server does not answer /health within ``start_timeout`` seconds or the
    child cannot load (its message: the detector, CUDA, the server's /health or model id).
    ``recognize``/``recognize_batch`` raise RuntimeError when the child or the server fails.
    Calls are serialised (one child, one request in flight); ``recognize_batch`` is the one to use
    for many pages. ``close()`` stops the child and any server this engine started."""

    name = "surya"
    LOAD_TIMEOUT_S = 300.0  # importing torch and surya, loading the detector, attaching to the server
    REQUEST_TIMEOUT_S = 3600.0  # a batch of pages: surya itself gives each VLM request 600 s

    def __init__(
        self,
        lang: str = "en",
        threads: int = 0,
        device: str = "cpu",
        python: str = "",
        detector_path: str = "",
        recognizer_url: str = "",
        recognizer_command: str = "",
        start_timeout: float = 600.0,
        **_: object,
    ) -> None:
        problems = missing(python, detector_path, recognizer_url, recognizer_command)
        if problems:
            raise FileNotFoundError("; ".join(problems) + f" ({SETUP_HINT})")
        self.recognizer_url = recognizer_url.rstrip("/")
        self._server: subprocess.Popen | None = None
        self._worker: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._next_id = 0
        self._closed = False
        atexit.register(self.close)
        try:
            if recognizer_command:
                self._start_server(recognizer_command, start_timeout)
            self._start_worker(surya_python(python), str(Path(detector_path).expanduser()), device, threads)
        except BaseException:
            self.close()
            raise

    # -- the recognition server this engine owns (ocr.surya_recognizer_command) --------------

    def _start_server(self, command: str, timeout: float) -> None:
        url = health_url(self.recognizer_url)
        if _healthy(url):
            log.warning("a recognition server already answers %s; using it, not starting %r", url, command)
            return
        log.info("starting the surya recognition server: %s", command)
        self._server = subprocess.Popen(
            shlex.split(command), stdin=subprocess.DEVNULL, stdout=2, stderr=2, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while not _healthy(url):
            if self._server.poll() is not None:
                raise RuntimeError(
                    f"the recognition server (ocr.surya_recognizer_command) exited with code {self._server.returncode} "
                    f"before answering {url}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"the recognition server did not answer {url} within {timeout:.0f} s")
            time.sleep(0.5)
        log.info("surya recognition server answers %s (pid %d)", url, self._server.pid)

    def _stop_server(self) -> None:
        server, self._server = self._server, None
        if server is None or server.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(server.pid, sig)  # its own process group: vLLM's engine processes too
            except ProcessLookupError:
                return
            try:
                server.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue

    # -- the child in surya's environment ---------------------------------------------------

    def _start_worker(self, interpreter: Path, detector_path: str, device: str, threads: int) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._worker = subprocess.Popen(
            [str(interpreter), "-I", str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=str(ROOT),
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._replies: queue.Queue = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        threading.Thread(target=self._read_stdout, daemon=True, name="surya-stdout").start()
        threading.Thread(target=self._read_stderr, daemon=True, name="surya-stderr").start()
        config = {"detector_path": detector_path, "recognizer_url": self.recognizer_url, "device": device}
        self._send({**config, "threads": int(threads or 0)})
        reply = self._reply(self.LOAD_TIMEOUT_S, "loading")
        if "error" in reply:
            raise RuntimeError(f"surya does not load: {reply['error']}")
        log.info("surya worker ready (torch %s, %.1f s)", reply.get("torch"), reply.get("load_s", 0))

    def _read_stdout(self) -> None:
        worker = self._worker
        for line in worker.stdout:
            try:
                self._replies.put(json.loads(line))
            except ValueError:
                self._stderr.append(line.rstrip())
        self._replies.put(None)  # the child closed its stdout: it exited

    def _read_stderr(self) -> None:
        surya_log = logging.getLogger("models.surya_worker")
        for line in self._worker.stderr:
            line = line.rstrip()
            if line:
                self._stderr.append(line)
                surya_log.info("%s", line)

    def _send(self, message: dict) -> None:
        try:
            self._worker.stdin.write(json.dumps(message) + "\n")
            self._worker.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise RuntimeError(f"the surya worker is gone ({exc}){self._tail()}") from None

    def _reply(self, timeout: float, doing: str) -> dict:
        try:
            reply = self._replies.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"the surya worker gave no answer within {timeout:.0f} s ({doing})") from None
        if reply is None:
            code = self._worker.wait()
            raise RuntimeError(f"the surya worker exited with code {code} while {doing}{self._tail()}")
        return reply

    def _tail(self) -> str:
        return (": " + " | ".join(list(self._stderr)[-3:])) if self._stderr else ""

    # -- OCR ------------------------------------------------------------------------------------

    def recognize(self, image) -> list[OcrLine]:
        """OCR one page (PIL image). Lines in reading order, boxes in the image's pixels."""
        return self.recognize_batch([image])[0]

    def recognize_batch(self, images: list) -> list[list[OcrLine]]:
        """OCR several pages (of one or many documents) in one surya call: one detection batch on
        the device, then the pages' VLM requests in parallel. One list of lines per image."""
        if not images:
            return []
        payload = [_png(image) for image in images]
        with self._lock:
            if self._closed or self._worker is None:
                raise RuntimeError("the surya engine is closed")
            self._next_id += 1
            self._send({"id": self._next_id, "images": payload})
            reply = self._reply(self.REQUEST_TIMEOUT_S, f"recognising {len(images)} page(s)")
        if "error" in reply:
            raise RuntimeError(f"surya failed: {reply['error']}")
        return [
            [
                OcrLine(
                    unicodedata.normalize("NFKC", line["text"]),
                    tuple(float(v) for v in line["bbox"]),
                    max(0.0, min(1.0, float(line["confidence"]))),
                )
                for line in page
            ]
            for page in reply["pages"]
        ]

    def close(self) -> None:
        """Stop the child (end of its stdin, then SIGTERM/SIGKILL) and the server this engine started."""
        self._closed = True
        worker, self._worker = self._worker, None
        if worker is not None and worker.poll() is None:
            try:
                worker.stdin.close()
            except OSError:
                pass
            try:
                worker.wait(10)
            except subprocess.TimeoutExpired:
                worker.terminate()
                try:
                    worker.wait(10)
                except subprocess.TimeoutExpired:
                    worker.kill()
                    worker.wait()
        self._stop_server()
        atexit.unregister(self.close)


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the server is local: no proxy


def _healthy(url: str) -> bool:
    try:
        with _DIRECT.open(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _png(image) -> str:
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG", compress_level=1)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
