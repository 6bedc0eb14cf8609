"""`gyrelint baseline` (being built)."""

import click

from .common import fail


@click.command()
@click.argument("args", nargs=-1)
def command(args: tuple[str, ...]) -> None:
    """(being built)"""
    fail("'baseline' is not available in this build yet")
