"""Value parsers for invoice text: amounts, dates and currencies in many print conventions.

This module owns finding values inside a line of text with their character spans and turning
each printed value into a normalised one (Decimal, ISO date, ISO 4217 code). The
regular expressions here only locate candidates; the values come from libraries: amounts from
``price-parser`` (with the decimal separator the print convention implies), dates written with
month names from ``dateparser`` in the languages of ``DATE_LANGUAGES``, but Thai months, which
are twelve fixed spellings (and twelve abbreviations) that OCR reads with marks dropped, from
``THAI_MONTH_WORDS``. Must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

import dateparser
from price_parser import Price

# --- currencies -----------------------------------------------------------------------------

ISO_CODES = (
    "EUR USD GBP CHF INR MYR SGD JPY CNY RMB THB AUD CAD HKD NZD SEK NOK DKK PLN CZK HUF IDR PHP "
    "VND KRW ZAR BRL MXN AED SAR TRY RUB TWD ILS RON BGN"
).split()
# Longer symbols first so "S$" is not read as "$".
SYMBOLS = [
    ("US$", "USD"),
    ("S$", "SGD"),
    ("A$", "AUD"),
    ("C$", "CAD"),
    ("HK$", "HKD"),
    ("NZ$", "NZD"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("₹", "INR"),
    ("₩", "KRW"),
    ("฿", "THB"),
    ("₱", "PHP"),
    ("₫", "VND"),
    ("₺", "TRY"),
    ("₽", "RUB"),
    ("zł", "PLN"),
    ("元", "CNY"),
    ("¥", "CNY"),
    ("$", "USD"),
]
WORD_CURRENCIES = [
    (r"\bRM(?=\s?\d)|\bRM\b", "MYR"),
    (r"\bRs\.?(?=\s?-?\d)", "INR"),
    (r"\bRp\.?(?=\s?\d)", "IDR"),
    (r"\beuros?\b", "EUR"),
    (r"\bUS dollars?\b", "USD"),
    (r"\bbaht\b|บาท", "THB"),
    (r"\bringgit\b", "MYR"),
    (r"\brupees?\b", "INR"),
    (r"人民币", "CNY"),
    (r"\bFr\.(?=\s?\d)|(?<=\d)\s?Fr\.(?![A-Za-z])", "CHF"),  # "Fr. 6'124.82", "10'674.06 Fr."
]
_ISO_RE = re.compile(r"(?<![A-Za-z])(" + "|".join(ISO_CODES) + r")(?![A-Za-z])")
_CURRENCY_TOKEN = r"(?:US\$|S\$|A\$|C\$|HK\$|NZ\$|[€£₹₩฿₱₫₺₽¥$]|zł|RM|Rs\.?|Rp\.?|" + "|".join(ISO_CODES) + r")"


def detect_currency(text: str) -> str | None:
    """The ISO 4217 code most often signalled in ``text`` (codes count double), else None.

    Understands ISO codes (upper case, whole words, not the tail of an identifier), symbols
    (``$ € £ ₹ ¥ ฿``), ``RM`` (MYR), ``Rs`` (INR) and currency words ("Euro", "US Dollars"). ``$``
    alone reads as USD; ``¥`` as CNY, but as JPY on a page from Japan (``_JAPAN_RE``).
    """
    votes: Counter[str] = Counter()
    for match in _ISO_RE.finditer(text or ""):
        if _inside_identifier(text, match.start(1)):
            continue
        code = "CNY" if match.group(1) == "RMB" else match.group(1)
        votes[code] += 2
    rest = text or ""
    for symbol, code in SYMBOLS:
        count = rest.count(symbol)
        if count:
            if symbol == "¥" and _JAPAN_RE.search(rest):
                code = "JPY"  # the yen and the yuan share the sign
            votes[code] += count
            rest = rest.replace(symbol, " ")
    for pattern, code in WORD_CURRENCIES:
        votes[code] += len(re.findall(pattern, text or "", flags=re.I if pattern.islower() else 0))
    votes = Counter({k: v for k, v in votes.items() if v > 0})
    if not votes:
        return None
    return votes.most_common(1)[0][0]


# A page from Japan: kana, the yen's own character, the country or its cities, a .jp domain.
_JAPAN_RE = re.compile(r"[\u3040-\u30ff]|円|日本|\b(?:Japan|Tokyo|Osaka|Kyoto|Yokohama|Nagoya)\b|\.jp\b", re.I)


def _inside_identifier(text: str, start: int) -> bool:
    """Whether the code at ``start`` ends a token that holds other letters: the tail of a tax id
    or a reference ("91045921MARA068DKK"), not a currency; an amount glued to it ("100EUR") is."""
    return bool(_IDENTIFIER_HEAD_RE.search(text[max(0, start - 64) : start]))


_IDENTIFIER_HEAD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*$")


# --- amounts --------------------------------------------------------------------------------

_NUMBER = (
    r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+,\d{2}(?!\d)"  # 1 234,56: space thousands need a decimal comma
    r"|\d{1,3}(?:['\u2019]\d{3})+(?:\.\d{1,2})?"  # Swiss 1'234.50, typeset 1’234.50
    r"|\d{1,3}(?:,\d{3})+(?:\.\d{1,4})?"  # 1,234,567.89
    r"|\d{1,3}(?:\.\d{3})+(?:,\d{1,4})?"  # 1.234.567,89
    r"|\d+(?:[.,]\d{1,4})?"
)
AMOUNT_RE = re.compile(
    r"(?<![\w.,/])(?<!\d:)(?<!\d['\u2019])"  # "Rounding:RM0.02" (OCR glues the colon) is an amount, "18:24"
    # is not, nor the tail of a Swiss "4’199.21"
    r"(?P<neg1>[-−–]\s?|\()?"
    r"(?P<cur1>" + _CURRENCY_TOKEN + r")?\s?"
    r"(?P<neg2>[-−–]\s?)?"
    r"(?P<num>" + _NUMBER + r")"
    # a code glued to the number is its own ("82.20CHF 85.00"); one after a space may be the next one's
    r"(?P<tail>(?:" + _CURRENCY_TOKEN + r")(?![A-Za-z])|\s(?:" + _CURRENCY_TOKEN + r")(?!\s?\d))?"
    r"(?P<neg3>-|\))?"
    r"(?![\w.,/]|\s?%|:\d)"
)


@dataclass(frozen=True)
class AmountMatch:
    """An amount found in a text: value, char span, whether it has decimals or a currency mark."""

    value: Decimal
    start: int
    end: int
    decimals: bool
    currency: bool


def decimal_separator(num: str) -> str | None:
    """The decimal separator of a printed number (``"."``, ``","``) or None when it has no decimals.

    Both marks: the last one is decimal. One comma: thousands when it groups three digits after
    one to three ("1,234"), more than once, else decimal ("9,32"). One dot: decimal ("1.000" is
    1.0: receipts print three decimals more often than a bare thousands dot); several: thousands.
    """
    has_dot, has_comma = "." in num, "," in num
    if has_dot and has_comma:
        return "." if num.rfind(".") > num.rfind(",") else ","
    if has_comma:
        head, _, tail = num.rpartition(",")
        thousands = num.count(",") > 1 or (len(tail) == 3 and 1 <= len(head) <= 3 and head != "0")
        return None if thousands else ","
    if has_dot:
        return None if num.count(".") > 1 else "."
    return None


def _number_value(num: str) -> Decimal | None:
    num = num.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2019", "'")  # price-parser knows "'" only
    decimal = decimal_separator(num)
    # Without decimals every mark groups thousands: dots then mean a decimal comma, else a dot.
    mark = decimal or ("," if "." in num else ".")
    return Price.fromstring(num, decimal_separator=mark).amount


def find_amounts(text: str) -> list[AmountMatch]:
    """Every amount-like number in ``text`` (not percentages, dates or times), left to right."""
    found = []
    for match in AMOUNT_RE.finditer(text or ""):
        value = _number_value(match.group("num"))
        if value is None:
            continue
        negative = (
            bool(match.group("neg2"))
            or bool(match.group("neg1") and match.group("neg1").strip() in "-−–")
            or (match.group("neg1") == "(" and match.group("neg3") == ")")
            or match.group("neg3") == "-"
        )
        num = match.group("num")
        decimals = bool(re.search(r"[.,]\d{1,4}$", num)) and not re.fullmatch(r"\d{1,3}(?:[.,]\d{3})+", num)
        currency = bool(match.group("cur1") or (match.group("tail") or "").strip())
        start = match.start("num") if not (match.group("cur1") or match.group("neg1")) else match.start()
        found.append(AmountMatch(-value if negative else value, start, match.end(), decimals, currency))
    return found


def parse_amount(text: str) -> Decimal | None:
    """The first amount in ``text`` as a Decimal, exactly as printed, or None.

    Handles ``1,234.56``, ``1.234,56``, ``1 234,56``, ``1'234.50``, ``$4.11``, ``RM30.90``,
    ``49,99 €``, ``-9,32``, ``(12.00)``. Percentages, dates and times are not amounts.
    """
    amounts = find_amounts(text)
    return amounts[0].value if amounts else None


def parse_amount_decimal(printed: str) -> Decimal | None:
    """A value printed alone (``"1,234.50"``, ``"1.234,50"``, ``"1 234,5"``, ``"-3,00"``) -> Decimal.

    None unless ``printed`` is a number and nothing else. price-parser's own reading decides the
    separators: a mark followed by three digits groups thousands (``"1.234"`` -> 1234, as in
    German), else it is decimal. Used for answers of the LLM, which come without a document
    convention to consult.
    """
    text = (printed or "").strip()
    negative = text[:1] in ("-", "−", "–")
    core = text.lstrip("-−– ")
    if not re.fullmatch(r"\d[\d.,'\s\u00a0\u202f]*", core):
        return None
    amount = Price.fromstring(core).amount
    if amount is None:
        return None
    return -amount if negative else amount


def parse_priced_amount(printed: str) -> Decimal | None:
    """An amount printed alone or with its currency (``"RM14.10"``, ``"$8,427.70"``,
    ``"1.234,50 €"``, ``"-EUR 3,00"``) -> Decimal; None unless what is left without the
    currency price-parser finds is a number alone (``parse_amount_decimal``). The LLM copies
    amounts as printed, currency included."""
    currency = Price.fromstring(printed or "").currency
    return parse_amount_decimal(printed.replace(currency, "", 1) if currency else printed)


# --- dates ----------------------------------------------------------------------------------

# Month names the date patterns look for (the value comes from dateparser): English, German,
# French, Dutch, Spanish, Italian, Portuguese and Malay, in full and abbreviated.
MONTH_WORDS = """
    january jan januar janvier janv januari enero ene gennaio gen janeiro jänner jän
    february feb februar février fevrier févr fevr februari febrero febbraio fevereiro fév
    march mar märz maerz mars maart marzo março mac mrt mär   april apr avril avr abril aprile
    may mai mei mayo maggio maio   june jun juni juin junio giugno junho
    july jul juli juillet juil julio luglio julho julai   august aug août aout augustus agosto ago ogos
    september sep sept septembre septiembre settembre setembro set
    october oct oktober octobre okt octubre ottobre outubro out   november nov novembre noviembre novembro
    december dec dezember décembre decembre dez diciembre dicembre dezembro disember dis
""".split()
# Thai marks written above a consonant that OCR drops: MAITAIKHU, the four tone marks and
# THANTHAKHAT (U+0E47 to U+0E4C). Tesseract reads "รวมทั้งสิ้น" as "รวมทั้งสิน" and "ยอดที่ต้องชำระ"
# as "ยอดทีต้องชําระ" on the synthetic Thai scans.
_THAI_UPPER_MARKS = "\u0e47\u0e48\u0e49\u0e4a\u0e4b\u0e4c"


_WITHOUT_UPPER_MARKS = str.maketrans("", "", _THAI_UPPER_MARKS)


def _thai_letters(text: str) -> str:
    """``text`` without Thai upper marks (``_THAI_UPPER_MARKS``), SARA AM as one character."""
    return text.replace("\u0e4d\u0e32", "ำ").translate(_WITHOUT_UPPER_MARKS)


def thai_variants(pattern: str) -> str:
    """``pattern`` matching Thai SARA AM (U+0E33, "ำ") also as NFKC writes it, NIKHAHIT and SARA
    AA (U+0E4D U+0E32, "ํา"): the PDF text layer is NFKC-normalised (``pipeline.reading.text``),
    an OCR engine's output may be either; and its tone marks (``_THAI_UPPER_MARKS``) optional, as
    OCR drops them. ``pattern`` holds Thai as literal characters, outside character classes."""
    pattern = pattern.replace("ำ", "(?:ำ|ํา)")
    # a mark the pattern already makes optional stays greedy: "่??" would match "เลขที" of "เลขที่: 44230"
    return re.sub(f"([{_THAI_UPPER_MARKS}])\\??", "\\1?", pattern)


THAI_MONTH_WORDS = """
    มกราคม กุมภาพันธ์ มีนาคม เมษายน พฤษภาคม มิถุนายน กรกฎาคม สิงหาคม กันยายน ตุลาคม พฤศจิกายน ธันวาคม
    ม.ค. ก.พ. มี.ค. เม.ย. พ.ค. มิ.ย. ก.ค. ส.ค. ก.ย. ต.ค. พ.ย. ธ.ค.
""".split()
# The languages dateparser reads month names in (ISO 639-1); Thai months are read by
# _THAI_MONTH_NUMBER (dateparser 1.5.0 misread "มี.ค." as January).
DATE_LANGUAGES = ("en", "de", "fr", "nl", "es", "it", "pt", "ms", "th")
# Spellings dateparser 1.5.0 does not read.
_DATEPARSER_SPELLING = {"maerz": "märz"}
_MONTH_ALT = "|".join(sorted((re.escape(m) for m in set(MONTH_WORDS)), key=len, reverse=True))
# Thai months matched as OCR reads them too (``thai_variants``: marks dropped, either SARA AM),
# and told by their letters alone: month number by the spelling without marks.
_THAI_ALT = "|".join(thai_variants(re.escape(m)) for m in sorted(THAI_MONTH_WORDS, key=len, reverse=True))
_THAI_MONTH_NUMBER = {_thai_letters(m): i % 12 + 1 for i, m in enumerate(THAI_MONTH_WORDS)}
# Numeric years are Gregorian (19xx, 20xx) or Thai Buddhist era (25xx: 2562 is 2019, as Thai
# receipts print "01/05/2562"), converted by _year.
# A year may run straight into a time ("18-11-1813:58") on receipts: allow that, not other digits.
_YEAR_END = r"(?:(?!\d)|(?=\d{1,2}:\d{2})|(?=\d{1,2}\.\d{2}\.\d{2}(?!\d)))"  # "17/01/20188.08.53": time with dots
DATE_PATTERNS = [
    (
        "ymd",
        re.compile(r"(?<![\d.])(?P<y>(?:19|20|25)\d{2})\s?[-/.]\s?(?P<m>\d{1,2})\s?[-/.]\s?(?P<d>\d{1,2})" + _YEAR_END),
    ),
    ("cjk", re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日?")),
    (
        "num",
        re.compile(
            r"(?<![\d.,])(?P<a>\d{1,2})\s?(?P<s>[./-])\s?(?P<b>\d{1,2})\s?(?P=s)\s?(?P<y>(?:19|20|25)\d{2}|\d{2})"
            + _YEAR_END
        ),
    ),
    (
        "dmy",
        re.compile(
            r"(?<![\w])(?P<d>\d{1,2})(?:st|nd|rd|th|er|e|\.)?\s?[-/ ]?\s?(?:de\s+)?(?P<mn>"
            + _MONTH_ALT
            + r")\.?,?\s?[-/ ]?\s?(?:de\s+)?(?P<y>\d{4}|\d{2})"
            + _YEAR_END,
            re.I,
        ),
    ),
    (
        "mdy",
        re.compile(
            r"(?<![\w])(?P<mn>" + _MONTH_ALT + r")\.?\s?(?P<d>\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(?P<y>\d{4})(?!\d)", re.I
        ),
    ),
    ("thai", re.compile(r"(?P<d>\d{1,2})\s*(?P<mn>" + _THAI_ALT + r")\s*(?P<y>\d{4})")),
]


@dataclass(frozen=True)
class DateMatch:
    """A date found in a text: ISO string, char span, and whether day/month order was a guess."""

    iso: str
    start: int
    end: int
    ambiguous: bool


def _year(text: str) -> int:
    year = int(text)
    if year < 100:
        year += 2000
    if year > 2400:  # Thai Buddhist era
        year -= 543
    return year


def _make(year: int, month: int, day: int) -> str | None:
    if not 1990 <= year <= 2100:
        return None
    try:
        return _dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _numeric(match: re.Match, dayfirst: bool | None) -> tuple[str | None, bool]:
    a, b, year = int(match.group("a")), int(match.group("b")), _year(match.group("y"))
    if a > 12 and b <= 12:
        return _make(year, b, a), False
    if b > 12 and a <= 12:
        return _make(year, a, b), False
    # Dotted dates are day-first wherever they are printed (DIN 5008 "05.03.2018"), so only
    # slashes and dashes leave the order open.
    ambiguous = a != b and not (match.group("s") == "." and dayfirst is not False)
    if dayfirst is False:
        return _make(year, a, b), ambiguous
    return _make(year, b, a), ambiguous


@functools.lru_cache(maxsize=4096)
def _named_date(day: int, month: str, year: int) -> str | None:
    """``12``, ``"Ogos"``, ``2023`` -> ``"2023-08-12"`` read by dateparser; None if it is no date.

    The regular expressions have already settled the order and the year (two-digit and
    Buddhist-era years converted), so dateparser reads one "day month year" string strictly.
    """
    if not 1990 <= year <= 2100:
        return None
    month = _DATEPARSER_SPELLING.get(month.lower(), month)
    parsed = dateparser.parse(
        f"{day} {month} {year}",
        languages=list(DATE_LANGUAGES),
        settings={"DATE_ORDER": "DMY", "STRICT_PARSING": True, "REQUIRE_PARTS": ["day", "month", "year"]},
    )
    return parsed.date().isoformat() if parsed else None


# Loose (OCR of receipts): also glued to digits before it, and a separator doubled ("26-05--2018").
_LOOSE_NUM = re.compile(
    DATE_PATTERNS[2][1].pattern.replace(r"(?<![\d.,])", "", 1).replace(r"\s?(?P=s)\s?", r"\s?(?P=s){1,2}\s?", 1)
)


def find_dates(text: str, dayfirst: bool | None = None, loose: bool = False) -> list[DateMatch]:
    """Every valid calendar date in ``text`` (years 1990-2100), left to right, without overlaps.

    ``dayfirst`` settles ``03/04/2023``: True (default when None) reads 3 April, False 4 March.
    ``loose`` also accepts a numeric date glued to digits before it or with a doubled separator
    ("26-05--2018"), as OCR of receipts reads them.
    Two-digit years are 20yy, Thai Buddhist years are converted, month names in English,
    German, French, Dutch, Spanish, Italian, Portuguese, Malay and Thai are understood.
    """
    found: list[DateMatch] = []
    taken: list[tuple[int, int]] = []
    patterns = DATE_PATTERNS + ([("num", _LOOSE_NUM)] if loose else [])
    for kind, pattern in patterns:
        for match in pattern.finditer(text or ""):
            if any(match.start() < e and s < match.end() for s, e in taken):
                continue
            ambiguous = False
            if kind == "num" and len(match.group("y")) == 2 and match.start() and text[match.start() - 1].isalpha():
                continue  # glued to letters, with a short year: a product code ("HC03-7 - 15"), no date
            if kind == "num":
                iso, ambiguous = _numeric(match, dayfirst)
            elif kind in ("ymd", "cjk"):
                iso = _make(_year(match.group("y")), int(match.group("m")), int(match.group("d")))
            elif kind == "thai":
                month = _THAI_MONTH_NUMBER[_thai_letters(match.group("mn"))]
                iso = _make(_year(match.group("y")), month, int(match.group("d")))
            else:
                iso = _named_date(int(match.group("d")), match.group("mn"), _year(match.group("y")))
            if iso:
                found.append(DateMatch(iso, match.start(), match.end(), ambiguous))
                taken.append((match.start(), match.end()))
    found.sort(key=lambda m: m.start)
    return found


def parse_date(text: str, dayfirst: bool | None = None) -> str | None:
    """The first date in ``text`` as ``YYYY-MM-DD``, or None. See find_dates for ``dayfirst``."""
    dates = find_dates(text, dayfirst)
    return dates[0].iso if dates else None


def guess_dayfirst(text: str) -> bool:
    """Whether numeric dates in ``text`` are day-first, from unambiguous ones (13/02 vs 02/13).

    Without evidence: month-first only for US-dollar documents in English, day-first otherwise.
    """
    votes = Counter()
    for match in DATE_PATTERNS[2][1].finditer(text or ""):
        a, b = int(match.group("a")), int(match.group("b"))
        if a > 12 >= b:
            votes["day"] += 1
        elif b > 12 >= a:
            votes["month"] += 1
    if votes["day"] != votes["month"]:
        return votes["day"] > votes["month"]
    return not (
        "$" in (text or "")
        and re.search(r"\b(?:invoice|total|date)\b", text or "", re.I)
        and not re.search(r"\b(?:RM|GST|VAT|S\$)\b", text or "")
    )
