"""One tree of exceptions (STYLE.md 2): each knows its HTTP status and CLI exit code, and its
message tells the caller what to do next. The core raises; only the edges convert."""

from __future__ import annotations


class ApplianceError(Exception):
    """Base class. ``status`` is the HTTP status, ``exit_code`` the CLI's."""

    status = 500
    exit_code = 1
    headers: dict[str, str] = {}

    def __init__(self, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if headers:
            self.headers = headers


class ConfigError(ApplianceError):
    """A setting is missing, unknown or invalid."""

    exit_code = 78  # EX_CONFIG


class BadRequest(ApplianceError):
    status = 400
    exit_code = 65


class UnsupportedFileType(BadRequest):
    """Magic bytes are not PDF, JPEG or PNG (spec section 8)."""


class UnreadableUpload(BadRequest):
    """The file has a supported type but cannot be read safely: truncated, corrupt, encrypted or
    a polyglot (appliance.uploads); refused before the debit."""


class AlreadyAttached(BadRequest):
    """A file is already attached to that invoice slot (spec 4.6)."""


class IdempotencyKeyReused(ApplianceError):
    """An ``Idempotency-Key`` already used for another request within 24 h (appliance.idempotency;
    422 as in Stripe's convention)."""

    status = 422
    exit_code = 65


class Unauthorized(ApplianceError):
    status = 401

    def __init__(self) -> None:
        super().__init__("Invalid or missing API key")


class InsufficientCredits(ApplianceError):
    status = 402
    exit_code = 75


class NotFound(ApplianceError):
    status = 404
    exit_code = 66


class TooManySlots(ApplianceError):
    """The tenant has ``limits.max_open_slots`` upload/init slots waiting for a file (rate limits
    are "not shown" in the spec: 429, as HTTP has it)."""

    status = 429
    exit_code = 75


class FileTooLarge(ApplianceError):
    status = 413
    exit_code = 65


class QueueUnavailable(ApplianceError):
    """The pipeline pool is not healthy or the backlog is full (spec 4.6, 503 with Retry-After)."""

    status = 503
    exit_code = 75


class JobBusy(ApplianceError):
    """A job is leased by a worker right now; retry or reprocess it once it is done."""

    status = 409
    exit_code = 75


class PaymentNotConfigured(ApplianceError):
    """No Stripe secret key (or webhook secret) configured (spec 4.3, 4.4: 503)."""

    status = 503
    exit_code = 78


class PaymentProcessorUnavailable(ApplianceError):
    """Stripe could not be reached or timed out; nothing was applied, safe to retry."""

    status = 503
    exit_code = 75


class PaymentProcessorError(ApplianceError):
    """Stripe answered with a server error; nothing was applied, safe to retry."""

    status = 502
    exit_code = 75
