"""PDF rendering of the synthetic documents (``training.synth``) with fpdf2: seven page layouts
(classic, modern, business letter, right-aligned header, boxed, monospaced ERP print, Chinese
fapiao) and narrow till receipts, over a small canvas with cached fonts. Reads a ``Plan`` and
nothing else: the truth and the print come from the same plan.

Owns only the rendering: the plan types (``Plan``, ``Party``, ``Item``) and ``line_tax`` come from
``training.synth_types``, formatting helpers from ``training.synth_locale``; it never imports
``training.synth``, which calls ``render``.
"""

from __future__ import annotations

import io
import textwrap
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from training.synth_locale import cny_upper, faker_for, make_tax_id
from training.synth_types import Item, Party, Plan, line_tax

_DEJAVU = Path("/usr/share/fonts/truetype/dejavu")


_LATIN_FACES = {
    "sans": ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
    "serif": ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"),
    "condensed": ("DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf"),
    "serifcond": ("DejaVuSerifCondensed.ttf", "DejaVuSerifCondensed-Bold.ttf"),
    "mono": ("DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf"),
}


_FIXED_DATE = datetime(2020, 1, 1, tzinfo=UTC)


_MM_PER_PT = 0.3528


def _cjk_fonts() -> dict[str, Path]:
    import pylopdf_fonts_zh_cn as zh

    return {"sc-sans": zh.sans_path(), "sc-serif": zh.serif_path()}


def _thai_fonts() -> dict[str, tuple[Path, Path, bool]]:
    import fontpkg_noto_sans_thai as noto
    import fontpkg_sarabun as sarabun

    noto_file = next((noto.ROOT / "files").glob("NotoSansThai*.ttf"))
    files = sarabun.ROOT / "files"
    return {
        "noto-thai": (noto_file, noto_file, True),
        "sarabun": (files / "Sarabun-Regular.ttf", files / "Sarabun-Bold.ttf", False),
    }


# Characters the Latin (DejaVu) fonts are cut down to: Latin, punctuation, currency signs, ฿.
_LATIN_CHARS = (
    *range(0x20, 0x250),
    *range(0x2000, 0x2070),
    *range(0x20A0, 0x20C0),
    *range(0x2100, 0x2200),
    *range(0x2200, 0x2300),
    *range(0x25A0, 0x2600),
    0x0E3F,
)


_FONTS: dict[tuple, tuple[object, bytes]] = {}


def _add_font(pdf, family: str, style: str, path: Path, axes: dict | None = None, latin: bool = False) -> None:
    """``pdf.add_font`` from a per-process cache: parsing a font (and instancing a variable one)
    is most of the time a small document takes, so each is parsed once and its fpdf2 font
    object copied with a fresh fontTools font and glyph subset per document. Latin fonts are cut
    down to _LATIN_CHARS once, which makes embedding their subset fast too."""
    import copy

    from fontTools.ttLib import TTFont
    from fpdf.enums import TextEmphasis
    from fpdf.fonts import SubsetMap, TTFFont

    fontkey = f"{family.lower()}{style}"
    key = (str(path), tuple(sorted((axes or {}).items())), latin)
    if key not in _FONTS:
        data = _font_bytes(path, axes, latin)
        proto = TTFFont(pdf, io.BytesIO(data) if axes or latin else path, fontkey, style)
        proto.ttffile = path  # HarfBuzz (if shaping is ever turned on) reads the file, as fpdf2 does
        _FONTS[key] = (proto, data)
    proto, data = _FONTS[key]
    font = copy.copy(proto)
    font.desc = copy.copy(proto.desc)  # a PDF object: gets its object number when written
    font.ttfont = TTFont(io.BytesIO(data), recalcTimestamp=False, lazy=True)
    font.i = len(pdf.fonts) + 1
    font.fontkey = fontkey
    font.emphasis = TextEmphasis.coerce(style)
    font.subset = SubsetMap(font)
    font.missing_glyphs = []
    font.biggest_size_pt = 0
    font._hbfont = None
    pdf.fonts[fontkey] = font
    if font.is_cff and font.is_cid_keyed:
        pdf._set_min_pdf_version("1.6")


def _font_bytes(path: Path, axes: dict | None, latin: bool) -> bytes:
    if not axes and not latin:
        return path.read_bytes()
    from fontTools import subset
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    font = TTFont(str(path), recalcTimestamp=False)
    if axes:
        instancer.instantiateVariableFont(font, axes, inplace=True, static=True)
    if latin:
        options = subset.Options(notdef_outline=True, recommended_glyphs=True, layout_features=["*"], name_IDs=["*"])
        options.drop_tables += ["FFTM"]
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=_LATIN_CHARS)
        subsetter.subset(font)
    buffer = io.BytesIO()
    font.save(buffer)
    return buffer.getvalue()


class Canvas:
    """An fpdf2 document with the few drawing calls the layouts need (millimetres, y down)."""

    def __init__(self, plan: Plan, face: str, page: tuple[float, float] = (210, 297)):
        from fpdf import FPDF

        self.plan = plan
        self.pdf = FPDF(unit="mm", format=page)
        self.pdf.set_auto_page_break(False)
        self.pdf.set_creation_date(_FIXED_DATE)
        self.pdf.set_margins(0, 0, 0)
        self.pdf.set_title(f"{plan.label[plan.kind]} {plan.number}")
        self.fake_bold = False
        self.family = self._add_fonts(face)
        self.page_w, self.page_h = page
        self.top, self.bottom = 18.0, page[1] - 22.0

    def _add_fonts(self, face: str) -> str:
        pdf = self.pdf
        if not _DEJAVU.is_dir():
            raise FileNotFoundError(f"DejaVu fonts not found in {_DEJAVU}: apt-get install fonts-dejavu-core")
        if face in _LATIN_FACES:
            regular, bold = _LATIN_FACES[face]
            _add_font(pdf, face, "", _DEJAVU / regular, latin=True)
            _add_font(pdf, face, "B", _DEJAVU / bold, latin=True)
            return face
        _add_font(pdf, "fallback", "", _DEJAVU / "DejaVuSans.ttf", latin=True)
        if face in ("sc-sans", "sc-serif"):
            path = _cjk_fonts()[face]
            _add_font(pdf, face, "", path)
            _add_font(pdf, face, "B", path)
            self.fake_bold = True
        else:
            regular, bold, variable = _thai_fonts()[face]
            _add_font(pdf, face, "", regular, axes={"wght": 400} if variable else None)
            _add_font(pdf, face, "B", bold, axes={"wght": 700} if variable else None)
            # No text shaping: fpdf2's shaped Thai (mark positioning) reads back from the text layer
            # with marks reordered and SARA AM as a control character; unshaped, the text layer is
            # exact and only a tone mark over an upper vowel overlaps it.
        pdf.set_fallback_fonts(["fallback"])
        return face

    def new_page(self) -> float:
        self.pdf.add_page()
        return self.top

    def font(self, size: float, bold: bool = False) -> None:
        self.pdf.set_font(self.family, "B" if bold else "", size)

    def lh(self, size: float) -> float:
        return size * _MM_PER_PT * 1.32

    def width(self, text: str, size: float, bold: bool = False) -> float:
        self.font(size, bold)
        return self.pdf.get_string_width(text)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 9,
        bold: bool = False,
        align: str = "L",
        w: float | None = None,
        gray: int = 0,
    ) -> float:
        """Write one line with its top at ``y``; ``align`` R/C within ``w`` from ``x``. Returns the next y."""
        if not text:
            return y + self.lh(size)
        self.font(size, bold)
        width = w if w is not None else self.pdf.get_string_width(text) + 0.5
        self.pdf.set_text_color(gray)
        self.pdf.set_xy(x, y)
        if bold and self.fake_bold:
            with self.pdf.local_context(text_mode="FILL_STROKE", line_width=size * 0.012, draw_color=gray):
                self.pdf.cell(width, self.lh(size), text, align=align)
        else:
            self.pdf.cell(width, self.lh(size), text, align=align)
        return y + self.lh(size)

    def right(self, x_right: float, y: float, text: str, size: float = 9, bold: bool = False, gray: int = 0) -> float:
        width = self.width(text, size, bold) + 1
        return self.text(x_right - width, y, text, size, bold, "R", width, gray)

    def wrap(self, text: str, w: float, size: float, bold: bool = False) -> list[str]:
        self.font(size, bold)
        if self.pdf.get_string_width(text) <= w:
            return [text]
        return self.pdf.multi_cell(w, self.lh(size), text, dry_run=True, output="LINES") or [text]

    def lines(
        self,
        x: float,
        y: float,
        lines: list[str],
        size: float,
        bold_first: bool = False,
        align: str = "L",
        w: float | None = None,
    ) -> float:
        for index, line in enumerate(lines):
            y = self.text(x, y, line, size, bold_first and index == 0, align, w)
        return y

    def hline(self, x1: float, x2: float, y: float, width: float = 0.2, gray: int = 0) -> None:
        self.pdf.set_draw_color(gray)
        self.pdf.set_line_width(width)
        self.pdf.line(x1, y, x2, y)

    def vline(self, x: float, y1: float, y2: float, width: float = 0.2) -> None:
        self.pdf.set_draw_color(0)
        self.pdf.set_line_width(width)
        self.pdf.line(x, y1, x, y2)

    def rect(self, x: float, y: float, w: float, h: float, fill: int | None = None, width: float = 0.2) -> None:
        self.pdf.set_line_width(width)
        self.pdf.set_draw_color(0)
        if fill is not None:
            self.pdf.set_fill_color(fill)
        self.pdf.rect(x, y, w, h, style="DF" if fill is not None else "D")

    def fill(self, x: float, y: float, w: float, h: float, gray: int) -> None:
        self.pdf.set_fill_color(gray)
        self.pdf.rect(x, y, w, h, style="F")

    def output(self) -> bytes:
        return bytes(self.pdf.output())


def _face(plan: Plan) -> str:
    rng = plan.rng
    if plan.lang == "zh":
        return rng.choice(("sc-sans", "sc-sans", "sc-serif"))
    if plan.lang == "th":
        return rng.choice(("noto-thai", "sarabun"))
    if plan.layout == "mono" or (plan.layout == "receipt" and rng.random() < 0.6):
        return "mono"
    return rng.choice(("sans", "sans", "serif", "condensed", "serifcond"))


def render(plan: Plan) -> bytes:
    """The PDF of ``plan`` in its layout."""
    face = _face(plan)
    if plan.layout == "receipt":
        return _render_receipt(plan, face)
    cv = Canvas(plan, face)
    cv.size = plan.rng.choice((8, 8.5, 9, 9, 9.5, 10)) if plan.layout != "mono" else plan.rng.choice((7.5, 8, 8.5))
    {
        "classic": _layout_classic,
        "modern": _layout_modern,
        "letter": _layout_letter,
        "right": _layout_right,
        "mono": _layout_mono,
        "boxed": _layout_boxed,
        "fapiao": _layout_fapiao,
    }[plan.layout](cv, plan)
    _page_numbers(cv, plan)
    return cv.output()


def _rate(plan: Plan, rate: Decimal) -> str:
    text = f"{rate.normalize():f}".replace(".", plan.fmt.decimal)
    return text


def _tax_label(plan: Plan, rate: Decimal, base: Decimal) -> str:
    lab, rng_key = plan.label, plan.number  # deterministic per document
    name = lab["sales_tax"] if plan.country.code == "US" else lab["tax"]
    single = len(plan.totals.taxes) == 1
    if not plan.show["rate_in_label"] and single:
        return name
    pct = f"{_rate(plan, rate)}{' %' if plan.lang in ('de', 'fr') else '%'}"
    text = f"{name} {pct}" if hash(rng_key) % 3 or plan.lang == "zh" else f"{name} ({pct})"
    if plan.show["tax_base"]:
        text += f" ({plan.amt(base)})" if plan.lang not in ("de",) else f" auf {plan.amt(base)}"
    return text


def _total_rows(plan: Plan) -> list[tuple[str, str, bool]]:
    """(label, printed amount, emphasised) rows of the totals block."""
    lab, tot, show = plan.label, plan.totals, plan.show
    cur = show["cur_rows"]
    charged = tot.discount or tot.shipping or tot.service
    rows = [((lab["subtotal"] if charged else lab["net_total"]), plan.amt(tot.subtotal, cur), False)]
    if tot.discount:
        rows.append((f"{lab['discount']} {_rate(plan, tot.disc_pct)}%", plan.amt(-tot.discount, cur), False))
    if tot.shipping:
        rows.append((lab["shipping"], plan.amt(tot.shipping, cur), False))
    if tot.service:
        rows.append((f"{lab['service']} {_rate(plan, tot.service_pct)}%", plan.amt(tot.service, cur), False))
    if show["net_row"]:
        rows.append((lab["net_total"], plan.amt(tot.subtotal - tot.discount + tot.shipping + tot.service, cur), False))
    for rate, base, tax in tot.taxes:
        rows.append((_tax_label(plan, rate, base), plan.amt(tax, cur), False))
    total_key = "credit_total" if plan.kind == "credit_note" else "total"
    rows.append((lab[total_key], plan.amt(tot.total, True), True))
    if tot.paid:
        key = "paid" if tot.paid == tot.total else "deposit"
        rows.append((lab[key], plan.amt(-tot.paid, cur), False))
    if tot.balance is not None:
        key = "refund" if plan.kind == "credit_note" else "due_amount"
        rows.append((lab[key], plan.amt(tot.balance, True), True))
    return rows


def _vendor_lines(plan: Plan, contacts: bool = True) -> list[str]:
    vendor, lab, show = plan.vendor, plan.label, plan.show
    lines = list(vendor.lines)
    if not contacts:
        return lines
    if show["phone"]:
        lines.append(f"{lab['phone']}: {vendor.phone}")
    if show["email"]:
        lines.append(f"{lab['email']}: {vendor.email}")
    if show["web"]:
        lines.append(vendor.web)
    if show["tax_id"]:
        lines.append(f"{lab['tax_id']}: {_printed_tax_id(plan)}")
    return lines


def _printed_tax_id(plan: Plan) -> str:
    """The vendor's tax id as printed: Swiss ids carry MWST/TVA/IVA after the number (not in the truth)."""
    if plan.country.code != "CH":
        return plan.vendor.tax_id
    return f"{plan.vendor.tax_id} {({'de': 'MWST', 'fr': 'TVA', 'it': 'IVA'}).get(plan.lang, 'VAT')}"


def _vendor_block(
    cv: Canvas, plan: Plan, x: float, y: float, w: float, align: str = "L", contacts: bool = True
) -> float:
    size, vendor = cv.size, plan.vendor
    if vendor.brand:
        y = cv.text(x, y, vendor.brand, size * 2.4, True, align, w)
        if vendor.tagline:
            y = cv.text(x, y, vendor.tagline, size * 0.9, False, align, w, gray=80)
        y += 1.5
    y = cv.text(x, y, vendor.name, size * (1.15 if vendor.brand else 1.45), True, align, w)
    return cv.lines(x, y, _vendor_lines(plan, contacts), size * 0.95, align=align, w=w)


def _customer_block(cv: Canvas, plan: Plan, x: float, y: float, w: float, label: bool = True) -> float:
    size = cv.size
    if label:
        y = cv.text(x, y, plan.label["bill_to"] + (":" if plan.rng.random() < 0.5 else ""), size * 0.9, True, gray=60)
    y = cv.text(x, y, plan.customer.name, size * 1.05, True)
    return cv.lines(x, y, plan.customer.lines, size)


def _meta_colon(cv: Canvas, plan: Plan, x: float, y: float, w: float, bold_value: bool = False) -> float:
    size = cv.size
    label_w = max(cv.width(label + ":", size) for label, _ in plan.meta) + 3
    for label, value in _meta_rows(plan):
        cv.text(x, y, label + ":", size)
        y = cv.text(x + label_w, y, value, size, bold_value)
    return y


def _meta_rows(plan: Plan) -> list[tuple[str, str]]:
    rows = list(plan.meta)
    if plan.terms and plan.show["terms_in_meta"]:
        rows.append((plan.label["terms"], plan.terms))
    return rows


def _meta_stacked(cv: Canvas, plan: Plan, x: float, y: float, w: float) -> float:
    size, rows = cv.size, _meta_rows(plan)
    per_row = 4 if w > 120 else 2
    col_w = w / per_row
    for start in range(0, len(rows), per_row):
        for offset, (label, value) in enumerate(rows[start : start + per_row]):
            cx = x + offset * col_w
            cv.text(cx, y, label, size * 0.85, False, gray=90)
            cv.text(cx, y + cv.lh(size * 0.85), value, size, True)
        y += cv.lh(size * 0.85) + cv.lh(size) + 2
    return y


def _title(plan: Plan) -> str:
    return plan.label[plan.kind]


def _totals_block(cv: Canvas, plan: Plan, x_right: float, y: float, w: float, boxed: bool = False) -> float:
    size, rows = cv.size, _total_rows(plan)
    height = sum(cv.lh(size * (1.1 if strong else 1)) + 0.8 for _, _, strong in rows) + 2
    if y + height > cv.bottom:
        y = cv.new_page()
    if boxed:
        cv.rect(x_right - w - 1, y - 1, w + 2, height + 1)
    for label, amount, strong in rows:
        s = size * (1.1 if strong else 1)
        if strong and not boxed:
            cv.hline(x_right - w, x_right, y - 0.4, 0.3)
        cv.text(x_right - w, y, label, s, strong)
        y = cv.right(x_right, y, amount, s, strong) + 0.8
    if plan.show.get("paid_stamp"):
        _stamp(cv, plan, x_right - w - 60, y - height)
    return y + 2


def _stamp(cv: Canvas, plan: Plan, x: float, y: float) -> None:
    pdf, text = cv.pdf, plan.label["paid_stamp"]
    with pdf.rotation(plan.rng.uniform(8, 20), x + 20, y + 8):
        pdf.set_draw_color(200, 30, 30)
        pdf.set_text_color(200, 30, 30)
        pdf.set_line_width(0.8)
        cv.font(22, True)
        width = pdf.get_string_width(text) + 8
        pdf.rect(x, y, width, 13)
        pdf.set_xy(x, y + 1.5)
        pdf.cell(width, 10, text, align="C")
    pdf.set_text_color(0)
    pdf.set_draw_color(0)


def _notes(cv: Canvas, plan: Plan, x: float, y: float, w: float) -> float:
    """Payment terms, reverse-charge note, bank details and thanks below the totals."""
    size, lab, show = cv.size, plan.label, plan.show
    blocks = []
    if plan.terms and not show["terms_in_meta"]:
        blocks.append(f"{lab['terms']}: {plan.terms}")
    if show["reverse"]:
        blocks.append(lab["reverse"])
    if show["bank"]:
        blocks.append(f"{lab['bank']}: {plan.vendor.bank}")
    if show["thanks"]:
        blocks.append(lab["thanks"])
    for block in blocks:
        lines = cv.wrap(block, w, size * 0.95)
        if y + len(lines) * cv.lh(size) > cv.page_h - 12:
            y = cv.new_page()
        y = cv.lines(x, y, lines, size * 0.95) + 1.2
    return y


def _page_numbers(cv: Canvas, plan: Plan) -> None:
    pages = cv.pdf.pages_count
    if pages < 2 and plan.rng.random() < 0.6:
        return
    lab = plan.label
    for page in range(1, pages + 1):
        cv.pdf.page = page
        text = f"{lab['page']} {page} {lab['of']} {pages}" if plan.lang != "zh" else f"第 {page} 页 共 {pages} 页"
        cv.text(0, cv.page_h - 10, text, cv.size * 0.8, False, "C", cv.page_w, gray=90)


_COL_WIDTH = {"pos": 9, "sku": 22, "qty": 13, "unit": 13, "price": 22, "line_disc": 15, "rate": 13, "amount": 25}


_COL_ALIGN = {
    "pos": "C",
    "sku": "L",
    "desc": "L",
    "qty": "R",
    "unit": "C",
    "price": "R",
    "line_disc": "R",
    "rate": "R",
    "amount": "R",
}


def _cell(plan: Plan, key: str, number: int, item: Item) -> str:
    if key == "pos":
        return str(number)
    if key == "sku":
        return item.sku or ""
    if key == "desc":
        return item.description
    if key == "qty":
        return plan.fmt.qty(item.qty)
    if key == "unit":
        return item.unit or ""
    if key == "price":
        return plan.fmt.num(item.price)
    if key == "line_disc":
        if not item.disc:
            return ""
        return f"{_rate(plan, item.disc_pct)}%" if plan.show["disc_as_pct"] else plan.amt(-item.disc)
    if key == "rate":
        return f"{_rate(plan, item.rate)}%" if not plan.show["reverse"] else "0%"
    return plan.amt(item.total)


def _header_text(plan: Plan, key: str) -> str:
    text = plan.label[key]
    if key in ("amount", "price") and plan.show["table_currency"]:
        text += f" ({plan.cur.symbol if plan.cur.mode.startswith('sym') else plan.cur.code})"
    return text


class Table:
    """The item table: columns sized to the page width, rows wrapped, continued on new pages."""

    def __init__(self, cv: Canvas, plan: Plan, x: float, w: float, style: str):
        self.cv, self.plan, self.x, self.style = cv, plan, x, style
        self.size = cv.size * 0.95
        widths = {key: self._width(key) for key in plan.cols if key != "desc"}
        self.widths = [widths.get(key, w - sum(widths.values())) for key in plan.cols]
        self.w = w

    def _width(self, key: str) -> float:
        """A column as wide as its widest cell or header word, at least its usual width."""
        cv, plan = self.cv, self.plan
        cells = [_cell(plan, key, number, item) for number, item in enumerate(plan.items, 1)]
        words = _header_text(plan, key).split()
        widest = max(
            [cv.width(text, self.size) for text in cells] + [cv.width(word, self.size, True) for word in words]
        )
        return max(_COL_WIDTH[key] * 0.8, widest + 3)

    def header(self, y: float) -> float:
        cv, size = self.cv, self.size
        heads = [
            cv.wrap(_header_text(self.plan, key), width - 2, size, True)
            for key, width in zip(self.plan.cols, self.widths, strict=True)
        ]
        height = max(len(lines) for lines in heads) * cv.lh(size) + 1.6
        if self.style in ("shaded", "zebra"):
            cv.fill(self.x, y, self.w, height, 225)
        if self.style == "grid":
            cv.rect(self.x, y, self.w, height, fill=235)
        x = self.x
        for key, width, lines in zip(self.plan.cols, self.widths, heads, strict=True):
            for index, line in enumerate(lines):
                cv.text(x + 1, y + 0.8 + index * cv.lh(size), line, size, True, _COL_ALIGN[key], width - 2)
            x += width
        if self.style in ("lines", "plain", "shaded"):
            cv.hline(self.x, self.x + self.w, y + height, 0.4)
        if self.style == "lines":
            cv.hline(self.x, self.x + self.w, y, 0.4)
        return y + height + 0.6

    def rows(self, y: float) -> float:
        cv, size, plan = self.cv, self.size, self.plan
        y = self.header(y)
        for number, item in enumerate(plan.items, 1):
            cells = [_cell(plan, key, number, item) for key in plan.cols]
            wrapped = [
                cv.wrap(text, width - 2, size) if key == "desc" else [text]
                for key, text, width in zip(plan.cols, cells, self.widths, strict=True)
            ]
            height = max(len(lines) for lines in wrapped) * cv.lh(size) + 1.2
            if y + height > cv.bottom:
                y = self.header(cv.new_page())
            if self.style == "zebra" and number % 2 == 0:
                cv.fill(self.x, y, self.w, height, 242)
            x = self.x
            for key, width, lines in zip(plan.cols, self.widths, wrapped, strict=True):
                for index, line in enumerate(lines):
                    cv.text(x + 1, y + 0.6 + index * cv.lh(size), line, size, False, _COL_ALIGN[key], width - 2)
                if self.style == "grid":
                    cv.rect(x, y, width, height)
                x += width
            y += height
            if self.style == "lines":
                cv.hline(self.x, self.x + self.w, y, 0.1, gray=150)
        if self.style in ("plain", "shaded", "zebra"):
            cv.hline(self.x, self.x + self.w, y + 0.5, 0.3)
        return y + 4


def _layout_classic(cv: Canvas, plan: Plan) -> None:
    """Vendor top left, title and label: value meta top right, customer below, grid table."""
    y = cv.new_page()
    left = plan.rng.choice((15, 18, 20))
    width = 210 - 2 * left
    y_vendor = _vendor_block(cv, plan, left, y, width * 0.55)
    y_title = cv.text(left + width * 0.58, y, _title(plan), cv.size * 2.2, True)
    y_meta = _meta_colon(cv, plan, left + width * 0.58, y_title + 3, width * 0.42)
    y = max(y_vendor, y_meta) + 6
    y = _customer_block(cv, plan, left, y, width * 0.5) + 8
    y = Table(cv, plan, left, width, plan.rng.choice(("grid", "lines"))).rows(y)
    y = _totals_block(cv, plan, left + width, y, min(95, width * 0.55))
    _notes(cv, plan, left, y + 4, width)


def _layout_modern(cv: Canvas, plan: Plan) -> None:
    """Big title, brand, three columns (bill to | meta stacked | vendor), shaded table header."""
    y = cv.new_page()
    left, width = 16, 178
    cv.text(left, y, _title(plan).upper(), cv.size * 3, True)
    if plan.vendor.brand:
        cv.right(left + width, y, plan.vendor.brand, cv.size * 2.4, True, gray=40)
    y += cv.lh(cv.size * 3) + 4
    cv.hline(left, left + width, y, 0.8, gray=60)
    y += 5
    col = width / 3
    y1 = _customer_block(cv, plan, left, y, col - 4) if plan.customer else y
    y2 = _meta_stacked(cv, plan, left + col, y, col * 1.0 - 2)
    y3 = cv.text(left + 2 * col, y, plan.vendor.name, cv.size, True)
    y3 = cv.lines(left + 2 * col, y3, _vendor_lines(plan), cv.size * 0.9)
    y = max(y1, y2, y3) + 8
    y = Table(cv, plan, left, width, plan.rng.choice(("shaded", "zebra"))).rows(y)
    y = _totals_block(cv, plan, left + width, y, 90)
    _notes(cv, plan, left, y + 4, width)


def _layout_letter(cv: Canvas, plan: Plan) -> None:
    """Business letter (DIN 5008 like): sender line over the address window, info block right,
    subject line, table with rules, totals, legal footer in columns."""
    y = cv.new_page()
    left, width = 22, 168
    _vendor_block(cv, plan, 110, 12, 80, align="R", contacts=False)
    sender = " · ".join([plan.vendor.name] + plan.vendor.lines[:2])
    cv.text(left, 45, sender, cv.size * 0.7, gray=70)
    cv.hline(left, left + 85, 45 + cv.lh(cv.size * 0.7), 0.1)
    _customer_block(cv, plan, left, 50, 85, label=plan.rng.random() < 0.3)
    y = _meta_colon(cv, plan, 120, 52, 70) + 10
    y = max(y, 92)
    subject = f"{_title(plan)} {plan.number}" if plan.rng.random() < 0.6 else _title(plan)
    y = cv.text(left, y, subject, cv.size * 1.4, True) + 4
    y = Table(cv, plan, left, width, "lines").rows(y)
    y = _totals_block(cv, plan, left + width, y, 85)
    y = _notes(cv, plan, left, y + 4, width)
    _legal_footer(cv, plan, left, width)


def _legal_footer(cv: Canvas, plan: Plan, left: float, width: float) -> None:
    size, lab, vendor = cv.size * 0.72, plan.label, plan.vendor
    columns = [[vendor.name] + vendor.lines[:3]]
    contact = []
    if plan.show["phone"]:
        contact.append(f"{lab['phone']} {vendor.phone}")
    if plan.show["email"]:
        contact.append(vendor.email)
    contact.append(vendor.web)
    columns.append(contact)
    money_col = [lab["bank"], vendor.bank]
    if plan.show["tax_id"]:
        money_col.append(f"{lab['tax_id']} {_printed_tax_id(plan)}")
    columns.append(money_col)
    for page in range(1, cv.pdf.pages_count + 1):
        cv.pdf.page = page
        y = cv.page_h - 20
        cv.hline(left, left + width, y - 1.5, 0.2, gray=120)
        for index, lines in enumerate(columns):
            cv.lines(left + index * width / 3, y, lines, size)


def _layout_right(cv: Canvas, plan: Plan) -> None:
    """Vendor block right-aligned at the top, title left, meta in a boxed grid, zebra table."""
    y = cv.new_page()
    left, width = 18, 174
    y_vendor = _vendor_block(cv, plan, left + width - 90, y, 90, align="R")
    cv.text(left, y + 2, _title(plan), cv.size * 2.6, True)
    y = max(y_vendor, y + 20) + 6
    y_customer = _customer_block(cv, plan, left, y, 80)
    y_meta = _meta_grid(cv, plan, left + width - 85, y, 85)
    y = max(y_customer, y_meta) + 8
    y = Table(cv, plan, left, width, plan.rng.choice(("zebra", "plain"))).rows(y)
    y = _totals_block(cv, plan, left + width, y, 88, boxed=plan.rng.random() < 0.5)
    _notes(cv, plan, left, y + 4, width)


def _meta_grid(cv: Canvas, plan: Plan, x: float, y: float, w: float) -> float:
    size = cv.size
    row_h = cv.lh(size) + 2
    rows = _meta_rows(plan)
    for label, value in rows:
        cv.rect(x, y, w * 0.45, row_h, fill=235)
        cv.rect(x + w * 0.45, y, w * 0.55, row_h)
        cv.text(x + 1.5, y + 1, label, size * 0.9, True)
        cv.text(x + w * 0.45 + 1.5, y + 1, value, size * 0.95)
        y += row_h
    return y


def _layout_boxed(cv: Canvas, plan: Plan) -> None:
    """Header band with title and number, vendor and customer side by side in boxes, grid table."""
    y = cv.new_page()
    left, width = 15, 180
    cv.fill(left, y - 4, width, 16, 215)
    cv.text(left + 3, y - 2, _title(plan), cv.size * 2, True)
    cv.right(left + width - 3, y, f"{plan.meta[0][0]}: {plan.number}", cv.size * 1.1, True)
    y += 18
    half = width / 2 - 2
    y_vendor = _vendor_block(cv, plan, left + 2, y + 2, half - 4)
    y_customer = _customer_block(cv, plan, left + half + 6, y + 2, half - 4) if plan.customer else y
    bottom = max(y_vendor, y_customer) + 2
    cv.rect(left, y, half, bottom - y)
    cv.rect(left + half + 4, y, half, bottom - y)
    y = bottom + 4
    rows = _meta_rows(plan)[1:]
    plan_meta = plan.meta
    plan.meta = rows
    y = _meta_stacked(cv, plan, left, y, width) + 3
    plan.meta = plan_meta
    y = Table(cv, plan, left, width, "grid").rows(y)
    y = _totals_block(cv, plan, left + width, y, 90, boxed=True)
    _notes(cv, plan, left, y + 4, width)


def _layout_mono(cv: Canvas, plan: Plan) -> None:
    """An old ERP print: monospaced text only, dashed rules, fixed-width columns."""
    y = cv.new_page()
    size, left = cv.size, 16
    chars = int(178 / (size * _MM_PER_PT * 0.602))
    out = [plan.vendor.name.upper()] + _vendor_lines(plan)
    out += ["", _title(plan).upper().center(chars).rstrip(), ""]
    label_w = max(len(label) for label, _ in _meta_rows(plan)) + 1
    out += [f"{label:<{label_w}}: {value}" for label, value in _meta_rows(plan)]
    if plan.customer:
        out += ["", plan.label["bill_to"] + ":", plan.customer.name] + plan.customer.lines
    out += ["", "-" * chars]
    out += _mono_table(plan, chars)
    out += ["-" * chars]
    for label, amount, _ in _total_rows(plan):
        out.append(f"{label:>{chars - 20}} {amount:>19}")
    out.append("=" * chars)
    if plan.terms and not plan.show["terms_in_meta"]:
        out += ["", f"{plan.label['terms']}: {plan.terms}"]
    if plan.show["bank"]:
        out.append(f"{plan.label['bank']}: {plan.vendor.bank}")
    for line in out:
        if y + cv.lh(size) > cv.page_h - 15:
            y = cv.new_page()
        y = cv.text(left, y, line, size)


def _mono_table(plan: Plan, chars: int) -> list[str]:
    widths = {"pos": 4, "sku": 14, "qty": 8, "unit": 7, "price": 12, "line_disc": 9, "rate": 7, "amount": 14}
    cols = plan.cols
    desc_w = chars - sum(widths[key] + 1 for key in cols if key != "desc")
    width_of = {**widths, "desc": desc_w}

    def row(cells: dict[str, str]) -> str:
        parts = []
        for key in cols:
            text = cells[key][: width_of[key]]
            parts.append(text.ljust(width_of[key]) if _COL_ALIGN[key] == "L" else text.rjust(width_of[key]))
        return " ".join(parts).rstrip()

    out = [row({key: plan.label[key] for key in cols}), "-" * chars]

    for number, item in enumerate(plan.items, 1):
        cells = {key: _cell(plan, key, number, item) for key in cols}
        desc = textwrap.wrap(cells["desc"], desc_w) or [""]
        out.append(row({**cells, "desc": desc[0]}))
        out += [row({**dict.fromkeys(cols, ""), "desc": more}) for more in desc[1:]]
    return out


def _layout_fapiao(cv: Canvas, plan: Plan) -> None:
    """A Chinese VAT fapiao: boxed form with buyer, items with per-line tax, capital-letter total, seller."""
    y = cv.new_page()
    left, width, size = 12, 186, cv.size
    lab, tot = plan.label, plan.totals
    cv.text(0, y, _title(plan), size * 2.2, True, "C", 210)
    cv.hline(80, 130, y + cv.lh(size * 2.2) + 0.5, 0.4)
    cv.hline(80, 130, y + cv.lh(size * 2.2) + 1.3, 0.4)
    code = f"{plan.rng.randrange(10**9, 10**10)}{plan.rng.randrange(10, 99)}"
    right_x = 148
    cv.text(right_x, y - 2, f"发票代码：{code}", size)
    cv.text(right_x, y + cv.lh(size) - 2, f"{lab['number']}：{plan.number}", size)
    cv.text(right_x, y + 2 * cv.lh(size) - 2, f"{lab['date']}：{plan.d(plan.issued)}", size)
    if plan.due:
        cv.text(right_x, y + 3 * cv.lh(size) - 2, f"{lab['due']}：{plan.d(plan.due)}", size)
    cv.text(
        left,
        y + cv.lh(size) * 2,
        f"校验码：{' '.join(str(plan.rng.randrange(10000, 99999)) for _ in range(4))}",
        size * 0.85,
    )
    y += 26
    y = _fapiao_party(cv, plan, left, y, width, "购买方", plan.customer, buyer=True)
    y = _fapiao_items(cv, plan, left, y, width)
    cv.rect(left, y, width, 8)
    cv.text(left + 2, y + 1.5, "价税合计（大写）", size)
    cv.text(left + 40, y + 1.5, f"⊗{cny_upper(tot.total)}", size, True)
    cv.text(left + 130, y + 1.5, f"（小写）{plan.amt(tot.total, True)}", size, True)
    y += 8
    y = _fapiao_party(cv, plan, left, y, width, "销售方", plan.vendor, buyer=False)
    people = "  ".join(f"{role}：{faker_for('zh_CN').name()}" for role in ("收款人", "复核", "开票人"))
    cv.text(left, y + 3, people + "  销售方：（章）", size)
    y += 10
    y = _notes(cv, plan, left, y, width)
    if tot.paid or tot.balance is not None or tot.discount or tot.shipping or tot.service:
        _totals_block(cv, plan, left + width, y + 2, 80)


def _fapiao_party(cv: Canvas, plan: Plan, x: float, y: float, w: float, title: str, party: Party, buyer: bool) -> float:
    size, lab = cv.size, plan.label
    rows = [f"名        称：{party.name}"]
    if buyer:
        rows.append(f"{lab['tax_id']}：{make_tax_id(plan.rng, 'CN')}")
        rows.append(f"地 址、电 话：{' '.join(party.lines)}")
    else:
        if plan.show["tax_id"]:
            rows.append(f"{lab['tax_id']}：{party.tax_id}")
        phone = f" {party.phone}" if plan.show["phone"] else ""
        rows.append(f"地 址、电 话：{' '.join(party.lines)}{phone}")
        rows.append(f"开户行及账号：{party.bank}")
        if plan.show["email"]:
            rows.append(f"{lab['email']}：{party.email}")
    height = len(rows) * cv.lh(size) + 3
    cv.rect(x, y, w, height)
    cv.vline(x + 8, y, y + height)
    for index, char in enumerate(title):
        cv.text(x + 2, y + 1 + index * (height - 2) / len(title), char, size)
    cv.lines(x + 10, y + 1.5, rows, size)
    if buyer:
        cv.vline(x + w * 0.62, y, y + height)
        noise = "".join(plan.rng.choice("0123456789+-*/<>") for _ in range(27 * 4))
        cv.lines(x + w * 0.62 + 2, y + 1.5, [noise[i : i + 27] for i in range(0, len(noise), 27)], size * 0.85)
    return y + height


def _fapiao_items(cv: Canvas, plan: Plan, x: float, y: float, w: float) -> float:
    size = cv.size * 0.95
    heads = ["货物或应税劳务、服务名称", "规格型号", "单位", "数量", "单价", "金额", "税率", "税额"]
    widths = [w - 130, 22, 14, 16, 22, 24, 12, 20]
    aligns = ["L", "L", "C", "R", "R", "R", "R", "R"]
    cv.rect(x, y, w, cv.lh(size) + 2)
    cx = x
    for head, width in zip(heads, widths, strict=True):
        cv.text(cx, y + 1, head, size, False, "C", width)
        cx += width
    y += cv.lh(size) + 2
    start = y
    for item in plan.items:
        desc = cv.wrap(item.description, widths[0] - 2, size)
        tax = line_tax(item, plan.fmt.places)
        cells = [
            item.sku or "",
            item.unit or "",
            plan.fmt.qty(item.qty),
            plan.fmt.num(item.price),
            plan.amt(item.total),
            f"{_rate(plan, item.rate)}%",
            plan.amt(tax),
        ]
        height = len(desc) * cv.lh(size) + 1
        if y + height > cv.bottom - 30:
            cv.rect(x, start, w, y - start)
            y = start = cv.new_page()
        cv.lines(x + 1, y + 0.5, desc, size)
        cx = x + widths[0]
        for text, width, align in zip(cells, widths[1:], aligns[1:], strict=True):
            cv.text(cx + 1, y + 0.5, text, size, False, align, width - 2)
            cx += width
        y += height
    y = max(y, start + 20) + 1
    cv.text(x + 2, y, "合        计", size)
    cv.right(x + w - widths[-1] - widths[-2] - 1, y, plan.amt(plan.totals.subtotal, True), size)
    cv.right(x + w - 1, y, plan.amt(plan.totals.tax, True), size)
    y += cv.lh(size) + 1
    cv.rect(x, start, w, y - start)
    return y


def _receipt_rows(plan: Plan, chars: int) -> list[tuple]:
    """Rows of a narrow receipt: ("c", text, scale, bold) centred, ("lr", left, right, bold), ("rule",),
    ("l", text)."""
    lab, vendor, show = plan.label, plan.vendor, plan.show
    rows: list[tuple] = [("c", vendor.name, 1.15, True)]
    if plan.style == "my" and plan.rng.random() < 0.7:
        rows.append(("c", f"({plan.rng.randrange(100000, 999999)}-{plan.rng.choice('ADHKMPTUVWX')})", 0.9, False))
    rows += [("c", line, 0.95, False) for line in vendor.lines]
    if show["phone"]:
        rows.append(("c", f"{'TEL' if plan.style == 'my' else lab['phone']}: {vendor.phone}", 0.9, False))
    if show["tax_id"]:
        tax_label = plan.rng.choice(("GST ID", "GST REG NO", "GST ID No")) if plan.style == "my" else lab["tax_id"]
        rows.append(("c", f"{tax_label}: {_printed_tax_id(plan)}", 0.9, False))
    if show["email"]:
        rows.append(("c", vendor.email, 0.9, False))
    rows += [("gap",), ("c", _title(plan), 1.2, True), ("gap",)]
    rows.append(("lr", f"{plan.meta[0][0]}: {plan.number}", "", False))
    time = f"{plan.rng.randrange(8, 22):02d}:{plan.rng.randrange(60):02d}"
    rows.append(("lr", f"{plan.meta[1][0]}: {plan.d(plan.issued)}", time, False))
    if plan.rng.random() < 0.5:
        rows.append(("lr", f"{lab['cashier']}: {plan.rng.randrange(1, 20):02d}", "", False))
    rows.append(("rule",))
    for item in plan.items:
        if "sku" in plan.cols:
            rows.append(("l", item.sku or ""))
        rows.append(("l", item.description))
        qty = f"{plan.fmt.qty(item.qty)} x {plan.fmt.num(item.price)}"
        code = " SR" if plan.style == "my" and item.rate else ""
        rows.append(("lr", f"  {qty}", plan.amt(item.total) + code, False))
    rows.append(("rule",))
    rows += _receipt_totals(plan)
    rows += [("gap",), ("c", lab["thanks"], 0.95, False)]
    if plan.style == "my" and plan.rng.random() < 0.5:
        rows.append(("c", "GOODS SOLD ARE NOT RETURNABLE", 0.85, False))
    return rows


def _receipt_totals(plan: Plan) -> list[tuple]:
    lab, tot, show = plan.label, plan.totals, plan.show
    my = plan.style == "my"
    rows = []
    if not tot.inclusive:
        rows.append(("lr", "SUB TOTAL" if my else lab["subtotal"], plan.amt(tot.subtotal), False))
        if tot.service:
            rows.append(
                (
                    "lr",
                    f"{'SERVICE CHARGE' if my else lab['service']} {_rate(plan, tot.service_pct)}%",
                    plan.amt(tot.service),
                    False,
                )
            )
        for rate, _, tax in tot.taxes:
            if rate:
                rows.append(("lr", f"{'GST' if my else lab['tax']} {_rate(plan, rate)}%", plan.amt(tax), False))
    elif show["tax_printed"] and show["net_line"]:
        net_label = "Total Sales (Excluding GST)" if my else lab["net_total"]
        rows.append(("lr", net_label, plan.amt(tot.subtotal), False))
        for rate, _, tax in tot.taxes:
            if rate:
                rows.append(("lr", f"{'GST' if my else lab['tax']} @{_rate(plan, rate)}%", plan.amt(tax), False))
    if tot.rounding:
        rows.append(("lr", "ROUNDING ADJ" if my else lab["rounding"], plan.amt(tot.rounding), False))
    rows.append(("lr", "TOTAL" if my else lab["total"], plan.amt(tot.total, True), True))
    if tot.inclusive and show["tax_printed"] and not show["net_line"]:
        for rate, _, tax in tot.taxes:
            if rate:
                rows.append(("lr", f"{lab['incl_tax']} {_rate(plan, rate)}%", plan.amt(tax), False))
    if tot.cash is not None:
        rows.append(("lr", "CASH" if my else lab["cash"], plan.amt(tot.cash), False))
        rows.append(("lr", "CHANGE" if my else lab["change"], plan.amt(tot.change), False))
    else:
        rows.append(("lr", lab["card"], plan.amt(tot.total), False))
    if my and show["tax_printed"] and plan.rng.random() < 0.6:
        rows += [("gap",), ("lr", "GST SUMMARY  Amount(RM)", "Tax(RM)", False)]
        for rate, base, tax in tot.taxes:
            rows.append(("lr", f"SR @ {_rate(plan, rate)}%   {plan.amt(base)}", plan.amt(tax), False))
    return rows


def _render_receipt(plan: Plan, face: str) -> bytes:
    size = plan.rng.choice((7.5, 8, 8.5))
    width = plan.rng.choice((72.0, 80.0))
    margin = 4.0
    probe = Canvas(plan, face, (width, 200))
    probe.size = size
    probe.new_page()
    inner = width - 2 * margin
    rows = _receipt_rows(plan, int(inner / (size * _MM_PER_PT * 0.6)))
    height = 12 + sum(_receipt_row_height(probe, row, size, inner) for row in rows)
    cv = Canvas(plan, face, (width, max(height, 90.0)))
    cv.size = size
    y = cv.new_page() - 10
    for row in rows:
        y = _receipt_row(cv, row, size, margin, inner, y)
    return cv.output()


def _receipt_row_height(cv: Canvas, row: tuple, size: float, inner: float) -> float:
    if row[0] == "gap":
        return 2.0
    if row[0] == "rule":
        return 2.5
    if row[0] == "c":
        return len(cv.wrap(row[1], inner, size * row[2], row[3])) * cv.lh(size * row[2])
    if row[0] == "l":
        return len(cv.wrap(row[1], inner, size)) * cv.lh(size)
    return cv.lh(size * (1.15 if row[3] else 1))


def _receipt_row(cv: Canvas, row: tuple, size: float, margin: float, inner: float, y: float) -> float:
    if row[0] == "gap":
        return y + 2.0
    if row[0] == "rule":
        cv.text(
            margin, y - 0.5, "-" * int(inner / (size * _MM_PER_PT * 0.6)), size, False, "C", inner
        ) if cv.family == "mono" else cv.hline(margin, margin + inner, y + 1, 0.2, 60)
        return y + 2.5
    if row[0] == "c":
        lines = cv.wrap(row[1], inner, size * row[2], row[3])
        return (
            cv.lines(margin, y, lines, size * row[2], bold_first=False, align="C", w=inner)
            if not row[3]
            else _bold_lines(cv, margin, y, lines, size * row[2], inner)
        )
    if row[0] == "l":
        return cv.lines(margin, y, cv.wrap(row[1], inner, size), size)
    s = size * (1.15 if row[3] else 1)
    cv.text(margin, y, row[1], s, row[3])
    return cv.right(margin + inner, y, row[2], s, row[3])


def _bold_lines(cv: Canvas, x: float, y: float, lines: list[str], size: float, w: float) -> float:
    for line in lines:
        y = cv.text(x, y, line, size, True, "C", w)
    return y
