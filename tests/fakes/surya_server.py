"""A fake of surya's recognition server (vLLM or llama-server with surya's VLM), for the tests of
``models.surya_engine``: ``python tests/fakes/surya_server.py --port N [--html FILE]``.

Answers what surya 0.22.1's client asks (surya/inference/backends/spawn.py, openai_client.py):
``GET /health`` 200; ``GET /v1/models`` with the id surya expects (``SURYA_MODEL_CHECKPOINT``);
``POST /v1/chat/completions`` with a ChatCompletion whose content is, for the full-page prompt,
the HTML of ``--html`` (``<div data-label=... data-bbox="x0 y0 x1 y1">`` blocks, 0-1000) and for
the per-block prompt ``<p>BLOCK</p>``, with a logprob of -0.1 per token. ``GET /stats`` says
how many requests of each prompt it answered and the image sizes it was sent.
"""

from __future__ import annotations

import argparse
import base64
import io
import struct

from aiohttp import web

MODEL_ID = "datalab-to/surya-ocr-2"
FULL_PAGE_PROMPT = "OCR this image to HTML. Each block is a div"
DEFAULT_HTML = '<div data-label="Text" data-bbox="100 100 900 200">TOTAL 12.50</div>'


def png_size(data_url: str) -> list[int]:
    raw = base64.b64decode(data_url.split(",", 1)[1])
    width, height = struct.unpack(">II", io.BytesIO(raw[16:24]).read())
    return [width, height]


def make_app(html: str) -> web.Application:
    stats: dict = {"full_page": 0, "block": 0, "other": 0, "sizes": []}

    async def health(_request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def models(_request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "fake"}]})

    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        content = body["messages"][0]["content"]
        prompt = next(part["text"] for part in content if part["type"] == "text")
        stats["sizes"].append(png_size(next(p["image_url"]["url"] for p in content if p["type"] == "image_url")))
        if prompt.startswith(FULL_PAGE_PROMPT):
            stats["full_page"] += 1
            answer = html
        elif prompt.startswith("OCR this block image"):
            stats["block"] += 1
            answer = "<p>BLOCK</p>"
        else:
            stats["other"] += 1
            answer = "[]"
        tokens = [{"token": "x", "logprob": -0.1, "bytes": None, "top_logprobs": []}] * 5
        return web.json_response(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", MODEL_ID),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer},
                        "finish_reason": "stop",
                        "logprobs": {"content": tokens} if body.get("logprobs") else None,
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        )

    async def get_stats(_request: web.Request) -> web.Response:
        return web.json_response(stats)

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_get("/health", health)
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_get("/stats", get_stats)
    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--html", help="file with the full-page answer")
    args = parser.parse_args()
    html = open(args.html, encoding="utf-8").read() if args.html else DEFAULT_HTML
    web.run_app(make_app(html), host="127.0.0.1", port=args.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
