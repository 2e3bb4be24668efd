"""Wake-ups for long polls (``GET /api/v1/invoices/{id}?wait=``, issue 12): the dispatcher says
an invoice changed (``notify``) and the polls waiting on it answer at once instead of at their
next look. Only this process's changes are heard; a waiting poll also looks again every
``RECHECK_SECONDS`` for the others' (a correction made with the CLI).

Imports nothing of the appliance.
"""

from __future__ import annotations

import asyncio

RECHECK_SECONDS = 1.0


class InvoiceChanges:
    """Futures of the polls waiting on each invoice id; one per ``Database`` (``db.changes``)."""

    def __init__(self) -> None:
        self._waiting: dict[str, set[asyncio.Future]] = {}
        self.closed = False

    def close(self) -> None:
        """Shutting down: wake every waiting poll, and let none wait from now on."""
        self.closed = True
        for invoice_id in list(self._waiting):
            self.notify(invoice_id)

    def notify(self, invoice_id: str) -> None:
        """Wake every poll waiting on ``invoice_id`` (after the change has committed)."""
        for future in self._waiting.pop(invoice_id, ()):
            if not future.done():
                future.set_result(None)

    async def wait(self, invoice_id: str, timeout: float) -> None:
        """Return when ``invoice_id`` is notified, or after ``timeout`` seconds, whichever is
        first; at once after ``close()``."""
        if self.closed:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(invoice_id, set()).add(future)
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            pass
        finally:
            waiting = self._waiting.get(invoice_id)
            if waiting is not None:
                waiting.discard(future)
                if not waiting:
                    del self._waiting[invoice_id]

    def __len__(self) -> int:
        """Polls waiting now (for tests and metrics)."""
        return sum(len(futures) for futures in self._waiting.values())
