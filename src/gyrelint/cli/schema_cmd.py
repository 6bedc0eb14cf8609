"""`gyrelint schema`: the JSON Schema of a machine document, for CI scripts that validate input."""

from __future__ import annotations

import json

import click

EXAMPLES = """\b
Examples:
  gyrelint schema findings > findings.schema.json   # for `check --format json`
  gyrelint schema report                            # for `analyze --format json` (gyrelint/1)
"""


@click.command(epilog=EXAMPLES)
@click.argument("document", type=click.Choice(["findings", "report"]))
def command(document: str) -> None:
    """Print the JSON Schema (draft 2020-12) of a document: findings (check --format json) or
    report (analyze --format json)."""
    from ..render.schemas import SCHEMAS

    click.echo(json.dumps(SCHEMAS[document](), indent=2))
