"""Every setting, declared once (STYLE.md 6): typed defaults here, ``config.toml`` on top,
environment last.

Keys are ``section.key`` as in the shipped ``config.toml``. Environment overrides are
``APPLIANCE_<SECTION>_<KEY>`` (upper case), plus the spec's own names kept as they are
(spec section 8): ``MAX_FILE_SIZE_MB``, ``OCR_MAX_UPLOAD_MB``, ``OCR_MAX_PDF_PAGES``,
``OCR_LANG``, and ``APPLIANCE_DATA_DIR``.

pydantic validates every value: the file's values strictly (TOML has types: ``enabled = "no"``
is a string, not a boolean, and ``workers = "2"`` is no number), the environment's from their
text (``APPLIANCE_LLM_ENABLED=no`` is false), then every range and cross-key rule. Any wrong
type, range or unknown key raises one ConfigError (exit 78) whose one-line message names the
key, the value and what is expected.
"""

from __future__ import annotations

import os
import tomllib
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from appliance.errors import ConfigError
from models.registry import BUNDLED_ADAPTER
from pipeline.context import ModelConfig, StageConfig


class Section(BaseModel):
    """A ``[section]`` of config.toml: strict types, unknown keys refused, read-only."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class ServerSettings(Section):
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=1, le=65535)


class LimitSettings(Section):
    MAX_FILE_SIZE_MB: int = Field(50, ge=1)
    OCR_MAX_UPLOAD_MB: int = Field(25, ge=1)
    OCR_MAX_PDF_PAGES: int = Field(3, ge=1)
    accept_over_ocr_limit: bool = False
    max_pdf_pages: int = Field(500, ge=1)
    # Longest side of a PDF page, in points (1/72 inch); a larger page is refused at upload. At most
    # 14,400: the largest page PDF 1.7 readers are expected to handle (ISO 32000-1, annex C.2).
    max_pdf_page_points: int = Field(5000, ge=72, le=14400)
    job_timeout_seconds: float = Field(180.0, gt=0)
    worker_memory_mb: int = Field(6144, ge=0)  # 0: no limit
    init_slot_ttl_seconds: int = Field(86400, ge=60)  # an upload/init slot with no file, then gone
    max_open_slots: int = Field(100, ge=1)  # per tenant; one more init is 429

    @model_validator(mode="after")
    def _ocr_limit_within_upload_limit(self) -> LimitSettings:
        if self.OCR_MAX_UPLOAD_MB > self.MAX_FILE_SIZE_MB:
            raise ValueError(
                f"limits.OCR_MAX_UPLOAD_MB ({self.OCR_MAX_UPLOAD_MB}) cannot exceed "
                f"limits.MAX_FILE_SIZE_MB ({self.MAX_FILE_SIZE_MB})"
            )
        return self


class PackageSetting(Section):
    """A credit package offered for purchase (spec 2.2); priced at the platform rate."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    credits: int = Field(ge=1)
    active: bool = True


DEFAULT_PACKAGES = (
    PackageSetting(name="Starter", credits=100),
    PackageSetting(name="Business", credits=1000),
    PackageSetting(name="Enterprise", credits=10000),
)


class CreditSettings(Section):
    cost_per_invoice: int = Field(1, ge=0)
    demo_tenant_credits: int = Field(100, ge=0)
    price_per_credit_cents: int = Field(10, ge=1)
    currency: str = Field("eur", pattern=r"^[a-z]{3}$")  # lower-case ISO 4217, as Stripe wants it
    # TOML's [[credits.packages]] is a list: the tuple accepts one (strict=False), its items stay strict
    packages: tuple[PackageSetting, ...] = Field(DEFAULT_PACKAGES, strict=False)

    @field_validator("packages")
    @classmethod
    def _unique_names(cls, packages: tuple[PackageSetting, ...]) -> tuple[PackageSetting, ...]:
        if len({package.name for package in packages}) != len(packages):
            raise ValueError("credits.packages names must be unique (a package's id derives from its name)")
        return packages


class StripeSettings(Section):
    secret_key: str = ""
    webhook_secret: str = ""
    api_base: str = ""
    # absolute (Stripe takes no relative address): the web app's return and billing pages
    success_url: str = "http://127.0.0.1:8080/review/billing/return?session_id={CHECKOUT_SESSION_ID}"
    cancel_url: str = "http://127.0.0.1:8080/review/billing"
    max_network_retries: int = Field(2, ge=0)
    timeout_seconds: float = Field(30.0, gt=0)


class OcrSettings(Section):
    engine: str = Field("ppocr", min_length=1)
    OCR_LANG: Literal["ch", "en", "th"] = "ch"
    # An engine without a Thai model (ppocr, rapidocr): the engine for the pages it reads unsure
    # and this one reads as Thai (models.script_router), with OCR_LANG "th" always, with "ch"
    # where Debian's tesseract-ocr-tha is installed ("": none; the engine then refuses "th").
    thai_engine: str = "tesseract"
    concurrency: int = Field(1, ge=1)
    dpi: int = Field(200, ge=72, le=600)
    threads: int = Field(2, ge=1)
    # Where the engine runs: "cpu", or "cuda" (rapidocr through onnxruntime-gpu's CUDA provider;
    # surya's detector on torch's GPU).
    device: Literal["cpu", "cuda"] = "cpu"
    # The OCR stage of pool.mode "staged" (pipeline.runtime.batching): pages of many jobs wait at most
    # batch_window_ms for each other and go to the engine in batches of at most batch_max_pages.
    batch_max_pages: int = Field(16, ge=1)
    batch_window_ms: int = Field(50, ge=0)
    # GPUs reserved by each OCR stage actor (Ray's num_gpus; fractions share one GPU).
    num_gpus: float = Field(0.0, ge=0)
    # ocr.engine = "ppocr": local PP-OCR ONNX files instead of the bundled PP-OCRv6 small detector
    # or recogniser ("": the bundled ones); nothing is downloaded.
    ppocr_det_model: str = ""
    ppocr_rec_model: str = ""
    # ocr.engine = "surya" (GPU hosts): surya-ocr runs in its own environment (scripts/setup-surya)
    # beside ours. Empty surya_python: <checkout>/.venv-surya/bin/python.
    surya_python: str = ""
    # Local folder of the text detector's weights (config.json, model.safetensors, preprocessor_config.json).
    surya_detector_path: str = ""
    # Surya's recognition VLM behind an OpenAI-compatible server: its base URL (http://127.0.0.1:8011/v1) ...
    surya_recognizer_url: str = ""
    # ... and, when the appliance should start and stop that server with the OCR stage, its command line.
    surya_recognizer_command: str = ""


class LlmSettings(Section):
    backend: str = Field("llama_cpp", min_length=1)
    model_path: str = ""
    # The extraction adapter (LoRA GGUF) applied to the model; empty: none. Left unset, the
    # bundled adapter is used with the bundled model, and none with an operator's own model_path
    # (an adapter fits only the base it was trained on).
    adapter_path: str = BUNDLED_ADAPTER
    n_ctx: int = Field(4096, ge=512)
    n_threads: int = Field(2, ge=1)
    # Layers offloaded to the GPU (llama.cpp's n_gpu_layers): 0 none, -1 all; needs the CUDA build
    # of llama-cpp-python (scripts/setup makes it on a host with an NVIDIA GPU).
    gpu_layers: int = Field(0, ge=-1)
    max_tokens: int = Field(512, ge=1)
    enabled: bool = True
    # pool.mode "staged": llama.cpp instances in the LLM stage, each decoding one document at a
    # time (several sequences at once over the stage), and the GPUs the stage reserves (Ray's num_gpus).
    parallel: int = Field(1, ge=1)
    num_gpus: float = Field(0.0, ge=0)
    # Which outcomes of rules vs model a key field may be completed on, and who wins disputes:
    # a table fitted by scripts/calibrate-arbiter for one model; empty: the one fitted for the
    # bundled model and adapter (pipeline/decision/arbiter_table.json).
    arbiter_table: str = ""

    def adapter(self) -> str:
        """The adapter file to load ("" for none), after the rule above."""
        if "adapter_path" not in self.model_fields_set and self.model_path:
            return ""
        return self.adapter_path


class ReviewSettings(Section):
    # The completed precision the appliance promises: a document completes when the learned
    # scorer's probability that all its key fields are right reaches the threshold fitted for
    # this target on the training folds (pipeline/decision/scorer/: 0.95, 0.98 or 0.99).
    target_precision: float = Field(0.98, gt=0, lt=1)
    # false: the learned scorer is off and the fitted arbiter table (llm.arbiter_table) decides
    # the key fields and completion, as before the scorer existed.
    scorer: bool = True
    # A scorer folder of your own (scripts/train-scorer --out DIR); empty: the bundled one.
    scorer_dir: str = ""
    # What line items that do not add up to the totals do to a document whose key fields the
    # scorer is sure of: "block" (needs_review: the line items are part of the promise) or
    # "drop" (it completes without line items: what it returns is right, nothing half-right).
    line_items: Literal["block", "drop"] = "block"
    # When the extraction model reads a document's header: "unsure" (where the scorer is not
    # sure yet, from the key confidence at which its answer ever completed a training document:
    # the ask floor), "always" (wherever the scorer is not sure: slower, a few more header
    # fields) or "never" (the model reads only line items the rules cannot settle).
    ask_model: Literal["unsure", "always", "never"] = "unsure"


class QueueSettings(Section):
    max_depth: int = Field(200, ge=0)  # 0: take no uploads (drain the queue)
    max_depth_per_tenant: int = Field(100, ge=0)  # one tenant's share of max_depth; 0: no share of its own
    max_attempts: int = Field(4, ge=1)
    lease_seconds: int = Field(300, ge=1)
    backoff_seconds: float = Field(2.0, gt=0)
    poll_seconds: float = Field(0.5, gt=0)
    retry_after_seconds: int = Field(30, ge=1)
    stall_seconds: int = Field(240, ge=1)  # /readyz: no attempt ended this long while work waits


class PoolSettings(Section):
    backend: Literal["ray", "inline"] = "ray"
    # "single": every worker runs whole documents with its own models (small CPU hosts).
    # "staged": CPU workers hand OCR pages and LLM prompts to shared OCR and LLM stage actors,
    # which batch them across jobs (GPU hosts). "auto": staged when Ray sees a GPU.
    mode: Literal["auto", "single", "staged"] = "auto"
    workers: int = Field(1, ge=1)


class RaySettings(Section):
    address: str = ""
    num_cpus: int = Field(0, ge=0)  # 0: all
    object_store_mb: int = Field(200, ge=75)  # Ray refuses a smaller object store


class LogSettings(Section):
    level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    format: Literal["text", "json"] = "text"
    access: Literal["all", "changes", "off"] = "changes"  # api.access_log


class MetricsSettings(Section):
    """``GET /metrics`` (Prometheus) on its own port, always bound to 127.0.0.1."""

    enabled: bool = True
    port: int = Field(9464, ge=1, le=65535)


class RetentionSettings(Section):
    """``appliance.retention``: stored files of approved invoices removed after ``days``."""

    # Days after its approval that an approved invoice keeps its stored file (and page images);
    # then the file goes and the extracted data stays. 0: files are kept for ever (off).
    days: int = Field(0, ge=0)
    # How often the server looks for files past retention.days, in minutes.
    interval_minutes: int = Field(60, ge=1)


# Each field of ``pipeline.context.StageConfig`` and the setting (section.key) that fills it.
STAGE_KEYS = {
    "mode": "pool.mode",
    "batch_max_pages": "ocr.batch_max_pages",
    "batch_window_ms": "ocr.batch_window_ms",
    "ocr_num_gpus": "ocr.num_gpus",
    "llm_parallel": "llm.parallel",
    "llm_num_gpus": "llm.num_gpus",
}


class Settings(BaseModel):
    """The effective settings. ``data_dir`` holds ``appliance.db``, ``files/`` and ``models/``."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    data_dir: Path = Path("./data")
    server: ServerSettings = ServerSettings()
    limits: LimitSettings = LimitSettings()
    credits: CreditSettings = CreditSettings()
    stripe: StripeSettings = StripeSettings()
    ocr: OcrSettings = OcrSettings()
    llm: LlmSettings = LlmSettings()
    review: ReviewSettings = ReviewSettings()
    queue: QueueSettings = QueueSettings()
    pool: PoolSettings = PoolSettings()
    ray: RaySettings = RaySettings()
    log: LogSettings = LogSettings()
    metrics: MetricsSettings = MetricsSettings()
    retention: RetentionSettings = RetentionSettings()

    @model_validator(mode="after")
    def _job_ends_before_its_lease(self) -> Settings:
        # past the lease the queue would hand the job to a second worker while the first still runs
        if self.limits.job_timeout_seconds >= self.queue.lease_seconds:
            raise ValueError(
                f"limits.job_timeout_seconds ({self.limits.job_timeout_seconds:g}) must be below "
                f"queue.lease_seconds ({self.queue.lease_seconds})"
            )
        return self

    @property
    def db_path(self) -> Path:
        return self.data_dir / "appliance.db"

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"

    @property
    def ray_token_file(self) -> Path:
        """The local Ray's authentication token (written on first start, mode 0600), or the
        cluster's when ``ray.address`` joins one; RAY_AUTH_TOKEN(_PATH) overrides it."""
        return self.data_dir / "ray-auth-token"

    def stage_config(self) -> StageConfig:
        """How the Ray pool is laid out (``pool.mode`` and the stage keys), for ``pipeline.runtime.pool``."""
        return StageConfig(**{field: attrgetter(key)(self) for field, key in STAGE_KEYS.items()})

    def worker_models(self) -> ModelConfig:
        """What every pipeline worker loads, taken from these settings (the one place that maps
        settings onto ``pipeline.context.ModelConfig``, which has no defaults of its own)."""
        return ModelConfig(
            ocr_engine=self.ocr.engine,
            ocr_lang=self.ocr.OCR_LANG,
            ocr_threads=self.ocr.threads,
            ocr_device=self.ocr.device,
            ocr_options=tuple(
                (name.split("_", 1)[1], str(value))
                for name, value in self.ocr.model_dump().items()
                if name.startswith(f"{self.ocr.engine}_")
            ),
            ocr_thai_engine=self.ocr.thai_engine,
            dpi=self.ocr.dpi,
            llm_backend=self.llm.backend,
            llm_model_path=self.llm.model_path,
            llm_adapter_path=self.llm.adapter(),
            llm_n_ctx=self.llm.n_ctx,
            llm_threads=self.llm.n_threads,
            llm_gpu_layers=self.llm.gpu_layers,
            llm_max_tokens=self.llm.max_tokens,
            llm_enabled=self.llm.enabled,
            llm_arbiter_table=self.llm.arbiter_table,
            review_target_precision=self.review.target_precision,
            review_scorer_dir=self.review.scorer_dir if self.review.scorer else "off",
            review_line_items=self.review.line_items,
            review_ask_model=self.review.ask_model,
            data_dir=str(self.data_dir),
            worker_memory_mb=self.limits.worker_memory_mb,
            job_timeout_seconds=self.limits.job_timeout_seconds,
        )


SECTIONS: dict[str, type[Section]] = {
    name: field.annotation
    for name, field in Settings.model_fields.items()
    if name != "data_dir"  # type: ignore[misc]
}
SPEC_ENV_NAMES = {  # spec section 8 names, kept as they are (DESIGN.md)
    "MAX_FILE_SIZE_MB": ("limits", "MAX_FILE_SIZE_MB"),
    "OCR_MAX_UPLOAD_MB": ("limits", "OCR_MAX_UPLOAD_MB"),
    "OCR_MAX_PDF_PAGES": ("limits", "OCR_MAX_PDF_PAGES"),
    "OCR_LANG": ("ocr", "OCR_LANG"),
    # Stripe's own conventional names (issue 3); secrets are never printed.
    "STRIPE_SECRET_KEY": ("stripe", "secret_key"),
    "STRIPE_WEBHOOK_SECRET": ("stripe", "webhook_secret"),
    "STRIPE_API_BASE": ("stripe", "api_base"),
}
SECRETS = {("stripe", "secret_key"), ("stripe", "webhook_secret")}


def env_names() -> dict[str, tuple[str, str]]:
    """Every environment variable that overrides a setting: ``{NAME: (section, key)}``. Lists
    (``credits.packages``) are set in the file only."""
    names = dict(SPEC_ENV_NAMES)
    for section, model in SECTIONS.items():
        for key, field in model.model_fields.items():
            if not str(field.annotation).startswith("tuple"):
                names[f"APPLIANCE_{section}_{key}".upper()] = (section, key)
    return names


def load_settings(
    config_path: Path | None = None, data_dir: Path | None = None, env: dict[str, str] | None = None
) -> Settings:
    """Build Settings from defaults, the TOML file (if any) and the environment
    (``load_settings_with_origins`` without the origins)."""
    return load_settings_with_origins(config_path, data_dir, env)[0]


def load_settings_with_origins(
    config_path: Path | None = None, data_dir: Path | None = None, env: dict[str, str] | None = None
) -> tuple[Settings, dict[str, str]]:
    """Build Settings from defaults, the TOML file (if any) and the environment, and say where
    each value came from: ``{"section.key" or "data_dir": "default" | "file PATH" | "env NAME" |
    "--data-dir"}`` (for ``appliance config show``).

    ``config_path`` None means ``APPLIANCE_CONFIG`` or ``./config.toml`` when present.
    ``data_dir`` (the CLI's ``--data-dir``) wins over ``APPLIANCE_DATA_DIR`` and the file.
    Raises ConfigError (one line: where, key, value, what is expected) for a missing file given
    explicitly, bad TOML, an unknown key, a value of the wrong type or out of range.
    """
    env = dict(os.environ if env is None else env)
    if config_path is None and env.get("APPLIANCE_CONFIG"):
        config_path = Path(env["APPLIANCE_CONFIG"])
    elif config_path is None and Path("config.toml").is_file():
        config_path = Path("config.toml")
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    file_data_dir = None
    if config_path is not None:
        path = Path(config_path).resolve()
        values, file_data_dir = _read_file(path)
        origins.update(
            {
                f"{section}.{key}": f"file {path}"
                for section, table in values.items()
                if isinstance(table, dict)
                for key in table
            }
        )
    for name, (section, key) in env_names().items():
        if name in env and isinstance(values.setdefault(section, {}), dict):
            values[section][key] = _from_text(env[name], section, key, name)
            origins[f"{section}.{key}"] = f"env {name}"
    chosen = (
        data_dir
        or (Path(env["APPLIANCE_DATA_DIR"]) if env.get("APPLIANCE_DATA_DIR") else None)
        or file_data_dir
        or Settings.model_fields["data_dir"].default
    )
    try:
        settings = Settings.model_validate({**values, "data_dir": Path(chosen).resolve()})
    except ValidationError as exc:
        raise ConfigError(_describe(exc, origins)) from None
    origins["data_dir"] = (
        "--data-dir"
        if data_dir
        else "env APPLIANCE_DATA_DIR"
        if env.get("APPLIANCE_DATA_DIR")
        else f"file {Path(config_path).resolve()}"
        if file_data_dir
        else "default"
    )
    return settings, origins


def _read_file(path: Path) -> tuple[dict[str, Any], Path | None]:
    """The TOML file's sections, and its ``data_dir`` resolved against the file's folder."""
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError as exc:
        raise ConfigError(f"config file {path} does not exist") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    data_dir = raw.pop("data_dir", None)
    if data_dir is None:
        return raw, None
    if not isinstance(data_dir, str) or not data_dir:
        raise ConfigError(f"{path}: data_dir = {data_dir!r}: expected a quoted path")
    folder = Path(data_dir)
    return raw, folder if folder.is_absolute() else (path.parent / folder).resolve()


def _from_text(text: str, section: str, key: str, variable: str) -> Any:
    """An environment variable's text as the setting's type (``"no"`` is False, ``"2"`` is 2)."""
    try:
        return TypeAdapter(SECTIONS[section].model_fields[key].annotation).validate_strings(text)
    except ValidationError as exc:
        raise ConfigError(f"environment {variable}: {section}.{key} = {text!r}: {_expected(exc.errors()[0])}") from None


def _describe(exc: ValidationError, origins: dict[str, str]) -> str:
    """pydantic's errors as one line: ``file PATH: llm.enabled = 'no': expected true or false``."""
    parts = []
    for error in exc.errors():
        key = _key(error["loc"])
        where = (
            origins.get(key)
            or origins.get(key.split("[")[0])
            or next((origin for origin in origins.values() if origin.startswith("file ")), "")
        )
        where = f"{where}: " if where else ""
        if error["type"] == "extra_forbidden":
            parts.append(f"{where}unknown setting {key}")
        elif error["type"] == "value_error":  # a rule of ours; its message names the keys and values
            parts.append(f"{where}{_expected(error)}")
        else:
            parts.append(f"{where}{key} = {error['input']!r}: {_expected(error)}")
    return "; ".join(parts)


def _key(loc: tuple) -> str:
    """``('credits', 'packages', 0, 'credits')`` as ``credits.packages[0].credits``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


FRIENDLY = {  # pydantic error type -> what an operator should write instead
    "bool_type": "expected true or false (unquoted)",
    "int_type": "expected a whole number (unquoted)",
    "float_type": "expected a number (unquoted)",
    "string_type": "expected a quoted string",
    "model_type": "expected a table ([section])",
    "tuple_type": "expected a list of tables ([[section.key]])",
    # the same for the text of an environment variable
    "bool_parsing": "expected true or false (1, yes, on / 0, no, off)",
    "int_parsing": "expected a whole number",
    "float_parsing": "expected a number",
}


def _expected(error: dict) -> str:
    if error["type"] in FRIENDLY:
        return FRIENDLY[error["type"]]
    message = error["msg"].removeprefix("Value error, ")
    return message.replace("Input should be", "expected").replace("String should", "expected a string to")
