"""gyrelint.probe: stable lines, safe across threads and processes, read by logcheck as they are."""

from __future__ import annotations

import multiprocessing
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gyrelint import probe
from gyrelint.logcheck import build_rules, check_logs

LINE = re.compile(r"^gyrelint-probe (sampled|consumed|step)=\+\d+ total=\d+ pid=\d+ t=\d+\.\d{6}$"
                  r"|^gyrelint-probe policy_version=\d+ pid=\d+ t=\d+\.\d{6}$")


@pytest.fixture
def probe_log(tmp_path, monkeypatch):
    """Point the probe at a fresh file; environment and target are restored afterwards."""
    monkeypatch.setenv(probe.ENV_VAR, "off")
    path = tmp_path / "probe.log"
    probe.configure(path)
    yield path
    probe.configure("off")


def test_lines_are_stable_and_counted(probe_log):
    before = probe.totals().get("sampled", 0)
    probe.sampled(4)
    probe.sampled(4)
    probe.consumed(8)
    probe.step()
    probe.policy_version(3)
    lines = probe_log.read_text().splitlines()
    assert len(lines) == 5 and all(LINE.match(x) for x in lines), lines
    assert lines[1].startswith(f"gyrelint-probe sampled=+4 total={before + 8} pid={os.getpid()} ")
    assert lines[4].startswith("gyrelint-probe policy_version=3 ")
    assert os.environ[probe.ENV_VAR] == str(probe_log)  # spawned children log to the same file


def test_logcheck_reads_probe_lines_without_configuration(probe_log):
    probe.policy_version(0)
    for v in range(1, 4):
        probe.sampled(8)
        probe.consumed(8)
        probe.step()
        probe.policy_version(v)
    verdict = check_logs([str(probe_log)], build_rules())
    assert verdict.status == "healthy"
    assert verdict.counters["sampled"]["total"] == 24 and verdict.counters["consumed"]["total"] == 24


def test_threads_never_interleave(probe_log):
    def work():
        for _ in range(300):
            probe.sampled(1)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = probe_log.read_text().splitlines()
    assert len(lines) == 2400 and all(LINE.match(x) for x in lines)
    totals = sorted(int(x.split("total=")[1].split()[0]) for x in lines)
    assert totals[-1] - totals[0] == 2399 and len(set(totals)) == 2400  # the lock makes totals unique


def _child(n: int) -> None:
    for _ in range(n):
        probe.consumed(2)


def test_forked_processes_keep_their_own_counters(probe_log):
    probe.consumed(5)  # the parent's total must not leak into the children
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_child, args=(200,)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    lines = probe_log.read_text().splitlines()
    assert all(LINE.match(x) for x in lines)
    pids = {x.split("pid=")[1].split()[0] for x in lines}
    assert len(pids) == 4
    child_totals = [int(x.split("total=")[1].split()[0]) for x in lines if f"pid={os.getpid()} " not in x]
    assert max(child_totals) == 400 and min(child_totals) == 2
    verdict = check_logs([str(probe_log)], build_rules(patterns=[]))
    assert verdict.counters["consumed"]["total"] == 5 + 3 * 200 * 2


def test_independent_processes_append_atomically(tmp_path):
    path = tmp_path / "shared.log"
    code = "from gyrelint import probe\nfor _ in range(500): probe.sampled(1)\n"
    env = {**os.environ, probe.ENV_VAR: str(path)}
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env) for _ in range(3)]
    assert all(p.wait(60) == 0 for p in procs)
    lines = path.read_text().splitlines()
    assert len(lines) == 1500 and all(LINE.match(x) for x in lines)


def test_stderr_default_and_off(tmp_path):
    code = ("import os\nos.environ.pop('GYRELINT_PROBE_LOG', None)\n"
            "from gyrelint import probe\nprobe.step()\nprobe.configure('off')\nprobe.step()\n")
    env = {k: v for k, v in os.environ.items() if k != probe.ENV_VAR}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and LINE.match(lines[0]) and lines[0].startswith("gyrelint-probe step=+1 total=1 ")


def test_unwritable_target_falls_back_to_stderr(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv(probe.ENV_VAR, "off")
    probe.configure(tmp_path / "no" / "such" / "dir" / "p.log")
    try:
        probe.step()
    finally:
        probe.configure("off")
    err = capfd.readouterr().err
    assert "cannot open" in err and "gyrelint-probe step=+1" in err


def test_probe_is_stdlib_only():
    src = Path(probe.__file__).read_text()
    imports = set(re.findall(r"^(?:import|from) (\w+)", src, re.M))
    assert imports <= {"__future__", "os", "sys", "threading", "time"}
