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
    """What every LLM back-end implements, and what it may also do (STYLE.md 16). A back-end
    subclasses this class (``models.registry`` refuses one that does not), implements
    ``complete`` and ``name`` (reported as the LLM provider), and overrides the optional
    capabilities whose defaults do not suit it."""

    name: str
    # Optional: the token counts of the last ``complete`` (prompt_tokens, completion_tokens,
    # total_tokens); empty when the back-end does not count.
    last_usage: dict[str, int] = {}

    def __init__(self, **_: object) -> None:
        """``models.registry`` passes every back-end the LLM settings as keyword options; a
        back-end takes those it needs. Default: it needs none."""

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

    def continues(self, prompt: str) -> bool:
        """Optional: whether ``prompt`` extends the previous call's prompt and answer, so that
        this instance would continue from its cached state (a pool of instances sends such a
        prompt back to it). Default: False."""
        return False

    def close(self) -> None:
        """Optional: release what the back-end holds. Default: nothing."""


class NoLlm(LlmBackend):
    """The back-end for operators who run the rules only: it answers every request with ``{}``."""

    name = "none"

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        return "{}"
