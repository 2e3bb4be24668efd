"""``appliance training export``: a tenant's human-approved invoices as training data, in the
layout ``training.dataset --reviewed-dir`` (and ``scripts/train-extractor --reviewed-dir``)
reads, so that an operator can retrain the extraction adapter on the customer's own documents,
on-prem (issue 13).

OUT gets, per invoice whose review decision is ``approved`` (a person vouched for every field):
``<invoice id><.pdf|.jpg|.png>`` (the uploaded file), ``<invoice id>.json`` (the data as the API
shows it, corrections applied: the ground truth), ``<invoice id>.txt`` (the text the pipeline
read, ``raw_text``), and one ``manifest.json`` listing them in the datasets' manifest format.
Rejected and merely corrected invoices are left out: their other fields were never vouched for.

Imports nothing of ``api``, ``webui`` or ``training`` (the reader is training's).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from appliance import invoices
from appliance.db import Database
from pipeline.schema import HEADER_FIELDS

SUFFIXES = {"application/pdf": ".pdf", "image/jpeg": ".jpg", "image/png": ".png"}
README = """Reviewed invoices exported by `appliance training export` (approved by a person: the
JSON beside each file is its ground truth). Train on them with

    scripts/train-extractor --reviewed-dir {out}

These are the customer's documents: keep this folder on the appliance host.
"""


async def approved_invoices(
    db: Database, tenant_id: str | None = None, since: str | None = None, until: str | None = None
) -> list:
    """The approved invoices (review decision ``approved``: a person vouched for every field) of
    ``tenant_id`` (None: every tenant) approved from the ISO date ``since`` to ``until``, both
    days included (UTC; None: open), oldest approval first. Rows of ``id``, ``tenant_id``,
    ``decided_at``, ``decided_by`` and the stored file's ``path`` and ``media_type`` (None
    without one). The training export and the accounting export (``appliance.export``) read
    the same set."""
    return await db.fetchall(
        "SELECT i.id, i.tenant_id, i.decided_at, i.decided_by, f.path, f.media_type FROM invoices i "
        "LEFT JOIN files f ON f.invoice_id = i.id WHERE i.review_decision = 'approved' "
        "AND (? IS NULL OR i.tenant_id = ?) AND (? IS NULL OR i.decided_at >= ?) "
        "AND (? IS NULL OR i.decided_at < date(?, '+1 day')) ORDER BY i.decided_at, i.id",
        (tenant_id, tenant_id, since, since, until, until),
    )


async def export_reviewed(db: Database, out: Path, tenant_id: str | None = None, since: str | None = None) -> int:
    """Write the approved invoices (of ``tenant_id``; decided on or after the ISO date ``since``)
    into ``out`` (created; files of an earlier export are replaced); returns how many."""
    rows = await approved_invoices(db, tenant_id, since)
    out.mkdir(parents=True, exist_ok=True)
    manifest: list[dict[str, Any]] = []
    for row in rows:
        body = await invoices.get_invoice(db, row["id"], None)
        data = body["data"] or {}
        suffix = SUFFIXES.get(row["media_type"], "")
        source = Path(row["path"] or "")
        if not data or not suffix or not source.is_file():
            continue
        shutil.copyfile(source, out / f"{row['id']}{suffix}")
        truth = {name: data.get(name) for name in HEADER_FIELDS} | {"line_items": data.get("line_items") or None}
        (out / f"{row['id']}.json").write_text(json.dumps(truth, indent=2, ensure_ascii=False) + "\n")
        (out / f"{row['id']}.txt").write_text(data.get("raw_text") or "")
        manifest.append(
            {
                "file": f"{row['id']}{suffix}",
                "truth": f"{row['id']}.json",
                "text": f"{row['id']}.txt",
                "labeled_fields": [*HEADER_FIELDS, *(["line_items"] if truth["line_items"] else [])],
                "language": "en",
                "doc_type": "reviewed_invoice",
                "group": f"vendor:{' '.join(str(data.get('vendor_name') or row['id']).casefold().split())}",
                "tenant": row["tenant_id"],
            }
        )
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    (out / "README.md").write_text(README.format(out=out))
    return len(manifest)
