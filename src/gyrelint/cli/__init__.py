"""The ``gyrelint`` command: one module per subcommand, registered here."""

from __future__ import annotations

import importlib

import click

from .. import __version__

COMMANDS = ("analyze", "graph", "entries", "topology", "check", "baseline", "diff", "map", "report", "logcheck")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="gyrelint")
def main() -> None:
    """Find the sampling and training chains of an online RL code base, the handoff
    between them both ways, and whether they run in one process or many."""


for _name in COMMANDS:
    _mod = importlib.import_module(f"{__name__}.{_name}_cmd")
    main.add_command(_mod.command, _name)
