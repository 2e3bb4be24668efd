"""``ocr.engine = "surya"``: the preflight (no surya needed), the HTML-to-lines mapping, and the
real surya 0.22.1 code path in ``.venv-surya`` (scripts/setup-surya) with a randomly initialised
detector saved locally and a fake OpenAI-compatible recognition server (tests/fakes/surya_server.py).
The tests that need ``.venv-surya`` are skipped, saying so, when it is absent."""

from __future__ import annotations

import json
import math
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from appliance import checks
from bench.server import cli, free_port
from models import surya_engine
from models.registry import load_ocr
from models.surya_engine import DETECTOR_FILES, SuryaEngine, missing
from models.surya_worker import block_lines, html_lines
from tests.conftest import make_settings, write_config
from tests.paths import ROOT

SURYA_PYTHON = ROOT / ".venv-surya" / "bin" / "python"
FAKE_SERVER = ROOT / "tests" / "fakes" / "surya_server.py"
needs_surya = pytest.mark.skipif(
    not SURYA_PYTHON.is_file(), reason=".venv-surya is absent: run scripts/setup-surya (.ci/run does, best effort)"
)

# The full-page answer of the fake server: blocks in 0-1000 coordinates, as surya's VLM writes them.
PAGE_HTML = (
    '<div data-label="Page-Header" data-bbox="100 50 900 100">ACME GmbH</div>'
    '<div data-label="Text" data-bbox="100 100 900 200"><p>Invoice 42<br>Date 2026-11-24</p></div>'
    '<div data-label="Table" data-bbox="100 300 900 500"><table><tr><th>Item</th><th>Amount</th></tr>'
    "<tr><td>Widget</td><td>12.50</td></tr></table></div>"
    '<div data-label="Image" data-bbox="100 600 300 700"></div>'
    '<div data-label="Text" data-bbox="100 800 900 900">TOTAL \uff0412.50</div>'
)
PAGE_SIZE = (1000, 1400)


def page_image() -> Image.Image:
    """A page with ink in every text block of PAGE_HTML (surya drops text blocks over blank paper)."""
    image = Image.new("RGB", PAGE_SIZE, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=40)
    w, h = PAGE_SIZE
    for text, (x0, y0, x1, y1) in [
        ("ACME GmbH", (100, 50, 900, 100)),
        ("Invoice 42 / Date 2026-11-24", (100, 100, 900, 200)),
        ("Item Amount Widget 12.50", (100, 300, 900, 500)),
        ("TOTAL $12.50", (100, 800, 900, 900)),
    ]:
        box = (x0 * w / 1000, y0 * h / 1000, x1 * w / 1000, y1 * h / 1000)
        draw.text((box[0] + 10, box[1] + 10), text, fill="black", font=font)
        draw.rectangle((box[0] + 10, box[3] - 20, box[2] - 10, box[3] - 10), fill="black")
    return image


def expected_lines() -> list[tuple[str, tuple[float, float, float, float]]]:
    w, h = PAGE_SIZE
    px = lambda x0, y0, x1, y1: (x0 * w / 1000, y0 * h / 1000, x1 * w / 1000, y1 * h / 1000)  # noqa: E731
    return [
        ("ACME GmbH", px(100, 50, 900, 100)),
        ("Invoice 42", px(100, 100, 900, 150)),
        ("Date 2026-11-24", px(100, 150, 900, 200)),
        ("Item Amount", px(100, 300, 900, 400)),
        ("Widget 12.50", px(100, 400, 900, 500)),
        ("TOTAL $12.50", px(100, 800, 900, 900)),
    ]


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


def stats(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=5) as response:
        return json.load(response)


def server_command(port: int, html_file: Path) -> str:
    return shlex.join([sys.executable, str(FAKE_SERVER), "--port", str(port), "--html", str(html_file)])


# -- preflight: no surya needed ---------------------------------------------------------------


def test_missing_names_each_missing_file(tmp_path):
    folder = tmp_path / "detector"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    lines = missing(str(tmp_path / "no-venv" / "python"), str(folder), "", "no-such-server-binary --port 8011")
    assert lines == [
        f"surya's Python {tmp_path / 'no-venv' / 'python'} not found (ocr.surya_python; scripts/setup-surya makes it)",
        f"detector file {folder / 'model.safetensors'} is missing",
        f"detector file {folder / 'preprocessor_config.json'} is missing",
        "ocr.surya_recognizer_url is empty: the recognition server (OpenAI-compatible, e.g. "
        "http://127.0.0.1:8011/v1) needs the URL the server of ocr.surya_recognizer_command listens on",
        "recognizer command's executable no-such-server-binary not found (ocr.surya_recognizer_command)",
    ]
    assert missing(str(tmp_path / "python"), "", "ftp://x", "")[1:] == [
        "ocr.surya_detector_path is empty: set it to the text detector's folder "
        "(config.json, model.safetensors, preprocessor_config.json)",
        "ocr.surya_recognizer_url 'ftp://x' is not an http:// URL",
    ]
    assert missing(sys.executable, str(tmp_path / "none"), "http://127.0.0.1:1/v1", "")[1:] == [
        f"detector folder {tmp_path / 'none'} (ocr.surya_detector_path) does not exist"
    ]


def test_engine_refuses_to_start_with_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError) as raised:
        load_ocr("surya", lang="en", threads=1, device="cpu", python=str(tmp_path / "python"), detector_path="")
    message = str(raised.value)
    assert "surya's Python" in message and "ocr.surya_detector_path is empty" in message
    assert "scripts/setup-surya" in message


def test_check_fails_with_one_reason_per_missing_file_and_no_traceback(tmp_path):
    folder = tmp_path / "detector"
    folder.mkdir()
    ocr = {
        "engine": "surya",
        "surya_python": str(tmp_path / "python"),
        "surya_detector_path": str(folder),
        "surya_recognizer_url": "http://127.0.0.1:8011/v1",
    }
    result = checks.check_ocr(make_settings(tmp_path, {"ocr": ocr}))
    assert not result.ok
    assert result.detail.startswith("engine 'surya' lacks 4 thing(s): surya's Python ")
    for name in DETECTOR_FILES:
        assert f"detector file {folder / name} is missing" in result.detail
    assert "scripts/setup-surya" in result.hint and "GPU host" in result.hint
    # the CLI: one FAIL line for ocr, exit 78, no stack trace
    config = write_config(tmp_path / "cli", {"ocr": ocr, "pool": {"backend": "inline"}})
    done = cli(config, "check", "--skip", "ray", "--skip", "llm")
    assert done.returncode == 78
    ocr_lines = [line for line in done.stdout.splitlines() if line.startswith("FAIL ocr: ")]
    assert len(ocr_lines) == 1 and ocr_lines[0].count("is missing") == 3
    assert "Traceback" not in done.stdout + done.stderr


# -- the HTML surya's VLM answers -> lines ---------------------------------------------------------


def test_html_lines_split_paragraphs_breaks_and_table_rows():
    assert html_lines("<p>Invoice  42<br/>Date\n2026</p>") == ["Invoice 42", "Date 2026"]
    assert html_lines("<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2&amp;3</td></tr></table>") == [
        "A B",
        "1 2&3",
    ]
    assert html_lines("<h1>\uff34\uff2f\uff34\uff21\uff2c</h1>due <b>now</b>") == ["TOTAL", "due now"]
    assert html_lines("") == []


def test_block_lines_take_detected_boxes_when_the_counts_agree():
    block = (0.0, 0.0, 100.0, 40.0)
    detected = [(5.0, 22.0, 90.0, 38.0), (5.0, 2.0, 80.0, 18.0), (200.0, 0.0, 300.0, 10.0)]
    two = block_lines("<p>a<br>b</p>", block, 0.9, detected)
    assert [(line["text"], line["bbox"]) for line in two] == [
        ("a", [5.0, 2.0, 80.0, 18.0]),
        ("b", [5.0, 22.0, 90.0, 38.0]),
    ]
    three = block_lines("<p>a<br>b<br>c</p>", (0.0, 0.0, 90.0, 30.0), None, detected)
    assert [line["bbox"] for line in three] == [[0, 0, 90, 10], [0, 10, 90, 20], [0, 20, 90, 30]]
    assert {line["confidence"] for line in three} == {1.0}
    assert block_lines("<p></p>", block, 0.5, detected) == []


# -- the real surya code path (needs .venv-surya) -------------------------------------------------------


@pytest.fixture(scope="module")
def detector(tmp_path_factory) -> Path:
    if not SURYA_PYTHON.is_file():
        pytest.skip(".venv-surya is absent: run scripts/setup-surya")
    folder = tmp_path_factory.mktemp("surya-detector")
    done = subprocess.run(
        [str(SURYA_PYTHON), "-I", str(ROOT / "tests" / "fakes" / "surya_detector.py"), str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in folder.iterdir()) == sorted(DETECTOR_FILES)
    return folder


@pytest.fixture(scope="module")
def html_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("surya-html") / "page.html"
    path.write_text(PAGE_HTML, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(html_file):
    """The fake recognition server, run by someone else (the "existing one named by URL" case)."""
    port = free_port()
    proc = subprocess.Popen(shlex.split(server_command(port, html_file)))
    deadline = time.monotonic() + 30
    while not healthy(port):
        assert proc.poll() is None and time.monotonic() < deadline, "the fake server did not start"
        time.sleep(0.1)
    yield port
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def engine(detector, server):
    engine = load_ocr(
        "surya",
        lang="en",
        threads=2,
        device="cpu",
        python="",
        detector_path=str(detector),
        recognizer_url=f"http://127.0.0.1:{server}/v1",
        recognizer_command="",
    )
    yield engine
    engine.close()


@needs_surya
def test_recognize_returns_the_servers_lines_with_pixel_boxes(engine, server):
    before = stats(server)
    lines = engine.recognize(page_image())
    assert stats(server)["full_page"] == before["full_page"] + 1
    assert [(line.text, line.bbox) for line in lines] == [(text, pytest.approx(box)) for text, box in expected_lines()]
    assert {round(line.confidence, 4) for line in lines} == {round(math.exp(-0.1), 4)}
    assert engine.name == "surya"


@needs_surya
def test_recognize_batch_is_one_surya_call_with_a_request_per_page(engine, server):
    before = stats(server)
    pages = engine.recognize_batch([page_image(), page_image().resize((500, 700)), page_image()])
    after = stats(server)
    assert after["full_page"] - before["full_page"] == 3 and after["block"] == before["block"]
    assert [len(page) for page in pages] == [6, 6, 6]
    assert pages[0] == pages[2]
    assert pages[1][5].text == "TOTAL $12.50" and pages[1][5].bbox == pytest.approx((50, 560, 450, 630))
    assert engine.recognize_batch([]) == []


@needs_surya
def test_recognizer_command_is_started_and_stopped_with_the_engine(detector, html_file):
    port = free_port()
    engine = SuryaEngine(
        threads=1,
        detector_path=str(detector),
        recognizer_url=f"http://127.0.0.1:{port}/v1",
        recognizer_command=server_command(port, html_file),
        start_timeout=30,
    )
    try:
        server = engine._server
        assert server is not None and healthy(port)
        assert [line.text for line in engine.recognize(page_image())][-1] == "TOTAL $12.50"
        engine._stop_server()  # the server goes away under a running engine: a clear error, no hang
        assert server.poll() is not None and not healthy(port)
        with pytest.raises(RuntimeError, match=r"surya failed: RuntimeError: the recognizer server at .* does not"):
            engine.recognize(page_image())
    finally:
        engine.close()
    assert engine._worker is None
    with pytest.raises(RuntimeError, match="closed"):
        engine.recognize(page_image())


@needs_surya
def test_a_server_that_is_not_there_fails_the_load_with_surya_s_reason(detector, tmp_path):
    port = free_port()
    with pytest.raises(RuntimeError, match=r"surya does not load: SpawnError: SURYA_INFERENCE_URL=.* not reachable"):
        SuryaEngine(detector_path=str(detector), recognizer_url=f"http://127.0.0.1:{port}/v1")
    # the command's server exits at once: said so, without waiting for the timeout
    started = time.monotonic()
    with pytest.raises(RuntimeError, match=r"exited with code 2 before answering"):
        SuryaEngine(
            detector_path=str(detector),
            recognizer_url=f"http://127.0.0.1:{port}/v1",
            recognizer_command=shlex.join([sys.executable, str(FAKE_SERVER), "--no-such-flag"]),
        )
    assert time.monotonic() - started < 20


@needs_surya
@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this host has an NVIDIA GPU")
def test_cuda_without_a_cuda_torch_is_a_clear_error(detector, server):
    with pytest.raises(
        RuntimeError, match=r"ocr.device = cuda, but torch .* sees no CUDA GPU: run scripts/setup-surya"
    ):
        SuryaEngine(device="cuda", detector_path=str(detector), recognizer_url=f"http://127.0.0.1:{server}/v1")


@needs_surya
def test_check_passes_with_local_weights_in_place(detector, server, tmp_path):
    ocr = {
        "engine": "surya",
        "surya_detector_path": str(detector),
        "surya_recognizer_url": f"http://127.0.0.1:{server}/v1",
    }
    result = checks.check_ocr(make_settings(tmp_path, {"ocr": ocr}))
    assert result.ok, result.line()
    assert result.detail.startswith("surya loads")


def test_default_python_is_the_checkouts_surya_venv():
    assert surya_engine.surya_python("") == SURYA_PYTHON
