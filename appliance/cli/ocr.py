"""``appliance ocr``: what the configured OCR engine reads from images and PDF pages, the way an
operator checks a scan (as ``tesseract FILE stdout`` does). It runs the pipeline's own reading
step (``pipeline.runner.Extractor.read``, visual only) with the engine the workers load, never
a copy of either."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import click

from appliance.errors import UnreadableUpload
from appliance.settings import Settings


def ocr_rows(doc, file: str) -> list[dict]:
    """One JSON object per recognised line of ``doc`` (``pipeline.document.DocumentText``):
    ``{"file", "page" (1-based), "text", "box" ([x0, y0, x1, y1] in pixels of the page as
    read), "confidence" (0..1, or null when the engine gives none)}``, in reading order."""
    return [
        {
            "file": file,
            "page": page.number,
            "text": line.text,
            "box": [round(value, 1) for value in line.bbox],
            "confidence": None if line.confidence is None else round(line.confidence, 4),
        }
        for page in doc.pages
        for line in page.lines
    ]


@click.command("ocr")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--engine", default=None, help="OCR engine instead of ocr.engine (ppocr, rapidocr, tesseract, ...)")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per line: file, page, text, box, confidence")
@click.pass_obj
def ocr(settings: Settings, files: tuple[Path, ...], engine: str | None, as_json: bool) -> None:
    """OCR images (JPEG, PNG) and every page of PDFs, as the pipeline reads them: a PDF page is
    rendered at ocr.dpi (default 200 dpi; lower where a large page would pass 36 million pixels),
    its text layer ignored; boxes are in pixels of the image (EXIF orientation applied) or of the
    rendered page. The engine loads once for all files.
    Plain output: the lines in reading order, pages separated by a form feed."""
    from pipeline.context import JobContext
    from pipeline.reading.sniff import sniff
    from pipeline.reading.text import UnreadableDocument
    from pipeline.runner import Extractor

    models = settings.worker_models()
    models = dataclasses.replace(models, ocr_engine=engine or models.ocr_engine, llm_enabled=False)
    extractor = Extractor(models)
    unreadable = []
    for index, path in enumerate(files):
        data = path.read_bytes()
        ctx = JobContext(path.name, sniff(data[:1024]) or "", settings.limits.max_pdf_pages, visual_only=True)
        try:
            doc = extractor.read(ctx, data)
        except UnreadableDocument as exc:
            click.echo(f"{path}: {exc}", err=True)
            unreadable.append(str(path))
            continue
        if as_json:
            for row in ocr_rows(doc, str(path)):
                click.echo(json.dumps(row, ensure_ascii=False))
            continue
        if len(files) > 1:
            click.echo(("\n" if index else "") + f"==> {path} <==")
        click.echo(doc.text)
    if unreadable:
        raise UnreadableUpload(f"{len(unreadable)} of {len(files)} file(s) could not be read: {', '.join(unreadable)}")
