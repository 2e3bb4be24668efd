"""The operator CLI ``appliance`` (click). Command words are a contract: scripts rely on them.

``root`` holds the group and the error-to-exit-code edge; ``service`` operates the appliance
(init, check, config show, serve, backup, restore, extract), ``accounts`` the tenants, keys,
credits and vendors, ``invoices`` and ``jobs`` an operator's view of invoices and the queue,
``ocr`` what the OCR engine reads from a file, ``retention`` removes old approved files now,
``export`` approved invoices as CSV and e-invoices,
``config_show`` renders the effective settings, ``common`` runs a coroutine on the database.
Must not import ``api`` (``serve`` starts the composition root ``server``, which does); heavy modules
(Ray, models) are imported inside the command that needs them.
"""

from appliance.cli.root import main

__all__ = ["main"]
