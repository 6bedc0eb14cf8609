"""The bundled minirl demo, run for real (healthy, broken queue, no weight sync), then logchecked."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

import pytest
import yaml
from click.testing import CliRunner

from gyrelint.api import demo_root
from gyrelint.cli import main
from gyrelint.logcheck import build_rules, check_logs
from gyrelint.logcheck.follow import follow

DEMO = demo_root()
SMALL = ["--set", "timeouts.max_idle_s=1.5", "--set", "timeouts.get_s=0.2", "--set", "timeouts.put_s=0.2"]
SCENARIOS = {
    "healthy": ["--steps", "8"],
    "broken-queue": ["--steps", "8", "--workers", "1", "--fault", "broken-queue"],
    "no-sync": ["--steps", "6", "--workers", "1", "--fault", "no-sync"],
}


# Runs each scenario as `python -m minirl.main ...` would (runpy, __main__ guard, real sampler processes),
# all in one interpreter so torch is imported once; stdout/stderr of each run go to its own files.
DRIVER = r"""
import contextlib, json, runpy, sys
out_dir, scenarios = sys.argv[1], json.loads(sys.argv[2])
for name, argv in scenarios.items():
    sys.argv = ["minirl.main", *argv]
    with open(f"{out_dir}/{name}.out", "w") as out, open(f"{out_dir}/{name}.err", "w") as err:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_module("minirl.main", run_name="__main__", alter_sys=True)
                code = 0
            except SystemExit as exc:
                code = exc.code or 0
    print(json.dumps({name: code}), flush=True)
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run the three scenarios (each a sampler process plus the trainer); return their output dir and exit codes."""
    # torch comes with the dev extra: a missing torch fails here loudly instead of skipping.
    out = tmp_path_factory.mktemp("minirl")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("GYRELINT_PROBE_LOG", None)
    argv = {name: ["--config", "configs/default.yaml", "--probe-log", str(out / f"{name}.probe.log"), *SMALL, *args]
            for name, args in SCENARIOS.items()}
    # Follow the healthy run live (probe log + console) until the trainer says it finished.
    followed: list = []
    watcher = threading.Thread(target=lambda: followed.append(follow(
        [str(out / "healthy.probe.log"), str(out / "healthy.out")], build_rules(), 0.5,
        lambda v, t: followed.append(v), until=re.compile(r"trainer: finished"), max_seconds=240)))
    watcher.start()
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(out), json.dumps(argv)],
                          cwd=DEMO, env=env, capture_output=True, text=True, timeout=300)
    watcher.join(timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    codes = {}
    for line in proc.stdout.splitlines():
        codes.update(json.loads(line))
    return out, codes, followed


def logcheck(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["logcheck", *args])
    return result.exit_code, result.stdout


def test_healthy_run(runs):
    out, codes, _ = runs
    assert codes["healthy"] == 0, (out / "healthy.err").read_text()
    log = out / "healthy.probe.log"
    verdict = check_logs([str(log)], build_rules())
    assert verdict.status == "healthy", verdict.headline
    c = verdict.counters
    assert c["consumed"]["total"] == 8 * 32  # trainer.batch_trajectories per step
    assert c["sampled"]["total"] >= c["consumed"]["total"]
    assert c["step"]["total"] == 8 and c["policy_version"]["last"] > c["policy_version"]["first"]
    sampler_pids = {x.split("pid=")[1].split()[0] for x in log.read_text().splitlines() if "sampled=" in x}
    assert len(sampler_pids) == 2  # configs/default.yaml starts two sampler processes
    assert logcheck(str(log))[0] == 0
    # the trainer's own console lines read with the built-in key names
    console = check_logs([str(out / "healthy.out")], build_rules())
    assert console.counters["step"]["total"] == 8 and console.counters["consumed"]["total"] == 8 * 32


def test_follow_saw_the_healthy_run_live(runs):
    _, _, followed = runs
    *changes, final = followed
    assert changes and final.status == "healthy"
    assert changes[-1].key == final.key  # the last change printed is the final verdict
    assert final.counters["step"]["total"] == 8 and final.counters["step"]["source"].startswith("probe")


def test_broken_queue_run(runs):
    out, codes, _ = runs
    assert codes["broken-queue"] == 1  # the trainer gave up waiting for data
    assert "no trajectories" in (out / "broken-queue.err").read_text()
    log = out / "broken-queue.probe.log"
    verdict = check_logs([str(log)], build_rules())
    assert verdict.status == "problem"
    handoff = verdict.checks[0]
    assert handoff.id == "handoff" and handoff.status == "problem" and "carrier" in handoff.hint
    assert verdict.counters["sampled"]["total"] > 0
    assert all(e.file == str(log) and e.line >= 1 for e in handoff.evidence)
    code, text = logcheck(str(log))
    assert code == 1 and "handoff broken" in text.splitlines()[0]


def test_no_sync_run(runs):
    out, codes, _ = runs
    assert codes["no-sync"] == 0, (out / "no-sync.err").read_text()
    log = out / "no-sync.probe.log"
    verdict = check_logs([str(log)], build_rules())
    status = {c.id: c.status for c in verdict.checks}
    assert status["handoff"] == "ok" and status["steps"] == "ok"
    assert status["online"] == "problem" and verdict.status == "problem"
    assert verdict.counters["policy_version"]["last"] == 0
    code, text = logcheck(str(log), "--format", "json")
    assert code == 1 and '"online"' in text


def test_demo_layout_and_launch_command():
    readme = (DEMO / "README.md").read_text()
    launcher = (DEMO / "scripts" / "train.sh").read_text()
    assert "python -m minirl.main --config configs/default.yaml" in launcher
    assert "scripts/train.sh" in readme and "python -m minirl.main" in readme
    cfg = yaml.safe_load((DEMO / "configs" / "default.yaml").read_text())
    assert cfg["sampler"]["num_workers"] >= 1 and cfg["trainer"]["devices"]
    assert {"trajectory_maxsize", "weights_maxsize"} <= set(cfg["queue"]) and cfg["timeouts"]
    assert 'if __name__ == "__main__":' in (DEMO / "minirl" / "main.py").read_text()


def test_demo_uses_only_the_probe_from_gyrelint():
    for path in (DEMO / "minirl").glob("*.py"):
        for m in re.finditer(r"^\s*(?:from|import) (gyrelint[\w.]*)(?: import (\w+))?", path.read_text(), re.M):
            assert (m.group(1), m.group(2)) in {("gyrelint", "probe"), ("gyrelint.probe", None)}, path


def test_demo_counters_without_gyrelint():
    code = ("import sys\nsys.modules['gyrelint'] = None\nfrom minirl.counters import probe\n"
            "probe.sampled(3); probe.consumed(3); probe.step(); probe.policy_version(1); print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=DEMO, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert out.stdout.strip() == "ok" and "gyrelint-probe" not in out.stderr
