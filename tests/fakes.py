"""Fake model back-ends for tests, loadable by name as ``"tests.fakes:Class"`` (models.registry).

Each fake accepts and ignores the keyword options the pipeline passes to a real back-end
(``model_path``, ``n_threads``, ``data_dir``, ...).
"""

from __future__ import annotations

import json
import time

# ---------------------------------------------------------------------------------------------
# LLM fakes (models.llm.LlmBackend)
# ---------------------------------------------------------------------------------------------


class EchoLLM:
    """Answers a JSON object with every key of the schema's ``properties``: null, or ``answers[key]``.

    Records each call as ``(prompt, json_schema, max_tokens)`` in ``calls``.
    """

    name = "fake-echo"

    def __init__(self, answers: dict | None = None, **_: object) -> None:
        self.answers = dict(answers or {})
        self.calls: list[tuple[str, dict, int]] = []

    def complete(self, prompt: str, json_schema: dict, max_tokens: int) -> str:
        self.calls.append((prompt, json_schema, max_tokens))
        keys = json_schema.get("properties", {})
        return json.dumps({key: self.answers.get(key) for key in keys})


class GarbageLLM:
    """Answers text that is not JSON, as a broken or truncated model would."""

    name = "fake-garbage"

    def __init__(self, **_: object) -> None:
        pass

    def complete(self, prompt: str, json_schema: dict, max_tokens: int) -> str:
        return "not json{"


class CrashLLM:
    """Raises RuntimeError on every call, as a model that cannot run would."""

    name = "fake-crash"

    def __init__(self, **_: object) -> None:
        pass

    def complete(self, prompt: str, json_schema: dict, max_tokens: int) -> str:
        raise RuntimeError("fake LLM crash")


class SlowLLM:
    """Sleeps ``seconds`` (wall time) per call, then answers null for every schema key."""

    name = "fake-slow"

    def __init__(self, seconds: float = 5.0, **_: object) -> None:
        self.seconds = float(seconds)

    def complete(self, prompt: str, json_schema: dict, max_tokens: int) -> str:
        time.sleep(self.seconds)
        return json.dumps({key: None for key in json_schema.get("properties", {})})


# ---------------------------------------------------------------------------------------------
# end of LLM fakes
# ---------------------------------------------------------------------------------------------
