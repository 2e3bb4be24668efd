"""Parties of the rules extractor: vendor and customer names, vendor tax id and e-mail.

This module owns telling the seller from the buyer: blocks introduced by customer labels are
the customer zone; the vendor is a labelled seller block, or the most prominent company-like
name at the top of the first page outside that zone. Pipeline must not import ``api`` or
``appliance``.
"""

from __future__ import annotations

import re

from pipeline.rules.identifiers import is_valid_tax_id
from pipeline.rules.labels import (
    COMPANY_RE,
    COPYRIGHT_RE,
    COUNTRY_RE,
    EMAIL_RE,
    POSTCODE_RE,
    SALUTATION_RE,
    STREET_WORDS,
    TITLE_RE,
    URL_RE,
    VAT_RE,
)
from pipeline.rules.layout import (
    LabelHit,
    TextLine,
    block_below,
    find_labels,
    labelled_values,
    region_end,
    section_starts,
    split_cells,
    strip_label_prefix,
)
from pipeline.rules.lines import is_table_header
from pipeline.rules.vendor import (
    CJK_RE,
    OPEN_END_RE,
    below_title_penalty,
    domain_bonus,
    footer_names,
    owner_penalty,
    sentence_penalty,
    title_y,
    web_domains,
    wrapped_name,
)

# A title glued by OCR ("PAYMENTRECEIPT", "TAXINVOICE"): no part of a name.
_GLUED_TITLE_RE = re.compile(r"(?<![a-z])[a-z]*(?:invoice|receipt)(?![a-z])", re.I)


# A row label before a party's name ("Name: Lieferant GmbH", "Firma: ..."): no part of the name.
# "名 称:" with the first character of a fapiao's vertical party label before it (购买方 / 销售方)
NAME_LABEL_RE = re.compile(r"^\s*(?:name|firma|company|nom|naam|(?:[购销]\s*)?(?:名\s*)?称)\s*[:：]\s*", re.I)


def _clean_name(text: str) -> str:
    """A name without e-mail addresses, document titles and "Name:" prefixes."""
    text = EMAIL_RE.sub(" ", text)
    text = TITLE_RE.sub(" ", text)
    text = _GLUED_TITLE_RE.sub(" ", text)
    text = NAME_LABEL_RE.sub("", text)
    return " ".join(text.split()).strip(" ,:;-|")


def customer_zone(lines: list[TextLine]) -> set[tuple[int, int, int]]:
    """(page, line, x-bucket) of text in blocks introduced by customer labels."""
    zone = set()
    for line, label in section_starts(lines, "customer"):
        zone.add((line.page, line.index, int(label.bbox[0] // 40)))
        for other, _, box in block_below(lines, line, label.bbox[0]):
            zone.add((other.page, other.index, int(box[0] // 40)))
    return zone


_ATTN_RE = re.compile(r"^\s*(?:attn|attention|z\.?\s?hd\.?|t\.\s?a\.\s?v\.?|à\s+l'attention\s+de)\s*[:.]?\s*", re.I)
_NOT_NAME_RE = re.compile(
    r"^\W*(?:nummer|number|nr|no|globale|ansprechpartner|kontakt|contact|telefon|tel|phone"
    r"|attn|e-?mail|ust|vat|steuer|address|adresse|adres|anschrift|details|information)\b",
    re.I,
)


def _party(lines: list[TextLine], line: TextLine, label: LabelHit) -> tuple[str, TextLine, float] | None:
    """The name in a party block (seller/buyer): right of its label, or the first name line
    below it; a "Name:" row wins, with the indented line above it when the name wraps."""
    rest = _clean_name(line.text[label.end : region_end(line, label)])
    if _plausible_name(rest) and not _NOT_NAME_RE.match(rest) and not find_labels(rest, line):
        return rest, line, line.span_bbox(label.end + 1, label.end + 2)[0]
    block = block_below(lines, line, label.bbox[0], max_lines=6)
    plain = None
    for position, (other, text, box) in enumerate(block):
        text = _ATTN_RE.sub("", text)
        value, x0 = strip_label_prefix(other, 0, text)
        name = _clean_name(value)
        if x0 is not None and re.match(r"\s*(?:name|firma|company)", text, re.I) and _plausible_name(name):
            above = [
                ln
                for ln in lines
                if ln.page == other.page
                and 0 < other.bbox[1] - ln.bbox[1] < 2.2 * other.height
                and ln.bbox[1] > line.bbox[1]
                and abs(ln.bbox[0] - x0) < 5
                and not ln.labels
            ]
            if above:
                name = f"{_clean_name(above[-1].text)} {name}"
            return name, other, x0
        if plain is None and _plausible_name(name) and not _NOT_NAME_RE.match(text) and position < 2:
            if SALUTATION_RE.fullmatch(name) and position + 1 < len(block):
                # "Herrn" on its line, the name below it: the addressee is both ("Herrn Max Mustermann")
                below = _clean_name(block[position + 1][1])
                if _plausible_name(below) and not find_labels(below, block[position + 1][0]):
                    name = f"{name} {below}"
            plain = (name, other, box[0])
    return plain


def find_customer(lines: list[TextLine]) -> tuple[str, TextLine] | None:
    """The customer name: the name in the first block introduced by a customer label, else the
    addressee under a window envelope's sender line (``_addressee``)."""
    for line, label in section_starts(lines, "customer"):
        found = _party(lines, line, label)
        if found:
            return found[0], found[1]
    return _addressee(lines)


def _addressee(lines: list[TextLine]) -> tuple[str, TextLine] | None:
    """The first line of the address block right under a sender line ("ACME GmbH · Street 5 ·
    12345 City", set small above a window envelope's address field: DIN 5008's return address),
    where no label names the customer."""
    for line in lines:
        parts = [p for p in re.split(r"\s[-–|•·]\s", line.text) if p.strip()]
        if len(parts) < 3 or not any(POSTCODE_RE.search(p) or _STREET_RE.search(p) for p in parts[1:]):
            continue  # a street tells it too where the postcode is none the lexicon knows ("E6489H5")
        below = block_below(lines, line, line.bbox[0], max_lines=1)
        if not below:
            return None
        other, text, box = below[0]
        name = _clean_name(text)
        if abs(box[0] - line.bbox[0]) > 2 * line.height or not _plausible_name(name) or find_labels(name, other):
            return None
        return name, other
    return None


def _plausible_name(text: str) -> bool:
    """Whether ``text`` can be a name: letters, few digits, no e-mail, not too long."""
    letters = sum(ch.isalpha() for ch in text)
    digits = sum(ch.isdigit() for ch in text)
    return letters >= 2 and digits <= letters / 3 and not EMAIL_RE.search(text) and len(text) <= 80


def vendor_candidates(
    lines: list[TextLine], customer_zone: set
) -> list[tuple[float, str, TextLine, float, str | None]]:
    """(score, name, line, value x0, address beside it or None) of possible vendor names, best
    first; ``pipeline.decision.candidates`` reads the scores as a feature."""
    first_page = [ln for ln in lines if ln.page == lines[0].page] if lines else []
    heights = sorted(ln.height for ln in first_page) or [1.0]
    median_h = heights[len(heights) // 2]
    out = []
    domains = web_domains([ln for ln in lines if not any(lb.kind == "customer" for lb in ln.labels)])
    for line, label in section_starts(lines, "vendor"):
        found = _party(lines, line, label)
        if found:
            out.append((4.5 + (0.5 if COMPANY_RE.search(found[0]) else 0), found[0], found[1], found[2], None))
    for line in lines:
        top = line.bbox[1] < 0.3 * line.page_height and line.page == lines[0].page
        if is_table_header(line):
            continue  # "Description Qty Price Amount" names columns, never a party
        if COPYRIGHT_RE.search(line.text):
            continue  # the rights holder of the form, not the seller ("Beispiel-Rechnungen ..., (c) FeRD 2022")
        cells = split_cells(line)
        for i, (s, e, box) in enumerate(cells):
            raw = line.text[s:e]
            if (line.page, line.index, int(box[0] // 40)) in customer_zone:
                continue
            if any(lb.end <= s and not line.text[lb.end : s].strip(" :#") for lb in line.labels):
                continue  # the value of a label ("Währung: EUR"), not a name
            company = COMPANY_RE.search(raw)
            before = line.text[cells[i - 1][0] : cells[i - 1][1]] if i else ""
            if company and OPEN_END_RE.search(before) and not re.search(r"[\d:]", before):
                # a name set apart after its comma or ampersand: "DE SMET, | DE MUYNCK EN YILMAZ BV"
                s, raw, box = cells[i - 1][0], line.text[cells[i - 1][0] : e], (cells[i - 1][2][0], *box[1:])
            if not top and not company:
                continue
            name, bonus, address = _name_from_cell(raw)
            if not _plausible_name(name) or URL_RE.fullmatch(name):
                continue
            labels = [lb for lb in find_labels(name, line) if not _inside_name(name, lb, top)]
            if any(lb.kind not in ("invoice_number",) for lb in labels) and not company:
                continue
            if company:
                name = wrapped_name(lines, line, name)
            score = bonus + (2.0 if company else 0.0)
            if top:
                score += 1.0 + min((box[3] - box[1]) / median_h, 2.5) - 2.0 * line.bbox[1] / line.page_height
            else:
                score -= 0.5
            if re.search(r"\d", name):
                score -= 0.7
            score += _address_context(lines, line, box[0], name)
            score += owner_penalty(lines, line) + sentence_penalty(name) + domain_bonus(name, domains)
            out.append((score, name, line, box[0] + _lead_offset(line, s, raw, name), address))
    out = _title_split(lines, out)
    out = _with_footer_names(out, footer_names(lines))
    out.sort(key=lambda c: -c[0])
    return out


def _with_footer_names(cands: list, footers: list[TextLine]) -> list:
    """Candidates with the names over a legal footer: a candidate that such a name repeats
    gains, a name found nowhere else joins as a candidate of its own."""
    for line in footers:
        key = re.sub(r"\W", "", line.text).lower()
        same = [i for i, c in enumerate(cands) if key and key in re.sub(r"\W", "", c[1]).lower()]
        for i in same:
            cands[i] = (cands[i][0] + 0.5,) + tuple(cands[i][1:])
        if not same:
            cands.append((2.5, _clean_name(line.text), line, line.bbox[0], None))
    return cands


def _inside_name(name: str, label: LabelHit, top: bool) -> bool:
    """Whether a label word is part of a header name ("RELAIS TOTAL OULMES"): in the top zone,
    between other words, in a line without digits or colons."""
    return top and 0 < label.start and label.end < len(name.rstrip()) and not re.search(r"[\d:]", name)


def _title_split(lines: list[TextLine], cands: list) -> list:
    """Candidates with the title rule applied: on the page of the first candidates, company
    names below the document title lose when another company name stands above it."""
    if not cands or not lines:
        return cands
    page = lines[0].page
    title = title_y(lines, page)
    above = title is not None and any(
        c[2].page == page and c[2].bbox[1] < title and COMPANY_RE.search(c[1]) for c in cands
    )
    return [
        (c[0] + (below_title_penalty(c[2], c[1], title, above) if c[2].page == page else 0.0),) + tuple(c[1:])
        for c in cands
    ]


def _lead_offset(line: TextLine, start: int, raw: str, name: str) -> float:
    """How far right of the cell start the name begins (a title word before it)."""
    pos = raw.find(name.split()[0]) if name else 0
    return line.span_bbox(start + max(pos, 0), start + max(pos, 0) + 1)[0] - line.span_bbox(start, start + 1)[0]


def _name_from_cell(raw: str) -> tuple[str, float, str | None]:
    """(name, bonus, address) from a cell; a DIN sender line "Name - Street - City" gives its
    first part as the name and the parts up to the postcode as the address."""
    raw = _split_glued_sender(raw)
    parts = [p.strip() for p in re.split(r"\s[-–|•]\s", raw) if p.strip()]
    if len(parts) >= 2 and any(POSTCODE_RE.search(p) for p in parts[1:]):
        address = []
        for part in parts[1:]:
            address.append(part)
            if POSTCODE_RE.search(part):
                break
        return _clean_name(parts[0]), 1.0, ", ".join(address)
    sold = re.search(r"(?:sold|provided|issued)\s+by\s*:?\s*(.+)$", raw, re.I)
    if sold:
        return _clean_name(sold.group(1)), 1.5, None
    company = COMPANY_RE.search(raw)
    if company and CJK_RE.match(company.group(0)):
        # a Chinese name is one run of characters, its legal form glued on: a slogan or a label
        # before it is another word ("诚信经营 品质保证 巨奥信息有限公司", "销 名 称: 飞利信网络有限公司")
        return _clean_name(raw[: company.end()].split()[-1]), 0.0, None
    if company and len(raw) > 60:
        head = raw[: company.end()]
        head = re.split(r"[:;]|\s[-–]\s|\b(?:by|von|par|door)\b", head)[-1]
        return _clean_name(head), 0.0, None
    # a registration number after the name ("(126926-H)", "(139386 X)"), and a till code after it
    name = re.sub(r"\s*\(\s*[\w-]*\d[\w -]*\)(?:\s+[A-Z]{0,3}\d[\w-]*)?\s*$", "", raw)
    return _clean_name(name), 0.0, None


def _split_glued_sender(raw: str) -> str:
    """A sender line whose separators OCR glued ("Name SARL-1242 rue X-84340 City-France"):
    when a legal form runs straight into a separator and a house number, the separators after
    it get their spaces back, so that the line splits into name, street and city."""
    company = COMPANY_RE.search(raw)
    if not company or not re.match(r"\s*[-–|•]\s*\d", raw[company.end() :]):
        return raw
    rest = re.sub(r"\s*[-–|•]\s*(?=[\dA-ZÀ-Ý])", " - ", raw[company.end() :].lstrip(" -–|•"))
    return f"{raw[: company.end()]} - {rest}"


def find_vendor(lines: list[TextLine], customer_zone: set) -> tuple[str, TextLine, float, str | None] | None:
    """The vendor name, its line, the x where it starts and an address found beside it."""
    cands = vendor_candidates(lines, customer_zone)
    if not cands:
        return None
    score, name, line, x0, address = cands[0]
    return name, line, x0, address


UNLABELLED_VALID_TAX_ID = 2.0  # score of a valid VAT id without a label, against label weights


def find_tax_id(lines: list[TextLine], customer_zone: set) -> tuple[str, TextLine] | None:
    """The vendor tax id: next to a tax-id label outside the customer block, else a VAT-shaped id.

    A value in the shape of a VAT id scores a point, one whose check digits hold
    (``pipeline.rules.identifiers.is_valid_tax_id``) another; without a label the first VAT-shaped id
    with valid check digits wins over the first one in reading order, and also over a weakly
    labelled value that is no VAT id (score below ``UNLABELLED_VALID_TAX_ID``).
    """
    scored = [
        (
            label.weight
            - 0.3 * rank
            - (2 if (src.page, src.index, int(label.bbox[0] // 40)) in customer_zone else 0)
            + (1 if VAT_RE.search(value) else 0)
            + (1 if is_valid_tax_id(value) else 0),
            value,
            src,
        )
        for value, _, label, src, rank in labelled_values(lines, "vendor_tax_id", _tax_id_from)
    ]
    best = max(scored, key=lambda cand: cand[0], default=None)
    shaped = [
        (match.group(0).strip(), line, line.span_bbox(match.start(), match.end()))
        for line in lines
        if not any(lb.kind == "customer_tax_id" for lb in line.labels)
        for match in VAT_RE.finditer(line.text)
        if not _IBAN_BEFORE_RE.search(line.text[: match.start()])  # "IBAN IT29 5023 ...": its country and check digits
    ]
    valid = [
        (value, line)
        for value, line, box in shaped
        if is_valid_tax_id(value) and (line.page, line.index, int(box[0] // 40)) not in customer_zone
    ]
    # A VAT id whose check digits hold outweighs what a weak label ("Steuer-Nr.", "VAT") points
    # at when that is no VAT id: OCR often breaks the strong label ("UStld") beside the real one.
    if valid and (best is None or best[0] < UNLABELLED_VALID_TAX_ID):
        return valid[0]
    if best is None:
        return (shaped[0][0], shaped[0][1]) if shaped else None
    return (best[1], best[2])


# An IBAN's label right before a value: what follows is the IBAN, whose country code and check
# digits look like a VAT id ("IT29 5023 6483").
_IBAN_BEFORE_RE = re.compile(r"\biban\W*$", re.I)


def _tax_id_from(text: str) -> str | None:
    """A tax id at the start of ``text``."""
    text = text.strip(" :#.-")
    match = VAT_RE.search(text)
    if match and match.start() < 3:
        return match.group(0).strip()
    match = re.match(r"([A-Z]{0,3}[\s-]?\d[\dA-Z][\dA-Z .\-/]{4,18}[\dA-Z])", text)
    if match and sum(ch.isdigit() for ch in match.group(1)) >= 6:
        return re.split(r"\s{2,}|\s(?=[A-Z][a-z])", match.group(1))[0].strip()
    return None


def find_email(lines: list[TextLine], customer_zone: set, vendor: str | None) -> tuple[str, TextLine] | None:
    """The vendor e-mail: outside the customer block, preferring the vendor's domain."""
    best = None
    vendor_key = re.sub(r"\W", "", (vendor or "").lower())[:6]
    for line in lines:
        for match in EMAIL_RE.finditer(line.text):
            box = line.span_bbox(match.start(), match.end())
            score = 0.0
            if (line.page, line.index, int(box[0] // 40)) in customer_zone:
                score -= 3
            # a customer's or a contact person's line; the address itself may be "contact@..."
            rest = line.text[: match.start()] + " " + line.text[match.end() :]
            if any(lb.kind == "customer" for lb in line.labels) or re.search(
                r"contact|abonn|client|kunde|klant", rest, re.I
            ):
                score -= 1
            domain = match.group(0).split("@")[1].lower()
            if vendor_key and vendor_key[:4] in domain.replace("-", ""):
                score += 2
            if best is None or score > best[0]:
                best = (score, match.group(0).strip("."), line)
    return (best[1], best[2]) if best and best[0] > -1 else None


# A street line: "Musterstr. 12", "12 Main Street", "4557 De Silva St", "12, Jalan ...".
_STREET_RE = re.compile(
    rf"(?<![A-Za-z])(?:{STREET_WORDS})(?![A-Za-z])\.?\s*\d"
    rf"|\d+[A-Za-z]?,?\s+(?:{STREET_WORDS})(?![A-Za-z])"
    rf"|^\W*\d+[A-Za-z]?\s+[^,\d]*?(?<![A-Za-z])(?:{STREET_WORDS})\.?(?:\s|,|$)"
    r"|^\W*(?:no\.?|lot)?\s*\d+[A-Za-z]?\s*,",
    re.I,
)


def _address_context(lines: list[TextLine], line: TextLine, x0: float, name: str) -> float:
    """A name heads an address block (a street right below it) and is no part of one (a country,
    a street, or a locality right above a postcode line): a bonus or a penalty for vendor names."""
    if COUNTRY_RE.match(name) or _STREET_RE.search(name) or POSTCODE_RE.search(name):
        return -1.0
    below = block_below(lines, line, x0, 1)
    if not below:
        return 0.0
    text = below[0][1]
    if _STREET_RE.search(text):
        return 0.5
    return -0.5 if POSTCODE_RE.search(text) else 0.0
