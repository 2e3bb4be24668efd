"""Human review of an extraction (spec 1.3, DESIGN.md flow steps 5-6): corrections, approve, reject.

Corrections are rows of ``corrections`` beside the extraction (``invoices.data_json``), never
written over it; ``overlay`` applies them on top whenever an invoice is read, the latest per
field winning, and gives each corrected field the evidence ``{page: null, bbox: null, text,
confidence: 1.0, source: "human"}`` (line cells under ``line_items[N].field``, N 1-based). A
reprocess rewrites ``data_json`` only, so the corrections stay on top of the new extraction; a
line correction whose line the new extraction no longer has is not applied (it stays stored).

Status (spec 3.2, decided here since the spec leaves it open):
- a correction sets ``reviewed`` and withdraws an earlier approve/reject, which judged other data;
- ``approve`` / ``reject`` set ``approved`` / ``rejected`` and are remembered in
  ``review_decision``; an invoice still queued or processing cannot be corrected or decided;
- after an extraction (first run or reprocess) the status comes from the pipeline, except that
  a human decision is kept, and ``reviewed`` is kept while corrections exist
  (``status_after_extraction``): the data shown is still the human's.
"""

from __future__ import annotations

import json
from typing import Any

from appliance import profiles
from appliance.correction_values import as_text, header_value, line_value, split_assignment
from appliance.db import Database, fetchone, utcnow
from appliance.errors import BadRequest, NotFound
from appliance.tenants import parse_uuid
from pipeline.schema import BUSY_STATES, HEADER_FIELDS, InvoiceStatus, Source

DECISIONS = (InvoiceStatus.APPROVED, InvoiceStatus.REJECTED)


async def correct(
    db: Database, invoice_id: str, fields: list[str], lines: list[tuple[int, str]], by: str
) -> list[dict[str, Any]]:
    """Store corrections of an invoice: ``fields`` are ``"field=value"`` of header fields,
    ``lines`` are ``(N, "field=value")`` for line N (1-based) of ``line_items``.

    All values are parsed before anything is written, and all are written in one transaction,
    each with its old value (the data as shown before it). Returns ``[{field, line, old, new}]``.
    Raises NotFound (unknown invoice), BadRequest (nothing given, unknown field, bad value, no
    such line, invoice still queued or processing).
    """
    wanted = [(None, *_parsed_header(text)) for text in fields]
    wanted += [(n, *_parsed_line(text)) for n, text in lines]
    if not wanted:
        raise BadRequest("nothing to correct: give field=value and/or --line N field=value")
    canonical = _canonical(invoice_id)
    changes = []
    async with db.transaction() as conn:
        row = await _invoice(conn, canonical)
        shown = await _shown_data(conn, row)
        now = utcnow()
        for line, field, value in wanted:
            target = shown if line is None else _line(shown, line)
            old = target.get(field)
            target[field] = value
            await conn.execute(
                "INSERT INTO corrections (invoice_id, line_index, field, old_value_json, new_value_json, "
                "corrected_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (canonical, line, field, json.dumps(old), json.dumps(value), by, now),
            )
            changes.append({"field": field, "line": line, "old": old, "new": value})
        await conn.execute(
            "UPDATE invoices SET status = ?, review_decision = NULL, decided_by = NULL, "
            "decided_at = NULL, updated_at = ? WHERE id = ?",
            (InvoiceStatus.REVIEWED, now, canonical),
        )
        await profiles.unlearn(conn, canonical, by)  # the approval it taught from is withdrawn
    return changes


async def decide(db: Database, invoice_id: str, decision: str, by: str) -> None:
    """Approve or reject an invoice (``decision`` is ``approved`` or ``rejected``); deciding
    again replaces the earlier decision. An approval teaches the vendor's profile what the
    invoice shows as approved, a rejection withdraws that (``appliance.profiles``), in the same
    transaction. Raises NotFound, or BadRequest while queued or processing."""
    if decision not in DECISIONS:
        raise BadRequest(f"unknown decision {decision!r}: one of {', '.join(DECISIONS)}")
    canonical = _canonical(invoice_id)
    async with db.transaction() as conn:
        row = await _invoice(conn, canonical)
        now = utcnow()
        await conn.execute(
            "UPDATE invoices SET status = ?, review_decision = ?, decided_by = ?, decided_at = ?, updated_at = ? "
            "WHERE id = ?",
            (decision, decision, by, now, now, canonical),
        )
        if decision == InvoiceStatus.APPROVED:
            await profiles.learn(conn, canonical, await _shown_data(conn, row), by)
        else:
            await profiles.unlearn(conn, canonical, by)


async def status_after_extraction(conn, invoice_id: str, extracted: str) -> str:
    """The ``status`` to store with a new extraction whose own status is ``extracted``
    (``extracted``, ``duplicate`` or ``pending``): a human decision wins, then ``reviewed``
    while corrections exist. Runs inside the caller's transaction."""
    row = await fetchone(
        conn,
        "SELECT review_decision, EXISTS (SELECT 1 FROM corrections WHERE invoice_id = ?) AS corrected "
        "FROM invoices WHERE id = ?",
        (invoice_id, invoice_id),
    )
    if row is None:
        return extracted
    if row["review_decision"]:
        return row["review_decision"]
    return InvoiceStatus.REVIEWED if row["corrected"] else extracted


async def corrections_of(db: Database, invoice_id: str) -> list:
    """The invoice's stored corrections, oldest first (rows of ``corrections``)."""
    return await db.lookup_all(
        "SELECT line_index, field, old_value_json, new_value_json, corrected_by, created_at FROM corrections "
        "WHERE invoice_id = ? ORDER BY id",
        (invoice_id,),
    )


async def overlay(db: Database, body: dict[str, Any], *, history: bool = False, rows: list | None = None) -> None:
    """Apply the stored corrections (``rows``, else read with ``corrections_of``) to an invoice
    response (spec 2.8) in place: ``data`` and ``evidence``. Nothing changes while no data is
    shown yet (first extraction queued or running). With ``history`` (operator view) adds
    ``corrections``: every stored correction with who and when, and ``reviewDecision``
    ``{decision, by, at}`` or None."""
    if rows is None:
        rows = await corrections_of(db, body["id"])
    if history:
        body["corrections"] = [_history(row) for row in rows]
        decided = await db.fetchone(
            "SELECT review_decision, decided_by, decided_at FROM invoices WHERE id = ?", (body["id"],)
        )
        body["reviewDecision"] = (
            {"decision": decided["review_decision"], "by": decided["decided_by"], "at": decided["decided_at"]}
            if decided and decided["review_decision"]
            else None
        )
    if not rows or (body["data"] is None and not body["ready"]):
        return
    data = body["data"] if body["data"] is not None else empty_data()
    evidence = dict(body.get("evidence") or {})
    for key, value in apply(data, rows).items():
        evidence[key] = {"page": None, "bbox": None, "text": as_text(value), "confidence": 1.0, "source": Source.HUMAN}
    body["data"], body["evidence"] = data, evidence


def apply(data: dict[str, Any], rows) -> dict[str, Any]:
    """Apply correction rows (oldest first, so the latest per field wins) to ``data`` in place;
    returns ``{evidence key: value}`` of what was applied. A line the data lacks is skipped."""
    applied: dict[str, Any] = {}
    for row in rows:
        value = json.loads(row["new_value_json"])
        index = row["line_index"]
        if index is None:
            data[row["field"]] = value
            applied[row["field"]] = value
        elif 1 <= index <= len(data.get("line_items") or []):
            data["line_items"][index - 1][row["field"]] = value
            applied[f"line_items[{index}].{row['field']}"] = value
    return applied


def empty_data() -> dict[str, Any]:
    """A ``data`` object of spec 2.9 with nothing extracted: what corrections of a failed
    extraction are applied to."""
    return {**{name: None for name in HEADER_FIELDS}, "line_items": [], "raw_text": None}


def _parsed_header(text: str) -> tuple[str, Any]:
    field, raw = split_assignment(text)
    return field, header_value(field, raw)


def _parsed_line(text: str) -> tuple[str, Any]:
    field, raw = split_assignment(text)
    return field, line_value(field, raw)


def _canonical(invoice_id: str) -> str:
    canonical = parse_uuid(invoice_id)
    if canonical is None:
        raise NotFound(f"Invoice not found: {invoice_id}")
    return canonical


async def _invoice(conn, invoice_id: str):
    """The invoice row, ready for a human (NotFound, or BadRequest while queued or processing)."""
    row = await fetchone(conn, "SELECT id, processing_status, data_json FROM invoices WHERE id = ?", (invoice_id,))
    if row is None:
        raise NotFound(f"Invoice not found: {invoice_id}")
    if row["processing_status"] in BUSY_STATES:
        raise BadRequest(
            f"Invoice {invoice_id} is still processing (processingStatus {row['processing_status']}); "
            "review it once it is ready"
        )
    return row


async def _shown_data(conn, row) -> dict[str, Any]:
    """The data as a client sees it now: the extraction with the stored corrections on top."""
    data = json.loads(row["data_json"]) if row["data_json"] else empty_data()
    async with conn.execute(
        "SELECT line_index, field, new_value_json FROM corrections WHERE invoice_id = ? ORDER BY id", (row["id"],)
    ) as cursor:
        apply(data, await cursor.fetchall())
    return data


def _line(data: dict[str, Any], number: int) -> dict[str, Any]:
    items = data.get("line_items") or []
    if not 1 <= number <= len(items):
        raise BadRequest(f"no line {number}: the invoice has {len(items)} line item(s), numbered from 1")
    return items[number - 1]


def _history(row) -> dict[str, Any]:
    return {
        "field": row["field"],
        "line": row["line_index"],
        "old": json.loads(row["old_value_json"]),
        "new": json.loads(row["new_value_json"]),
        "by": row["corrected_by"],
        "at": row["created_at"],
    }
