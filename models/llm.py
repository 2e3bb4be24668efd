"""The LLM back-end interface: a prompt and a JSON schema in, the model's raw text out.

Also defines the delimiters that mark the document part of a prompt, so that a back-end can
shorten a prompt that does not fit its context by cutting the document, never the instructions.
"""

from __future__ import annotations

from typing import Protocol

# Callers put the (untrusted) document text between these two lines; back-ends that must
# shorten a prompt cut only between them. Chosen to be unlikely in real invoices; callers
# strip them from the document text so a document cannot close its own block early.
DOC_START = "<<<DOCUMENT"
DOC_END = "DOCUMENT>>>"


class LlmBackend(Protocol):
    """What every LLM back-end implements. ``name`` is reported as the LLM provider."""

    name: str

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        """Continue ``prompt`` with at most ``max_tokens`` generated tokens; return the raw text.

        A back-end that constrains its output returns text that is one JSON value valid for
        ``json_schema`` (unless it ran into ``max_tokens`` first, which leaves it truncated);
        with ``json_schema`` None it generates freely (a fine-tuned model writes its JSON).
        ``stop``: strings that end the answer where one first appears (it is left out), so a
        caller can take part of an answer now and continue it later with a prompt that ends in
        the part taken; a back-end may reuse its cached state for such a continuation.
        Raises RuntimeError (or a subclass) when the model cannot run.
        """
        ...


class NoLlm:
    """The back-end for operators who run the rules only: it answers every request with ``{}``."""

    name = "none"

    def __init__(self, **_: object) -> None:
        pass

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        return "{}"
