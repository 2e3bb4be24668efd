"""One tree of exceptions (STYLE.md 2): each knows its HTTP status and CLI exit code, and its
message tells the caller what to do next. The core raises; only the edges convert."""

from __future__ import annotations


class ApplianceError(Exception):
    """Base class. ``status`` is the HTTP status, ``exit_code`` the CLI's; a subclass names the
    ones it changes in its class line (``class NotFound(ApplianceError, status=404, exit_code=66)``)."""

    status = 500
    exit_code = 1
    headers: dict[str, str] = {}

    def __init_subclass__(cls, *, status: int | None = None, exit_code: int | None = None, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if exit_code is not None:
            cls.exit_code = exit_code

    def __init__(self, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if headers:
            self.headers = headers


class ConfigError(ApplianceError, exit_code=78):  # EX_CONFIG
    """A setting is missing, unknown or invalid."""


class BadRequest(ApplianceError, status=400, exit_code=65):
    """The request or the command's input is malformed; the message says what to correct."""


class UnsupportedFileType(BadRequest):
    """Magic bytes are not PDF, JPEG or PNG (spec section 8)."""


class UnreadableUpload(BadRequest):
    """The file has a supported type but cannot be read safely: truncated, corrupt, encrypted or
    a polyglot (appliance.uploads); refused before the debit."""


class AlreadyAttached(BadRequest):
    """A file is already attached to that invoice slot (spec 4.6)."""


class IdempotencyKeyReused(ApplianceError, status=422, exit_code=65):
    """An ``Idempotency-Key`` already used for another request within 24 h (appliance.idempotency;
    422 as in Stripe's convention)."""


class Unauthorized(ApplianceError, status=401):
    """The API key is missing, unknown or revoked (spec section 5)."""

    def __init__(self) -> None:
        super().__init__("Invalid or missing API key")


class InsufficientCredits(ApplianceError, status=402, exit_code=75):
    """The tenant's balance does not cover the upload; buy or grant credits, then retry."""


class NotFound(ApplianceError, status=404, exit_code=66):
    """No such tenant, invoice, vendor, package or job (or not the caller's)."""


class TooManySlots(ApplianceError, status=429, exit_code=75):
    """The tenant has ``limits.max_open_slots`` upload/init slots waiting for a file (rate limits
    are "not shown" in the spec: 429, as HTTP has it)."""


class FileTooLarge(ApplianceError, status=413, exit_code=65):
    """The upload is over ``limits.MAX_FILE_SIZE_MB`` (or the OCR limits for its kind)."""


class QueueUnavailable(ApplianceError, status=503, exit_code=75):
    """The pipeline pool is not healthy or the backlog is full (spec 4.6, 503 with Retry-After)."""


class JobBusy(ApplianceError, status=409, exit_code=75):
    """A job is leased by a worker right now; retry or reprocess it once it is done."""


class PaymentNotConfigured(ApplianceError, status=503, exit_code=78):
    """No Stripe secret key (or webhook secret) configured (spec 4.3, 4.4: 503)."""


class PaymentProcessorUnavailable(ApplianceError, status=503, exit_code=75):
    """Stripe could not be reached or timed out; nothing was applied, safe to retry."""


class PaymentProcessorError(ApplianceError, status=502, exit_code=75):
    """Stripe answered with a server error; nothing was applied, safe to retry."""


class NotApproved(ApplianceError, status=409, exit_code=65):
    """Only an approved invoice leaves the appliance as an export (CSV, e-invoice): approve it
    first (the review page, or ``appliance invoice approve``)."""


class NotExportable(ApplianceError, status=422, exit_code=65):
    """The invoice lacks what an EN 16931 e-invoice needs, or its figures break an EN 16931 rule:
    ``problems`` names each business term (BT-n) and what to correct; nothing is invented and no
    document is made. Correct the invoice (review page or ``appliance invoice correct``), then
    export again."""

    def __init__(self, invoice_id: str, problems: list[str]) -> None:
        super().__init__(f"Invoice {invoice_id} cannot be exported as an EN 16931 e-invoice: " + "; ".join(problems))
        self.problems = list(problems)


class DocumentInvalid(ApplianceError, status=500, exit_code=70):  # EX_SOFTWARE
    """A document the appliance made failed the official XSD: it is not offered. A bug of the
    appliance's mapping; the message names the XSD's complaint."""
