"""Every setting, declared once (STYLE.md 6): defaults here, ``config.toml`` on top, environment last.

Keys are ``section.key`` as in the shipped ``config.toml``. Environment overrides are
``APPLIANCE_<SECTION>_<KEY>`` (upper case), plus the spec's own names kept as they are
(spec section 8): ``MAX_FILE_SIZE_MB``, ``OCR_MAX_UPLOAD_MB``, ``OCR_MAX_PDF_PAGES``,
``OCR_LANG``, and ``APPLIANCE_DATA_DIR``. Unknown keys in the file are an error at start-up.
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from appliance.errors import ConfigError


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8080


@dataclass(frozen=True)
class LimitSettings:
    MAX_FILE_SIZE_MB: int = 50
    OCR_MAX_UPLOAD_MB: int = 25
    OCR_MAX_PDF_PAGES: int = 3
    accept_over_ocr_limit: bool = False
    max_pdf_pages: int = 500
    job_timeout_seconds: float = 180.0
    worker_memory_mb: int = 6144


@dataclass(frozen=True)
class PackageSetting:
    """A credit package offered for purchase (spec 2.2); priced at the platform rate."""

    name: str
    credits: int
    active: bool = True


DEFAULT_PACKAGES = (
    PackageSetting("Starter", 100),
    PackageSetting("Business", 1000),
    PackageSetting("Enterprise", 10000),
)


@dataclass(frozen=True)
class CreditSettings:
    cost_per_invoice: int = 1
    demo_tenant_credits: int = 100
    price_per_credit_cents: int = 10
    currency: str = "eur"
    packages: tuple[PackageSetting, ...] = DEFAULT_PACKAGES


@dataclass(frozen=True)
class StripeSettings:
    secret_key: str = ""
    webhook_secret: str = ""
    api_base: str = ""
    success_url: str = "http://127.0.0.1:8080/billing/success?session_id={CHECKOUT_SESSION_ID}"
    cancel_url: str = "http://127.0.0.1:8080/billing/cancel"
    max_network_retries: int = 2
    timeout_seconds: float = 30.0


@dataclass(frozen=True)
class OcrSettings:
    engine: str = "rapidocr"
    OCR_LANG: str = "ch"
    concurrency: int = 1
    dpi: int = 200
    threads: int = 1


@dataclass(frozen=True)
class LlmSettings:
    backend: str = "llama_cpp"
    model_path: str = ""
    n_ctx: int = 4096
    n_threads: int = 1
    max_tokens: int = 160
    enabled: bool = True


@dataclass(frozen=True)
class QueueSettings:
    max_depth: int = 200
    max_attempts: int = 4
    lease_seconds: int = 300
    backoff_seconds: float = 2.0
    poll_seconds: float = 0.5
    retry_after_seconds: int = 30


@dataclass(frozen=True)
class PoolSettings:
    backend: str = "ray"
    workers: int = 2


@dataclass(frozen=True)
class RaySettings:
    address: str = ""
    num_cpus: int = 0
    object_store_mb: int = 200


@dataclass(frozen=True)
class LogSettings:
    level: str = "INFO"
    format: str = "text"


@dataclass(frozen=True)
class MetricsSettings:
    """``GET /metrics`` (Prometheus) on its own port, always bound to 127.0.0.1."""

    enabled: bool = True
    port: int = 9464


@dataclass(frozen=True)
class Settings:
    """The effective settings. ``data_dir`` holds ``appliance.db``, ``files/`` and ``models/``."""

    data_dir: Path = Path("./data")
    server: ServerSettings = field(default_factory=ServerSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)
    credits: CreditSettings = field(default_factory=CreditSettings)
    stripe: StripeSettings = field(default_factory=StripeSettings)
    ocr: OcrSettings = field(default_factory=OcrSettings)
    llm: LlmSettings = field(default_factory=LlmSettings)
    queue: QueueSettings = field(default_factory=QueueSettings)
    pool: PoolSettings = field(default_factory=PoolSettings)
    ray: RaySettings = field(default_factory=RaySettings)
    log: LogSettings = field(default_factory=LogSettings)
    metrics: MetricsSettings = field(default_factory=MetricsSettings)

    @property
    def db_path(self) -> Path:
        return self.data_dir / "appliance.db"

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"


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


def _convert(value: str, like: Any, where: str) -> Any:
    try:
        if isinstance(like, bool):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if isinstance(like, int):
            return int(value)
        if isinstance(like, float):
            return float(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {value!r} is not a valid {type(like).__name__}") from exc
    return value


def _sections() -> dict[str, type]:
    return {f.name: f.default_factory for f in dataclasses.fields(Settings) if f.name != "data_dir"}  # type: ignore[misc]


def _apply_file(values: dict[str, dict[str, Any]], raw: dict[str, Any], path: Path) -> Path | None:
    data_dir = None
    sections = _sections()
    for key, value in raw.items():
        if key == "data_dir":
            data_dir = Path(value)
            if not data_dir.is_absolute():
                data_dir = (path.parent / data_dir).resolve()
            continue
        if key not in sections or not isinstance(value, dict):
            raise ConfigError(f"{path}: unknown setting {key!r}")
        known = {f.name: f for f in dataclasses.fields(sections[key])}
        for sub, sub_value in value.items():
            if sub not in known:
                raise ConfigError(f"{path}: unknown setting {key}.{sub}")
            if (key, sub) == ("credits", "packages"):
                sub_value = _packages(sub_value, path)
            values[key][sub] = sub_value
    return data_dir


def _packages(raw: Any, path: Path) -> tuple[PackageSetting, ...]:
    """``[[credits.packages]]`` tables into PackageSettings; ConfigError names what is wrong."""
    if not isinstance(raw, list):
        raise ConfigError(f"{path}: credits.packages must be a list of [[credits.packages]] tables")
    packages = []
    for index, table in enumerate(raw):
        where = f"{path}: credits.packages[{index}]"
        if not isinstance(table, dict) or set(table) - {"name", "credits", "active"}:
            raise ConfigError(f"{where}: only name, credits and active are allowed")
        name, credits, active = table.get("name"), table.get("credits"), table.get("active", True)
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{where}: name must be a non-empty string")
        if not isinstance(credits, int) or isinstance(credits, bool) or credits < 1:
            raise ConfigError(f"{where}: credits must be a positive integer")
        if not isinstance(active, bool):
            raise ConfigError(f"{where}: active must be true or false")
        packages.append(PackageSetting(name.strip(), credits, active))
    if len({p.name for p in packages}) != len(packages):
        raise ConfigError(f"{path}: credits.packages names must be unique")
    return tuple(packages)


def _apply_env(values: dict[str, dict[str, Any]], env: dict[str, str]) -> dict[tuple[str, str], str]:
    """Apply environment overrides into ``values``; returns ``{(section, key): variable}`` applied."""
    applied: dict[tuple[str, str], str] = {}
    sections = _sections()
    defaults = {name: dataclasses.asdict(factory()) for name, factory in sections.items()}
    for name, (section, key) in SPEC_ENV_NAMES.items():
        if name in env:
            values[section][key] = _convert(env[name], defaults[section][key], name)
            applied[(section, key)] = name
    for section, keys in defaults.items():
        for key, default in keys.items():
            if not isinstance(default, (str, int, float, bool)):
                continue  # lists (credits.packages) are set in the file only
            name = f"APPLIANCE_{section}_{key}".upper()
            if name in env:
                values[section][key] = _convert(env[name], default, name)
                applied[(section, key)] = name
    return applied


def load_settings(config_path: Path | None = None, data_dir: Path | None = None,
                  env: dict[str, str] | None = None) -> Settings:
    """Build Settings from defaults, the TOML file (if any) and the environment
    (``load_settings_with_origins`` without the origins)."""
    return load_settings_with_origins(config_path, data_dir, env)[0]


def load_settings_with_origins(config_path: Path | None = None, data_dir: Path | None = None,
                               env: dict[str, str] | None = None) -> tuple[Settings, dict[str, str]]:
    """Build Settings from defaults, the TOML file (if any) and the environment, and say where
    each value came from: ``{"section.key" or "data_dir": "default" | "file PATH" | "env NAME" |
    "--data-dir"}`` (for ``appliance config show``).

    ``config_path`` None means ``APPLIANCE_CONFIG`` or ``./config.toml`` when present.
    ``data_dir`` (the CLI's ``--data-dir``) wins over ``APPLIANCE_DATA_DIR`` and the file.
    Raises ConfigError for a missing file given explicitly, bad TOML, unknown keys or bad values.
    """
    env = dict(os.environ if env is None else env)
    if config_path is None and env.get("APPLIANCE_CONFIG"):
        config_path = Path(env["APPLIANCE_CONFIG"])
    elif config_path is None and Path("config.toml").is_file():
        config_path = Path("config.toml")
    values: dict[str, dict[str, Any]] = {name: {} for name in _sections()}
    file_data_dir = None
    if config_path is not None:
        try:
            raw = tomllib.loads(Path(config_path).read_text())
        except FileNotFoundError as exc:
            raise ConfigError(f"config file {config_path} does not exist") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{config_path}: {exc}") from exc
        file_data_dir = _apply_file(values, raw, Path(config_path).resolve())
    origins = {f"{section}.{key}": f"file {Path(config_path).resolve()}"
               for section, keys in values.items() for key in keys}
    for (section, key), name in _apply_env(values, env).items():
        origins[f"{section}.{key}"] = f"env {name}"
    sections = _sections()
    built = {}
    for name, factory in sections.items():
        try:
            built[name] = factory(**values[name])
        except TypeError as exc:
            raise ConfigError(f"[{name}]: {exc}") from exc
    chosen = data_dir or (Path(env["APPLIANCE_DATA_DIR"]) if env.get("APPLIANCE_DATA_DIR") else None) \
        or file_data_dir or Settings().data_dir
    settings = Settings(data_dir=Path(chosen).resolve(), **built)
    validate(settings)
    origins["data_dir"] = ("--data-dir" if data_dir else "env APPLIANCE_DATA_DIR" if env.get("APPLIANCE_DATA_DIR")
                           else f"file {Path(config_path).resolve()}" if file_data_dir else "default")
    return settings, origins


def validate(settings: Settings) -> None:
    """Reject values that cannot work. Raises ConfigError naming the setting."""
    if settings.ocr.OCR_LANG not in ("ch", "en", "th"):
        raise ConfigError("OCR_LANG must be one of ch, en, th")
    if settings.limits.OCR_MAX_UPLOAD_MB > settings.limits.MAX_FILE_SIZE_MB:
        raise ConfigError("OCR_MAX_UPLOAD_MB cannot exceed MAX_FILE_SIZE_MB")
    for name, value in (("MAX_FILE_SIZE_MB", settings.limits.MAX_FILE_SIZE_MB),
                        ("OCR_MAX_PDF_PAGES", settings.limits.OCR_MAX_PDF_PAGES),
                        ("limits.max_pdf_pages", settings.limits.max_pdf_pages),
                        ("ocr.concurrency", settings.ocr.concurrency),
                        ("queue.max_attempts", settings.queue.max_attempts),
                        ("pool.workers", settings.pool.workers)):
        if value < 1:
            raise ConfigError(f"{name} must be at least 1")
    if not 0 < settings.limits.job_timeout_seconds < settings.queue.lease_seconds:
        # past the lease the queue would hand the job to a second worker while the first still runs
        raise ConfigError("limits.job_timeout_seconds must be above 0 and below queue.lease_seconds")
    if settings.limits.worker_memory_mb < 0:
        raise ConfigError("limits.worker_memory_mb cannot be negative (0: no limit)")
    if settings.pool.backend not in ("ray", "inline"):
        raise ConfigError("pool.backend must be \"ray\" or \"inline\"")
    if settings.credits.cost_per_invoice < 0:
        raise ConfigError("credits.cost_per_invoice cannot be negative")
    if settings.credits.price_per_credit_cents < 1:
        raise ConfigError("credits.price_per_credit_cents must be at least 1")
    currency = settings.credits.currency
    if len(currency) != 3 or not currency.isalpha() or currency != currency.lower():
        raise ConfigError("credits.currency must be a lower-case ISO 4217 code such as \"eur\"")
