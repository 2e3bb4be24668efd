"""Tier 1: vendor templates in the invoice2data YAML format, run by invoice2data's own template
engine, so the public invoice2data templates work as they are.

A template is YAML text (issuer, keywords, exclude_keywords, fields with regexes, lines,
options); it runs on a ``pdftotext -layout``-like rendering of our words and boxes, which is the
input those templates were written against. invoice2data's output vocabulary (``issuer``,
``date``, ``amount``, ``lines[].price_unit``...) is mapped onto schema 2.9.

Pure extraction: may import invoice2data, yaml and pipeline modules; must not import ``api`` or
``appliance``. Templates reach the workers as text inside the job context.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pipeline.document import DocumentText, Page

log = logging.getLogger(__name__)

# invoice2data output key -> schema 2.9 key
HEADER_MAP = {
    "invoice_number": "invoice_number",
    "date": "invoice_date",
    "date_due": "due_date",
    "partner_name": "vendor_name",
    "issuer": "vendor_name",  # the legal name before the short issuer
    "vat": "vendor_tax_id",
    "partner_email": "vendor_email",
    "currency": "currency",
    "amount": "total_amount",
    "amount_untaxed": "subtotal",
    "amount_tax": "tax_amount",
    "payment_term": "payment_terms",
    "note_payment_terms": "payment_terms",
    "customer_name": "customer_name",
    "discount": "discount",
    "shipping_cost": "shipping_cost",
    "paid_amount": "paid_amount",
    "balance_amount": "balance_amount",
}
LINE_MAP = {
    "name": "description",
    "code": "sku",
    "qty": "quantity",
    "unece_code": "unit",
    "uom": "unit",
    "price_unit": "unit_price",
    "price_subtotal": "line_total",
    "discount": "discount",
    "line_tax_percent": "tax",
}
ADDRESS_PARTS = ("partner_street", "partner_street2", "partner_zip", "partner_city")
# the keys of a field, ``lines`` or ``tables`` entry whose values invoice2data runs as regexes
REGEX_KEYS = ("regex", "start", "end", "line", "first_line", "last_line", "skip_line", "body")


class TemplateError(ValueError):
    """A template's YAML cannot be loaded as an invoice2data template (message says why)."""


@dataclass
class TemplateResult:
    """What a template extracted: schema-2.9 header ``fields``, ``line_items``, its name.
    ``builtin``: a layout the appliance knows (``pipeline.templates.visualisation``), not a
    vendor's template; ``doubts``: validation messages for what it read but could not check
    (a document with doubts does not complete)."""

    template_name: str
    fields: dict[str, Any]
    line_items: list[dict[str, Any]] = field(default_factory=list)
    builtin: bool = False
    doubts: list[str] = field(default_factory=list)


@functools.lru_cache(maxsize=256)
def load_template(yaml_text: str, name: str = "template"):
    """Parse and prepare one invoice2data template; raises TemplateError when it is not one.

    Cached by text: a worker parses each tenant template once, not once per document.
    """
    import yaml
    from invoice2data.extract.invoice_template import InvoiceTemplate
    from invoice2data.extract.loader import prepare_template

    try:
        raw = yaml.safe_load(yaml_text)
    except yaml.YAMLError as exc:
        raise TemplateError(f"template {name}: not valid YAML{_yaml_problem(exc, yaml_text)}") from exc
    if not isinstance(raw, dict) or "fields" not in raw:
        raise TemplateError(f"template {name}: an invoice2data template needs 'keywords' and 'fields'")
    raw.setdefault("template_name", raw.get("issuer") or name)
    prepared = prepare_template(raw)
    if prepared is None:
        raise TemplateError(f"template {name}: missing mandatory 'keywords'")
    _check_regexes(prepared, yaml_text, name)
    try:
        return InvoiceTemplate(prepared)
    except (AssertionError, KeyError, TypeError, ValueError) as exc:  # 1.x: TemplateSyntaxError
        raise TemplateError(f"template {name}: {exc}") from exc


def _yaml_problem(exc: Exception, yaml_text: str) -> str:
    """Where and what YAML's parser found wrong, for people: `` at line 6, column 7: mapping
    values are not allowed here (in "bad: [")``; the parser's own words when it names no place."""
    mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
    if mark is None or not problem:
        return f" ({exc})"
    lines = yaml_text.splitlines()
    shown = lines[mark.line].rstrip() if mark.line < len(lines) and lines[mark.line].strip() else ""
    return f" at line {mark.line + 1}, column {mark.column + 1}: {problem}" + (
        f' (in "{shown.strip()}")' if shown else ""
    )


def _check_regexes(prepared: dict[str, Any], yaml_text: str, name: str) -> None:
    """Every regex of the template compiles, else TemplateError naming where (the YAML line when
    the pattern is written there as it is). invoice2data compiles a regex only when it runs it,
    and ``re.error`` is no ValueError: unchecked, a typo would surface on a document."""
    for where, pattern in _regexes(prepared):
        try:
            re.compile(pattern)
        except re.error as exc:
            line = next((n for n, text in enumerate(yaml_text.splitlines(), 1) if pattern in text), None)
            at = f"line {line}, {where}" if line else where
            raise TemplateError(f'template {name}: {at}: the regex "{pattern}" does not compile ({exc})') from exc


def _regexes(prepared: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(where, pattern)`` of every regex of a prepared template: fields (but static ones), the
    ``lines`` and ``tables`` settings, ``options.replace``."""
    for field_name, spec in (prepared.get("fields") or {}).items():
        if isinstance(spec, dict):
            yield from _entry(f"fields.{field_name}", spec)
        elif not str(field_name).startswith("static_"):
            yield from ((f"fields.{field_name}", p) for p in _strings(spec))
    if isinstance(prepared.get("lines"), dict):
        yield from _entry("lines", prepared["lines"])
    tables = prepared.get("tables") or []
    for index, table in enumerate(tables if isinstance(tables, list) else [tables], start=1):
        if isinstance(table, dict):
            yield from _entry(f"tables[{index}]", table)
    replace = ((prepared.get("options") or {}).get("replace")) or []
    for pair in replace if isinstance(replace, list) else []:
        if isinstance(pair, list) and pair and isinstance(pair[0], str):
            yield "options.replace", pair[0]


def _entry(where: str, spec: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for key in REGEX_KEYS:
        yield from ((f"{where}.{key}", p) for p in _strings(spec.get(key)))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def layout_text(doc: DocumentText) -> str:
    """The document as fixed-width text, words at their horizontal positions (like
    ``pdftotext -layout``), pages separated by form feeds: what invoice2data templates expect."""
    return "\f".join(_layout_page(page) for page in doc.pages)


def _layout_page(page: Page) -> str:
    widths = [(w.bbox[2] - w.bbox[0]) / max(len(w.text), 1) for line in page.lines for w in line.words if w.text]
    char = statistics.median(widths) if widths else 5.0
    rows = []
    for line in page.lines:
        row, previous_end = "", None
        for word in line.words or ():
            column = int(round(word.bbox[0] / char))
            if previous_end is None:
                row = " " * column
            elif word.bbox[0] - previous_end < 2 * char:
                row += " "  # a word gap inside a phrase: one space, as pdftotext writes it
            else:
                row += " " * max(column - len(row), 2)  # a column gap: at least two spaces
            row += word.text
            previous_end = word.bbox[2]
        rows.append(row if line.words else line.text)
    return "\n".join(rows)


def apply_template(
    template, doc: DocumentText, *, forced: bool = False, text: str | None = None, why: list[str] | None = None
) -> TemplateResult | None:
    """Run one loaded template on the document.

    Without ``forced`` the template's keywords must match (invoice2data's rule); a forced
    template (the upload named its vendor) runs regardless. ``text`` is ``layout_text(doc)``
    when the caller already has it (one rendering for all of a tenant's templates). Returns None
    when the template does not match or its required fields are not all found; then the reason
    is appended to ``why`` when given.
    """
    text = layout_text(doc) if text is None else text
    name = template.get("template_name")
    if not forced and not template.matches_input(text):
        return _missed(why, f"template {name}: its keywords are not all in the text")
    try:
        output = template.extract(template.prepare_input(text), "", None)
    except (
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        re.error,  # a regex saved before load_template checked them
    ) as exc:  # RequiredFieldsMissingError is a ValueError
        log.info("template %s did not apply: %s", name, exc)
        return _missed(why, f"template {name}: {exc}")
    if not output:
        return _missed(why, f"template {name}: nothing extracted")
    return TemplateResult(str(template.get("template_name")), _header(output), _lines(output.get("lines")))


def _missed(why: list[str] | None, reason: str) -> None:
    if why is not None:
        why.append(reason)
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _header(output: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for key, target in HEADER_MAP.items():
        if output.get(key) not in (None, "") and target not in fields:
            fields[target] = _plain(output[key])
    address = [str(_plain(output[k])) for k in ADDRESS_PARTS if output.get(k)]
    if address:
        fields["vendor_address"] = ", ".join(address)
    return fields


def _lines(raw: Any) -> list[dict[str, Any]]:
    lines = []
    for index, row in enumerate(raw or [], start=1):
        if not isinstance(row, dict):
            continue
        item: dict[str, Any] = {"line_no": index}
        for key, target in LINE_MAP.items():
            if row.get(key) not in (None, "") and target not in item:
                item[target] = _plain(row[key])
        if item.get("line_total") is None and row.get("price_total") is not None:
            item["line_total"] = row["price_total"]
        if item.get("description"):
            lines.append(item)
    return lines
