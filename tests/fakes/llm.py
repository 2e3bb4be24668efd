"""Fake model back-ends for tests, loadable by name as ``"tests.fakes.llm:Class"`` (models.registry).

Each fake accepts and ignores the keyword options the pipeline passes to a real back-end
(``model_path``, ``n_threads``, ``data_dir``, ...).
"""

from __future__ import annotations

import json
import time

from models.llm import LlmBackend

# ---------------------------------------------------------------------------------------------
# LLM fakes (models.llm.LlmBackend)
# ---------------------------------------------------------------------------------------------


def _asked(prompt: str, json_schema: dict | None) -> list[str]:
    """The keys a prompt asks for: the schema's properties, or the prompt's "Fields:" line."""
    if json_schema:
        return list(json_schema.get("properties", {}))
    for line in prompt.splitlines():
        if line.startswith("Fields: "):
            return [key.strip() for key in line[len("Fields: ") :].split(",")]
    return []


class EchoLLM(LlmBackend):
    """Answers a JSON object with ``answers[key]`` for every key asked (schema properties or the
    prompt's "Fields:" line) that ``answers`` holds; nothing else. Like llama.cpp it cuts the
    answer before the first ``stop`` string, and a prompt that ends in part of its answer (after
    the "JSON:" label) gets the rest.

    Records each call as ``(prompt, json_schema, max_tokens)`` in ``calls``.
    """

    name = "fake-echo"

    def __init__(self, answers: dict | None = None, **_: object) -> None:
        self.answers = dict(answers or {})
        self.calls: list[tuple[str, dict | None, int]] = []

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        self.calls.append((prompt, json_schema, max_tokens))
        asked = _asked(prompt, json_schema)
        answer = " " + json.dumps({key: self.answers[key] for key in asked if key in self.answers})
        written = prompt.rpartition("JSON:")[2] if json_schema is None else ""
        if written and answer.startswith(written):
            answer = answer[len(written) :]
        for word in stop:
            answer = answer.split(word)[0]
        return answer


class GarbageLLM(LlmBackend):
    """Answers text that is not JSON, as a broken or truncated model would."""

    name = "fake-garbage"

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        return "not json{"


class CrashLLM(LlmBackend):
    """Raises RuntimeError on every call, as a model that cannot run would."""

    name = "fake-crash"

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        raise RuntimeError("fake LLM crash")


class SlowLLM(LlmBackend):
    """Sleeps ``seconds`` (wall time) per call, then answers null for every schema key."""

    name = "fake-slow"

    def __init__(self, seconds: float = 5.0, **_: object) -> None:
        self.seconds = float(seconds)

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        time.sleep(self.seconds)
        return "{}"


class SlowEchoLLM(EchoLLM):
    """EchoLLM that takes 1.5 s per call (to kill the LLM stage while it decodes)."""

    name = "fake-slow-echo"

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        time.sleep(1.5)
        return super().complete(prompt, json_schema, max_tokens, stop)


# ---------------------------------------------------------------------------------------------
# end of LLM fakes
# ---------------------------------------------------------------------------------------------
