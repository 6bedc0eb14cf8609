"""Rule packs: the ``gyrelint.rules`` entry-point group, broken packs, settings, and the example pack.

The in-process tests hand ``catalog`` fake entry points; the end-to-end ones install
examples/rule-pack (a copy, so the source tree stays clean) with pip into a tmp folder and run
gyrelint in a fresh interpreter with that folder on its path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gyrelint.api import InputError, load
from gyrelint.model import Severity
from gyrelint.rules import catalog as cat
from gyrelint.rules.base import Rule

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PACK = ROOT / "examples" / "rule-pack"
SRC = ROOT / "src"


class Pack1(Rule):
    id = "RLX901"
    name = "fake-pack-rule"
    severity = Severity.INFO
    summary = rationale = fix = "x"

    def check(self, ctx):  # pragma: no cover - never run here
        return iter(())


class BadId(Pack1):
    id = "rlx-1"


class Collides(Pack1):
    id = "GYR001"


class Incomplete(Rule):
    id = "RLX902"


@dataclass
class FakeDist:
    name: str


@dataclass
class FakeEP:
    name: str
    value: str
    obj: Any
    dist: FakeDist | None = None

    def load(self) -> Any:
        if isinstance(self.obj, BaseException):
            raise self.obj
        return self.obj


@pytest.fixture
def fresh_catalog():
    def clear() -> None:
        for f in (cat.catalog, cat.by_id, cat.catalog_key):
            f.cache_clear()

    clear()
    yield
    clear()


def with_eps(monkeypatch, *eps: FakeEP) -> None:
    found = [(ep, cat.Pack(ep.name, ep.value, ep.dist.name if ep.dist else "")) for ep in eps]
    monkeypatch.setattr(cat, "_entry_points", lambda: found)


def ep(name: str, obj: Any, dist: str = "somepack") -> FakeEP:
    return FakeEP(name, f"somepack.rules:{name}", obj, FakeDist(dist))


def test_pyproject_declares_exactly_the_builtin_rules():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["gyrelint.rules"]
    assert declared == {r.id: f"{r.__module__}:{r.__qualname__}" for r in cat.builtin_rules()}


def test_without_own_metadata_the_builtins_stand_in(monkeypatch, fresh_catalog):
    with_eps(monkeypatch)
    assert [r.id for r in cat.catalog()] == [f"GYR{i:03d}" for i in range(1, 12)]


def test_own_entry_points_are_used_when_present(monkeypatch, fresh_catalog):
    first = cat.builtin_rules()[0]
    with_eps(monkeypatch, ep(first.id, first, dist="gyrelint"))
    assert cat.catalog() == (first,)


def test_a_pack_rule_joins_after_the_builtins(monkeypatch, fresh_catalog, capsys):
    with_eps(monkeypatch, ep("RLX901", Pack1))
    rules = cat.catalog()
    assert rules[-1] is Pack1 and len(rules) == 12
    assert cat.by_id()["RLX901"] is Pack1
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("entry,reason", [
    (ep("RLX903", ImportError("no module named somepack")), "import failed (ImportError: no module named"),
    (ep("RLX904", SystemExit(3)), "import failed (SystemExit: 3)"),
    (ep("RLX905", len), "not a gyrelint.rules.base.Rule subclass"),
    (ep("RLX906", Rule), "not a gyrelint.rules.base.Rule subclass"),
    (ep("rlx-1", BadId), "malformed rule id 'rlx-1'"),
    (ep("RLX999", Pack1), "entry point name differs from the rule id 'RLX901'"),
    (ep("GYR001", Collides), "rule id GYR001 is taken by gyrelint.rules.gyr001_no_sampling_chain"),
    (ep("RLX902", Incomplete), "rule class lacks name, severity, summary, rationale, fix"),
])
def test_a_broken_pack_is_skipped_with_one_warning(monkeypatch, fresh_catalog, capsys, entry, reason):
    with_eps(monkeypatch, entry, ep("RLX901", Pack1))
    ids = [r.id for r in cat.catalog()]
    assert ids == [f"GYR{i:03d}" for i in range(1, 12)] + ["RLX901"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"gyrelint: warning: rule pack entry point {entry.name} = {entry.value} from somepack "
                          f"skipped: {reason}")


def test_the_warning_escapes_the_entry_point(monkeypatch, fresh_catalog, capsys):
    with_eps(monkeypatch, FakeEP("RLX\x1b[31m", "evil\n::error::x", ImportError("a\rb"), FakeDist("p\x07")))
    cat.catalog()
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "\x1b" not in err and "\r" not in err and "\x07" not in err


def test_settings_accept_a_packs_ids_and_still_refuse_unknown_ones(monkeypatch, fresh_catalog, tmp_path):
    with_eps(monkeypatch, ep("RLX901", Pack1))
    (tmp_path / "pyproject.toml").write_text('[tool.gyrelint]\nselect = ["GYR", "RLX9"]\n'
                                             '[tool.gyrelint.rules]\nRLX901 = "error"\n')
    _, settings, _ = load(tmp_path)
    assert settings.severity("RLX901") == "error"
    (tmp_path / "pyproject.toml").write_text('[tool.gyrelint.rules]\nRLX777 = "error"\n')
    with pytest.raises(InputError, match="RLX777"):
        load(tmp_path)


# -- end to end: the example pack installed with pip ------------------------------------------------------

BAD_REPO = {"rollout.py": "import torch\n\n\ndef sample(policy, x):\n    return torch.multinomial(policy(x), 1)\n"}


def run(args: list[str], site: Path | None, cache: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(site) if site else "", str(SRC)) if p),
           "GYRELINT_CACHE_DIR": str(cache), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """examples/rule-pack installed with pip (no deps, no build isolation) into a tmp folder."""
    base = tmp_path_factory.mktemp("pack")
    shutil.copytree(PACK, base / "src", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                           "--no-index", "--target", str(base / "site"), str(base / "src")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return base


def repo(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).write_text(text)
    return root


def test_check_reports_the_packs_finding_and_rule_prints_its_docs(installed, tmp_path):
    site, cache = installed / "site", tmp_path / "cache"
    root = repo(tmp_path, BAD_REPO)
    before = run(["-m", "gyrelint", "check", str(root)], None, cache)
    assert "RLX001" not in before.stdout  # same cache folder, pack not installed yet
    after = run(["-m", "gyrelint", "check", str(root)], site, cache)
    assert after.returncode == 1, after.stderr
    assert "rollout.py:5: RLX001 [warning]" in after.stdout and after.stderr.count("warning: rule pack") == 0
    doc = run(["-m", "gyrelint", "rule", "RLX001"], site, cache)
    assert doc.returncode == 0 and doc.stdout.startswith("RLX001  sample-with-grad")
    assert "Wrap the loop in `with torch.no_grad():`" in doc.stdout


def test_importing_the_rules_stage_loads_no_pack(installed, tmp_path):
    code = "import sys, gyrelint.rules, gyrelint.api; print('gyrelint_rlx' in sys.modules)"
    assert run(["-c", code], installed / "site", tmp_path).stdout.strip() == "False"


def test_the_packs_own_tests_pass(installed, tmp_path):
    proc = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], installed / "site", tmp_path,
               cwd=installed / "src")
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout


def test_a_pack_that_fails_to_import_costs_one_line(tmp_path):
    site = tmp_path / "site"
    info = site / "brokenpack-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: brokenpack\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gyrelint.rules]\nRLX001 = brokenpack_missing.rules:Nope\n")
    proc = run(["-m", "gyrelint", "check", str(repo(tmp_path, BAD_REPO))], site, tmp_path / "cache")
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "rule pack" in ln]
    assert lines == ["gyrelint: warning: rule pack entry point RLX001 = brokenpack_missing.rules:Nope from "
                     "brokenpack skipped: import failed (ModuleNotFoundError: No module named 'brokenpack_missing')"]
