"""Operating the appliance: ``init``, ``check``, ``config show``, ``serve``, ``backup``,
``restore`` and ``extract`` (the pipeline on files, without the server). Each command parses
its arguments and calls the module that does the work; heavy modules are imported inside the
command, so ``appliance --help`` starts without them."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import click

from appliance.settings import Settings
from pipeline.context import SOURCES
from pipeline.schema import ProcessingStatus


@click.command()
@click.pass_obj
def init(settings: Settings) -> None:
    """Create or migrate the database and folders (harmless to run twice)."""
    from appliance.datadir import prepare_data_dir

    applied = prepare_data_dir(settings)
    click.echo(f"data dir {settings.data_dir}: " + (f"applied {', '.join(applied)}" if applied else "up to date"))


@click.command()
@click.option(
    "--skip",
    multiple=True,
    type=click.Choice(["data_dir", "database", "ocr", "llm", "ray"]),
    help="leave a check out (repeatable)",
)
@click.pass_obj
def check(settings: Settings, skip: tuple[str, ...]) -> None:
    """Preflight: data dir, database and migrations, OCR engine, model files, Ray. One line per
    check; exits 78 when any fails."""
    from appliance.checks import run_checks

    results = run_checks(settings, skip)
    for result in results:
        click.echo(result.line())
    if not all(result.ok for result in results):
        sys.exit(78)  # EX_CONFIG, like every other "this host is not set up to serve" error


@click.group("config")
def config_group() -> None:
    """The effective configuration."""


@config_group.command("show")
@click.option("--json", "as_json", is_flag=True, help="a JSON list of {key, value, origin}")
@click.pass_context
def config_show(ctx: click.Context, as_json: bool) -> None:
    """Every setting with where its value came from (default, file, environment); secrets masked."""
    from appliance.cli.config_show import effective, render
    from appliance.settings import load_settings_with_origins

    root = ctx.find_root().params  # the group's --config and --data-dir, parsed again with origins
    settings, origins = load_settings_with_origins(root["config_path"], root["data_dir"])
    rows = effective(settings, origins)
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for line in render(rows):
        click.echo(line)


@click.command()
@click.option("--host", default=None, help="address to bind (default: server.host)")
@click.option("--port", default=None, type=int, help="port (default: server.port)")
@click.pass_obj
def serve(settings: Settings, host: str | None, port: int | None) -> None:
    """Run the API, the dispatcher and the extraction pool."""
    from server.run import serve as run_server

    asyncio.run(run_server(settings, host or settings.server.host, port or settings.server.port))


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.pass_obj
def backup(settings: Settings, path: Path) -> None:
    """Write the database (online snapshot), uploaded files and a manifest to PATH
    (a new directory, or PATH.tar.gz); safe while the server runs. models/ is left out."""
    from appliance.backup import backup as make_backup

    done = make_backup(settings, path)
    click.echo(
        f"backup {done.path}: {done.counts.get('invoices', 0)} invoice(s), "
        f"{done.counts.get('ledger', 0)} ledger row(s), {done.files} file(s), {done.bytes} bytes"
    )


@click.command()
@click.argument("path", type=click.Path(path_type=Path, exists=True))
@click.option("--force", is_flag=True, help="replace the data dir's existing database and files")
@click.pass_obj
def restore(settings: Settings, path: Path, force: bool) -> None:
    """Restore a backup (directory or .tar.gz) into the data dir, then migrate it.
    Refuses while a server runs on the data dir."""
    from appliance.backup import restore as run_restore

    done = run_restore(settings, path, force=force)
    click.echo(
        f"restored {done.path} into {settings.data_dir}: {done.counts.get('invoices', 0)} invoice(s), "
        f"{done.files} file(s)"
    )


def _sources(ctx, param, value: str) -> tuple[str, ...]:
    chosen = tuple(part.strip() for part in value.split(",") if part.strip())
    unknown = [part for part in chosen if part not in SOURCES]
    if unknown or not chosen:
        raise click.BadParameter(f"choose from {', '.join(SOURCES)} (got {value!r})")
    return chosen


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="write DIR/<path relative to the given folder>.json instead of printing",
)
@click.option("--visual-only", is_flag=True, help="ignore PDF text layers: render and OCR every page")
@click.option(
    "--sources",
    default=",".join(SOURCES),
    show_default=True,
    callback=_sources,
    help="value proposers that run, comma-separated (e.g. 'rules' for the rules alone, 'model' for the model alone)",
)
@click.pass_obj
def extract(
    settings: Settings, paths: tuple[Path, ...], out_dir: Path | None, visual_only: bool, sources: tuple[str, ...]
) -> None:
    """Run the pipeline on files or folders (.pdf .jpg .jpeg .png, recursively), in parallel on the pool."""
    from appliance.batch import collect, run_batch, write_record

    items = collect(list(paths))
    if not items:
        raise click.UsageError("no .pdf, .jpg, .jpeg or .png files found")
    settings.models_dir.mkdir(parents=True, exist_ok=True)

    async def go() -> int:
        started, failed, done = time.perf_counter(), 0, 0
        async for item, record in run_batch(settings, items, visual_only=visual_only, sources=sources):
            done += 1
            failed += record["processingStatus"] == ProcessingStatus.FAILED
            if out_dir is None:
                click.echo(json.dumps(record, ensure_ascii=False))
            else:
                write_record(out_dir, item, record)
                click.echo(
                    f"[{done}/{len(items)}] {item.relative} {record['processingStatus']} {record['seconds']:.1f}s",
                    err=True,
                )
        click.echo(f"{len(items)} file(s) in {time.perf_counter() - started:.1f} s, {failed} failed", err=True)
        return failed

    asyncio.run(go())


SERVICE_COMMANDS = (init, check, config_group, serve, backup, restore, extract)
