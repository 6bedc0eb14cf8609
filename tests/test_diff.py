"""`gyrelint diff`: two git revisions compared without touching the checkout; loop regressions exit 1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from gyrelint.cli import main
from gyrelint.compare import compare
from gyrelint.gitrev import GitError, check_ref
from gyrelint.model import Handoff, KeyEntry, Side, Topology
from gyrelint.rules.testing import fn, make_analysis

FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout"
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_OPTIONAL_LOCKS": "0"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=GIT_ENV).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    r = tmp_path / "repo"
    shutil.copytree(FIXTURE, r)
    (r / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR008"]\n')
    sync = r / "pkg" / "sync.py"
    sync.write_text(sync.read_text().replace("timeout=36000,", "timeout=60,"))
    git(r, "init", "-q", "-b", "main")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "clean")
    sync.write_text(sync.read_text().replace("timeout=60,", "timeout=36000,"))
    git(r, "commit", "-q", "-am", "fault")
    return r


def state(repo: Path) -> tuple:
    idx = repo / ".git" / "index"
    return git(repo, "status", "--porcelain"), idx.stat().st_mtime_ns, git(repo, "rev-parse", "HEAD"), \
        sorted(p.name for p in (repo / ".git" / "hooks").iterdir()) if (repo / ".git" / "hooks").exists() else []


def test_diff_reports_new_findings_and_leaves_the_checkout_alone(repo: Path):
    (repo / "pkg" / "wip.py").write_text("x = 1\n")  # the user's uncommitted work
    before = state(repo)
    r = CliRunner().invoke(main, ["diff", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--format", "json"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [f["rule"] for f in data["new_findings"]] == ["GYR008"]
    assert data["regressed"] is False
    assert state(repo) == before
    assert (repo / "pkg" / "wip.py").read_text() == "x = 1\n"
    r = CliRunner().invoke(main, ["diff", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--fail-on-new"])
    assert r.exit_code == 1 and "new findings (1)" in r.output


def test_diff_against_the_working_tree_and_from_a_subfolder(repo: Path):
    sync = repo / "pkg" / "sync.py"
    sync.write_text(sync.read_text().replace("timeout=36000,", "timeout=30,"))
    r = CliRunner().invoke(main, ["diff", str(repo), "--base", "HEAD", "--format", "json"], catch_exceptions=False)
    data = json.loads(r.stdout)
    assert data["new_findings"] == [] and data["fixed_findings"] == 1 and data["head"] == "working tree"
    r = CliRunner().invoke(main, ["diff", str(repo / "pkg"), "--base", "HEAD~1", "--head", "HEAD", "--format", "json"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("ref", ["-x", "--output=/tmp/x", "a;b", "$(touch x)", "a b", "HEAD..main", "`id`", ""])
def test_hostile_refs_are_rejected(repo: Path, ref: str):
    with pytest.raises(GitError):
        check_ref(ref)
    r = CliRunner().invoke(main, ["diff", str(repo), "--base", ref])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_unknown_ref_and_non_repo_exit_2(repo: Path, tmp_path: Path):
    r = CliRunner().invoke(main, ["diff", str(repo), "--base", "no-such-branch"])
    assert r.exit_code == 2 and "unknown revision" in r.output
    plain = tmp_path / "plain"
    plain.mkdir()
    r = CliRunner().invoke(main, ["diff", str(plain), "--base", "HEAD"])
    assert r.exit_code == 2 and "not inside a git repository" in r.output


def _entry(name: str, cls: str, value: str, line: int, scope: str = "") -> KeyEntry:
    return KeyEntry(name, cls, value, None, "c.yaml", line, "yaml", "test", scope=scope)


def test_ordinary_refs_pass_validation():
    for ref in ("main", "upstream/main", "v1.2.3", "HEAD~3", "HEAD^", "a1b2c3d", "release-1.16", "v1^{}"):
        assert check_ref(ref) == ref


def test_compare_finds_what_moved():
    base = make_analysis([fn("p.gen.rollout", Side.SAMPLING), fn("p.train.step", Side.TRAINING),
                          fn("p.util.pack", Side.NEUTRAL), fn("p.sync.push", Side.HANDOFF, kind="weight_sync")],
                         handoff=Handoff(online=True, weight_sync_path=["p.train.step", "p.sync.push"]),
                         boundary_modules=["p.proto"],
                         topology=Topology(keys=[_entry("a.nnodes", "process", "1", 1), _entry("actor.colocate", "layout",
                                                                                           "false", 2)]))
    head = make_analysis([fn("p.gen.rollout", Side.SAMPLING, reached=False), fn("p.train.step", Side.TRAINING),
                          fn("p.util.pack", Side.HANDOFF, kind="trajectory"),
                          fn("p.sync.push", Side.HANDOFF, kind="weight_sync")],
                         handoff=Handoff(online=False), boundary_modules=["p.util"],
                         topology=Topology(keys=[_entry("a.nnodes", "process", "1", 1),
                                                 _entry("actor.colocate", "layout", "true", 2),
                                                 _entry("rollout.port", "port", "8000", 4),
                                                 _entry("tests.port", "port", "1", 5, scope="tests")]))
    r = compare(base, head, "base", "head")
    assert [(c.qualname, c.before, c.after) for c in r.side_changes] == [("p.util.pack", "neutral", "handoff")]
    assert (r.boundary_added, r.boundary_removed) == (("p.util",), ("p.proto",))
    assert r.weight_sync == "broken" and r.chains_lost == ("sampling",) and r.regressed
    assert [k.name for k in r.keys_added] == ["rollout.port"]  # not the test's key: it is set aside
    assert [(k.name, k.before, k.after) for k in r.keys_changed] == [("actor.colocate", "false", "true")]
    back = compare(head, base, "head", "base")
    assert back.weight_sync == "restored" and not back.regressed and back.chains_gained == ("sampling",)
    same = compare(base, base, "a", "b")
    assert not same.regressed and same.side_changes == () and same.weight_sync == "unchanged"


def test_a_path_that_no_longer_passes_a_weight_sync_step_is_broken():
    sync = fn("p.sync.push", Side.HANDOFF, kind="weight_sync")
    base = make_analysis([fn("p.gen.rollout", Side.SAMPLING), fn("p.train.step", Side.TRAINING), sync],
                         handoff=Handoff(online=True, weight_sync_path=["p.train.step", "p.sync.push"]))
    head = make_analysis([fn("p.gen.rollout", Side.SAMPLING), fn("p.train.step", Side.TRAINING), sync],
                         handoff=Handoff(online=True, weight_sync_path=["p.train.step", "p.gen.rollout"]))
    r = compare(base, head, "b", "h")
    assert r.weight_sync == "broken" and r.regressed


def test_diff_entry_reaches_both_revisions(repo: Path, monkeypatch):
    """`diff --entry FILE` was accepted and ignored: both revisions are now analyzed with it."""
    import gyrelint.api as api

    seen: list[list[str]] = []
    real = api.analyze

    def spy(path, *args, **kw):
        seen.append(list(kw.get("extra_entries") or []))
        return real(path, *args, **kw)

    monkeypatch.setattr(api, "analyze", spy)
    r = CliRunner().invoke(main, ["diff", str(repo), "--base", "HEAD~1", "--head", "HEAD", "--entry", "pkg/sync.py",
                                  "--format", "json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert seen == [["pkg/sync.py"], ["pkg/sync.py"]]


# -- a fork that breaks the bundled demo's loop ---------------------------------------------------

@pytest.fixture
def demo_repo(tmp_path: Path) -> Path:
    """A git copy of the bundled demo, one commit."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    from gyrelint.api import demo_root

    r = tmp_path / "minirl"
    shutil.copytree(demo_root(), r)
    git(r, "init", "-q", "-b", "main")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "demo")
    return r


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def _diff(repo: Path, cache: Path) -> tuple[int, dict]:
    r = CliRunner().invoke(main, ["diff", str(repo), "--base", "HEAD", "--format", "json", "--cache-dir", str(cache)],
                           catch_exceptions=False)
    return r.exit_code, json.loads(r.stdout)


def test_demo_weight_push_replaced_by_pass_is_a_regression_at_that_function(demo_repo: Path, tmp_path: Path):
    """Failed before: the receiver still matched, so the diff said 'weight-sync path unchanged', exit 0."""
    _edit(demo_repo / "minirl" / "trainer.py", "q.put_nowait((self.version, state_dict))", "pass")
    code, data = _diff(demo_repo, tmp_path / "cache")
    assert code == 1 and data["regressed"] is True
    ws = data["weight_sync"]
    assert ws["status"] == "broken" and ws["online_before"] is True and ws["online_after"] is False
    assert [(f["rule"], f["file"]) for f in ws["lost"]] == [("GYR003", "minirl/trainer.py")]
    lost = ws["lost"][0]
    assert "Trainer.sync_weights" in lost["message"] and "never receives new weights" in lost["message"]
    assert lost["line"] == (demo_repo / "minirl" / "trainer.py").read_text().splitlines().index(
        "    def sync_weights(self):") + 1
    text = CliRunner().invoke(main, ["diff", str(demo_repo), "--base", "HEAD", "--cache-dir", str(tmp_path / "cache")])
    assert text.exit_code == 1 and "REGRESSED" in text.output and "sync_weights" in text.output


def test_demo_call_of_the_weight_sync_dropped_is_a_regression_at_the_caller(demo_repo: Path, tmp_path: Path):
    _edit(demo_repo / "minirl" / "trainer.py", "                self.sync_weights()\n", "                pass\n")
    code, data = _diff(demo_repo, tmp_path / "cache")
    assert code == 1 and data["weight_sync"]["status"] == "broken"
    lost = data["weight_sync"]["lost"]
    assert len(lost) == 1 and lost[0]["message"].startswith("minirl.trainer.Trainer.fit no longer calls the weight "
                                                             "sync minirl.trainer.Trainer.sync_weights")


def test_demo_unchanged_or_harmless_edit_is_no_regression(demo_repo: Path, tmp_path: Path):
    _edit(demo_repo / "minirl" / "trainer.py", '"""Send a copy of the weights', '"""Send the weights')
    code, data = _diff(demo_repo, tmp_path / "cache")
    assert code == 0 and data["regressed"] is False and data["weight_sync"]["lost"] == []


def _with_calls(a, *edges: tuple[str, str, list[int]]):
    for u, v, lines in edges:
        a.graphs.calls.add_edge(u, v, kind="exact", via="call", lines=lines)
    return a


def test_compare_weight_sync_calls_removed_fewer_places_and_orphaned():
    def loop(fit_lines: list[int], with_fit: bool = True, push_reached: bool = True):
        fns = [fn("p.gen.rollout", Side.SAMPLING), fn("p.train.step", Side.TRAINING),
               fn("p.sync.push", Side.HANDOFF, kind="weight_sync", reached=push_reached)]
        if with_fit:
            fns.append(fn("p.train.fit", Side.DRIVER))
        a = make_analysis(fns, handoff=Handoff(online=True, weight_sync_path=["p.train.step", "p.sync.push"]))
        return _with_calls(a, *([("p.train.fit", "p.sync.push", fit_lines)] if fit_lines else []))

    base = loop([10, 40])
    r = compare(base, loop([10]), "b", "h")
    assert r.regressed and r.weight_sync == "broken" and r.online_after is False
    assert [(f.rule, f.file) for f in r.sync_lost] == [("GYR003", "p/train.py")]
    assert "at 1 place instead of 2" in r.sync_lost[0].message
    gone = compare(base, loop([], with_fit=False, push_reached=False), "b", "h")
    assert gone.regressed and "p.sync.push is no longer reached: p.train.fit" in gone.sync_lost[0].message
    # the call moved to another line, or a second sync step took over: no loss
    assert not compare(base, loop([12, 44]), "b", "h").sync_lost
    moved = loop([10])
    moved.functions["p.sync.stream"] = fn("p.sync.stream", Side.HANDOFF, kind="weight_sync")
    assert not compare(base, moved, "b", "h").regressed


def test_a_flipped_layout_key_and_an_added_one_show_in_the_diff(tmp_path: Path):
    """Keys compare as topology entries (name, class, value at the definition): a fork that flips a
    colocation switch or adds an offload switch moved the layout; one more mention of a key did not."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    from gyrelint.api import demo_root
    r = tmp_path / "fork"
    shutil.copytree(demo_root(), r)
    cfg = r / "configs" / "default.yaml"
    cfg.write_text(cfg.read_text().replace("trainer:\n", "trainer:\n  colocate: false\n", 1))
    git(r, "init", "-q", "-b", "main")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "upstream")
    cfg.write_text(cfg.read_text().replace("colocate: false", "colocate: true").replace(
        "sampler:\n", "sampler:\n  offload_params: true\n", 1))
    git(r, "commit", "-q", "-am", "fork")
    out = CliRunner().invoke(main, ["diff", str(r), "--base", "HEAD~1", "--head", "HEAD", "--format", "json"],
                             catch_exceptions=False)
    assert out.exit_code == 0, out.output
    topo = json.loads(out.stdout)["topology"]
    assert [(k["key"], k["class"], k["before"], k["after"]) for k in topo["keys_changed"]] == [
        ("trainer.colocate", "layout", "false", "true")]
    assert [(k["key"], k["class"], k["value"]) for k in topo["keys_added"]] == [
        ("sampler.offload_params", "layout", "true")]
    assert topo["keys_removed"] == []
    text = CliRunner().invoke(main, ["diff", str(r), "--base", "HEAD~1", "--head", "HEAD"]).output
    assert "cross-process config keys changed (1)" in text and "trainer.colocate (layout) false -> true" in text
    assert "cross-process config keys added (1)" in text and "sampler.offload_params (layout) = true" in text
