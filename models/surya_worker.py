"""The surya-ocr side of ``ocr.engine = "surya"``: a child process that runs in surya's own
environment (``.venv-surya``, scripts/setup-surya; docs/surya.md), started by
``models.surya_engine.SuryaEngine`` as ``<surya python> -I models/surya_worker.py``.

It imports nothing of the appliance: only the standard library at module level, and surya,
torch and PIL (surya-ocr 0.22.1's) inside ``main``. It talks to its parent over its own stdin
and stdout, one JSON object a line, and opens no listener:

- first line in: ``{"detector_path", "recognizer_url", "device", "threads"}``; out:
  ``{"ready": true, "torch": ..., "load_s": ...}`` or ``{"error": "..."}`` (and exit 1);
- then per request in: ``{"id": n, "images": [base64 PNG, ...]}``; out:
  ``{"id": n, "pages": [[{"text", "bbox": [x0, y0, x1, y1], "confidence"}, ...], ...]}`` (pixels of
  each image) or ``{"id": n, "error": "..."}``;
- end of stdin (the parent closed it or died): exit 0.

Per batch of pages: text detection runs in this process (torch, ``ocr.device``) from the local
detector folder; recognition is surya's ``RecognitionPredictor`` in full-page mode, one request
per page to the OpenAI-compatible VLM server at ``recognizer_url``, with the detected text lines
as the fallback layout (block mode per line, instead of surya's VLM layout call) for pages whose
full-page answer does not parse or loops. Each recognised block's HTML becomes text lines; a line
takes the detected line box inside its block when the counts agree, else an equal band of the
block's box. Library output that is printed goes to stderr, never into the protocol.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import sys
import time
import traceback
import unicodedata
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))

# surya reads its settings from the environment when it is first imported (pydantic BaseSettings).
SURYA_ENV = {
    "HF_HUB_OFFLINE": "1",  # no model download at run time, ever
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "DISABLE_TQDM": "true",
    "SURYA_INFERENCE_AUTOSTART": "false",  # never spawn llama-server or a vLLM container
    "SURYA_INFERENCE_STARTUP_TIMEOUT": "30",
    "DETECTOR_SERVER_AUTOSTART": "false",  # we load the detector in-process (DetectionPredictor.local)
    "OCR_ERROR_SERVER_AUTOSTART": "false",
    "FAST_LAYOUT_SERVER_AUTOSTART": "false",
}

# Tags that end a line of text in the HTML surya's VLM writes (ALLOWED_TAGS of surya.inference.prompts).
LINE_TAGS = frozenset(
    {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "caption", "blockquote"}
)
CELL_TAGS = frozenset({"td", "th"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in LINE_TAGS:
            self.parts.append("\n")
        elif tag in CELL_TAGS:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in LINE_TAGS:
            self.parts.append("\n")
        elif tag in CELL_TAGS:
            self.parts.append(" ")

    def handle_data(self, data):
        self.parts.append(data.replace("\n", " "))


def html_lines(html: str) -> list[str]:
    """The text lines of one block's HTML: a line per ``<br>``, paragraph, list item or table row
    (cells joined by a space), whitespace collapsed, NFKC."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return [unicodedata.normalize("NFKC", line) for line in lines if line]


def _box(polygon) -> tuple[float, float, float, float]:
    xs = [p[0] for p in polygon]
    ys = [p[1] for p in polygon]
    return (float(min(xs)), float(min(ys)), float(max(xs)), float(max(ys)))


def block_lines(
    html: str, box: tuple[float, float, float, float], confidence: float, detected: list[tuple]
) -> list[dict]:
    """One block -> line dicts. ``detected``: the detector's line boxes of the page (pixels). A
    line gets the detected box whose centre lies in the block, in top-to-bottom order, when there
    are as many of those as text lines; otherwise an equal horizontal band of ``box``."""
    texts = html_lines(html)
    if not texts:
        return []
    x0, y0, x1, y1 = box
    inside = sorted(
        (d for d in detected if x0 <= (d[0] + d[2]) / 2 <= x1 and y0 <= (d[1] + d[3]) / 2 <= y1),
        key=lambda d: (d[1], d[0]),
    )
    if len(inside) != len(texts):
        step = (y1 - y0) / len(texts)
        inside = [(x0, y0 + i * step, x1, y0 + (i + 1) * step) for i in range(len(texts))]
    confidence = 1.0 if confidence is None or math.isnan(confidence) else max(0.0, min(1.0, float(confidence)))
    return [
        {"text": text, "bbox": [round(v, 1) for v in line_box], "confidence": confidence}
        for text, line_box in zip(texts, inside, strict=True)
    ]


class _Counted:
    """A SuryaInferenceManager that counts the requests that failed (surya logs and swallows them)."""

    def __init__(self, manager) -> None:
        self.manager = manager
        self.requests = 0
        self.errors = 0

    def generate(self, batch):
        outputs = self.manager.generate(batch)
        self.requests += len(outputs)
        self.errors += sum(1 for output in outputs if output.error)
        return outputs


class Surya:
    """The detector and the recognizer client, loaded once."""

    def __init__(self, detector_path: str, recognizer_url: str, device: str = "cpu", threads: int = 0) -> None:
        os.environ.update(SURYA_ENV)
        os.environ.update(
            TORCH_DEVICE=device, DETECTOR_MODEL_CHECKPOINT=detector_path, SURYA_INFERENCE_URL=recognizer_url
        )
        import torch

        if threads > 0:
            torch.set_num_threads(threads)
        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError(
                f"ocr.device = cuda, but torch {torch.__version__} in {sys.executable} sees no CUDA GPU: "
                "run scripts/setup-surya on the GPU host (it installs the CUDA build where nvidia-smi answers)"
            )
        from surya.detection import DetectionPredictor
        from surya.inference import SuryaInferenceManager
        from surya.inference.backends.spawn import probe_health
        from surya.layout.schema import LayoutBox, LayoutResult
        from surya.recognition import RecognitionPredictor

        self.torch = torch.__version__
        self._probe_health = probe_health
        self._layout = (LayoutBox, LayoutResult)
        self._recognition = RecognitionPredictor
        self.url = recognizer_url.rstrip("/")
        self.health_url = self.url[: -len("/v1")] if self.url.endswith("/v1") else self.url
        # In-process detector from the local folder (transformers from_pretrained of a directory).
        self.detector = DetectionPredictor.local(detector_path, device=device)
        self.detector.disable_tqdm = True
        # Attach to the server at SURYA_INFERENCE_URL: /health and /models are probed, nothing spawned
        # (vllm's client sizing on a GPU, llama.cpp's on CPU; both speak the same OpenAI API).
        self.manager = SuryaInferenceManager(method="vllm" if device == "cuda" else "llamacpp", lazy=True)
        self.manager.start()

    def run(self, images) -> list[list[dict]]:
        if not self._probe_health(self.health_url, timeout=5.0):
            raise RuntimeError(f"the recognizer server at {self.url} does not answer {self.health_url}/health")
        LayoutBox, LayoutResult = self._layout
        detections = self.detector(images)
        detected: list[list[tuple]] = []
        layouts = []
        for result in detections:
            boxes = sorted((_box(b.polygon) for b in result.bboxes), key=lambda b: (b[1], b[0]))
            detected.append(boxes)
            layouts.append(
                LayoutResult(
                    bboxes=[
                        LayoutBox(polygon=list(b), label="Text", raw_label="Text", position=i)
                        for i, b in enumerate(boxes)
                    ],
                    image_bbox=result.image_bbox,
                )
            )
        counted = _Counted(self.manager)
        pages = self._recognition(counted)(images, layouts, full_page=True)
        if counted.requests and counted.errors == counted.requests:
            raise RuntimeError(f"every request to the recognizer server at {self.url} failed (its log says why)")
        out = []
        for page, boxes in zip(pages, detected, strict=True):
            lines: list[dict] = []
            for block in sorted(page.blocks, key=lambda b: b.reading_order):
                if block.skipped or block.error or not block.html:
                    continue
                lines += block_lines(block.html, _box(block.polygon), block.confidence, boxes)
            out.append(lines)
        return out


def _image(data: str):
    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(data)))
    image.load()
    return image.convert("RGB")


def main() -> int:
    # Run as a script with -I; never let the appliance's modules beside this file shadow surya's imports.
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # whatever a library prints goes to stderr, not into the protocol

    def send(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    first = sys.stdin.readline()
    if not first:
        return 0
    started = time.perf_counter()
    try:
        surya = Surya(**json.loads(first))
    except Exception as exc:  # the parent shows the message; the traceback goes to the log
        traceback.print_exc()
        send({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    send({"ready": True, "torch": surya.torch, "load_s": round(time.perf_counter() - started, 2)})
    for line in sys.stdin:
        request = json.loads(line)
        try:
            send({"id": request["id"], "pages": surya.run([_image(data) for data in request["images"]])})
        except Exception as exc:
            traceback.print_exc()
            send({"id": request["id"], "error": f"{type(exc).__name__}: {exc}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
