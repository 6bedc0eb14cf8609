"""GYR008 follows values (issue 19 item 5): a timeout set in a config file, a dataclass default or
a CLI default is judged at the line a user edits, with the handoff call as evidence; a handoff wait
with no deadline is a finding; the advice names the handoff and what to check before the wait."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gyrelint.api import analyze, demo_root
from gyrelint.model import Finding

FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout_values"
GET_LINE = "item = self.traj_queue.get(timeout=timeouts[\"get_s\"])"


def gyr008(root: Path, cache: Path) -> list[Finding]:
    a = analyze(root, use_cache=False, cache_dir=cache, select=("GYR008",))
    return sorted((f for f in a.findings if f.rule == "GYR008"), key=lambda f: (f.file, f.line))


@pytest.fixture()
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "minirl"
    shutil.copytree(demo_root(), root)
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_yaml_timeout_read_into_the_trajectory_queue_get_is_reported_at_its_yaml_line(demo: Path, tmp_path: Path):
    assert gyr008(demo, tmp_path / "c0") == []  # the shipped demo waits half a second
    edit(demo / "configs" / "default.yaml", "get_s: 0.5 ", "get_s: 3600")
    [f] = gyr008(demo, tmp_path / "c1")
    assert (f.file, f.line) == ("configs/default.yaml", 29)
    assert "timeouts.get_s" in f.message and "3600 s" in f.message and "self.traj_queue" in f.message
    where = [(e.file, e.line) for e in f.evidence]
    assert ("minirl/trainer.py", 47) in where  # the handoff call that reads it
    assert ("minirl/sampler.py", 59) in where  # the producer's put on the same queue
    # what to check first: the producer's put and the fields, not the wait
    assert "minirl.sampler.put_until_stopped" in f.fix and "put reaches this queue" in f.fix
    assert "fields" in f.fix and "waiting longer hides" in f.fix


@pytest.mark.parametrize("wait", ["timeout=None", 'timeout=float("inf")', "timeout=math.inf", ""])
def test_a_trajectory_queue_get_with_no_deadline_is_a_finding(demo: Path, tmp_path: Path, wait: str):
    edit(demo / "minirl" / "trainer.py", GET_LINE, f"item = self.traj_queue.get({wait})")
    [f] = gyr008(demo, tmp_path / "c")
    assert (f.file, f.line) == ("minirl/trainer.py", 47)
    assert "waits forever" in f.message and "trajectory handoff queue" in f.message
    assert f.fix.startswith("Give this get a finite limit") and "put_until_stopped" in f.fix


def test_dataclass_and_cli_defaults_and_an_unbounded_generate_client(tmp_path: Path):
    found = gyr008(FIXTURE, tmp_path / "c")
    assert [(f.file, f.line) for f in found] == [("rlx/config.py", 10), ("rlx/config.py", 17), ("rlx/rollout.py", 8)]
    push, join, client = found
    assert "RunArgs.push_timeout" in push.message and "2.0 h" in push.message
    assert ("rlx/weights.py", 41) in [(e.file, e.line) for e in push.evidence]
    assert "self.args.push_timeout" in push.message and "weight sync" in push.message
    assert "join_timeout" in join.message and "3.0 h" in join.message  # timedelta(seconds=args.join_timeout)
    assert ("rlx/weights.py", 16) in [(e.file, e.line) for e in join.evidence]
    assert "every rank joins the same group" in join.fix
    assert "waits forever" in client.message and "GenerateClient.generate" in client.message


def test_not_findings_checkpoint_upload_logged_retries_and_tests(tmp_path: Path):
    found = gyr008(FIXTURE, tmp_path / "c")
    files = {f.file for f in found}
    assert "rlx/ckpt.py" not in files  # a long upload off the loop (its caller is the trainer)
    assert not any("upload_timeout" in f.message for f in found)
    assert not any("push_retries" in f.message for f in found)  # each retry is logged
    assert not any(f.file.startswith("tests/") for f in found)  # httpx.Timeout(None) in a test


def test_the_threshold_applies_to_followed_values(demo: Path, tmp_path: Path):
    edit(demo / "configs" / "default.yaml", "get_s: 0.5 ", "get_s: 600")
    assert gyr008(demo, tmp_path / "c1") == []
    (demo / "pyproject.toml").write_text("[tool.gyrelint.thresholds]\ntimeout = 300\n", encoding="utf-8")
    [f] = gyr008(demo, tmp_path / "c2")
    assert (f.file, f.line) == ("configs/default.yaml", 29) and "over 300 s" in f.message


def test_gyr008_reads_no_file_the_yaml_value_comes_from_the_topology_key_entries(demo: Path, tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch):
    """Rules never read files: the YAML key's value and line are the topology's ``KeyEntry``
    (before, GYR008 re-read every YAML/TOML/JSON file of the repo itself)."""
    from gyrelint.rules import run_rules
    from gyrelint.settings import Settings
    from gyrelint.topology import keys

    edit(demo / "configs" / "default.yaml", "get_s: 0.5 ", "get_s: 3600")
    a = analyze(demo, use_cache=False, cache_dir=tmp_path / "c", select=("GYR008",))
    [entry] = [k for k in a.topology.keys if k.name == "timeouts.get_s"]
    assert (entry.value, entry.file, entry.line, entry.scope) == ("3600", "configs/default.yaml", 29, "")

    def no_reads(*_a: object, **_k: object) -> None:
        raise AssertionError("a rule read a file")

    monkeypatch.setattr(keys, "read_config_text", no_reads)  # the bounded reader of every config file
    found = [f for f in run_rules(a, Settings(select=("GYR008",))) if f.rule == "GYR008"]
    assert [(f.file, f.line) for f in found] == [("configs/default.yaml", 29)]
    assert "timeouts.get_s" in found[0].message and "self.traj_queue" in found[0].message


def test_a_cli_flag_entry_and_the_value_followed_to_it_are_one_finding(tmp_path: Path):
    """The topology names a CLI key as typed (``--join-timeout``); the flow names its dest
    (``join_timeout``): one setting, one finding."""
    found = gyr008(FIXTURE, tmp_path / "c")
    assert [(f.file, f.line) for f in found].count(("rlx/config.py", 17)) == 1
