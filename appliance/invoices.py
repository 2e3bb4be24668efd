"""Invoice slots, accepted uploads and the invoice as a tenant or an operator sees it.

Accepting an upload (spec 4.6, 4.7, DESIGN.md flow step 2) is one ``BEGIN IMMEDIATE``
transaction: invoice row, file row, ledger debit and job row; a 202 means all four are durable.
When the queue is unavailable the debit is refunded in the same transaction (spec 3.1 rule 4)
and no job is written; the slot stays attachable.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from appliance import idempotency, ledger, review, vendors
from appliance.db import Database, fetchone, utc_ago, utcnow
from appliance.errors import AlreadyAttached, InsufficientCredits, NotFound, QueueUnavailable, TooManySlots
from appliance.queue import jobs
from appliance.settings import Settings
from appliance.tenants import parse_uuid
from appliance.uploads import StoredUpload
from pipeline.result import ExtractionResult
from pipeline.schema import READY_STATES, InvoiceStatus, ProcessingStatus
from pipeline.values.money import CENT, to_json

OPEN_SLOT = "status = 'pending' AND NOT EXISTS (SELECT 1 FROM files f WHERE f.invoice_id = invoices.id)"


async def create_slot(db: Database, tenant_id: str, ttl_seconds: int = 0, cap: int = 0) -> str:
    """Create a pending invoice with no file (spec 4.5); returns its id. No credits move.

    First drops the tenant's open slots (no file) older than ``ttl_seconds``
    (``limits.init_slot_ttl_seconds``; 0: none expire); raises TooManySlots (429) when ``cap``
    (``limits.max_open_slots``; 0: no cap) are still open. Issue 12: free slots that never
    expired piled up by the thousand."""
    invoice_id = str(uuid.uuid4())
    now = utcnow()
    async with db.transaction() as conn:
        if ttl_seconds:
            await conn.execute(
                f"DELETE FROM invoices WHERE tenant_id = ? AND {OPEN_SLOT} AND created_at < ?",
                (tenant_id, utc_ago(ttl_seconds)),
            )
        if cap:
            row = await fetchone(
                conn, f"SELECT COUNT(*) AS n FROM invoices WHERE tenant_id = ? AND {OPEN_SLOT}", (tenant_id,)
            )
            if row["n"] >= cap:
                raise TooManySlots(
                    f"Too many open upload slots ({row['n']}, limits.max_open_slots): attach files to them "
                    "or wait for them to expire"
                )
        await conn.execute(
            "INSERT INTO invoices (id, tenant_id, status, processing_status, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (invoice_id, tenant_id, InvoiceStatus.PENDING, ProcessingStatus.QUEUED, now, now),
        )
    return invoice_id


async def check_slot(db: Database, tenant_id: str, invoice_id: str) -> str:
    """The canonical id of an attachable slot. NotFound (another tenant's, malformed, unknown) or AlreadyAttached."""
    canonical = parse_uuid(invoice_id)
    row = None
    if canonical:
        row = await db.fetchone(
            "SELECT i.id, f.id AS file_id FROM invoices i LEFT JOIN files f ON f.invoice_id = i.id "
            "WHERE i.id = ? AND i.tenant_id = ?",
            (canonical, tenant_id),
        )
    _check_attachable(row)
    return canonical


def _check_attachable(row) -> None:
    """Raise NotFound unless ``row`` (``file_id``: the slot's file) is a slot, AlreadyAttached
    when it has its file already."""
    if row is None:
        raise NotFound("Invoice slot not found")
    if row["file_id"] is not None:
        raise AlreadyAttached("A file is already attached to this invoice")


async def check_vendor(db: Database, tenant_id: str, vendor_id: str | None) -> str | None:
    """The canonical vendor id when it names a vendor of this tenant; NotFound otherwise."""
    if vendor_id is None or vendor_id == "":
        return None
    canonical = parse_uuid(vendor_id)
    if (
        canonical is None
        or await db.fetchone("SELECT 1 FROM vendors WHERE id = ? AND tenant_id = ?", (canonical, tenant_id)) is None
    ):
        raise NotFound("Vendor not found: vendorId must be the UUID of one of your vendors")
    return canonical


async def check_balance(db: Database, tenant_id: str, cost: int) -> None:
    """Refuse an upload the tenant cannot pay for (InsufficientCredits, 402) before its body is
    read, rather than after streaming up to MAX_FILE_SIZE_MB (issue 12; an attach checks its
    slot first, ``check_slot``). ``accept_upload`` debits in its transaction, which is what counts."""
    balance = await ledger.balance(db, tenant_id)
    if balance < cost:
        raise InsufficientCredits(f"Insufficient credits: balance {balance}, {cost} needed; buy credits and retry")


async def accept_upload(
    db: Database,
    settings: Settings,
    tenant_id: str,
    upload: StoredUpload,
    *,
    invoice_id: str | None,
    vendor_id: str | None,
    queue_ready: Callable[[], bool],
    claim: idempotency.Claim | None = None,
) -> dict[str, Any]:
    """Record an upload and debit it; returns the upload-accepted body of spec 2.7 but its URL
    (``invoice``, ``fileId``; the API adds ``statusUrl``).

    ``invoice_id`` None creates the invoice (one-step upload). ``claim`` records the request's
    Idempotency-Key with the body in the same transaction (``appliance.idempotency.KeyTaken``
    when another request recorded it first: nothing is kept). Raises InsufficientCredits (402),
    NotFound / AlreadyAttached for the slot, QueueUnavailable (503, refunded: ``_queue_full``). On any error
    nothing is kept, except the refund pair in the ledger; ``upload.recorded`` is set once the
    file's row has committed (``appliance.uploads.kept_if_recorded`` removes an unrecorded file).
    """
    cost = settings.credits.cost_per_invoice
    now = utcnow()
    refused: QueueUnavailable | None = None
    async with db.transaction() as conn:
        if invoice_id is None:
            invoice_id = str(uuid.uuid4())
            await conn.execute(
                "INSERT INTO invoices (id, tenant_id, vendor_id, status, processing_status, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (invoice_id, tenant_id, vendor_id, InvoiceStatus.PENDING, ProcessingStatus.QUEUED, now, now),
            )
        else:
            row = await fetchone(
                conn,
                "SELECT (SELECT id FROM files WHERE invoice_id = i.id) AS file_id FROM invoices i "
                "WHERE i.id = ? AND i.tenant_id = ?",
                (invoice_id, tenant_id),
            )
            _check_attachable(row)
            await conn.execute(
                "UPDATE invoices SET vendor_id = ?, updated_at = ? WHERE id = ?", (vendor_id, now, invoice_id)
            )
        await ledger.post(conn, tenant_id, -cost, "upload_debit", invoice_id=invoice_id)
        full = await _queue_full(conn, settings, tenant_id, queue_ready)
        if full:
            await ledger.post(conn, tenant_id, cost, "queue_refund", invoice_id=invoice_id)
            refused = QueueUnavailable(
                f"{full}; the credits were refunded, retry later",
                headers={"Retry-After": str(settings.queue.retry_after_seconds)},
            )
        else:
            await conn.execute(
                "INSERT INTO files (id, tenant_id, invoice_id, path, size, sha256, media_type, original_name, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    upload.file_id,
                    tenant_id,
                    invoice_id,
                    str(upload.final_path),
                    upload.size,
                    upload.sha256,
                    upload.media_type,
                    upload.original_name,
                    now,
                ),
            )
            await jobs.enqueue(conn, invoice_id, tenant_id)
            row = await fetchone(conn, "SELECT * FROM invoices WHERE id = ?", (invoice_id,))
            body = {"invoice": summary_of(row), "fileId": upload.file_id}
            if claim is not None:
                await idempotency.record(conn, tenant_id, claim, invoice_id, body)  # KeyTaken: all rolls back
            upload.place()
    if refused is not None:
        raise refused
    upload.recorded = True
    return body


async def _queue_full(conn, settings: Settings, tenant_id: str, queue_ready: Callable[[], bool]) -> str:
    """Why the queue takes no more of this tenant's jobs ("" when it does): the dispatcher is not
    running, the whole queue holds ``queue.max_depth`` jobs, or this tenant's share holds
    ``queue.max_depth_per_tenant`` (issue 12: one tenant's batch must not fill it for all)."""
    if not queue_ready():
        return "Extraction queue unavailable"
    if await jobs.depth(conn) >= settings.queue.max_depth:
        return "Extraction queue full"
    share = settings.queue.max_depth_per_tenant
    if share and await jobs.depth(conn, tenant_id) >= share:
        return f"Extraction queue full for this tenant ({share} invoices waiting or in progress)"
    return ""


# The keys of the invoice summary (spec 2.6) and the ``invoices`` columns they come from.
SUMMARY_COLUMNS = {
    "id": "id",
    "status": "status",
    "processingStatus": "processing_status",
    "tenantId": "tenant_id",
    "vendorId": "vendor_id",
    "invoiceNumber": "invoice_number",
    "createdAt": "created_at",
    "updatedAt": "updated_at",
}


def summary_of(row) -> dict[str, Any]:
    """The invoice summary of spec 2.6 from an ``invoices`` row."""
    return {key: row[column] for key, column in SUMMARY_COLUMNS.items()}


async def get_invoice(db: Database, invoice_id: str, tenant_id: str | None, *, operator: bool = False) -> dict:
    """The invoice JSON response of spec 2.8. ``tenant_id`` None (operator CLI) sees every tenant.

    All fields present, null where empty; the three operator-only fields only when ``operator``
    (DESIGN.md decisions). Raises NotFound for another tenant's, malformed or unknown ids.
    """
    row = await _invoice_row(db, invoice_id, tenant_id)
    body = _decoded(row)
    if operator:
        body.update(
            tenantId=row["tenant_id"],
            extractionTier=row["extraction_tier"],
            extractionProvider=row["extraction_provider"],
            routingReason=row["routing_reason"],
        )
    await review.overlay(db, body, history=operator)  # human corrections on top (spec 1.3)
    return body


@dataclass(frozen=True)
class Poll:
    """What ``GET /api/v1/invoices/{id}`` answers: ``body``, the JSON of ``get_invoice`` as bytes;
    ``ready``; ``etag``, the SHA-256 of the body (hex, 32 digits), which changes exactly when
    the body does (RFC 9110 8.8.3, a strong validator)."""

    body: bytes
    ready: bool
    etag: str


async def poll(db: Database, invoice_id: str, tenant_id: str) -> Poll:
    """The tenant's invoice as ``get_invoice`` has it, encoded (a Poll). Raises NotFound likewise.

    Without corrections (the usual case) the stored JSON of ``data``, ``validationErrors`` and
    ``evidence`` goes out as stored, never decoded and encoded again: on the poll endpoint that
    round trip cost more than the rest of the answer (issue 12, bench/results/api.md)."""
    row = await _invoice_row(db, invoice_id, tenant_id)
    ready = row["processing_status"] in READY_STATES
    corrections = await review.corrections_of(db, row["id"])
    if corrections:
        body = _decoded(row)
        await review.overlay(db, body, rows=corrections)
        encoded = json.dumps(body).encode()
    else:
        head = json.dumps(_head(row, ready))
        data = row["data_json"] or "null"
        errors = row["validation_errors_json"] or "[]"
        evidence = row["evidence_json"] if row["evidence_json"] and ready else "{}"
        encoded = f'{head[:-1]}, "data": {data}, "validationErrors": {errors}, "evidence": {evidence}}}'.encode()
    return Poll(encoded, ready, hashlib.sha256(encoded).hexdigest()[:32])


async def _invoice_row(db: Database, invoice_id: str, tenant_id: str | None):
    canonical = parse_uuid(invoice_id)
    row = None
    if canonical:
        row = await db.lookup(  # every poll: the loop's own thread (Database.lookup)
            "SELECT i.*, v.name AS vendor_name FROM invoices i LEFT JOIN vendors v ON v.id = i.vendor_id "
            "WHERE i.id = ?",
            (canonical,),
        )
    if row is None or (tenant_id is not None and row["tenant_id"] != tenant_id):
        raise NotFound("Invoice not found")
    return row


def _decoded(row) -> dict[str, Any]:
    """The response of spec 2.8 from the row, stored JSON decoded, before corrections."""
    ready = row["processing_status"] in READY_STATES
    return _head(row, ready) | {
        "data": json.loads(row["data_json"]) if row["data_json"] else None,
        "validationErrors": json.loads(row["validation_errors_json"] or "[]"),
        "evidence": json.loads(row["evidence_json"]) if row["evidence_json"] and ready else {},
    }


def _head(row, ready: bool) -> dict[str, Any]:
    """The fields of spec 2.8 but ``data``, ``validationErrors`` and ``evidence``."""
    return {
        "id": row["id"],
        "processingStatus": row["processing_status"],
        "status": row["status"],
        "direction": row["direction"],
        "ready": ready,
        "ocrConfidence": row["ocr_confidence"],
        "processingError": row["processing_error"],
        "isDuplicate": bool(row["is_duplicate"]),
        "duplicateOf": row["duplicate_of"],
        "vendor": {"id": row["vendor_id"], "vendorName": row["vendor_name"]} if row["vendor_id"] else None,
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
    }


async def record_result(db: Database, job_id: str, invoice_id: str, result: ExtractionResult) -> None:
    """Write a pipeline result and finish the job, atomically; also decides the vendor,
    ``direction`` and duplicates (``resolve``). Amounts become JSON numbers here, the
    pipeline's edge (``pipeline.values.money.to_json``).

    ``status`` follows DESIGN.md flow step 5: ``extracted`` when data exists, ``duplicate`` when
    the invoice duplicates an earlier one of the tenant, ``pending`` when failed; a human
    decision or stored corrections keep theirs (``appliance.review.status_after_extraction``).
    """
    data = to_json(result.data)
    failed = data is None or result.processing_status == ProcessingStatus.FAILED
    async with db.transaction() as conn:
        resolved = await resolve(conn, invoice_id, data, result.vendor_id) if not failed else Resolution()
        status = (
            InvoiceStatus.PENDING
            if failed
            else InvoiceStatus.DUPLICATE
            if resolved.duplicate_of
            else InvoiceStatus.EXTRACTED
        )
        status = await review.status_after_extraction(conn, invoice_id, status)  # human review outlives a reprocess
        await conn.execute(
            "UPDATE invoices SET status = ?, processing_status = ?, data_json = ?, invoice_number = ?, "
            "total_amount = ?, ocr_confidence = ?, validation_errors_json = ?, processing_error = ?, "
            "extraction_tier = ?, extraction_provider = ?, routing_reason = ?, evidence_json = ?, "
            "vendor_id = COALESCE(vendor_id, ?), direction = ?, is_duplicate = ?, duplicate_of = ?, updated_at = ? "
            "WHERE id = ?",
            (
                status,
                result.processing_status,
                json.dumps(data) if data is not None else None,
                (data or {}).get("invoice_number"),
                (data or {}).get("total_amount"),
                result.ocr_confidence,
                json.dumps(result.validation_errors),
                result.processing_error,
                result.extraction_tier,
                result.extraction_provider,
                result.routing_reason,
                json.dumps(to_json(result.evidence)),
                resolved.vendor_id,
                resolved.direction,
                int(resolved.duplicate_of is not None),
                resolved.duplicate_of,
                utcnow(),
                invoice_id,
            ),
        )
        await _keep_text(conn, invoice_id, result.layout_text)
        await jobs.finish(conn, job_id, result.processing_error)
    db.changes.notify(invoice_id)  # long polls (?wait=) answer now


async def _keep_text(conn, invoice_id: str, layout: str | None) -> None:
    """Keep the text the pipeline read (``ExtractionResult.layout_text``) beside the invoice, in
    place of the last one; none read (a failed run) removes it."""
    if layout is None:
        await conn.execute("DELETE FROM invoice_texts WHERE invoice_id = ?", (invoice_id,))
        return
    await conn.execute(
        "INSERT INTO invoice_texts (invoice_id, layout, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT(invoice_id) DO UPDATE SET layout = excluded.layout, updated_at = excluded.updated_at",
        (invoice_id, layout, utcnow()),
    )


async def kept_text(db: Database, invoice_id: str) -> str | None:
    """The text the pipeline read from the invoice as tier 1's templates read it, as its last
    extraction kept it (``record_result``); None when none is kept (extracted before the
    appliance kept texts, or its last run failed)."""
    row = await db.fetchone("SELECT layout FROM invoice_texts WHERE invoice_id = ?", (invoice_id,))
    return row["layout"] if row else None


@dataclass
class Resolution:
    """What the tenant's records say about an extraction: its vendor, direction, the invoice it duplicates."""

    vendor_id: str | None = None
    direction: str = "payable"
    duplicate_of: str | None = None


async def resolve(conn, invoice_id: str, data: dict[str, Any], template_vendor: str | None) -> Resolution:
    """Vendor, direction and duplicate of an extracted invoice, inside the caller's transaction.

    - ``receivable`` when the issuer is the tenant itself (its tax id, or its company name within
      the vendor-name ratio); then no vendor is created from the issuer.
    - vendor: the upload's ``vendorId``, else the vendor whose template applied, else matched by
      tax id or fuzzy name among the tenant's vendors, else a new vendor.
    - duplicate: an earlier invoice of the tenant with the same file (SHA-256), or with the same
      vendor and invoice number (and the same total when both have one).
    """
    invoice = await fetchone(
        conn,
        "SELECT i.tenant_id, i.vendor_id, i.created_at, f.sha256, t.company_name, "
        "t.tax_id FROM invoices i JOIN tenants t ON t.id = i.tenant_id "
        "LEFT JOIN files f ON f.invoice_id = i.id WHERE i.id = ?",
        (invoice_id,),
    )
    tenant_id = invoice["tenant_id"]
    direction = "receivable" if _issued_by_tenant(data, invoice["company_name"], invoice["tax_id"]) else "payable"
    vendor_id = invoice["vendor_id"] or template_vendor
    if vendor_id is None and direction == "payable":
        vendor_id = await vendors.match_or_create(conn, tenant_id, data)
    duplicate = await fetchone(
        conn,
        "SELECT i.id FROM invoices i JOIN files f ON f.invoice_id = i.id WHERE i.tenant_id = ? AND "
        "f.sha256 = ? AND i.id != ? AND i.created_at <= ? ORDER BY i.created_at LIMIT 1",
        (tenant_id, invoice["sha256"], invoice_id, invoice["created_at"]),
    )
    number = data.get("invoice_number")
    if duplicate is None and vendor_id and number:
        total = data.get("total_amount")
        duplicate = await fetchone(  # the same total: equal to the cent (pipeline.values.money.same_amount)
            conn,
            "SELECT id FROM invoices WHERE tenant_id = ? AND vendor_id = ? AND id != ? AND "
            "lower(invoice_number) = lower(?) AND created_at <= ? AND processing_status IN (?, ?) "
            "AND (? IS NULL OR total_amount IS NULL OR abs(total_amount - ?) < ?) ORDER BY created_at LIMIT 1",
            (
                tenant_id,
                vendor_id,
                invoice_id,
                number,
                invoice["created_at"],
                ProcessingStatus.COMPLETED,
                ProcessingStatus.NEEDS_REVIEW,
                total,
                total,
                float(CENT / 2),
            ),
        )
    return Resolution(vendor_id, direction, duplicate["id"] if duplicate else None)


def _issued_by_tenant(data: dict[str, Any], company_name: str | None, tax_id: str | None) -> bool:
    if tax_id and vendors.normalise_tax_id(data.get("vendor_tax_id")) == vendors.normalise_tax_id(tax_id):
        return True
    if company_name and data.get("vendor_name"):
        ours, theirs = vendors.normalise_name(company_name), vendors.normalise_name(data["vendor_name"])
        return bool(ours) and difflib.SequenceMatcher(None, ours, theirs).ratio() >= vendors.NAME_MATCH_RATIO
    return False
