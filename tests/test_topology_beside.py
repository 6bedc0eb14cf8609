"""The topology stage run in a forked child beside semantics (issue 18 item 2).

The report must be the in-process one, byte for byte in the JSON: from the child's answer (the
demo), and from the parent's own computation when semantics refutes one of the child's guesses
(same-process evidence in ``accuracy_same_object``; a library with no launcher, whose reach
starts from its public API) or when the child fails. The sidecar itself: the answer comes
through a pipe, a failure or a kill is "no answer", the child leaves no zombie and never
flushes the parent's buffered output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gyrelint import sidecar, topology_beside
from gyrelint.api import analyze
from gyrelint.render.json_report import to_report

FIX = Path(__file__).parent / "fixtures"
DEMO = Path(__file__).parents[1] / "src" / "gyrelint" / "demo" / "minirl"
SRC = Path(__file__).parents[1] / "src"

pytestmark = pytest.mark.skipif(not sidecar.can_fork(), reason="no fork here: the stage always runs in-process")


def _report(root: Path) -> str:
    r = to_report(analyze(root, use_cache=False, jobs=1))
    r["stats"].pop("seconds", None)
    return json.dumps(r, sort_keys=True)


def _answers(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Force the child on for any repo size, and record whether each run took its answer."""
    used: list[bool] = []
    finish = topology_beside.TopologyBeside.finish

    def spy(self, online, reached):
        got = finish(self, online, reached)
        used.append(got is not None)
        return got

    monkeypatch.setattr(topology_beside, "MIN_CALLS", 0)
    monkeypatch.setattr(topology_beside.TopologyBeside, "finish", spy)
    return used


def test_the_childs_topology_is_the_in_process_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(topology_beside, "MIN_CALLS", 10**12)
    alone = _report(DEMO)
    used = _answers(monkeypatch)
    assert _report(DEMO) == alone
    assert used == [True]  # the child answered: the comparison covered its path


def test_same_process_evidence_from_semantics_is_weighed_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child weighs no same-process evidence; when semantics finds some, its answer is dropped."""
    root = FIX / "accuracy_same_object"
    monkeypatch.setattr(topology_beside, "MIN_CALLS", 10**12)
    alone = _report(root)
    used = _answers(monkeypatch)
    assert _report(root) == alone
    assert used == [False]
    a = analyze(root, use_cache=False, jobs=1)
    assert a.topology.verdict == "same-process"
    assert any("same object 'policy'" in r for r in a.topology.reasons)


def test_a_refuted_reach_guess_is_computed_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """No entry point: semantics runs the library from its public API, not what the child assumed."""
    root = FIX / "library_no_launcher"
    monkeypatch.setattr(topology_beside, "MIN_CALLS", 10**12)
    alone = _report(root)
    used = _answers(monkeypatch)
    assert _report(root) == alone
    assert used == [False]


def test_a_failing_child_leaves_the_in_process_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(topology_beside, "MIN_CALLS", 10**12)
    alone = _report(DEMO)
    used = _answers(monkeypatch)
    import gyrelint.topology as stage

    parent, real = os.getpid(), stage.analyze_topology

    def crash_in_child(*args, **kw):
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return real(*args, **kw)

    monkeypatch.setattr(stage, "analyze_topology", crash_in_child)
    assert _report(DEMO) == alone
    assert used == [False]


def test_the_sidecar_answers_through_the_pipe() -> None:
    car = sidecar.Sidecar(lambda: b"x" * 300_000)  # more than a pipe holds
    assert car.result() == b"x" * 300_000
    assert car.pid is None


def test_a_failure_or_a_kill_is_no_answer_and_leaves_no_zombie() -> None:
    def boom() -> bytes:
        raise ValueError("child failed")

    failed = sidecar.Sidecar(boom)
    pid = failed.pid
    assert failed.result() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped
    import time

    stuck = sidecar.Sidecar(lambda: time.sleep(600) or b"")
    pid = stuck.pid
    stuck.close()  # killed, then reaped
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_the_child_never_flushes_the_parents_buffered_output() -> None:
    code = ("import sys; sys.stdout.write('once'); from gyrelint import sidecar; "
            "c = sidecar.Sidecar(lambda: b'ok'); assert c.result() == b'ok'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=60)
    assert out.stdout == "once"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_child_dies_with_a_killed_parent(tmp_path: Path) -> None:
    """A parent killed outright (SIGKILL: no handler runs) takes its child along."""
    import signal
    import time

    pidfile = tmp_path / "child.pid"
    code = ("import os, sys, time; from gyrelint import sidecar; "
            "c = sidecar.Sidecar(lambda: time.sleep(600) or b''); "
            f"open({str(pidfile)!r}, 'w').write(str(c.pid)); time.sleep(600)")
    parent = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(SRC)},
                              stdin=subprocess.DEVNULL)
    child = None
    try:
        deadline = time.monotonic() + 60
        while not pidfile.exists() or not pidfile.read_text():
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.05)
        child = int(pidfile.read_text())
        time.sleep(0.5)  # the child has set PR_SET_PDEATHSIG by now (it does so first)
        parent.kill()
        parent.wait(timeout=60)
        deadline = time.monotonic() + 30
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child is not None and _alive(child):
            os.kill(child, signal.SIGKILL)  # only what this test started


def _alive(pid: int) -> bool:
    """Running and not a zombie (a zombie waits for init to reap it once its parent is gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")
