"""Vendor address of the rules extractor: the block of lines under the vendor name.

This module owns collecting address lines below (or in the sender line beside) the vendor name
and deciding where the address ends (postcode and city, a phone, a tax id, another label).
Pipeline must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pipeline.rules.labels import (
    COMPANY_RE,
    COUNTRY_RE,
    EMAIL_RE,
    PHONE_RE,
    POSTCODE_RE,
    SALUTATION_RE,
    STREET_WORDS,
)
from pipeline.rules.layout import TextLine, block_below, find_labels, split_cells, strip_label_prefix
from pipeline.values.parsers import find_dates

_ADDRESS_LABEL_RE = re.compile(
    r"^\s*(?:anschrift|address|adresse|adres|direcci[oó]n|indirizzo|alamat|地址)\s*:\s*", re.I
)


# What ends an address block: a tax or registration label, the document's title, a web
# address, OCR's "Te1" for "Tel", a Chinese or Thai phone or tax-number label (电话 / 传真 / 税号;
# โทร, เลขประจำตัว as NFKC spells it). Whole words: "ust" (USt-IdNr.) stands inside
# "PERINDUSTRIAN", "vat" inside "PRIVATE".
_STOP_RE = re.compile(
    r"\b(?:gst|vat|tax|steuer\w*|ust|tva|btw|kvk|terminal)\b|invoice|factuur|facture|receipt|^[:.\s]*[\d\s()+/-]{7,}$"
    r"|\bwww\.|https?://|\bte1\W*\d|电话|传真|税号|โทร|เลขประจ(?:ำ|ํา)ตัว",
    re.I,
)
# A Malaysian company or business registration number alone on its line ("1118258-K",
# "002693074-K", "JM0517726"): printed between a receipt's name and its address.
_REGISTRATION_RE = re.compile(r"\(?\s*(?:[A-Z]{1,3}\s*)?\d{5,12}\s*-?\s*[A-Z]\s*\)?|\(?[A-Z]{2}\d{6,10}\)?")
# A tax or registration number's line ("GST NO: 001800839168", "(GST ID No001285423104)").
_TAX_ID_LINE_RE = re.compile(r"\b(?:gst|sst|vat|tax|reg(?:istration)?)\b.*\d{6}", re.I)
# A phone or fax number after the postcode and city on their line ("Te1": OCR's "Tel").
_TRAILING_PHONE_RE = re.compile(r"[\s,.;]+(?:te[l1]|fax|h/?p|phone|t)\b\W*(?:no\b)?\W*\+?\d[\d\s()+/-]{5,}.*$", re.I)
# A company or its registration: a legal form, a registration number at the end of the line
# ("Farmasi Maluri S/B(587969-U)", "(Subang Jasa) 666770-U"), a long number ("bakery 000965911").
_COMPANY_LINE_RE = re.compile(rf"{COMPANY_RE.pattern}|(?:{_REGISTRATION_RE.pattern})\s*$|\d{{7,12}}", re.I)
# An item line: a price at its end, with or without a tax code ("22241 WS CUT SCISSORS 18.00 S").
_ITEM_LINE_RE = re.compile(r"\d[.,]\d{2}\s*[A-Z*]{0,2}\s*$", re.I)
# Words of a street (``STREET_WORDS``), or of a building or district as receipts print them: a
# line without digits that has none of them, right under a receipt's name, is no address yet.
_ADDRESS_WORD_RE = re.compile(
    rf"\b(?:{STREET_WORDS}|taman|tmn|lot|level|floor|tingkat|block|blok|bangunan|wisma|menara|plaza|mall"
    r"|kompleks|complex|centre|center|kawasan|pusat|bandar|kampung|kg|summit|parade|off)\b",
    re.I,
)


def find_address(lines: list[TextLine], vendor_line: TextLine, x0: float) -> tuple[str, TextLine] | None:
    """The vendor's address: an "Address:" row of the vendor block, else the block under its name."""
    labelled = _labelled_address(lines, vendor_line)
    if labelled:
        return labelled
    parts, last_line = [], None
    centre = None
    block = _centred_below(lines, vendor_line) if vendor_line.ocr else block_below(lines, vendor_line, x0, 7)
    if not block and not vendor_line.ocr:
        block = _column_below(lines, vendor_line)  # centred under the name, or set flush right
    for position, (other, text, _box) in enumerate(block):
        if vendor_line.ocr and (other.bbox[0] > vendor_line.bbox[2] or other.bbox[2] < vendor_line.bbox[0]):
            continue  # a mark in the margin beside a receipt's centred header
        value, _ = strip_label_prefix(other, 0, text)
        value = value.strip(" ,")
        phone = _TRAILING_PHONE_RE.search(value)
        if phone and POSTCODE_RE.search(value[: phone.start()]):
            value = value[: phone.start()].strip(" ,.;")  # "81750 Johor Bahru, Johor. Tel No.: 07-387 3322"
        registration = (
            re.match(r"^\W*(?:co\.?|company|conpany|br|reg|roc|business)\W*(?:reg|no|rfg)?", value, re.I)
            and re.search(r"\d", value)
            or re.fullmatch(r"\(.*\d.*\)", value)
            or _REGISTRATION_RE.fullmatch(value)
        )
        if not parts and vendor_line.ocr and _TAX_ID_LINE_RE.search(value) and not _ADDRESS_WORD_RE.search(value):
            registration = True  # a receipt prints its GST number above its address as often as below
        if registration and not parts:
            continue
        if (
            EMAIL_RE.search(value)
            or PHONE_RE.search(value)
            or SALUTATION_RE.fullmatch(value)  # "Herrn": the addressee's block (DIN 5008)
            or find_dates(value, loose=True)
            or _STOP_RE.search(value)
            or registration
        ):
            break
        if not parts and vendor_line.ocr and not re.search(r"\d", value) and not _ADDRESS_WORD_RE.search(value):
            continue  # a receipt's brand, former name or licensee line between its name and address
        if not parts and vendor_line.ocr and _COMPANY_LINE_RE.search(value) and not _ADDRESS_WORD_RE.search(value):
            continue  # its owner ("Dimiliki: banh mi cafe sdn bhd 1110644-W", "Farmasi Maluri S/B(587969-U)")
        if _ITEM_LINE_RE.search(value):
            break  # the first item under a header without a postcode
        if any(
            lb.kind not in ("invoice_number", "vendor_tax_id", "tax_amount") for lb in find_labels(value, other)
        ) and not POSTCODE_RE.search(value):
            break
        parts.append(value)
        last_line = other
        if (
            (len(parts) >= 2 or other.ocr)
            and POSTCODE_RE.search(value)
            and not re.search(r"\(", value)
            and not _postcode_follows(block[position + 1 : position + 3])
        ):
            centre = len(parts)
            break
    if centre is not None:
        # One trailing line without digits (a state or a branch in brackets) still belongs. A
        # receipt centres it (right of a longer postcode line's start) and prints it tight under
        # that line: one further down starts another block ("PREPAY CHIT NUMBER").
        if last_line is None:
            nxt = []
        elif vendor_line.ocr:
            gap = 0.6 * last_line.height
            nxt = [n for n in _centred_below(lines, last_line)[:1] if n[0].bbox[1] - last_line.bbox[3] < gap]
        else:
            nxt = block_below(lines, last_line, x0, 1)
        if (
            nxt
            and not re.search(r"\d|tel|fax|gst|@", nxt[0][1], re.I)
            and not _STOP_RE.search(nxt[0][1])
            and len(nxt[0][1]) < 40
            and not COUNTRY_RE.match(nxt[0][1])
        ):
            parts.append(nxt[0][1].strip())
    if not parts:
        return None
    return ", ".join(parts), last_line


def _postcode_follows(following: list[tuple[TextLine, str, tuple]]) -> bool:
    """Whether one of the next block lines starts with a postcode and a city ("40150 SHAH ALAM",
    OCR's "4600D PETALING JAYA"): then a lot number that looked like one ("PT17920,SEKSYEN",
    "LOT 1504, BATU 8 1/2") does not end the address."""
    return any(
        re.match(r"^\W*\d{3,5}[\dDO]\s*,?\s*[A-Za-z]{2}", text)
        and POSTCODE_RE.search(re.sub(r"(?<=\d)[DO]\b", "0", text))
        for _, text, _ in following
    )


def _centred_below(lines: list[TextLine], line: TextLine) -> list[tuple[TextLine, str, tuple]]:
    """Receipts centre their header: the lines below that overlap the name's column, each cut to
    its cells that do (an OCR'd page's title or invoice number beside the address is no part
    of it: "Lieferantenstraße 20 ... RECHNUNG")."""
    out = []
    for other in _lines_below(lines, line):
        cells = [c for c in split_cells(other) if c[2][2] >= line.bbox[0] and c[2][0] <= line.bbox[2]]
        if cells:
            box = (cells[0][2][0], other.bbox[1], cells[-1][2][2], other.bbox[3])
            out.append((other, other.text[cells[0][0] : cells[-1][1]], box))
        else:
            out.append((other, other.text, other.bbox))
    return out


def _column_below(lines: list[TextLine], line: TextLine) -> list[tuple[TextLine, str, tuple]]:
    """The cells right under ``line`` that share its column: centred under it (a receipt's
    header) or ending where it ends (a letterhead set flush right)."""
    out = []
    tolerance = 2 * line.height
    centre = (line.bbox[0] + line.bbox[2]) / 2
    for other in _lines_below(lines, line):
        cell = next(
            (
                c
                for c in split_cells(other)
                if abs((c[2][0] + c[2][2]) / 2 - centre) <= tolerance or abs(c[2][2] - line.bbox[2]) <= tolerance
            ),
            None,
        )
        if cell is None:
            break
        out.append((other, other.text[cell[0] : cell[1]], cell[2]))
    return out


def _lines_below(lines: list[TextLine], line: TextLine, depth: int = 7) -> Iterator[TextLine]:
    """The lines right under ``line``, each within 1.8 line heights of the one before, up to
    ``depth`` of them: a block."""
    last, taken = line, 0
    for other in lines:
        if other.page != line.page or other.bbox[1] <= last.bbox[1] + 0.3 * last.height:
            continue
        if other.bbox[1] - last.bbox[3] > 1.8 * max(last.height, other.height) or taken >= depth:
            return
        yield other
        last, taken = other, taken + 1


def _labelled_address(lines: list[TextLine], vendor_line: TextLine) -> tuple[str, TextLine] | None:
    """An "Anschrift:/Address:" row in the few lines after the vendor name (before any customer
    label): its value plus the lines below aligned with that value, up to the postcode line."""
    after = [ln for ln in lines if ln.page == vendor_line.page and ln.bbox[1] >= vendor_line.bbox[1]][:7]
    for line in after:
        if line is not vendor_line and any(lb.kind == "customer" for lb in line.labels):
            return None
        match = _ADDRESS_LABEL_RE.match(line.text)
        if not match or not line.text[match.end() :].strip():
            continue
        x = line.span_bbox(match.end(), match.end() + 1)[0]
        parts, last = [line.text[match.end() :].strip(" ,")], line
        for cont in _aligned_below(lines, line, x, 3):
            if COUNTRY_RE.match(cont.text) or find_labels(cont.text, cont) and not POSTCODE_RE.search(cont.text):
                break
            parts.append(cont.text.strip(" ,"))
            last = cont
            if POSTCODE_RE.search(cont.text):
                break
        return ", ".join(parts), last
    return None


def _aligned_below(lines: list[TextLine], line: TextLine, x: float, depth: int) -> list[TextLine]:
    """Up to ``depth`` lines right below ``line`` (within three line heights each) starting at ``x``."""
    out, last = [], line
    for other in lines:
        if other.page != line.page or other.bbox[1] <= last.bbox[1] + 0.3 * last.height:
            continue
        if other.bbox[1] - last.bbox[3] > 3 * last.height or abs(other.bbox[0] - x) > 10 or len(out) >= depth:
            break
        out.append(other)
        last = other
    return out
