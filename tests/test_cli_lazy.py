"""The CLI imports a subcommand only when it runs; its static command table must match the real commands."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import gyrelint.cli as cli
from gyrelint.cli import COMMANDS, SHORT_HELP, load_command, main

HEAVY = ("libcst", "networkx", "yaml")


def test_table_lists_every_command_module() -> None:
    on_disk = {p.name[: -len("_cmd.py")] for p in Path(cli.__file__).parent.glob("*_cmd.py")}
    assert set(COMMANDS) == on_disk


@pytest.mark.parametrize("name", COMMANDS)
def test_table_help_is_the_commands_own(name: str) -> None:
    cmd = load_command(name)
    assert isinstance(cmd, click.Command) and not cmd.hidden
    assert SHORT_HELP[name] == cmd.get_short_help_str(limit=10**6)


def _eager_group() -> click.Group:
    group = click.Group("main", params=list(main.params), help=main.help, epilog=main.epilog,
                        context_settings=main.context_settings)
    for name in COMMANDS:
        group.add_command(load_command(name), name)
    return group


@pytest.mark.parametrize("width", [40, 80, 100, 200])
def test_group_help_is_what_the_real_commands_give(width: int) -> None:
    runner = CliRunner()
    lazy = runner.invoke(main, ["--help"], prog_name="gyrelint", terminal_width=width)
    eager = runner.invoke(_eager_group(), ["--help"], prog_name="gyrelint", terminal_width=width)
    assert lazy.exit_code == eager.exit_code == 0
    assert lazy.output == eager.output
    for name in COMMANDS:
        assert f"  {name} " in lazy.output


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["nosuch"])
    assert result.exit_code == 2
    assert "No such command 'nosuch'" in result.output


def _modules_after(args: list[str]) -> set[str]:
    """Modules loaded by a fresh interpreter that runs ``gyrelint ARGS`` through the console-script target."""
    code = ("import json, sys\n"
            "from gyrelint.cli import main\n"
            "try:\n"
            f"    main({args!r}, prog_name='gyrelint')\n"
            "except SystemExit:\n"
            "    pass\n"
            "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(proc.stderr.rsplit("MODULES ", 1)[1]))


def test_group_help_imports_no_subcommand_and_no_heavy_package() -> None:
    mods = _modules_after(["--help"])
    assert not {m for m in mods if m.endswith("_cmd")}
    assert not {m for m in mods if m.split(".")[0] in HEAVY}
    assert "gyrelint.api" not in mods


def test_a_command_imports_only_its_own_module() -> None:
    mods = _modules_after(["logcheck", "--help"])
    assert {m for m in mods if m.startswith("gyrelint.cli.") and m.endswith("_cmd")} == {"gyrelint.cli.logcheck_cmd"}
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


# commands whose module imports the analysis stages only when it runs (check keeps ``analyze`` at
# module level, where tests replace it; graph's own imports are still eager)
@pytest.mark.parametrize("name", ["analyze", "entries", "topology", "diff", "map", "report", "logcheck"])
def test_command_help_imports_no_heavy_package(name: str) -> None:
    mods = _modules_after([name, "--help"])
    assert f"gyrelint.cli.{name}_cmd" in mods
    assert not {m for m in mods if m.split(".")[0] in HEAVY}


def test_console_script_and_module_entry_points_still_work() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "gyrelint"]
    assert script.load() is main
    proc = subprocess.run([sys.executable, "-m", "gyrelint", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    for name in COMMANDS:
        assert f"  {name} " in proc.stdout
