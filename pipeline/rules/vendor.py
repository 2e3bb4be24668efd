"""Vendor evidence of the rules extractor: how the layout around a name makes it the seller.

``pipeline.rules.parties`` scores every company-like name; this module owns the evidence
that lies beyond one cell: a name wrapped over several header lines, the document title that
separates the seller (above it on a receipt) from the buyer (below it), an "owned by" line
that names the legal owner rather than the trading name, sentences that are no names, an
e-mail or web domain that spells the name, and a name line over a legal footer. Pipeline must
not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re

from pipeline.rules.labels import COMPANY_RE, EMAIL_RE, URL_RE
from pipeline.rules.layout import TextLine

_TITLE_WORDS_RE = re.compile(r"invoice|receipt|facture|factuur|rechnung|quittung|bill|invois|resit", re.I)
# "Owned By :" may share its printed row with other labels ("Owned By : GST ID No: ... TAX INVOICE").
_OWNER_RE = re.compile(
    r"(?:owned|operated|managed)\s*by\b|run\s*by\W*$|(?:a\s*)?(?:division|subsidiary|member)\s*of\W*$", re.I
)
_FREEMAIL = {"gmail", "yahoo", "hotmail", "outlook", "live", "icloud", "gmx", "web", "aol", "mail", "example"}


def is_title_line(line: TextLine) -> bool:
    """Whether ``line`` is the document title ("TAX INVOICE", "CASHRECEIPT", "Facture"): a short
    line without digits whose letters contain a title word."""
    letters = re.sub(r"[^A-Za-z]", "", line.text)
    return 0 < len(letters) <= 30 and not re.search(r"\d", line.text) and bool(_TITLE_WORDS_RE.search(letters))


def title_y(lines: list[TextLine], page: int) -> float | None:
    """The top of the first title line on ``page``, or None."""
    return next((ln.bbox[1] for ln in lines if ln.page == page and is_title_line(ln)), None)


def below_title_penalty(line: TextLine, name: str, title: float | None, company_above: bool) -> float:
    """A company name under the title while another company stands above it is the buyer's."""
    if title is None or not company_above or not COMPANY_RE.search(name):
        return 0.0
    return -1.5 if line.bbox[1] > title else 0.0


def owner_penalty(lines: list[TextLine], line: TextLine) -> float:
    """The name right after an "Owned by:" line is the legal owner, not the trading name."""
    above = [ln for ln in lines if ln.page == line.page and 0 < line.bbox[1] - ln.bbox[1] <= 2.5 * line.height]
    if above and _OWNER_RE.search(above[-1].text):
        return -2.0
    return 0.0


def sentence_penalty(name: str) -> float:
    """A phrase of several mostly lower-case words ("For feedback, please call") is no name."""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'.&-]*", name)]
    if len(words) < 4:
        return 0.0
    lower = sum(1 for w in words if w[0].islower())
    return -1.5 if lower * 2 >= len(words) or name.rstrip().endswith((":", ",")) else 0.0


def web_domains(lines: list[TextLine]) -> set[str]:
    """The second-level names of e-mail and web domains in the text ("oyorooms" of
    "contact@oyorooms.com"), without free-mail providers."""
    out = set()
    for line in lines:
        for match in list(EMAIL_RE.finditer(line.text)) + list(URL_RE.finditer(line.text)):
            host = match.group(0).split("@")[-1].lower()
            host = re.sub(r"^(?:https?://)?(?:www\.)?", "", host).split("/")[0]
            parts = [p for p in host.split(".") if p]
            if len(parts) >= 2:
                label = re.sub(r"[^a-z0-9]", "", parts[-2])
                if len(label) >= 3 and label not in _FREEMAIL:
                    out.add(label)
    return out


def domain_bonus(name: str, domains: set[str]) -> float:
    """A name that a domain spells ("Lee Wah Florist" as leewahflorist, "OYO" in oyorooms) is
    the seller's own: a bonus of up to 1, by how much of the domain the name covers (so that
    "Azure Interior" beats the logo fragment "azure" for azure-interior.com)."""
    key = re.sub(r"[^a-z0-9]", "", COMPANY_RE.sub("", name).lower())
    if len(key) < 3:
        return 0.0
    best = 0.0
    for domain in domains:
        if key in domain:
            best = max(best, len(key) / len(domain))
        elif len(domain) >= 5 and domain in key:
            best = 1.0
    return best


# A name part that another part must follow: "Supermercados Castrillo &", "DE SMET,"
OPEN_END_RE = re.compile(r"(?:[&,]|\b(?:and|und|et|en|y|e))\s*$", re.I)
CJK_RE = re.compile(r"[\u4e00-\u9fff]")  # Chinese characters (CJK Unified Ideographs)


def wrapped_name(lines: list[TextLine], line: TextLine, name: str) -> str:
    """``name`` with the header lines above it when it only ends a name wrapped over several
    lines ("AIK HUAT HARDWARE / ENTERPRISE (SETIA / ALAM) SDN BHD"): the name opens with a
    closing bracket part, "&" or an opening bracket, or is little more than a legal form; or with
    the one line above it when that line ends open ("Supermercados Castrillo &" / "Asociados
    S.Com.")."""
    head = COMPANY_RE.sub("", name)
    unbalanced = head.count(")") > head.count("(")
    # a name that opens with "&" or a bracket continues the line above ("& TEA LEAF (M) SDN. BHD.")
    opens = re.match(r"\s*(?:&|\(|and\s)", name, re.I)
    whole = not unbalanced and not opens and re.search(rf"[A-Za-z]{{3}}|{CJK_RE.pattern}{{2}}", head)
    if whole and not line.text.lstrip().startswith(name.split()[0]):
        return name
    bare = not head.strip(" .,&")  # the name is a legal form alone
    parts, last = [name], line
    for other in reversed([ln for ln in lines if ln.page == line.page and ln.bbox[1] < line.bbox[1]]):
        gap = last.bbox[1] - other.bbox[3]
        # a legal form alone ("S.Com.") may be set smaller than the name it ends
        low, high = (0.5, 2.0) if bare else (0.7, 1.4)
        similar = low <= other.height / max(last.height, 1.0) <= high
        if gap > 0.8 * last.height or not similar or re.search(r"\d|:", other.text) or other.labels:
            break
        if whole:
            if OPEN_END_RE.search(other.text):
                parts.insert(0, other.text.strip())
            break
        # above a legal form alone ("S.Com.") stands its name, in whatever case
        if (other.text.upper() != other.text and not (bare and len(parts) == 1)) or len(parts) >= 3:
            break
        parts.insert(0, other.text.strip())
        last = other
    return " ".join(parts)


_LEGAL_FOOTER_RE = re.compile(
    r"au\s*capital|capital\s*social|si[èe]ge\s*social|registered\s*office|sitz\s*der"
    r"|handelsregister|registergericht|amtsgericht|company\s*registered"
    r"|registered\s*in\s",
    re.I,
)


def footer_names(lines: list[TextLine]) -> list[TextLine]:
    """Short name lines right above a legal footer line ("NETPRESSE" over "Siège social: ...,
    Sarl au capital de ..."): the company that issues the document names itself there."""
    out = []
    for index, line in enumerate(lines):
        if line.bbox[1] < 0.6 * line.page_height or not _LEGAL_FOOTER_RE.search(line.text):
            continue
        above = lines[index - 1] if index else None
        if above is None or above.page != line.page or line.bbox[1] - above.bbox[3] > 1.5 * line.height:
            continue
        words = above.text.split()
        if (
            1 <= len(words) <= 4
            and len(above.text) <= 40
            and not re.search(r"[\d:,;]", above.text)
            and not above.labels
            and not _LEGAL_FOOTER_RE.search(above.text)
        ):
            out.append(above)
    return out
