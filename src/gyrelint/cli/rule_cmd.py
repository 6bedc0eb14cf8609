"""`gyrelint rule`: what a rule finds, why it matters in an RL loop, what to do, before and after."""

from __future__ import annotations

import click

from ..escape import term
from .common import fail

EXAMPLES = """\b
Examples:
  gyrelint rule GYR008               # what it finds, why, what to do, before/after
  gyrelint rule gyr3 --format markdown > GYR003.md
  gyrelint rule                      # list every rule
"""


def find_rule(name: str):
    """A rule by id (``GYR008``, ``gyr8``) or slug (``handoff-timeout-too-high``); None if unknown."""
    from ..rules import RULES

    key = name.strip().lower()
    for r in RULES:
        if key in (r.id.lower(), r.name.lower()):
            return r
    digits = key.removeprefix("gyr")
    if digits.isdigit():
        return next((r for r in RULES if r.id.startswith("GYR") and int(r.id[3:]) == int(digits)), None)
    return None


@click.command(epilog=EXAMPLES)
@click.argument("rule_id", required=False, metavar="GYRnnn")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True,
              help="markdown: the rule's docs page (docs/rules/GYRnnn.md).")
def command(rule_id: str | None, fmt: str) -> None:
    """Explain the rule GYRnnn: what it finds, why it matters in an RL loop, what to do, and a
    before/after example; without an id, list the rules."""
    from ..rules import RULES
    from ..rules.docs import render_rule_doc, render_rule_text

    if rule_id is None:
        click.echo("\n".join(f"{r.id}  {r.severity.value:<7}  {r.name}: {r.summary}" for r in RULES))
        return
    rule = find_rule(rule_id)
    if rule is None:
        fail(f"unknown rule '{term(rule_id)}'; `gyrelint rule` lists them ({RULES[0].id}-{RULES[-1].id})")
    click.echo(render_rule_doc(rule).rstrip("\n") if fmt == "markdown" else render_rule_text(rule))
