"""Progress off a terminal (issue 18 item 4): one stderr line per stage with -v or CI set, nothing
for a quick warm run, and the held-back lines once a cold run has been silent for two seconds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gyrelint.progress import QUIET_FOR, StageLog, ci_env, stage_line

SRC = str(Path(__file__).parent.parent / "src")
STAGES = ("index", "graphs", "semantics", "topology", "rules")


def run(*args: str, cache: Path, ci: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PYTHONPATH=SRC, GYRELINT_CACHE_DIR=str(cache))
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "gyrelint", *args], capture_output=True, text=True, env=env,
                          timeout=300, stdin=subprocess.DEVNULL)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def log(lines: bool, tty: bool = False) -> tuple[StageLog, Clock, list[str]]:
    clock, out = Clock(), []
    return StageLog(lines=lines, tty=tty, write=out.append, clock=clock), clock, out


def test_ci_run_of_analyze_prints_one_line_per_stage_on_stderr_and_keeps_stdout_clean(tmp_path: Path) -> None:
    ci = run("analyze", "--demo", "--no-cache", cache=tmp_path / "c1", ci="1")
    plain = run("analyze", "--demo", "--no-cache", cache=tmp_path / "c2")
    assert ci.returncode == plain.returncode == 0, ci.stderr
    lines = ci.stderr.splitlines()
    for stage in STAGES:
        [line] = [x for x in lines if x.startswith(f"gyrelint: {stage} ")]
        assert line.endswith(" s"), line
    assert any(" files (" in x and " parsed, " in x for x in lines)
    def untimed(text: str) -> str:
        return re.sub(r"\d+\.\d+\s?s\b", "T", text)

    assert untimed(ci.stdout) == untimed(plain.stdout) and "gyrelint: index" not in ci.stdout


def test_warm_run_without_ci_or_verbose_prints_nothing_on_stderr(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert run("check", "--demo", cache=cache).returncode in (0, 1)  # fills the cache
    warm = run("check", "--demo", cache=cache)
    assert warm.stderr == ""
    verbose = run("check", "--demo", "-v", cache=cache)
    assert verbose.stderr.startswith("gyrelint: cache ")  # a warm run says it was one, when asked
    assert run("analyze", "--demo", cache=cache, ci="false").stderr == ""


@pytest.mark.parametrize(("value", "on"), [("1", True), ("true", True), ("yes", True), ("", False),
                                           ("0", False), ("false", False), ("FALSE", False)])
def test_ci_variable(value: str, on: bool) -> None:
    assert ci_env({"CI": value}) is on
    assert ci_env({}) is False


def test_quick_run_stays_silent_and_a_slow_one_says_what_it_held_back() -> None:
    quiet, clock, out = log(lines=False)
    quiet.stage("index", 0.4, {"files": 8})
    clock.now = QUIET_FOR - 0.1
    quiet.stage("rules", 0.1, {"findings": 1})
    assert out == []
    slow, clock, out = log(lines=False)
    slow.stage("index", 1.5, {"files": 454, "parsed": 12, "cached": 442})
    assert out == []
    clock.now = QUIET_FOR + 1
    slow.stage("graphs", 2.1, {"functions": 4698, "edges": 3104})
    assert out == ["gyrelint: index 454 files (12 parsed, 442 cached) 1.5 s\n",
                   "gyrelint: graphs 4,698 functions 3,104 edges 2.1 s\n"]


def test_a_long_parse_prints_a_line_every_few_seconds_off_a_terminal_and_the_meter_on_one() -> None:
    ci, clock, out = log(lines=True)
    ci(10, 400)
    clock.now = 6.0
    ci(200, 400)
    ci(210, 400)  # not again right away
    ci(400, 400)  # the stage line says the end
    assert out == ["gyrelint: index 200/400 files parsed 6.0 s\n"]
    term, clock, out = log(lines=False, tty=True)
    clock.now = 1.5
    term(5, 10)
    term.stage("index", 1.5, {"files": 10})  # a terminal gets the meter, not stage lines, unless -v
    term.close()
    assert out[0] == "\rgyrelint: parsed 5/10 files" and out[-1].startswith("\r ") and len(out) == 2


def test_stage_lines_carry_no_repo_bytes() -> None:
    line = stage_line("topology", 0.0, {"verdict": "cross\x1b[31m-process\n::error ::x", "keys": 1})
    assert "\x1b" not in line and "\n" not in line and "::" not in line
    assert line == "gyrelint: topology cross31m-processerrorx 1 key 0.0 s"
