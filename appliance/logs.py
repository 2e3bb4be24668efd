"""Logging set-up: one line per event, plain text or JSON (``log.format``), to stderr (journald)."""

from __future__ import annotations

import json
import logging
import sys


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        body = {
            "ts": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            body["exc"] = self.formatException(record.exc_info)
        return json.dumps(body, ensure_ascii=False)


# Third-party loggers whose DEBUG lines carry SQL parameters (the SHA-256 of every API key a
# client presents, invoice data): kept at INFO whatever ``log.level`` says.
QUIET_LOGGERS = ("aiosqlite",)


def quiet_noisy_loggers() -> None:
    """Raise the loggers of QUIET_LOGGERS to INFO (never lowers a level set higher)."""
    for name in QUIET_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < logging.INFO:
            logger.setLevel(logging.INFO)


def setup_logging(level: str = "INFO", fmt: str = "text") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if fmt == "json" else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    quiet_noisy_loggers()
