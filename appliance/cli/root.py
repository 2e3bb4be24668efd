"""The ``appliance`` command group: global options, settings, logging, and the one place that
turns our exceptions into a one-line message and their exit code (``appliance.errors``: 78
config, 65 bad input, 66 not found, 75 temporary, 1 otherwise). The commands live in the
sibling modules and are attached here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from appliance.cli.accounts import ACCOUNT_GROUPS
from appliance.cli.export import export
from appliance.cli.invoices import invoice, training
from appliance.cli.jobs import jobs
from appliance.cli.ocr import ocr
from appliance.cli.retention import retention
from appliance.cli.service import SERVICE_COMMANDS
from appliance.errors import ApplianceError
from appliance.settings import load_settings


class ApplianceGroup(click.Group):
    """Turns our exceptions into a one-line message and their exit code."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ApplianceError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(exc.exit_code)


@click.group(cls=ApplianceGroup)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    envvar="APPLIANCE_CONFIG",
    help="config.toml to read (default: ./config.toml when present)",
)
@click.option(
    "--data-dir",
    type=click.Path(path_type=Path),
    envvar="APPLIANCE_DATA_DIR",
    help="data directory (default: from the config)",
)
@click.pass_context
def main(ctx: click.Context, config_path: Path | None, data_dir: Path | None) -> None:
    """Invoice extraction appliance: operator commands."""
    from appliance.logs import setup_logging

    settings = load_settings(config_path, data_dir)
    setup_logging(settings.log.level, settings.log.format)
    ctx.obj = settings


for _command in (*SERVICE_COMMANDS, *ACCOUNT_GROUPS, invoice, jobs, training, ocr, retention, export):
    main.add_command(_command)
