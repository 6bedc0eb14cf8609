"""The ``gyrelint`` command: one module per subcommand, imported only when that command runs.

Importing every subcommand up front cost most of a second (libcst, networkx, PyYAML and
all analysis stages) before any work, even for ``--help``. The group below knows the
commands from a static table (name and one-line help) and imports
``gyrelint.cli.<name>_cmd`` on demand; ``tests/test_cli_lazy.py`` checks the table against
the real commands.
"""

from __future__ import annotations

import importlib

import click

from .. import __version__

# name -> the command's short help (the first sentence of its docstring), shown by ``gyrelint --help``.
SHORT_HELP: dict[str, str] = {
    "analyze": "Analyze the repository at PATH: where each chain is, the handoff both ways, one process or "
               "many, whether the loop is online, which counters are logged.",
    "graph": "Dump the import graph and the call graph of the repository at PATH.",
    "entries": "List the entry points of the repository at PATH: README commands, launch scripts, console "
               "scripts, main guards, @hydra.main; commands naming a missing module or file are flagged.",
    "topology": "Do the sampling and training chains of the repository at PATH run in one process or many? "
                "Prints the verdict with its best evidence and the trajectory and weight transports, then one "
                "entry per config key that decides the layout, grouped by class: where it is declared, its value, "
                "why it matters, and how many other places set or read it.",
    "check": "Lint the online-RL loop of the repository at PATH (default: the current folder).",
    "baseline": "Write the findings of PATH to a baseline file (default PATH/.gyrelint-baseline.json).",
    "diff": "Compare the online-RL loop of two git revisions of the repository at PATH.",
    "map": "Draw the map of the repository at PATH: a sampling cluster, a training cluster, the handoff nodes "
           "between them, the trajectory edge (sampler -> trainer) and the weight-sync edge (trainer -> "
           "sampler) labelled with their transport, drivers and entry points above.",
    "report": "Write one self-contained HTML page (no network needed, opens from file://) that answers the five "
              "questions at a glance: summary strip, clickable map, evidence with source, tables.",
    "logcheck": "Check a run from its logs: trajectories sampled and consumed, training steps, policy version.",
    "rule": "Explain the rule GYRnnn: what it finds, why it matters in an RL loop, what to do, and a before/after "
            "example; without an id, list the rules.",
    "schema": "Print the JSON Schema (draft 2020-12) of a document: findings (check --format json) or report "
              "(analyze --format json).",
}
COMMANDS = tuple(SHORT_HELP)


# Examples for ``--help`` of the commands whose module does not set its own ``epilog``.
EXAMPLES: dict[str, str] = {
    "baseline": "gyrelint baseline .                    # writes ./.gyrelint-baseline.json\n"
                "gyrelint check . --baseline .gyrelint-baseline.json",
    "diff": "gyrelint diff --base upstream/main .\n"
            "gyrelint diff --base v1.0 --head HEAD --format markdown --fail-on-new .",
    "logcheck": "gyrelint logcheck train.log\n"
                "gyrelint logcheck --follow --max-seconds 600 run/*.log\n"
                "gyrelint logcheck --pattern 'consumed=batch (\\d+) consumed' train.log",
    "analyze": "gyrelint analyze --demo\n"
               "gyrelint analyze path/to/repo --format json > report.json\n"
               "gyrelint analyze . --html report/",
    "map": "gyrelint map . -o map.svg\n"
           "gyrelint map . --level module -o modules.png\n"
           "gyrelint map . --focus update_policy --format mermaid",
    "report": "gyrelint report . -o gyrelint-report/\n"
              "gyrelint report --demo -o /tmp/demo-report",
    "entries": "gyrelint entries .\n"
               "gyrelint entries . --all\n"
               "gyrelint entries . --format json",
    "topology": "gyrelint topology .\n"
                "gyrelint topology . --class port --class comm\n"
                "gyrelint topology . --format json",
    "graph": "gyrelint graph . --calls --format dot > calls.dot\n"
             "gyrelint graph . --imports\n"
             "gyrelint graph . --format pycg --entry train.py",
}


def load_command(name: str) -> click.Command:
    """Import ``gyrelint.cli.<name>_cmd`` and return its ``command`` (with examples under its help)."""
    cmd = importlib.import_module(f"{__name__}.{name}_cmd").command
    if not cmd.epilog and name in EXAMPLES:
        cmd.epilog = "\b\nExamples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name].splitlines())
    return cmd


def _escaped(exc: click.ClickException) -> click.ClickException:
    """A usage error whose message may quote what was typed (or a name read from a repo),
    with hidden characters shown, before click prints it."""
    from ..escape import term

    exc.message = term(exc.message)
    return exc


class LazyGroup(click.Group):
    """A group whose subcommands are imported the first time they are asked for."""

    def __init__(self, *args: object, lazy: dict[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self.lazy))

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: object) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.ClickException as exc:
            raise _escaped(exc) from None

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            raise _escaped(exc) from None

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.add_command(load_command(cmd_name), cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from the static table so that help imports no subcommand.
        A stand-in command carries the table's sentence, which click shortens as it would the real help."""
        cmds = [(n, self.commands.get(n) or click.Command(n, help=self.lazy[n])) for n in self.list_commands(ctx)]
        cmds = [(n, c) for n, c in cmds if not c.hidden]
        if not cmds:
            return
        limit = formatter.width - 6 - max(len(n) for n, _ in cmds)
        with formatter.section("Commands"):
            formatter.write_dl([(n, c.get_short_help_str(limit)) for n, c in cmds])


@click.group(cls=LazyGroup, lazy=SHORT_HELP,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog="\b\nExamples:\n  gyrelint analyze --demo          # the five answers on the bundled example\n"
                    "  gyrelint check .                 # lint the repo here; exit 1 on findings\n"
                    "  gyrelint rule GYR008             # what a finding means and what to do")
@click.version_option(__version__, prog_name="gyrelint")
def main() -> None:
    """Find the sampling and training chains of an online RL code base, the handoff
    between them both ways, and whether they run in one process or many."""
