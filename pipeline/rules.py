"""Deterministic, layout-aware extraction of invoice fields from page text with boxes.

This module owns the rules extractor: label keywords (English, German, French, Dutch,
Spanish, Chinese, Thai, Malay receipts), finding the value right of or below a label, the
vendor/customer blocks, totals chosen by their arithmetic, and line items read from tables.
It is the main extractor; a small LLM only fills what it leaves open. It may import
``pipeline.document``, ``pipeline.parsers`` and the standard library; it must not import
``api`` or ``appliance``.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from pipeline.document import DocumentText
from pipeline.parsers import (
    AmountMatch, DateMatch, detect_currency, find_amounts, find_dates, guess_dayfirst,
    parse_amount, parse_date,
)

__all__ = ["RulesResult", "extract_rules", "parse_amount", "parse_date", "detect_currency"]

AMOUNT_FIELDS = ("subtotal", "discount", "tax_amount", "service_charge", "shipping_cost",
                 "total_amount", "paid_amount", "balance_amount")
TOL = 0.011  # totals printed with 2 decimals may differ by a rounding cent


@dataclass
class RulesResult:
    """What the rules found.

    ``fields``: schema field -> normalised value (ISO date str, float amount, ISO 4217 code,
    stripped str), only fields found. ``line_items``: dicts with description, line_no, sku,
    quantity, unit, unit_price, discount, tax (rate %), line_total (None where unknown).
    ``evidence``: field -> ``{"page": int, "bbox": [x0, y0, x1, y1], "text": str}``.
    """

    fields: dict[str, object] = field(default_factory=dict)
    line_items: list[dict] = field(default_factory=list)
    evidence: dict[str, dict] = field(default_factory=dict)


# --- labels ---------------------------------------------------------------------------------
# (kind, weight, pattern). Kinds are schema fields or helpers: "rounding", "ignore" (a label
# whose value must not be taken by a neighbour: quantities, cash tendered, ids of other
# things), "other_date", "customer", "vendor", "customer_tax_id". Longer matches win over
# shorter ones at the same place, so "Total HT" is a subtotal and never a total.
S = r"[\s.\-]*"  # OCR drops spaces, PDFs insert them: words may be glued or split
LABELS: list[tuple[str, float, str]] = [
    # totals
    ("total_amount", 3.0, rf"(?<![a-z])(?:grand{S}tota[l1]|total{S}factur[ea]|total{S}amount(?:{S}due)?|amount{S}due|total{S}due|total{S}payable"
                          rf"|amount{S}payable|total{S}(?:to{S})?pay|invoice{S}total|total{S}invoice|nett{S}total"
                          rf"|total{S}(?:amt{S})?rounded|rounded{S}total|total{S}incl?\w*\.?(?:{S}of)?{S}(?:gst|vat|tax|ggt)"
                          rf"|total{S}sales{S}\(?{S}incl\w*(?:{S}of)?{S}gst\)?|total{S}ttc|montant{S}ttc|net{S}[àa]{S}payer"
                          rf"|total{S}[àa]{S}payer|somme{S}[àa]{S}payer|montant{S}total(?!{S}ht)|gesamtbetrag(?!{S}der)|gesamtsumme"
                          rf"|rechnungsbetrag|bruttosumme|bruttobetrag|endbetrag|rechnungssumme(?!{S}ohne)|summe{S}brutto"
                          rf"|te{S}betalen|totaal{S}incl\w*(?:{S}btw)?|factuur{S}totaal|totaalbedrag|importe{S}total"
                          rf"|total{S}a{S}pagar|total{S}factura|价税合计|合\s*计|总\s*计|總\s*計|应付金额|รวมทั้งสิ้น|ยอดรวมสุทธิ"
                          rf"|จำนวนเงินรวม|ยอดสุทธิ|jumlah{S}besar|total{S}after{S}adj\w*(?:{S}incl\w*{S}gst)?)"),
    ("total_amount", 2.0, rf"(?<![a-z])tota[l1](?![a-z])(?!{S}(?:qty|quantity|items?|tem|excl|ht|net|tax|vat|gst|discount|savings))"
                          rf"|(?<![a-z])totaal(?![a-z])|(?<![a-z])summe(?![a-z])|(?<![a-z])jumlah(?![a-z])"),
    ("balance_amount", 3.0, rf"balance{S}due|balance(?:{S}\(?{S}if{S}any{S}\)?)?|zahlbetrag|restbetrag|offener{S}betrag"
                            rf"|solde{S}[àa]{S}payer|reste{S}[àa]{S}payer|openstaand(?:{S}bedrag)?|saldo|amount{S}outstanding"),
    ("paid_amount", 3.0, rf"amount{S}paid|paid{S}amount|total{S}paid|payment{S}received|erhaltene{S}anzahlungen?"
                         rf"|anzahlung(?:en)?|bereits{S}bezahlt|d[ée]j[àa]{S}pay[ée]|acompte{S}vers[ée]|reeds{S}betaald"
                         rf"|voldaan|prepaid|less{S}paid"),
    ("subtotal", 3.0, rf"sub{S}-?{S}tota[l1]|subtotaal|zwischensumme|nettobetrag|netto{S}betrag|summe{S}netto"
                      rf"|total{S}ht|montant{S}ht|total{S}hors{S}taxes?|total{S}(?:excl?\w*|exkl\w*|net|before{S}tax)\.?"
                      rf"(?:{S}of)?(?:{S}(?:gst|vat|tax|btw|mwst|ust))?|total{S}sales{S}\(?{S}excl\w*(?:{S}of)?{S}gst\)?"
                      rf"|net{S}amount|net{S}total|exclusief{S}btw|excl\.?{S}btw|totaal{S}excl\w*(?:{S}btw)?"
                      rf"|positionssumme|summe{S}positionen|rechnungssumme{S}ohne{S}ust\.?|warenwert|grondslag|base{S}ht"
                      rf"|importe{S}neto|base{S}imponible|小\s*计|不含税金额|金额合计|ราคาก่อนภาษี|รวมเงิน"),
    ("tax_amount", 2.0, rf"(?<![a-z])(?:sales{S})?tax(?:es)?(?![a-z])|(?<![a-z])vat(?![a-z])|(?<![a-z])gst(?![a-z])"
                        rf"|mwst\.?|(?<![a-z])ust\.?(?![a-z])|umsatzsteuer(?:betrag)?|steuerbetrag|mehrwertsteuer"
                        rf"|(?<![a-z])tva(?![a-z])|(?<![a-z])btw(?![a-z])|(?<![a-z])iva(?![a-z])|税\s*额|税\s*金"
                        rf"|ภาษีมูลค่าเพิ่ม|total{S}(?:gst|vat|tax(?:es)?|tva|mwst)|tax{S}amount|montant{S}tva|btw{S}bedrag"
                        rf"|cuota{S}iva|vat{S}amount|gst{S}amount"),
    ("discount", 2.0, rf"discount|rabatt|nachlass|gesamtbetrag{S}der{S}abschl[äa]ge|abschl[äa]ge|remise|r[ée]duction"
                      rf"|korting|descuento|折\s*扣|ส่วนลด|credits?(?![a-z])"),
    ("shipping_cost", 2.0, rf"shipping(?:{S}(?:&|and){S}handling)?|delivery(?:{S}(?:charges?|fee))?|freight|postage"
                           rf"|versandkosten|versand|fracht|porto|frais{S}de{S}port|frais{S}d.envoi|livraison"
                           rf"|verzendkosten|verzending|gastos{S}de{S}env[ií]o|env[ií]o|运\s*费|ค่าขนส่ง"),
    ("shipping_cost", 1.0, rf"gesamtbetrag{S}der{S}zuschl[äa]ge|zuschl[äa]ge"),
    ("service_charge", 2.0, rf"service{S}charge|svc{S}chg|service{S}fee|servicegeb[üu]hr|frais{S}de{S}service|服务费"
                            rf"|ค่าบริการ"),
    ("rounding", 2.0, rf"rounding(?:{S}adj\w*)?|round{S}adj\w*|arrondi|rundung|afronding|redondeo"),
    ("ignore", 1.0, rf"total{S}(?:qty|quantity|items?|tem\w*)|(?<![a-z])qty|item\(?s?\)?:|(?<![a-z])cash(?:{S}change)?"
                    rf"|change(?:{S}due)?|tendered|(?<![a-z])visa|mastercard|points|prijzen{S}zijn{S}inclusief{S}btw"
                    rf"|incl\w*\.?{S}(?:of{S})?(?:\d+%{S})?(?:gst|vat|btw|mwst)|payment(?:{S}mode)?:?|rate(?![a-z])|pax"),
    # ids and dates
    ("invoice_number", 3.0, rf"(?<![a-zäöü\-])(?:invoice{S}(?:no|num(?:ber)?|nr|#|n°|n[oº]|id)\.?|inv{S}no\.?|bill{S}no\.?|receipt{S}no\.?"
                            rf"|doc(?:ument)?{S}no\.?|rechnungs{S}?(?:nr|nummer|no)\.?|rechnung{S}(?:nr|#)\.?|beleg{S}?nr\.?"
                            rf"|belegnummer|factuur{S}?(?:nummer|nr)\.?|n°{S}de{S}facture|num[ée]ro{S}de{S}facture"
                            rf"|facture{S}n°|num[eé]ro{S}de{S}factura|factura{S}n[oº°]\.?|发票号码|发票号|單\s*號|单\s*号"
                            rf"|เลขที่ใบกำกับภาษี|เลขที่ใบเสร็จ|no\.?{S}invois|invoice{S}#)"),
    ("invoice_number", 1.5, rf"(?<![a-z])(?:invoice|factuur|facture|rechnung|factura|avoir|credit{S}note|gutschrift"
                            rf"|\w+rechnung|rechnungskorrektur)(?![a-z])|(?<![a-z])nr\.(?![a-z])|เลขที่"),
    ("invoice_date", 3.0, rf"invoice{S}date|date{S}of{S}(?:invoice|issue)|issue{S}date|date{S}issued|bill{S}date"
                          rf"|rechnungsdatum|belegdatum|datum{S}der{S}rechnung|factuur{S}?datum|date{S}de{S}(?:la{S})?facture"
                          rf"|fecha{S}de{S}(?:factura|emisi[oó]n)|data{S}fattura|开票日期|发票日期|วันที่ออกใบกำกับ"
                          rf"|tarikh{S}invois"),
    ("invoice_date", 2.0, rf"(?<![a-z])(?:date|datum|fecha|data|tarikh|dale|dated)(?![a-z])|日\s*期|วันที่|(?<![a-z])vom(?![a-z])"
                          rf"|(?<=\d)\s+du(?![a-z])"),
    ("due_date", 3.0, rf"due{S}date|date{S}due|payment{S}due|pay{S}by|due(?:{S}on)?(?![a-z])|f[äa]lligkeitsdatum|f[äa]llig{S}am"
                      rf"|zahlungsziel|zahlbar{S}bis|vervaldatum|vervaldag|date{S}d.[ée]ch[ée]ance|[ée]ch[ée]ance"
                      rf"|date{S}limite{S}de{S}paiement|fecha{S}de{S}vencimiento|vencimiento|到期日|付款期限"
                      rf"|ครบกำหนดชำระ|วันครบกำหนด"),
    ("other_date", 3.0, rf"order{S}date|delivery{S}date|ship(?:ping)?{S}date|leistungsdatum|lieferdatum|liefer-?{S}und"
                        rf"{S}leistungsdatum|orderdatum|besteldatum|leverdatum|date{S}de{S}(?:livraison|commande)"
                        rf"|check{S}in|check{S}out|billing{S}period|abrechnungszeitraum|period(?:e)?|zeitraum|bis"
                        rf"|fecha{S}de{S}entrega|printed|(?<![a-z])time(?![a-z])"),
    ("ignore", 2.0, rf"customer{S}(?:no|number|id)\.?|kunden{S}?(?:nr|nummer)\.?|klant{S}?nummer|order{S}(?:no|number|id)\.?"
                    rf"|ordernummer|bestell(?:ung|nummer|nr)\.?|account{S}(?:no|number)\.?|po{S}(?:no|number)\.?"
                    rf"|reference|referenz|r[ée]f[ée]rence|booking{S}id|contract{S}no\.?|iban|bic|swift|kvk"
                    rf"|telefon|phone|tel\.?|fax|gln|nummer|siret|siren|ape|rcs|blz|kto-?nr\.?|hrb|registergericht"
                    rf"|uw{S}referentie|votre{S}r[ée]f[ée]rence|lieferavis|w[äa]hrung|currency|devise|valuta|ship{S}to|deliver{S}to|lieferadresse|lieferanschrift|adresse{S}de{S}livraison"
                    rf"|afleveradres|delivery{S}address|shipping{S}address|lieferschein|token{S}no|cashier|operator"),
    ("vendor_tax_id", 3.0, rf"vat{S}(?:reg(?:istration)?{S})?(?:no|number|id)\.?|vat{S}id|ust{S}-?{S}id{S}-?{S}(?:nr)?\.?"
                           rf"|ustid(?:nr)?\.?|umsatzsteuer{S}-?{S}id\w*|n°{S}(?:de{S})?tva(?:{S}intra{S}?communautaire)?"
                           rf"|tva{S}intra{S}?communautaire|btw{S}?(?:nummer|nr|id)\.?|gst{S}(?:reg{S})?(?:no|id)\.?"
                           rf"|gst{S}reg\w*{S}no\.?|gstin|tax{S}(?:id|reg\w*)(?:{S}no)?\.?|(?<![a-z])tin(?![a-z])|nif|cif"
                           rf"|税\s*号|纳税人识别号|เลขประจำตัวผู้เสียภาษี"),
    ("vendor_tax_id", 1.5, rf"steuernummer|steuer{S}-?{S}nr\.?|(?<![a-z])tva(?![a-z])|(?<![a-z])btw(?![a-z])|(?<![a-z])vat(?![a-z])"),
    ("customer_tax_id", 3.0, rf"uw{S}btw{S}nummer|n°{S}tva{S}client|your{S}vat|customer{S}vat|votre{S}n°{S}tva"),
    ("payment_terms", 3.0, rf"payment{S}terms|terms{S}of{S}payment|zahlungsbedingungen|conditions{S}de{S}(?:paiement|r[èe]glement)"
                           rf"|betalingsvoorwaarden|betalingstermijn|condiciones{S}de{S}pago|付款条件|เงื่อนไขการชำระเงิน"),
    ("customer", 3.0, rf"bill(?:ed)?{S}to|invoice(?:d)?{S}to|sold{S}to|customer(?![a-z]{S}?(?:no|nr|number|id))|client(?!{S}(?:no|nr))"
                      rf"|buyer|k[äa]ufer(?:{S}/{S}leistungsempf[äa]nger)?|rechnungsempf[äa]nger|leistungsempf[äa]nger"
                      rf"|factuuradres|adresse{S}de{S}facturation|facturé{S}[àa]|destinataire|facturar{S}a|cliente"
                      rf"|购买方|购货单位|客\s*户|ลูกค้า|ผู้ซื้อ|billing{S}address|guest{S}name"),
    ("vendor", 3.0, rf"(?<![a-z])seller|(?<![a-z])vendor|supplier|sold{S}by|verk[äa]ufer|rechnungsersteller|leverancier"
                    rf"|vendeur|fournisseur|emisor|proveedor|销售方|销货单位|卖\s*方|ผู้ขาย|service{S}provider"),
]
_LABEL_RES = [(kind, weight, re.compile(pattern, re.I)) for kind, weight, pattern in LABELS]
_TITLE_RE = re.compile(r"^\W*(?:tax\s*invoice|invoice|facture|factuur|rechnung|receipt|bill|kopie\s+factuur|copy)\W*$|"
                       r"(?<![a-z])(?:invoice|facture|factuur|rechnung|receipt)(?![a-z])\W*", re.I)
_COMPANY_RE = re.compile(
    r"\b(?:GmbH|AG|KG|OHG|e\.?\s?K\.?|mbH|Inc\.?|Incorporated|Ltd\.?|Limited|LLC|LLP|PLC|Corp\.?|Corporation|Co\.|"
    r"BHD\.?|B\.?\s?V\.?|N\.?\s?V\.?|S\.?\s?A\.?|SARL|S\.?A\.?S\.?|SAS|SRL|S\.?L\.?|S\.?p\.?A\.?|"
    r"Pty\.?|Pvt\.?|a\.\s?G\.|Oy|AB|A/S|ApS|有限公司|บริษัท|จำกัด)(?![\w])|SDN\.?\s*B[HR][DZ]\.?", re.I)
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL_RE = re.compile(r"\b(?:https?://|www\.)\S+|\b\S+\.(?:com|de|fr|nl|net|org|my)\b", re.I)
_PHONE_RE = re.compile(r"(?:tel|phone|fax|telefon|t\.|f\.)\W*[+\d(]", re.I)
_POSTCODE_RE = re.compile(r"(?:^|[\s,])(?:[A-Z]{1,2}[- ]?)?\d{4,6}(?:-\d{4})?\s*,?\s*[A-Za-zÀ-ÿ]{2,}|"
                          r"\b\d{4}\s?[A-Z]{2}\b|[A-Za-z]+,?\s+[A-Z]{2}\s+\d{5}\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b")
_VAT_RE = re.compile(r"\b(?:ATU\d{8}|BE\s?0?\d{3}[.\s]?\d{3}[.\s]?\d{3}|DE\s?\d{3}\s?\d{3}\s?\d{3}|"
                     r"FR\s?[0-9A-Z]{2}\s?\d{3}\s?\d{3}\s?\d{3}|NL\s?\d{4}[.\s]?\d{2}[.\s]?\d{3}[.\s]?B[.\s]?\d{2}|"
                     r"(?:ES|IT|PT|PL|SE|DK|FI|IE|LU|CZ|GB|CHE)[-\s]?[0-9A-Z][0-9A-Z.\s-]{7,14}\d|"
                     r"\d{2}[A-Z]{5}\d{4}[A-Z]\d[A-Z\d]{2})\b")
_ID_TOKEN = re.compile(r"#?[A-Za-z0-9][A-Za-z0-9/_\-.]*[A-Za-z0-9]|\d")


# --- layout model ---------------------------------------------------------------------------

@dataclass
class _Label:
    kind: str
    weight: float
    start: int
    end: int
    bbox: tuple


@dataclass
class _Line:
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
        heights = sorted(b[3] - b[1] for _, _, b in self.spans) or [self.bbox[3] - self.bbox[1]]
        return max(heights[len(heights) // 2], 1.0)

    def span_bbox(self, start: int, end: int) -> tuple:
        boxes = [b for s, e, b in self.spans if s < end and e > start] or [self.bbox]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))

    def evidence(self) -> dict:
        return {"page": self.page, "bbox": [round(v, 1) for v in self.bbox], "text": self.text}


def _build_lines(doc: DocumentText) -> list[_Line]:
    lines = []
    for page in doc.pages:
        for index, line in enumerate(page.lines):
            parts, spans, pos = [], [], 0
            for word in line.words or ():
                text = word.text.strip()
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
            lines.append(_Line(page.number, index, text, line.bbox, spans, page.width, page.height,
                               page.source == "ocr"))
    return lines


def _find_labels(text: str, line: _Line) -> list[_Label]:
    found = []
    for kind, weight, pattern in _LABEL_RES:
        for match in pattern.finditer(text):
            if match.end() > match.start():
                found.append((match.start(), match.end(), kind, weight))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0]), -f[3]))
    chosen: list[_Label] = []
    for start, end, kind, weight in found:
        if chosen and start < chosen[-1].end:
            continue
        if kind == "tax_amount" and re.search(r"\d\s?%\s?$", text[:start]):
            continue  # "7 % UST": a rate column of a table row, not a label
        chosen.append(_Label(kind, weight, start, end, line.span_bbox(start, end)))
    return chosen


def _annotate(lines: list[_Line], dayfirst: bool, loose_dates: bool) -> None:
    for line in lines:
        line.labels = _find_labels(line.text, line)
        line.dates = find_dates(line.text, dayfirst, loose=loose_dates)
        line.amounts = [a for a in find_amounts(line.text)
                        if not any(a.start < d.end and d.start < a.end for d in line.dates)]


def _region_end(line: _Line, label: _Label) -> int:
    """Where the value region of ``label`` ends: at the next label of another meaning."""
    for other in line.labels:
        if other.start >= label.end and other.kind != label.kind:
            return other.start
    return len(line.text)


def _below_lines(lines: list[_Line], line: _Line, box: tuple, depth: int = 2) -> list[_Line]:
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


def _overlapping(line: _Line, start: int, end: int, box: tuple, slack: float = 0.0) -> bool:
    b = line.span_bbox(start, end)
    return b[0] <= box[2] + slack and b[2] >= box[0] - slack


# --- amounts --------------------------------------------------------------------------------

@dataclass
class _Cand:
    value: object
    score: float
    line: _Line
    order: float = 0.0


def _amount_candidates(lines: list[_Line]) -> dict[str, list[_Cand]]:
    kinds = set(AMOUNT_FIELDS) | {"rounding"}
    cands: dict[str, list[_Cand]] = {k: [] for k in kinds}
    for line in lines:
        for label in line.labels:
            if label.kind not in kinds:
                continue
            end = _region_end(line, label)
            right = [a for a in line.amounts if a.start >= label.end and a.end <= end]
            if right:
                for rank, amount in enumerate(reversed(right)):
                    score = label.weight * (1.0 if rank == 0 else 0.5) + _amount_quality(amount)
                    cands[label.kind].append(_Cand(amount.value, score, line, _order(line)))
                continue
            if _other_text_right(line, label, end):
                continue
            for below in _below_lines(lines, line, label.bbox):
                hits = [a for a in below.amounts if _overlapping(below, a.start, a.end, label.bbox, 15)]
                if hits and not below.labels[:1] or hits and below.labels and below.labels[0].start > hits[0].start:
                    amount = hits[-1]
                    cands[label.kind].append(_Cand(amount.value, label.weight * 0.8 + _amount_quality(amount),
                                                   below, _order(below)))
                    break
    return cands


def _other_text_right(line: _Line, label: _Label, end: int) -> bool:
    """Whether words that are neither values nor labels follow the label (a sentence, not a cell)."""
    rest = line.text[label.end:end]
    return len(re.sub(r"[\W\d_]", "", rest)) > 12


def _amount_quality(amount: AmountMatch) -> float:
    return (0.3 if amount.decimals else -0.6) + (0.2 if amount.currency else 0.0)


def _position_penalty(line: _Line) -> float:
    """Header fields sit early in a document: prefer the first of equally good labels."""
    return 0.05 * (line.page - 1) + 0.1 * line.bbox[1] / max(line.page_height, 1.0)


def _order(line: _Line) -> float:
    return line.page * 10000 + line.bbox[1]


def _best_by_value(cands: list[_Cand], limit: int = 4) -> list[_Cand]:
    """Distinct values with their best score; a value printed again adds a little."""
    by_value: dict[float, _Cand] = {}
    counts: dict[float, int] = {}
    for cand in cands:
        key = round(float(cand.value), 2)
        counts[key] = counts.get(key, 0) + 1
        if key not in by_value or cand.score > by_value[key].score:
            by_value[key] = cand
    out = []
    for key, cand in by_value.items():
        out.append(_Cand(cand.value, cand.score + 0.15 * min(counts[key] - 1, 3), cand.line, cand.order))
    out.sort(key=lambda c: -c.score)
    return out[:limit]


def _choose_amounts(cands: dict[str, list[_Cand]], lines: list[_Line]) -> dict[str, _Cand]:
    """Pick one value per amount field, rewarding combinations whose arithmetic holds."""
    top = {k: _best_by_value(v) for k, v in cands.items()}
    if not top["total_amount"]:
        fallback = _fallback_total(lines)
        if fallback:
            top["total_amount"] = [fallback]
    best, best_score = {}, float("-inf")
    totals = top["total_amount"] or [None]
    options = {k: [None] + top[k][:3] for k in ("subtotal", "tax_amount", "discount", "shipping_cost",
                                                 "service_charge", "rounding")}
    consistent = False
    for total in totals:
        for combo in itertools.product(*options.values()):
            chosen = dict(zip(options.keys(), combo))
            chosen["total_amount"] = total
            bonus = _arithmetic_bonus(chosen)
            # Label quality decides between readings; arithmetic decides which fields to keep.
            score = (total.score if total else 0) + bonus
            score += sum(0.2 * c.score for k, c in chosen.items() if c is not None and k != "total_amount")
            if bonus <= 0:
                score -= sum(1.0 for k, c in chosen.items() if c is not None and k != "total_amount")
            if score > best_score:
                best, best_score, consistent = chosen, score, bonus > 0
    best = {k: v for k, v in best.items() if v is not None}
    if not consistent:
        # No arithmetic to lean on: keep each label's best reading on its own.
        for name in ("subtotal", "tax_amount"):
            if top[name] and top[name][0].score >= 2.0:
                best[name] = top[name][0]
    if "total_amount" in best and "subtotal" not in best and "tax_amount" in best:
        sub = round(float(best["total_amount"].value) - float(best["tax_amount"].value), 2)
        if abs(float(best["tax_amount"].value)) < TOL:
            best["subtotal"] = _Cand(sub, 0.0, best["total_amount"].line)
    _choose_paid_balance(best, top)
    return best


def _arithmetic_bonus(chosen: dict[str, _Cand | None]) -> float:
    value = {k: (float(c.value) if c is not None else None) for k, c in chosen.items()}
    total, sub = value["total_amount"], value["subtotal"]
    if total is None or sub is None:
        return 0.0
    tax = value["tax_amount"] or 0.0
    disc = abs(value["discount"] or 0.0)
    extra = (value["shipping_cost"] or 0.0) + (value["service_charge"] or 0.0) + (value["rounding"] or 0.0)
    terms = sum(1 for k in ("tax_amount", "discount", "shipping_cost", "service_charge", "rounding")
                if value[k] is not None)
    if abs(sub - disc + tax + extra - total) <= TOL * max(1, abs(total) / 1000):
        return 4.0 + 0.5 * terms if terms or abs(sub - total) < TOL else 0.0
    if abs(sub + tax + extra - total) <= TOL and terms:  # discount already inside the subtotal
        return 2.0
    # A subtotal larger than the total without a discount is a misread.
    return -1.0 if abs(sub) > abs(total) + TOL and not disc else 0.0


def _choose_paid_balance(best: dict[str, _Cand], top: dict[str, list[_Cand]]) -> None:
    total = best.get("total_amount")
    paid = top["paid_amount"][0] if top["paid_amount"] else None
    balances = top["balance_amount"]
    if total is not None and paid is not None and balances:
        for bal in balances:
            for sign in (1, -1):
                if abs(float(total.value) - sign * float(paid.value) - float(bal.value)) <= TOL:
                    best["balance_amount"] = bal
                    # Paid is what makes total - paid = balance, whatever sign the print uses.
                    paid = _Cand(sign * float(paid.value), paid.score, paid.line)
                    break
            if "balance_amount" in best:
                break
    elif balances:
        best["balance_amount"] = balances[0]
    if paid is not None:
        best["paid_amount"] = paid
    elif total is not None and "balance_amount" in best:
        diff = round(float(total.value) - float(best["balance_amount"].value), 2)
        if abs(diff) > TOL:
            best["paid_amount"] = _Cand(diff, 0.0, best["balance_amount"].line)


def _fallback_total(lines: list[_Line]) -> _Cand | None:
    """Without a total label: the largest amount with decimals in the lower two thirds."""
    pool = [(a.value, line) for line in lines for a in line.amounts
            if a.decimals and line.bbox[1] > line.page_height / 3 and abs(a.value) < 1e7]
    if not pool:
        return None
    value, line = max(pool, key=lambda p: p[0])
    return _Cand(value, 0.5, line)


# --- ids, dates, names ----------------------------------------------------------------------

def _value_text(lines: list[_Line], line: _Line, label: _Label) -> list[tuple[str, _Line, int]]:
    """Texts that may hold the value of ``label``: right of it, then in the lines below it."""
    out = []
    end = _region_end(line, label)
    rest = line.text[label.end:end]
    if rest.strip(" :#.-"):
        out.append((rest, line, label.end))
    elif _in_sentence(line, label) and len(line.labels) == 1:
        return out  # a word at the end of a sentence, not a column header
    for below in _below_lines(lines, line, label.bbox, depth=2 if label.weight >= 2 else 1):
        overlaps = [(min(box[2], label.bbox[2]) - max(box[0], label.bbox[0]), s) for s, e, box in below.spans
                    if box[0] <= label.bbox[2] + 10 and box[2] >= label.bbox[0] - 10]
        if overlaps:
            start = max(overlaps)[1]
            # The value cell runs on to the right until the next label on that line.
            stop = next((lb.start for lb in below.labels if lb.start > start), len(below.text))
            out.append((below.text[start:stop], below, start))
    return out


def _in_sentence(line: _Line, label: _Label) -> bool:
    return len(re.sub(r"[\W\d_]", "", line.text[:label.start])) > 25


def _id_from(text: str) -> str | None:
    text = re.sub(r"^\s*(?:\(\d+\)|[:#.\-]|n[°o]\.?|nr\.?|no\.?|number|nummer)\s*", "", text, flags=re.I)
    text = re.sub(r"^\s*(?:\(\d+\)|[:#.\-]|n[°o]\.?|nr\.?|no\.?)\s*", "", text, flags=re.I)
    tokens = text.split()
    prefix = []
    for token in tokens[:4]:
        token = token.strip(":,;")
        if not token:
            continue
        if find_dates(token) or token.endswith("%"):
            return None
        if any(ch.isdigit() for ch in token) and _ID_TOKEN.fullmatch(token.lstrip("#")):
            value = " ".join(prefix + [token.lstrip("#").rstrip(".")])
            return value if len(re.sub(r"\W", "", value)) >= 3 else None
        if re.fullmatch(r"[A-Z]{2,4}", token) and not prefix:
            prefix.append(token)
            continue
        return None
    return None


def _find_invoice_number(lines: list[_Line]) -> tuple[str, _Line] | None:
    best = None
    for line in lines:
        for label in line.labels:
            if label.kind != "invoice_number":
                continue
            for rank, (text, src, _) in enumerate(_value_text(lines, line, label)):
                value = _id_from(text)
                if value:
                    score = label.weight - (0.5 if src is not line else 0) - _position_penalty(line)
                    score -= 1.5 if _in_sentence(line, label) else 0
                    if best is None or score > best[0]:
                        best = (score, value, src)
                    break
    return (best[1], best[2]) if best else None


def _find_dates(lines: list[_Line]) -> dict[str, tuple[str, _Line]]:
    scored: dict[str, tuple[float, str, _Line]] = {}
    labelled: set[tuple[int, int, int]] = set()
    for line in lines:
        for label in line.labels:
            if label.kind not in ("invoice_date", "due_date", "other_date"):
                continue
            for rank, (text, src, offset) in enumerate(_value_text(lines, line, label)):
                dates = [d for d in src.dates if d.start >= offset and d.start < offset + len(text)]
                if not dates:
                    continue
                date = dates[0]
                labelled.add((src.page, src.index, date.start))
                score = label.weight - (0.5 if src is not line else 0) - (0.2 if date.ambiguous else 0)
                score -= _position_penalty(line)
                if label.kind not in scored or score > scored[label.kind][0]:
                    scored[label.kind] = (score, date.iso, src)
                break
    out = {k: (v[1], v[2]) for k, v in scored.items() if k != "other_date"}
    if "invoice_date" not in out:
        for line in lines:
            if _PHONE_RE.search(line.text):
                continue
            free = [d for d in line.dates if (line.page, line.index, d.start) not in labelled]
            if free:
                out["invoice_date"] = (free[0].iso, line)
                break
    return out


def _clean_name(text: str) -> str:
    text = _EMAIL_RE.sub(" ", text)
    text = _TITLE_RE.sub(" ", text)
    text = re.sub(r"^\s*(?:name|firma|company|nom|naam)\s*:\s*", "", text, flags=re.I)
    return " ".join(text.split()).strip(" ,:;-|")


def _cells(line: _Line) -> list[tuple[int, int, tuple]]:
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


def _block_below(lines: list[_Line], line: _Line, x0: float, max_lines: int = 6) -> list[tuple[_Line, str, tuple]]:
    """Cells that start near ``x0`` in the lines right below ``line`` (an address block)."""
    out, last = [], line
    for other in lines:
        if other.page != line.page or other.bbox[1] <= last.bbox[1] + 0.3 * last.height:
            continue
        if other.bbox[1] - last.bbox[3] > 1.8 * max(last.height, other.height):
            break
        cells = _cells(other)
        cell = next((c for c in cells if abs(c[2][0] - x0) <= max(12, 2 * other.height)), None)
        if cell is None:
            if all(c[2][0] > x0 for c in cells):
                continue  # indented text of the block (a value column further right)
            break
        following = [c for c in cells if c[0] > cell[0]]
        if other.text[cell[0]:cell[1]].rstrip().endswith(":") and following:
            # "Name:" in a label column: its value is the next cell.
            cell = (cell[0], following[0][1], (cell[2][0], cell[2][1], following[0][2][2], cell[2][3]))
        out.append((other, other.text[cell[0]:cell[1]], cell[2]))
        last = other
        if len(out) >= max_lines:
            break
    return out


def _strip_label_prefix(line: _Line, start: int, text: str) -> tuple[str, float | None]:
    match = re.match(r"\s*(?:name|anschrift|address|adresse|adres|firma|company)\s*:\s*", text, re.I)
    if not match:
        return text, None
    box = line.span_bbox(start + match.end(), start + match.end() + 1)
    return text[match.end():], box[0]


def _section_starts(lines: list[_Line], kind: str) -> list[tuple[_Line, _Label]]:
    return [(line, label) for line in lines for label in line.labels if label.kind == kind]


def _customer_zone(lines: list[_Line]) -> set[tuple[int, int, int]]:
    """(page, line, x-bucket) of text in blocks introduced by customer labels."""
    zone = set()
    for line, label in _section_starts(lines, "customer"):
        zone.add((line.page, line.index, int(label.bbox[0] // 40)))
        for other, _, box in _block_below(lines, line, label.bbox[0]):
            zone.add((other.page, other.index, int(box[0] // 40)))
    return zone


_NOT_NAME_RE = re.compile(r"^\W*(?:nummer|number|nr|no|globale|ansprechpartner|kontakt|contact|telefon|tel|phone"
                          r"|attn|e-?mail|ust|vat|steuer)\b", re.I)


def _party(lines: list[_Line], line: _Line, label: _Label) -> tuple[str, _Line, float] | None:
    """The name in a party block (seller/buyer): right of its label, or the first name line
    below it; a "Name:" row wins, with the indented line above it when the name wraps."""
    rest = _clean_name(line.text[label.end:_region_end(line, label)])
    if _plausible_name(rest) and not _NOT_NAME_RE.match(rest) and not _find_labels(rest, line):
        return rest, line, line.span_bbox(label.end + 1, label.end + 2)[0]
    block = _block_below(lines, line, label.bbox[0], max_lines=6)
    plain = None
    for position, (other, text, box) in enumerate(block):
        value, x0 = _strip_label_prefix(other, 0, text)
        name = _clean_name(value)
        if x0 is not None and re.match(r"\s*(?:name|firma|company)", text, re.I) and _plausible_name(name):
            above = [ln for ln in lines if ln.page == other.page and 0 < other.bbox[1] - ln.bbox[1] < 2.2 * other.height
                     and ln.bbox[1] > line.bbox[1] and abs(ln.bbox[0] - x0) < 5 and not ln.labels]
            if above:
                name = f"{_clean_name(above[-1].text)} {name}"
            return name, other, x0
        if plain is None and _plausible_name(name) and not _NOT_NAME_RE.match(text) and position < 2:
            plain = (name, other, box[0])
    return plain


def _find_customer(lines: list[_Line]) -> tuple[str, _Line] | None:
    for line, label in _section_starts(lines, "customer"):
        found = _party(lines, line, label)
        if found:
            return found[0], found[1]
    return None


def _plausible_name(text: str) -> bool:
    letters = sum(ch.isalpha() for ch in text)
    digits = sum(ch.isdigit() for ch in text)
    return letters >= 2 and digits <= letters / 3 and not _EMAIL_RE.search(text) and len(text) <= 80


def _vendor_candidates(lines: list[_Line], customer_zone: set) -> list[tuple[float, str, _Line, float]]:
    """(score, name, line, value x0) of possible vendor names."""
    first_page = [ln for ln in lines if ln.page == lines[0].page] if lines else []
    heights = sorted(ln.height for ln in first_page) or [1.0]
    median_h = heights[len(heights) // 2]
    out = []
    for line, label in _section_starts(lines, "vendor"):
        found = _party(lines, line, label)
        if found:
            out.append((4.5 + (0.5 if _COMPANY_RE.search(found[0]) else 0), found[0], found[1], found[2], None))
    for line in lines:
        top = line.bbox[1] < 0.3 * line.page_height and line.page == lines[0].page
        for s, e, box in _cells(line):
            raw = line.text[s:e]
            if (line.page, line.index, int(box[0] // 40)) in customer_zone:
                continue
            if any(lb.end <= s and not line.text[lb.end:s].strip(" :#") for lb in line.labels):
                continue  # the value of a label ("Währung: EUR"), not a name
            company = _COMPANY_RE.search(raw)
            if not top and not company:
                continue
            name, bonus, address = _name_from_cell(raw)
            if not _plausible_name(name) or _URL_RE.fullmatch(name):
                continue
            labels = _find_labels(name, line)
            if any(lb.kind not in ("invoice_number",) for lb in labels) and not company:
                continue
            score = bonus + (2.0 if company else 0.0)
            if top:
                score += 1.0 + min((box[3] - box[1]) / median_h, 2.5) - 2.0 * line.bbox[1] / line.page_height
            else:
                score -= 0.5
            if re.search(r"\d", name):
                score -= 0.7
            out.append((score, name, line, box[0] + _lead_offset(line, s, raw, name), address))
    out.sort(key=lambda c: -c[0])
    return out


def _lead_offset(line: _Line, start: int, raw: str, name: str) -> float:
    pos = raw.find(name.split()[0]) if name else 0
    return line.span_bbox(start + max(pos, 0), start + max(pos, 0) + 1)[0] - line.span_bbox(start, start + 1)[0]


def _name_from_cell(raw: str) -> tuple[str, float, str | None]:
    """(name, bonus, address) from a cell; a DIN sender line "Name - Street - City" gives its
    first part as the name and the parts up to the postcode as the address."""
    parts = [p.strip() for p in re.split(r"\s[-–|•]\s", raw) if p.strip()]
    if len(parts) >= 2 and any(_POSTCODE_RE.search(p) for p in parts[1:]):
        address = []
        for part in parts[1:]:
            address.append(part)
            if _POSTCODE_RE.search(part):
                break
        return _clean_name(parts[0]), 1.0, ", ".join(address)
    sold = re.search(r"(?:sold|provided|issued)\s+by\s*:?\s*(.+)$", raw, re.I)
    if sold:
        return _clean_name(sold.group(1)), 1.5, None
    company = _COMPANY_RE.search(raw)
    if company and len(raw) > 60:
        head = raw[:company.end()]
        head = re.split(r"[:;]|\s[-–]\s|\b(?:by|von|par|door)\b", head)[-1]
        return _clean_name(head), 0.0, None
    name = re.sub(r"\s*\(\s*[\w-]*\d[\w-]*\s*\)\s*$", "", raw)  # a registration number after the name
    return _clean_name(name), 0.0, None


def _find_vendor(lines: list[_Line], customer_zone: set) -> tuple[str, _Line, float, str | None] | None:
    cands = _vendor_candidates(lines, customer_zone)
    if not cands:
        return None
    score, name, line, x0, address = cands[0]
    return name, line, x0, address


def _find_address(lines: list[_Line], vendor_line: _Line, x0: float) -> tuple[str, _Line] | None:
    parts, last_line = [], None
    centre = None
    block = _centred_below(lines, vendor_line) if vendor_line.ocr else _block_below(lines, vendor_line, x0, 7)
    for other, text, box in block:
        value, _ = _strip_label_prefix(other, 0, text)
        value = value.strip(" ,")
        if _EMAIL_RE.search(value) or _PHONE_RE.search(value) or find_dates(value, loose=True) or re.search(
                r"gst|vat|tax|steuer|ust|tva|btw|kvk|invoice|factuur|facture|receipt|^[\d\s()+/-]{7,}$", value, re.I):
            break
        if re.match(r"^\W*(?:co\.?|company|conpany|br|reg|roc|business)\W*(?:reg|no|rfg)?", value, re.I) and \
                re.search(r"\d", value) or re.fullmatch(r"\(.*\d.*\)", value):
            if not parts:
                continue
            break
        if any(lb.kind not in ("invoice_number", "vendor_tax_id", "tax_amount") for lb in _find_labels(value, other)) \
                and not _POSTCODE_RE.search(value):
            break
        parts.append(value)
        last_line = other
        if (len(parts) >= 2 or other.ocr) and _POSTCODE_RE.search(value) and not re.search(r"\(", value):
            centre = len(parts)
            break
    if centre is not None:
        # One trailing line without digits (a state or a branch in brackets) still belongs.
        nxt = _block_below(lines, last_line, x0, 1) if last_line else []
        if nxt and not re.search(r"\d|tel|fax|gst", nxt[0][1], re.I) and len(nxt[0][1]) < 40:
            parts.append(nxt[0][1].strip())
    if not parts:
        return None
    return ", ".join(parts), last_line


def _centred_below(lines: list[_Line], line: _Line) -> list[tuple[_Line, str, tuple]]:
    """Receipts centre their header: the lines below that overlap the name's column."""
    out, last = [], line
    for other in lines:
        if other.page != line.page or other.bbox[1] <= last.bbox[1] + 0.3 * last.height:
            continue
        if other.bbox[1] - last.bbox[3] > 1.8 * max(last.height, other.height) or len(out) >= 7:
            break
        out.append((other, other.text, other.bbox))
        last = other
    return out


def _find_tax_id(lines: list[_Line], customer_zone: set) -> tuple[str, _Line] | None:
    best = None
    for line in lines:
        for label in line.labels:
            if label.kind != "vendor_tax_id":
                continue
            for rank, (text, src, _) in enumerate(_value_text(lines, line, label)):
                value = _tax_id_from(text)
                if value:
                    in_customer = (src.page, src.index, int(label.bbox[0] // 40)) in customer_zone
                    score = label.weight - 0.3 * rank - (2 if in_customer else 0) + (1 if _VAT_RE.search(value) else 0)
                    if best is None or score > best[0]:
                        best = (score, value, src)
                    break
    if best is None:
        for line in lines:
            if any(lb.kind == "customer_tax_id" for lb in line.labels):
                continue
            match = _VAT_RE.search(line.text)
            if match:
                return match.group(0).strip(), line
    return (best[1], best[2]) if best else None


def _tax_id_from(text: str) -> str | None:
    text = text.strip(" :#.-")
    match = _VAT_RE.search(text)
    if match and match.start() < 3:
        return match.group(0).strip()
    match = re.match(r"([A-Z]{0,3}[\s-]?\d[\dA-Z][\dA-Z .\-/]{4,18}[\dA-Z])", text)
    if match and sum(ch.isdigit() for ch in match.group(1)) >= 6:
        return re.split(r"\s{2,}|\s(?=[A-Z][a-z])", match.group(1))[0].strip()
    return None


def _find_email(lines: list[_Line], customer_zone: set, vendor: str | None) -> tuple[str, _Line] | None:
    best = None
    vendor_key = re.sub(r"\W", "", (vendor or "").lower())[:6]
    for line in lines:
        for match in _EMAIL_RE.finditer(line.text):
            box = line.span_bbox(match.start(), match.end())
            score = 0.0
            if (line.page, line.index, int(box[0] // 40)) in customer_zone:
                score -= 3
            if any(lb.kind == "customer" for lb in line.labels) or re.search(r"contact|abonn|client|kunde|klant",
                                                                                line.text, re.I):
                score -= 1
            domain = match.group(0).split("@")[1].lower()
            if vendor_key and vendor_key[:4] in domain.replace("-", ""):
                score += 2
            if best is None or score > best[0]:
                best = (score, match.group(0).strip("."), line)
    return (best[1], best[2]) if best and best[0] > -1 else None


def _find_terms(lines: list[_Line]) -> tuple[str, _Line] | None:
    for line, label in _section_starts(lines, "payment_terms"):
        rest = line.text[label.end:].strip(" :")
        if len(rest) >= 3:
            return rest, line
        for below in _below_lines(lines, line, (label.bbox[0], 0, line.page_width, 0), depth=3):
            if len(below.text) < 60 and not re.search(r"\d", below.text) and \
                    all(w[:1].isupper() for w in below.text.split()) and len(below.text.split()) <= 5:
                continue  # a header row of a terms table
            return below.text.strip(), below
    return None


def _find_currency(lines: list[_Line]) -> tuple[str, _Line] | None:
    text = "\n".join(line.text for line in lines)
    code = detect_currency(text)
    if not code:
        return None
    for line in lines:
        if detect_currency(line.text) == code:
            return code, line
    return code, lines[0]


# --- line items -----------------------------------------------------------------------------

_COLS = {
    "description": r"description|desc\.?|item|article|artikel|omschrijving|beschreibung|bezeichnung|d[ée]signation"
                   r"|product(?:\s*title)?|produkt|libell[ée]|descripci[oó]n|concepto|leistung|品\s*名|项\s*目|รายการ",
    "quantity": r"qty\.?|quantity|menge|aantal|hoeveelheid|quantit[ée]|nombre|cantidad|anzahl|stk|数\s*量|จำนวน",
    "unit_price": r"unit\s*price|u\.?\s*price|s/price|price|rate|prijs(?:\s*per\s*stuk)?|preis|einzelpreis|nettopreis"
                  r"|p\.?\s*u\.?(?:\s*ht)?|prix(?:\s*unitaire)?|precio|vk-preis|单\s*价|ราคา(?:ต่อหน่วย)?",
    "line_total": r"amount|amt|total|line\s*total|bedrag|betrag|gesamt|nettobetrag|zeilenbetrag|montant(?:\s*ht)?"
                  r"|importe|金\s*额|จำนวนเงิน|prijs\s*incl\.?\s*btw|summe",
    "tax": r"tax(?:\s*\(%\))?|vat|btw|mwst|tva|steuersatz|iva|税\s*率|%",
}
_COL_RES = {k: re.compile(rf"(?<![a-z])(?:{v})(?![a-z])", re.I) for k, v in _COLS.items()}
_STOP_RE = re.compile(r"(?<![a-z])(?:sub\s*-?\s*total|total|totaal|summe|gesamt|montant\s*total|total\s*ht|subtotaal"
                      r"|zwischensumme|合\s*计|รวม|exclusief|tax\s*summary|gst\s*summary|umsatzsteuer)", re.I)


def _header_columns(line: _Line) -> dict[str, tuple] | None:
    cols = {}
    for kind, pattern in _COL_RES.items():
        for match in pattern.finditer(line.text):
            if kind not in cols:
                cols[kind] = line.span_bbox(match.start(), match.end())
    numeric = {k for k in cols if k in ("quantity", "unit_price", "line_total")}
    if len(numeric) >= 2 and ("description" in cols or len(numeric) == 3) and len(line.text) < 200:
        return cols
    return None


def _find_line_items(lines: list[_Line]) -> list[dict]:
    items: list[dict] = []
    index = 0
    while index < len(lines):
        cols = _header_columns(lines[index])
        if cols is None:
            index += 1
            continue
        header = lines[index]
        rows, index = _table_rows(lines, index + 1, header)
        items.extend(_parse_row(row, cols, header) for row in rows)
    items = [it for it in items if it is not None]
    for number, item in enumerate(items, 1):
        item["line_no"] = number
    return items


def _table_rows(lines: list[_Line], start: int, header: _Line) -> tuple[list[list[_Line]], int]:
    """Group lines under a header into rows: a row is a line with an amount at the right plus
    the amount-free lines that follow it (continuation of the description)."""
    rows: list[list[_Line]] = []
    index = start
    last_y = header.bbox[3]
    while index < len(lines):
        line = lines[index]
        if line.page != header.page or _header_columns(line):
            break
        if _STOP_RE.search(line.text[:40]) and rows or line.bbox[1] - last_y > 8 * header.height:
            break
        right_amount = [a for a in line.amounts if line.span_bbox(a.start, a.end)[2] > header.bbox[2] - 0.25
                        * (header.bbox[2] - header.bbox[0]) and a.decimals]
        if right_amount and len(re.sub(r"[\W\d_]", "", line.text)) >= 2:
            rows.append([line])
        elif right_amount and rows and len(rows[-1]) == 1 and not _row_has_total(rows[-1][0], header):
            rows[-1].append(line)  # the amount printed on the line below the description
        last_y = line.bbox[3]
        index += 1
    return rows, index


def _row_has_total(line: _Line, header: _Line) -> bool:
    return any(line.span_bbox(a.start, a.end)[2] > header.bbox[2] - 15 for a in line.amounts if a.decimals)


def _parse_row(row: list[_Line], cols: dict[str, tuple], header: _Line) -> dict | None:
    first = row[0]
    numbers = []
    for line in row:
        for amount in line.amounts:
            numbers.append((line.span_bbox(amount.start, amount.end), amount, line))
    if not numbers:
        return None
    item = {k: None for k in ("description", "line_no", "sku", "quantity", "unit", "unit_price", "discount",
                              "tax", "line_total")}
    total_box, total_amt, _ = max(numbers, key=lambda n: (n[0][2], n[0][1]))
    item["line_total"] = total_amt.value
    used = {id(total_amt)}
    for kind in ("unit_price", "quantity"):
        if kind not in cols:
            continue
        col = cols[kind]
        near = [n for n in numbers if id(n[1]) not in used and n[0][0] <= col[2] + 25 and n[0][2] >= col[0] - 25]
        if near:
            pick = min(near, key=lambda n: abs((n[0][0] + n[0][2]) / 2 - (col[0] + col[2]) / 2))
            item[kind] = pick[1].value
            used.add(id(pick[1]))
    rate = re.search(r"(\d{1,2}(?:[.,]\d{1,2})?)\s?%", " ".join(line.text for line in row))
    if rate:
        item["tax"] = float(rate.group(1).replace(",", "."))
    # Numbers inside a description ("16 GB") stay in it: the description column ends where
    # the first numeric column of the header begins.
    numeric_cols = [cols[k][0] for k in ("quantity", "unit_price", "line_total", "tax") if k in cols]
    limit = min(numeric_cols) - 5 if numeric_cols else first.bbox[2]
    if "description" in cols and cols["description"][0] >= limit:
        limit = first.bbox[2]
    first_num_x = min((n[0][0] for n in numbers if n[2] is first), default=first.bbox[2])
    limit = max(limit, min(first_num_x, limit)) if numeric_cols else first_num_x
    ends = [e for s, e, b in first.spans if b[2] <= limit + 2]
    desc = first.text[:max(ends)] if ends else ""
    desc = re.sub(r"^\s*\d{1,3}\s+(?=\S)", "", desc)  # position number
    sku = re.match(r"^\s*(\[[^\]]+\]|[A-Z0-9][A-Z0-9_\-/.]{2,}\d[A-Z0-9_\-/.]*)\s+", desc)
    if sku and re.search(r"\d", sku.group(1)):
        item["sku"] = sku.group(1).strip("[]").strip()
        desc = desc[sku.end():]
    item["description"] = " ".join(desc.split()).strip(" -:") or None
    if item["quantity"] is None and item["unit_price"] and item["line_total"] and item["unit_price"]:
        qty = item["line_total"] / item["unit_price"]
        if abs(qty - round(qty)) < 1e-6 and 0 < qty < 10000:
            item["quantity"] = float(round(qty))
    return item if item["description"] else None


# --- driver ---------------------------------------------------------------------------------

def extract_rules(doc: DocumentText) -> RulesResult:
    """Extract header fields and line items from ``doc`` by layout rules.

    Returns a RulesResult; amounts are floats in the document currency, dates ISO strings,
    evidence boxes in the units of the page (PDF points or image pixels).
    """
    result = RulesResult()
    lines = _build_lines(doc)
    if not lines:
        return result
    dayfirst = guess_dayfirst(doc.text)
    loose = not any(find_dates(line.text, dayfirst) for line in lines)
    _annotate(lines, dayfirst, loose)

    def put(name: str, value, line: _Line | None) -> None:
        if value is None or value == "":
            return
        result.fields[name] = value
        if line is not None:
            result.evidence[name] = line.evidence()

    found = _find_invoice_number(lines)
    if found:
        put("invoice_number", found[0], found[1])
    for name, (iso, line) in _find_dates(lines).items():
        put(name, iso, line)
    zone = _customer_zone(lines)
    vendor = _find_vendor(lines, zone)
    if vendor:
        put("vendor_name", vendor[0], vendor[1])
        address = (vendor[3], vendor[1]) if vendor[3] else _find_address(lines, vendor[1], vendor[2])
        if address:
            put("vendor_address", address[0], address[1])
    for name, finder in (("customer_name", lambda: _find_customer(lines)),
                         ("vendor_tax_id", lambda: _find_tax_id(lines, zone)),
                         ("vendor_email", lambda: _find_email(lines, zone, vendor[0] if vendor else None)),
                         ("payment_terms", lambda: _find_terms(lines)),
                         ("currency", lambda: _find_currency(lines))):
        found = finder()
        if found:
            put(name, found[0], found[1])
    amounts = _choose_amounts(_amount_candidates(lines), lines)
    for name, cand in amounts.items():
        if name in AMOUNT_FIELDS:
            value = round(float(cand.value), 2)
            if name == "discount":
                value = abs(value)
            put(name, value, cand.line)
    result.line_items = _find_line_items(lines)
    return result
