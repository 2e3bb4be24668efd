"""Geometry of the rules extractor: lines with word boxes, labels on them, values near labels.

This module owns ``TextLine`` (a page line with word spans and the labels, amounts and dates
found on it), finding the value right of or below a label, cells of a line (words split at
wide gaps) and blocks of lines below a heading. Boxes are ``(x0, y0, x1, y1)``, y downwards.
It imports only ``pipeline.document``, ``pipeline.values.parsers``, ``pipeline.rules.labels``,
``pipeline.rules.ocr`` (words of OCR'd pages are repaired here) and the standard library;
pipeline must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from itertools import pairwise

from pipeline.document import DocumentText
from pipeline.rules.labels import LABEL_RES
from pipeline.rules.ocr import fix_ocr_word, prints_dollars
from pipeline.values.parsers import find_amounts, find_dates, guess_dayfirst


@dataclass
class LabelHit:
    """A label found on a line: its kind, weight, character span and box."""

    kind: str
    weight: float
    start: int
    end: int
    bbox: tuple


@dataclass
class TextLine:
    """A page line with word spans (character offsets and boxes) and the labels, amounts, dates on it."""

    page: int
    index: int
    text: str
    bbox: tuple
    spans: list  # (start, end, bbox) of each word in ``text``
    page_width: float
    page_height: float
    ocr: bool = False
    labels: list = field(default_factory=list)
    amounts: list = field(default_factory=list)
    dates: list = field(default_factory=list)

    @property
    def height(self) -> float:
        """The median word height of the line (at least 1)."""
        heights = sorted(b[3] - b[1] for _, _, b in self.spans) or [self.bbox[3] - self.bbox[1]]
        return max(heights[len(heights) // 2], 1.0)

    def span_bbox(self, start: int, end: int) -> tuple:
        """The box of the words covering characters ``start:end``."""
        boxes = [b for s, e, b in self.spans if s < end and e > start] or [self.bbox]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))

    def evidence(self) -> dict:
        """The evidence record of this line: page, box and text."""
        return {"page": self.page, "bbox": [round(v, 1) for v in self.bbox], "text": self.text}


def build_lines(doc: DocumentText) -> list[TextLine]:
    """The lines of all pages as TextLines, words joined by single spaces."""
    lines = []
    dollars = prints_dollars(doc.text)
    for page in doc.pages:
        for index, line in enumerate(page.lines):
            parts, spans, pos = [], [], 0
            for word in line.words or ():
                text = word.text.strip()
                if page.source == "ocr":
                    text = fix_ocr_word(text, dollars)
                if not text:
                    continue
                if parts:
                    pos += 1
                spans.append((pos, pos + len(text), word.bbox))
                parts.append(text)
                pos += len(text)
            text = " ".join(parts) if parts else line.text
            if not spans:
                spans = [(0, len(text), line.bbox)]
            lines.append(
                TextLine(page.number, index, text, line.bbox, spans, page.width, page.height, page.source == "ocr")
            )
    return lines


def find_labels(text: str, line: TextLine) -> list[LabelHit]:
    """The labels in ``text``, left to right; a longer match wins over a shorter one at the same place."""
    found = []
    # a cell of a line starts like a line: OCR joins columns ("Tél: 032 246 40 16 | Numéro: 10199")
    starts = [start for start, _, _ in split_cells(line)[1:]] if text == line.text and line.spans else []
    for kind, weight, pattern in LABEL_RES:
        for match in pattern.finditer(text):
            if match.end() > match.start():
                found.append((match.start(), match.end(), kind, weight))
        if "^" not in pattern.pattern:
            continue
        for start in starts:
            match = pattern.match(text[start:])
            if match and match.end() > 0:
                found.append((start, start + match.end(), kind, weight))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0]), -f[3]))
    chosen: list[LabelHit] = []
    for start, end, kind, weight in found:
        if chosen and start < chosen[-1].end:
            continue
        if kind == "tax_amount" and re.search(r"\d\s?%\s?$", text[:start]):
            continue  # "7 % UST": a rate column of a table row, not a label
        chosen.append(LabelHit(kind, weight, start, end, line.span_bbox(start, end)))
    return chosen


def annotated_lines(doc: DocumentText) -> list[TextLine]:
    """The document's lines (``build_lines``) with their labels, dates and amounts (``annotate``),
    dates read day-first or not as the document's own dates say (``guess_dayfirst``), and loosely
    where no date reads strictly."""
    lines = build_lines(doc)
    if lines:
        dayfirst = guess_dayfirst(doc.text)
        annotate(lines, dayfirst, not any(find_dates(line.text, dayfirst) for line in lines))
    return lines


def annotate(lines: list[TextLine], dayfirst: bool, loose_dates: bool) -> None:
    """Find the labels, dates and amounts (amounts not inside dates) of every line."""
    for line in lines:
        line.labels = find_labels(line.text, line)
        line.dates = find_dates(line.text, dayfirst, loose=loose_dates)
        line.amounts = _outside_dates(find_amounts(line.text), line)


def _outside_dates(amounts: list, line: TextLine) -> list:
    """The ``amounts`` of ``line`` that are no part of one of its dates."""
    return [a for a in amounts if not any(a.start < d.end and d.start < a.end for d in line.dates)]


def cell_amounts(line: TextLine) -> list:
    """The amounts of ``line`` (``line.amounts``, dates left out), none reaching across a gap
    between two cells: in a table row, grouping thousands by a space ("1 229,60") must not join a
    quantity to the price in the next column ("8 | 153,70" read as 8153.70). A gap wider than
    the line's height parts two cells. Header amounts keep ``line.amounts``: a currency mark a
    cell apart ("Total US$ | 6,786.67") still marks the amount there."""
    cuts = [prev[1] for prev, nxt in pairwise(line.spans) if nxt[2][0] - prev[2][2] > line.height]
    if not cuts:
        return line.amounts
    found = []
    for start, end in zip([0, *cuts], [*cuts, len(line.text)], strict=True):
        for amount in find_amounts(line.text[start:end]):
            found.append(replace(amount, start=amount.start + start, end=amount.end + start))
    return _outside_dates(found, line)


def region_end(line: TextLine, label: LabelHit) -> int:
    """Where the value region of ``label`` ends: at the next label of another meaning. A
    qualifier in brackets right after the label ("Total Due (GST Inc): 28.15") does not end it."""
    for other in line.labels:
        if other.start >= label.end and other.kind != label.kind:
            if other.kind == "ignore" and _bracketed(line.text, label.end, other):
                continue
            return other.start
    return len(line.text)


def _bracketed(text: str, after: int, label: LabelHit) -> bool:
    """Whether ``label`` stands alone in brackets that open right after position ``after``."""
    return bool(
        re.fullmatch(r"\s*\(\s*", text[after : label.start]) and re.match(r"\s*\)", text[label.end : label.end + 3])
    )


def below_lines(lines: list[TextLine], line: TextLine, box: tuple, depth: int = 2) -> list[TextLine]:
    """Lines just below ``line`` on the same page that overlap ``box`` horizontally."""
    out = []
    limit = line.bbox[3] + 3.5 * line.height
    for other in lines:
        if other.page != line.page or other.bbox[1] <= line.bbox[1] + 0.5 * line.height:
            continue
        if other.bbox[1] > limit:
            break
        if other.bbox[0] <= box[2] + 5 and other.bbox[2] >= box[0] - 5:
            out.append(other)
            if len(out) >= depth:
                break
    return out


def overlaps_box(line: TextLine, start: int, end: int, box: tuple, slack: float = 0.0) -> bool:
    """Whether the characters ``start:end`` of ``line`` overlap ``box`` horizontally."""
    b = line.span_bbox(start, end)
    return b[0] <= box[2] + slack and b[2] >= box[0] - slack


def value_text(lines: list[TextLine], line: TextLine, label: LabelHit) -> list[tuple[str, TextLine, int]]:
    """Texts that may hold the value of ``label``: right of it, then in the lines below it."""
    out = []
    end = region_end(line, label)
    rest = line.text[label.end : end]
    if rest.strip(" :#.-"):
        out.append((rest, line, label.end))
    elif in_sentence(line, label) and len(line.labels) == 1:
        return out  # a word at the end of a sentence, not a column header
    for below in below_lines(lines, line, label.bbox, depth=2 if label.weight >= 2 else 1):
        overlaps = [
            (min(box[2], label.bbox[2]) - max(box[0], label.bbox[0]), s)
            for s, e, box in below.spans
            if box[0] <= label.bbox[2] + 10 and box[2] >= label.bbox[0] - 10
        ]
        if overlaps:
            start = max(overlaps)[1]
            # The word under the label may be the year of a date that starts left of it
            # ("9 พ.ย. 2559" under a narrow label): the cell starts where that date does.
            start = min((d.start for d in below.dates if d.start <= start < d.end), default=start)
            # The value cell runs on to the right until the next label on that line.
            stop = next((lb.start for lb in below.labels if lb.start > start), len(below.text))
            out.append((below.text[start:stop], below, start))
    return out


def labelled_values(
    lines: list[TextLine], kind: str, parse: Callable[[str], str | None]
) -> Iterator[tuple[str, TextLine, LabelHit, TextLine, int]]:
    """For each label of ``kind``: the first text near it (``value_text`` order) that ``parse`` accepts.

    Yields ``(value, line, label, src, rank)``: the parsed value, the label's line, the label,
    the line the value was read from and the rank of that place (0 = right of the label).
    """
    for line in lines:
        for label in line.labels:
            if label.kind != kind:
                continue
            for rank, (text, src, _) in enumerate(value_text(lines, line, label)):
                value = parse(text)
                if value:
                    yield value, line, label, src, rank
                    break


def in_sentence(line: TextLine, label: LabelHit) -> bool:
    """Whether the label stands after many words (inside a sentence rather than a cell)."""
    return len(re.sub(r"[\W\d_]", "", line.text[: label.start])) > 25


def split_cells(line: TextLine) -> list[tuple[int, int, tuple]]:
    """Split a line into cells where the gap between words is wider than about two letters."""
    cells, cur = [], None
    gap_limit = 1.2 * line.height
    for s, e, box in line.spans:
        if cur and box[0] - cur[2][2] <= gap_limit:
            cur = (cur[0], e, (cur[2][0], min(cur[2][1], box[1]), box[2], max(cur[2][3], box[3])))
        else:
            if cur:
                cells.append(cur)
            cur = (s, e, box)
    if cur:
        cells.append(cur)
    return cells


def block_below(
    lines: list[TextLine], line: TextLine, x0: float, max_lines: int = 6
) -> list[tuple[TextLine, str, tuple]]:
    """Cells that start near ``x0`` in the lines right below ``line`` (an address block)."""
    out, last = [], line
    for other in lines:
        if other.page != line.page or other.bbox[1] <= last.bbox[1] + 0.3 * last.height:
            continue
        if other.bbox[1] - last.bbox[3] > (3.0 if last is line else 1.8) * max(last.height, other.height):
            break  # a heading may stand a little apart from its block
        cells = split_cells(other)
        cell = next((c for c in cells if abs(c[2][0] - x0) <= max(12, 2 * other.height)), None)
        if cell is None:
            if all(c[2][0] > x0 or c[2][2] < x0 - 5 for c in cells):
                last = other  # indented text of the block, or of another column: the block goes on
                continue
            break
        following = [c for c in cells if c[0] > cell[0]]
        if other.text[cell[0] : cell[1]].rstrip().endswith(":") and following:
            # "Name:" in a label column: its value is the next cell.
            cell = (cell[0], following[0][1], (cell[2][0], cell[2][1], following[0][2][2], cell[2][3]))
        out.append((other, other.text[cell[0] : cell[1]], cell[2]))
        last = other
        if len(out) >= max_lines:
            break
    return out


def strip_label_prefix(line: TextLine, start: int, text: str) -> tuple[str, float | None]:
    """``text`` without a leading "Name:"/"Address:" label, and the x where the value starts."""
    match = re.match(r"\s*(?:name|anschrift|address|adresse|adres|firma|company)\s*:\s*", text, re.I)
    if not match:
        return text, None
    box = line.span_bbox(start + match.end(), start + match.end() + 1)
    return text[match.end() :], box[0]


def section_starts(lines: list[TextLine], kind: str) -> list[tuple[TextLine, LabelHit]]:
    """Every (line, label) with a label of ``kind``."""
    return [(line, label) for line in lines for label in line.labels if label.kind == kind]


def position_penalty(line: TextLine) -> float:
    """Header fields sit early in a document: prefer the first of equally good labels."""
    return 0.05 * (line.page - 1) + 0.1 * line.bbox[1] / max(line.page_height, 1.0)


def reading_order(line: TextLine) -> float:
    """A sort key: page, then y."""
    return line.page * 10000 + line.bbox[1]
