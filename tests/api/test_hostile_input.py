"""Hostile uploads against a real server: each is refused with a 4xx in the spec's error body
(section 7) and leaves nothing behind: no file (partial or final), no invoice, file, job or
ledger row, the balance unchanged. Files are built by tests.support.hostile_docs, never downloaded."""

from __future__ import annotations

import pytest
from aiohttp import FormData

from tests.support import hostile_docs as hostile
from tests.support.docs import INVOICE_LINES, jpeg, png_with_text, text_pdf

ERROR_KEYS = {"statusCode", "message", "error"}
REASONS = {400: "Bad Request", 413: "Request Entity Too Large"}

# (case id, builder, declared type, expected status, a phrase of the message)
HOSTILE = [
    ("zero bytes", lambda: b"", "application/pdf", 400, "Unsupported file type"),
    ("truncated pdf", hostile.truncated_pdf, "application/pdf", 400, "truncated"),
    ("corrupt pdf", hostile.corrupt_pdf, "application/pdf", 400, "Unreadable PDF"),
    ("corrupt pdf without end", lambda: b"%PDF-1.4\n" + b"garbage" * 300, "application/pdf", 400, "Unreadable PDF"),
    ("encrypted pdf", hostile.encrypted_pdf, "application/pdf", 400, "Encrypted PDF"),
    ("page tree short of a page", hostile.missing_page_pdf, "application/pdf", 400, "page 2 of 2 is missing"),
    ("501 pages", lambda: hostile.many_pages_pdf(501), "application/pdf", 413, "limits.max_pdf_pages"),
    ("5000 pages", lambda: hostile.many_pages_pdf(5000), "application/pdf", 413, "too many pages"),
    (
        "page of 14400 x 14400 pt",  # ~550 bytes; 1.6 billion pixels at ocr.dpi 200 (issue 28)
        lambda: hostile.sized_pages_pdf((14400, 14400)),
        "application/pdf",
        413,
        "PDF page too large: page 1 is 14400 x 14400 pt (508 x 508 cm), the limit is 5000 pt (176 cm) per side "
        "(limits.max_pdf_page_points)",
    ),
    ("png bomb 1e10 px", lambda: hostile.png_declaring(100_000, 100_000), "image/png", 413, "Image too large"),
    (
        "png just over MAX_IMAGE_PIXELS",
        lambda: hostile.png_declaring(10_000, 9_000),
        "image/png",
        413,
        "Image too large",
    ),
    (
        "jpeg declaring 65000 x 65000",
        lambda: hostile.jpeg_declaring(65_000, 65_000),
        "image/jpeg",
        413,
        "Image too large",
    ),
    ("truncated png", hostile.truncated_png, "image/png", 400, "Unreadable image"),
    ("truncated jpeg", hostile.truncated_jpeg, "image/jpeg", 400, "Unreadable image"),
    ("pdf + appended zip", hostile.pdf_with_zip, "application/pdf", 400, "both PDF and ZIP"),
    ("zip header before %PDF-", hostile.zip_then_pdf, "application/pdf", 400, "both PDF and ZIP"),
    ("png carrying a pdf header", hostile.png_with_pdf, "image/png", 400, "both PNG and PDF"),
    ("gif declared png", lambda: b"GIF89a" + b"\0" * 2000, "image/png", 400, "Unsupported file type"),
]


async def assert_nothing_kept(harness, headers, credits: int) -> None:
    """No file on disk (``.partial-*`` included), no rows but the tenant's grant, same balance."""
    assert [p for p in harness.settings.files_dir.rglob("*") if p.is_file()] == []
    for table in ("invoices", "files", "jobs"):
        assert (await harness.db.fetchone(f"SELECT COUNT(*) AS n FROM {table}"))["n"] == 0, table
    reasons = [r["reason"] for r in await harness.db.fetchall("SELECT reason FROM ledger")]
    assert reasons == ["operator_grant"]
    assert await harness.balance(headers) == credits


@pytest.mark.parametrize("case, build, declared, status, phrase", HOSTILE, ids=[c[0] for c in HOSTILE])
async def test_hostile_upload_is_refused_and_nothing_is_kept(harness, case, build, declared, status, phrase):
    _, headers = await harness.tenant(credits=5)
    response = await harness.upload(headers, build(), filename="invoice.bin", content_type=declared)
    body = await response.json()
    assert response.status == status, body
    assert set(body) == ERROR_KEYS
    assert body["statusCode"] == status and body["error"] == REASONS[status]
    assert phrase in body["message"], body["message"]
    await assert_nothing_kept(harness, headers, 5)


async def test_hostile_attach_leaves_the_slot_attachable(harness):
    _, headers = await harness.tenant(credits=2)
    slot = (await (await harness.client.post("/api/v1/invoices/upload/init", headers=headers)).json())["invoiceId"]
    path = f"/api/v1/invoices/upload/{slot}/file"
    response = await harness.upload(headers, hostile.encrypted_pdf(), path=path)
    assert response.status == 400
    assert await harness.balance(headers) == 2
    assert [p for p in harness.settings.files_dir.rglob("*") if p.is_file()] == []
    response = await harness.upload(headers, text_pdf(INVOICE_LINES), path=path)
    assert response.status == 202
    assert await harness.balance(headers) == 1


async def test_owner_password_only_pdf_is_accepted(harness):
    """Decision: a PDF encrypted with an empty user password opens without one, so it is read."""
    _, headers = await harness.tenant(credits=1)
    response = await harness.upload(headers, hostile.encrypted_pdf(user_password=""))
    assert response.status == 202, await response.text()
    result = await harness.wait_ready(headers, (await response.json())["invoice"]["id"])
    assert result["ready"] and "INV-1" in (result["data"] or {}).get("raw_text", "")


async def test_page_limit_is_a_setting(harness_factory, tmp_path):
    from tests.conftest import make_settings

    harness = await harness_factory(make_settings(tmp_path, {"limits": {"max_pdf_pages": 2}}))
    _, headers = await harness.tenant(credits=3)
    assert (await harness.upload(headers, hostile.many_pages_pdf(2))).status == 202
    response = await harness.upload(headers, hostile.many_pages_pdf(3))
    assert response.status == 413 and "the limit is 2" in (await response.json())["message"]
    assert await harness.balance(headers) == 2


async def test_page_size_limit_is_a_setting_and_names_the_page(harness_factory, tmp_path):
    from tests.conftest import make_settings

    harness = await harness_factory(make_settings(tmp_path, {"limits": {"max_pdf_page_points": 1000}}))
    _, headers = await harness.tenant(credits=3)
    response = await harness.upload(headers, hostile.sized_pages_pdf((595, 842), (1001, 700)))
    body = await response.json()
    assert response.status == 413 and body["statusCode"] == 413 and body["error"] == REASONS[413]
    assert "page 2 is 1001 x 700 pt (35 x 25 cm), the limit is 1000 pt (35 cm)" in body["message"]
    await assert_nothing_kept(harness, headers, 3)
    assert (await harness.upload(headers, hostile.sized_pages_pdf((1000, 1000)))).status == 202
    assert len(hostile.sized_pages_pdf((14400, 14400))) < 1000  # the size limit cannot catch such a file


@pytest.mark.parametrize(
    "data, declared, stored",
    [
        (text_pdf(INVOICE_LINES), "image/png", "application/pdf"),
        (text_pdf(INVOICE_LINES), "text/plain", "application/pdf"),
        (png_with_text("Total 1.00"), "application/pdf", "image/png"),
        (jpeg(), "application/octet-stream", "image/jpeg"),
    ],
    ids=["pdf as png", "pdf as text", "png as pdf", "jpeg as octet-stream"],
)
async def test_declared_type_and_name_are_ignored_both_ways(harness, data, declared, stored):
    _, headers = await harness.tenant(credits=1)
    response = await harness.upload(headers, data, filename="scan.gif", content_type=declared)
    assert response.status == 202, await response.text()
    row = await harness.db.fetchone("SELECT media_type FROM files")
    assert row["media_type"] == stored


@pytest.mark.parametrize(
    "name",
    [
        "..\\..\\..//etc/\x07\x1b[31mevil\x7f\u200f.pdf",  # raw control characters in the part header
        "..%2F..%2Fetc%2F%07%1B%5B31mevil%00%0D%0A.pdf",  # the same, percent-encoded
    ],
    ids=["raw", "percent-encoded"],
)
async def test_control_characters_and_traversal_in_the_file_name(harness, name):
    from bench.server import multipart

    tenant_id, headers = await harness.tenant()
    # aiohttp's client refuses control characters in a header: write the multipart body by hand
    body, content_type = multipart(text_pdf(INVOICE_LINES), name, "application/pdf")
    response = await harness.client.post(
        "/api/v1/invoices/upload", data=body, headers={**headers, "Content-Type": content_type}
    )
    if response.status == 400:  # aiohttp refuses raw control characters in a part header: fine
        assert "Malformed multipart" in (await response.json())["message"]
        await assert_nothing_kept(harness, headers, 10)
        return
    assert response.status == 202, await response.text()
    file_id = (await response.json())["fileId"]
    stored = [p for p in harness.settings.files_dir.rglob("*") if p.is_file()]
    assert [p.relative_to(harness.settings.files_dir).as_posix() for p in stored] == [f"{tenant_id}/{file_id}"]
    kept = (await harness.db.fetchone("SELECT original_name FROM files"))["original_name"]
    assert kept.endswith("evil.pdf"), kept
    assert "/" not in kept and "\\" not in kept and ".." not in kept
    assert all(ch.isprintable() for ch in kept), repr(kept)


async def test_multipart_without_file_and_json_instead_keep_nothing(harness):
    _, headers = await harness.tenant(credits=4)
    form = FormData()
    form.add_field("vendorId", "")
    response = await harness.client.post("/api/v1/invoices/upload", data=form, headers=headers)
    assert response.status == 400 and set(await response.json()) == ERROR_KEYS
    response = await harness.client.post("/api/v1/invoices/upload", json={"file": "JVBERi0="}, headers=headers)
    assert response.status == 400 and set(await response.json()) == ERROR_KEYS
    response = await harness.client.post(
        "/api/v1/invoices/upload", data=b"%PDF-1.4", headers={**headers, "Content-Type": "application/pdf"}
    )
    assert response.status == 400 and "multipart" in (await response.json())["message"]
    await assert_nothing_kept(harness, headers, 4)
