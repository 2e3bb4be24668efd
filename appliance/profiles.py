"""Vendor profiles learned from approvals, per tenant (issue "Every approval teaches the
appliance the vendor"; DESIGN.md tier 1): the lessons (``pipeline.profiles.lessons``) that
approved invoices taught, the profile each vendor's lessons add up to, and the book of a
tenant's profiles that the dispatcher hands to the pipeline.

- **Learning follows the approval.** Approving an invoice (review page or ``appliance invoice
  approve``) records what it teaches, from the text read (``raw_text``) and the data as approved
  (corrections applied); rejecting it or correcting it again withdraws the approval and so its
  lesson (``review.decide``/``review.correct`` call ``learn``/``unlearn`` in their transaction).
- **Which profile.** The one that already holds the invoice's lesson, else the profile of the
  invoice's vendor, else the profile the page's identifiers match, else a new profile of the
  invoice's vendor (created from the approved name, as ``vendors.match_or_create``).
- **Visible and reversible.** ``show`` gives what was learnt and from which invoices;
  ``forget_invoice`` removes one invoice's lesson, ``reset`` every lesson, ``set_frozen`` stops
  or resumes learning, ``edit`` pins a name or currency or strikes an identifier or label key
  (``pipeline.profiles.profile.Edits``, kept apart from the lessons so that they survive every
  rebuild). Every change is a row of ``vendor_profile_events`` (who, when, which invoice, what).

A profile is rebuilt from its lessons whenever they change and stored built
(``vendor_profiles.profile_json``), so that the dispatcher loads a tenant's book in one query;
``book_of`` caches it per tenant until a profile changes.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from typing import Any

from appliance import vendors
from appliance.correction_values import header_value
from appliance.db import Database, fetchone, utcnow
from appliance.errors import BadRequest, NotFound
from appliance.tenants import parse_uuid
from pipeline.profiles.book import ProfileBook
from pipeline.profiles.lessons import Lesson
from pipeline.profiles.lessons import learn as lesson_of
from pipeline.profiles.profile import Edits, VendorProfile, build

_BOOKS: dict[tuple[str, str], tuple[tuple[Any, ...], ProfileBook]] = {}


async def learn(conn, invoice_id: str, data: dict[str, Any], by: str) -> str | None:
    """Record what approved invoice ``invoice_id`` teaches (``data``: its data as approved, with
    ``raw_text``) inside the caller's transaction; returns the profile id, or None when there is
    nothing to learn (no text, no vendor name) or the profile is frozen."""
    text = data.get("raw_text") or ""
    if not text.strip() or not data.get("vendor_name"):
        return None
    invoice = await fetchone(conn, "SELECT tenant_id, vendor_id FROM invoices WHERE id = ?", (invoice_id,))
    tenant_id = invoice["tenant_id"]
    lesson = lesson_of(invoice_id, text, data)
    profile_id = await _profile_for(conn, tenant_id, invoice_id, invoice["vendor_id"], lesson, data)
    row = await fetchone(conn, "SELECT frozen FROM vendor_profiles WHERE id = ?", (profile_id,))
    if row["frozen"]:
        return None
    now = utcnow()
    await conn.execute(
        "INSERT INTO vendor_lessons (invoice_id, profile_id, lesson_json, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (invoice_id) DO UPDATE SET profile_id = excluded.profile_id, lesson_json = excluded.lesson_json",
        (invoice_id, profile_id, json.dumps(lesson.to_json(), ensure_ascii=False), now),
    )
    await _rebuild(conn, profile_id)
    await _event(conn, tenant_id, profile_id, "learned", invoice_id, by)
    return profile_id


async def unlearn(conn, invoice_id: str, by: str) -> str | None:
    """Withdraw what invoice ``invoice_id`` taught, inside the caller's transaction (its approval
    was withdrawn, or an admin forgets it); returns the profile id, None when it taught nothing."""
    row = await fetchone(
        conn,
        "SELECT l.profile_id, p.tenant_id FROM vendor_lessons l JOIN vendor_profiles p ON p.id = l.profile_id "
        "WHERE l.invoice_id = ?",
        (invoice_id,),
    )
    if row is None:
        return None
    await conn.execute("DELETE FROM vendor_lessons WHERE invoice_id = ?", (invoice_id,))
    await _rebuild(conn, row["profile_id"])
    await _event(conn, row["tenant_id"], row["profile_id"], "forgot", invoice_id, by)
    return row["profile_id"]


async def forget_invoice(db: Database, invoice_id: str, by: str) -> str:
    """An admin's undo of a wrong approval's teaching: removes the invoice's lesson and rebuilds
    its profile; returns the profile id. NotFound when the invoice taught nothing."""
    canonical = parse_uuid(invoice_id) or invoice_id
    async with db.transaction() as conn:
        profile_id = await unlearn(conn, canonical, by)
    if profile_id is None:
        raise NotFound(f"invoice {invoice_id} taught no vendor profile")
    return profile_id


async def set_frozen(db: Database, vendor_id: str, frozen: bool, by: str) -> str:
    """Stop (``frozen``) or resume the learning of vendor ``vendor_id``'s profile; returns its
    id. A frozen profile still proposes what it knows. NotFound without a profile."""
    async with db.transaction() as conn:
        row = await _profile_row(conn, vendor_id)
        await conn.execute(
            "UPDATE vendor_profiles SET frozen = ?, updated_at = ? WHERE id = ?", (int(frozen), utcnow(), row["id"])
        )
        await _rebuild(conn, row["id"])
        await _event(conn, row["tenant_id"], row["id"], "froze" if frozen else "thawed", None, by)
    return row["id"]


async def reset(db: Database, vendor_id: str, by: str) -> int:
    """Forget everything vendor ``vendor_id``'s profile learnt; returns the number of lessons
    removed. NotFound without a profile."""
    async with db.transaction() as conn:
        row = await _profile_row(conn, vendor_id)
        cursor = await conn.execute("DELETE FROM vendor_lessons WHERE profile_id = ?", (row["id"],))
        await _rebuild(conn, row["id"])
        await _event(conn, row["tenant_id"], row["id"], "reset", None, by)
    return cursor.rowcount


async def edit(
    db: Database,
    vendor_id: str,
    by: str,
    *,
    name: str | None = None,
    currency: str | None = None,
    strike_identifier: str | None = None,
    strike_label: str | None = None,
    clear: bool = False,
) -> dict[str, Any]:
    """An admin's hand edit of vendor ``vendor_id``'s profile: pin its ``name`` or ``currency``
    (ISO 4217; an empty string unpins), strike an identifier it holds (``"iban:DE89..."``) or a
    label key of a field (``"total_amount:total"``), or ``clear`` every edit. Applied at once and
    on every later rebuild; one ``edited`` event per call says what changed. Returns the edits
    (``Edits.to_json``). NotFound without a profile; BadRequest for a malformed currency or an
    identifier or label key the profile does not hold."""
    async with db.transaction() as conn:
        row = await _profile_row(conn, vendor_id)
        held = json.loads(row["profile_json"])
        edits = Edits() if clear else Edits.from_json(json.loads(row["edits_json"]))
        changes = ["cleared every edit"] if clear else []
        if name is not None:
            edits = replace(edits, name=header_value("vendor_name", name))
            changes.append(f"name {edits.name!r}" if edits.name else "name as learnt")
        if currency is not None:
            edits = replace(edits, currency=header_value("currency", currency))
            changes.append(f"currency {edits.currency}" if edits.currency else "currency as learnt")
        if strike_identifier:
            if strike_identifier not in held["identifiers"]:
                raise BadRequest(f"the profile holds no identifier {strike_identifier!r} (kind:value)")
            edits = replace(edits, identifiers=(*edits.identifiers, strike_identifier))
            changes.append(f"struck identifier {strike_identifier}")
        if strike_label:
            key, _, label = strike_label.partition(":")
            if label not in held["habits"].get(key, {}):
                raise BadRequest(f"the profile reads no field under {strike_label!r} (field:label)")
            edits = replace(edits, labels=(*edits.labels, (key, label)))
            changes.append(f"struck label {label!r} of {key}")
        if not changes:
            raise BadRequest("nothing to edit: give a name, a currency, an identifier or label to strike, or clear")
        await conn.execute(
            "UPDATE vendor_profiles SET edits_json = ? WHERE id = ?",
            (json.dumps(edits.to_json(), ensure_ascii=False), row["id"]),
        )
        await _rebuild(conn, row["id"])
        await _event(conn, row["tenant_id"], row["id"], "edited", None, by, "; ".join(changes))
    return edits.to_json()


async def show(db: Database, vendor_id: str) -> dict[str, Any]:
    """Vendor ``vendor_id``'s profile (``VendorProfile.to_json``) with its change history
    (``events``: action, invoice, by, at, detail; oldest first). NotFound without a profile."""
    async with db.transaction() as conn:
        row = await _profile_row(conn, vendor_id)
    out = json.loads(row["profile_json"])
    events = await db.fetchall(
        "SELECT action, invoice_id, by, at, detail FROM vendor_profile_events WHERE profile_id = ? ORDER BY id",
        (row["id"],),
    )
    out["events"] = [dict(event) for event in events]
    return out


async def book_of(db: Database, tenant_id: str) -> ProfileBook:
    """The tenant's profiles as a ``ProfileBook`` for the pipeline, rebuilt only when one of them
    changed since the last call (cached per database file and tenant)."""
    version = await db.fetchone(
        "SELECT COUNT(*) AS n, TOTAL(revision) AS r FROM vendor_profiles WHERE tenant_id = ?", (tenant_id,)
    )
    key, stamp = (str(db.path), tenant_id), (version["n"], version["r"])
    cached = _BOOKS.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    rows = await db.fetchall(
        "SELECT profile_json FROM vendor_profiles WHERE tenant_id = ? ORDER BY created_at, id", (tenant_id,)
    )
    book = ProfileBook(
        tuple(profile_from_json(json.loads(row["profile_json"])) for row in rows),
        key=f"{tenant_id}:{stamp[0]}:{stamp[1]}",
    )
    _BOOKS[key] = (stamp, book)
    return book


def profile_from_json(data: dict[str, Any]) -> VendorProfile:
    """A ``VendorProfile`` from its ``to_json`` object."""
    return VendorProfile(
        data["profileId"],
        data.get("vendorId"),
        data.get("name"),
        dict(data.get("identifiers") or {}),
        {k: dict(v) for k, v in (data.get("habits") or {}).items()},
        {k: dict(v) for k, v in (data.get("shapes") or {}).items()},
        {k: dict(v) for k, v in (data.get("values") or {}).items()},
        tuple(data.get("invoices") or ()),
        bool(data.get("frozen")),
        dict(data.get("edits") or {}),
        dict(data.get("filled") or {}),  # absent in profiles built before it: the rule needing it stays quiet
    )


async def _profile_for(
    conn, tenant_id: str, invoice_id: str, vendor_id: str | None, lesson: Lesson, data: dict[str, Any]
) -> str:
    row = await fetchone(conn, "SELECT profile_id FROM vendor_lessons WHERE invoice_id = ?", (invoice_id,))
    if row is not None:
        return row["profile_id"]
    if vendor_id is not None:
        row = await fetchone(conn, "SELECT id FROM vendor_profiles WHERE vendor_id = ?", (vendor_id,))
        if row is not None:
            return row["id"]
    async with conn.execute(
        "SELECT profile_json FROM vendor_profiles WHERE tenant_id = ? ORDER BY created_at, id", (tenant_id,)
    ) as cursor:
        profiles = tuple(profile_from_json(json.loads(r["profile_json"])) for r in await cursor.fetchall())
    # the approved name must be the profile's: the bill-to block's identifiers are every vendor's
    match = ProfileBook(profiles).match(lesson.identifiers, text=lesson.values.get("vendor_name"))
    if match is not None:
        if vendor_id is None:
            await conn.execute("UPDATE invoices SET vendor_id = ? WHERE id = ?", (match.profile.vendor_id, invoice_id))
        return match.profile.profile_id
    if vendor_id is None:
        vendor_id = await vendors.match_or_create(conn, tenant_id, data)
        await conn.execute("UPDATE invoices SET vendor_id = ? WHERE id = ?", (vendor_id, invoice_id))
        row = await fetchone(conn, "SELECT id FROM vendor_profiles WHERE vendor_id = ?", (vendor_id,))
        if row is not None:
            return row["id"]
    profile_id, now = str(uuid.uuid4()), utcnow()
    empty = build(profile_id, [], vendor_id=vendor_id)
    await conn.execute(
        "INSERT INTO vendor_profiles (id, tenant_id, vendor_id, frozen, profile_json, created_at, updated_at) "
        "VALUES (?, ?, ?, 0, ?, ?, ?)",
        (profile_id, tenant_id, vendor_id, json.dumps(empty.to_json()), now, now),
    )
    return profile_id


async def _rebuild(conn, profile_id: str) -> None:
    row = await fetchone(conn, "SELECT vendor_id, frozen, edits_json FROM vendor_profiles WHERE id = ?", (profile_id,))
    async with conn.execute(
        "SELECT lesson_json FROM vendor_lessons WHERE profile_id = ? ORDER BY created_at, invoice_id", (profile_id,)
    ) as cursor:
        lessons = [Lesson.from_json(json.loads(r["lesson_json"])) for r in await cursor.fetchall()]
    edits = Edits.from_json(json.loads(row["edits_json"]))
    profile = build(profile_id, lessons, vendor_id=row["vendor_id"], frozen=bool(row["frozen"]), edits=edits)
    await conn.execute(
        "UPDATE vendor_profiles SET profile_json = ?, revision = revision + 1, updated_at = ? WHERE id = ?",
        (json.dumps(profile.to_json(), ensure_ascii=False), utcnow(), profile_id),
    )


async def _profile_row(conn, vendor_id: str):
    row = await fetchone(
        conn,
        "SELECT id, tenant_id, profile_json, edits_json FROM vendor_profiles WHERE vendor_id = ?",
        (parse_uuid(vendor_id) or vendor_id,),
    )
    if row is None:
        raise NotFound(f"vendor {vendor_id} has no learned profile (no approved invoice yet)")
    return row


async def _event(
    conn, tenant_id: str, profile_id: str, action: str, invoice_id: str | None, by: str, detail: str | None = None
) -> None:
    await conn.execute(
        "INSERT INTO vendor_profile_events (tenant_id, profile_id, action, invoice_id, by, at, detail) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (tenant_id, profile_id, action, invoice_id, by, utcnow(), detail),
    )
