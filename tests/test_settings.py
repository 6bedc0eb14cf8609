"""Settings are checked up front: every refusal is exit 2 and one escaped line naming the file
and the key; a repo's cache-dir stays inside the repo; the layers win in the documented order."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gyrelint.cli import main
from gyrelint.settings import (
    CounterPattern,
    RuleSetting,
    SettingsError,
    SettingsWarning,
    SignalSpec,
    Thresholds,
    TopologySettings,
    read_settings,
)
from gyrelint.settings.schema import KEYS, Where, check_table

LOOP = "def sample(llm):\n    return llm.generate('x')\n\n\nif __name__ == '__main__':\n    sample(None)\n"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config, no cache folder of the machine's: every test sets what it needs."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("GYRELINT_CACHE_DIR", raising=False)


def make_repo(tmp_path: Path, pyproject: str | None = None, name: str = "repo") -> Path:
    repo = tmp_path / name
    repo.mkdir()
    (repo / "main.py").write_text(LOOP)
    if pyproject is not None:
        (repo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return repo


def cli(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


def assert_refused(err: str, *parts: str) -> None:
    """One line on stderr, the gyrelint error prefix, every part named, nothing raw."""
    assert err.count("\n") == 1 and err.startswith("gyrelint: error: "), err
    assert "Traceback" not in err
    assert all(c.isprintable() for c in err.rstrip("\n")), repr(err)
    for p in parts:
        assert p in err, (p, err)


# -- every refusal, through the CLI ---------------------------------------------------------------

REFUSALS = [
    # (pyproject.toml text, what the one line must name)
    ("[tool.gyrelint\nexclude = []\n", ["invalid TOML", "line 1"]),
    ('tool = "x"\n', ["tool: expected a table, got 'x'"]),
    ("[tool]\ngyrelint = 3\n", ["gyrelint: expected a table, got 3"]),
    ('[tool.gyrelint]\nexlcude = ["x"]\n', ["[tool.gyrelint] exlcude: unknown key", "did you mean exclude?"]),
    ("[tool.gyrelint]\nmax-file-size = true\n", ["[tool.gyrelint] max-file-size: expected a positive integer",
                                                 "got true"]),
    ("[tool.gyrelint]\nmax-file-size = 0\n", ["max-file-size", "got 0"]),
    ("[tool.gyrelint]\nmax-file-size = 1e3\n", ["max-file-size", "got 1000.0"]),
    ("[tool.gyrelint]\nmax-file-size = 99999999999\n", ["max-file-size", "up to 67108864"]),
    ("[tool.gyrelint]\nmax-file-size = 1\nmax_file_size = 2\n", ["max_file_size: given twice"]),
    ('[tool.gyrelint]\nrespect-gitignore = "yes"\n', ["respect-gitignore: expected true or false"]),
    ("[tool.gyrelint]\nexclude = [1]\n", ["exclude: expected a path glob", "got 1 at position 1"]),
    ('[tool.gyrelint]\nentry-points = ""\n', ["entry-points", "empty string"]),
    ("[tool.gyrelint]\ncache-dir = 5\n", ["cache-dir: expected a folder path, got 5"]),
    ('[tool.gyrelint]\nentry-points = ["run\\u202egp.py"]\n', ["entry-points: contains the invisible or control "
                                                               "character U+202E"]),
    ('[tool.gyrelint]\nexclude = "a\\u001b[2Jb"\n', ["exclude: contains the invisible or control character U+001B"]),
    ('[tool.gyrelint]\nselect = ["GYR999"]\n', ["select: unknown rule code 'GYR999'", "did you mean GYR009?"]),
    ('[tool.gyrelint]\nignore = ["XYZ"]\n', ["ignore: unknown rule code 'XYZ'"]),
    ('[tool.gyrelint.rules]\nGYR999 = "error"\n', ["[tool.gyrelint.rules] GYR999: unknown rule id"]),
    ('[tool.gyrelint.rules]\nGYR003 = "loud"\n', ["[tool.gyrelint.rules] GYR003: expected one of error, warning, "
                                                  "info, off, got 'loud'"]),
    ('[tool.gyrelint]\nrules = "off"\n', ["[tool.gyrelint] rules: expected a table"]),
    ('[tool.gyrelint]\nsignals = "x"\n', ["[tool.gyrelint] signals: expected a list of tables, got 'x'"]),
    ('[tool.gyrelint]\nsignals = ["x"]\n', ["signals[0]: expected a table"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling", call = 5}]\n',
     ["signals[0].call: expected a dotted name glob", "got 5"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling", call = "x.y", weight = nan}]\n',
     ["signals[0].weight", "got nan"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling", call = "x.y", weight = inf}]\n',
     ["signals[0].weight", "got inf"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling", call = "x.y", weight = true}]\n',
     ["signals[0].weight", "got true"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sideways", call = "x.y"}]\n',
     ["signals[0].side: expected one of sampling", "got 'sideways'"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "handoff", call = "x.y"}]\n', ["signals[0].kind"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling"}]\n', ["signals[0]: needs call"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling", call = "x.y", cal = "z"}]\n',
     ["signals[0]: unknown key cal", "did you mean call?"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling", call = "x y"}]\n', ["signals[0].call", "'x y'"]),
    ('[tool.gyrelint]\nsignals = [{id = "a b", side = "sampling", call = "x"}]\n', ["signals[0].id"]),
    ('[tool.gyrelint]\nsignals = [{id = "a", side = "sampling", call = "x"}, {id = "a", side = "training", '
     'method = "step"}]\n', ["signals[1].id", "used by an earlier signal"]),
    ('[tool.gyrelint.topology]\nprocesses = ["actors"]\n', ["[tool.gyrelint.topology] processes: unknown key",
                                                           "did you mean process?"]),
    ("[tool.gyrelint.topology]\nport = 3\n", ["[tool.gyrelint.topology] port: expected a config-key token"]),
    ('[tool.gyrelint.counters]\nsampld = "x"\n', ["[tool.gyrelint.counters] sampld: unknown counter",
                                                  "did you mean sampled?"]),
    ("[tool.gyrelint.counters]\nsampled = 3\n", ["[tool.gyrelint.counters] sampled: expected a regex string"]),
    ("[tool.gyrelint.counters]\nsampled = '(a'\n", ["[tool.gyrelint.counters] sampled: invalid regex '(a'"]),
    ("[tool.gyrelint.counters]\nsampled = { pattern = 'x', mode = 'sum' }\n", ["sampled: mode: expected one of"]),
    ("[tool.gyrelint.counters]\nsampled = { regex = 'x' }\n", ["sampled: unknown key regex"]),
    (f"[tool.gyrelint.counters]\nsampled = '{'a' * 1001}'\n", ["sampled: longer than 1000 characters"]),
    ("[tool.gyrelint.thresholds]\ntimeout = nan\n", ["[tool.gyrelint.thresholds] timeout", "got nan"]),
    ("[tool.gyrelint.thresholds]\ntimeout = -5\n", ["[tool.gyrelint.thresholds] timeout", "got -5"]),
    ("[tool.gyrelint.thresholds]\nretries = 2.5\n", ["[tool.gyrelint.thresholds] retries: expected a positive integer"]),
    ("[tool.gyrelint.thresholds]\ntimout = 3\n", ["thresholds] timout: unknown key", "did you mean timeout?"]),
    ("[tool.gyrelint]\nexclude = [" + ", ".join(['"x"'] * 10_001) + "]\n", ["exclude: more than 10000 entries"]),
    (f'[tool.gyrelint]\nexclude = ["{"x" * 5000}"]\n', ["exclude: longer than 4096 characters"]),
    ("x = 1" + "0" * 5000 + "\n", ["invalid TOML"]),  # an integer too long for Python to convert
]


@pytest.mark.parametrize(("text", "parts"), REFUSALS, ids=[f"refusal{i}" for i in range(len(REFUSALS))])
def test_bad_settings_are_refused_with_one_line(tmp_path: Path, text: str, parts: list[str]) -> None:
    repo = make_repo(tmp_path, text)
    code, out, err = cli("check", str(repo), "--no-cache")
    assert code == 2 and out == ""
    assert_refused(err, f"{repo / 'pyproject.toml'}: ", *parts)


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    # tomllib recurses per level: past the recursion limit it is "nested too deeply"; under a limit
    # raised by an earlier run in this process the value parses and the key refuses it
    repo = make_repo(tmp_path, "[tool.gyrelint]\nexclude = " + "[" * 5000 + "]" * 5000 + "\n")
    code, _, err = cli("check", str(repo))
    assert code == 2
    assert_refused(err, "pyproject.toml: ")
    assert "invalid TOML (nested too deeply)" in err or "exclude: expected a path glob" in err


@pytest.mark.parametrize("command", ["analyze", "map", "topology", "entries", "graph", "report", "baseline"])
def test_every_analyzing_command_refuses_bad_settings(tmp_path: Path, command: str) -> None:
    repo = make_repo(tmp_path, "[tool.gyrelint]\nmax-file-size = true\n")
    extra = {"map": ["-o", str(tmp_path / "map.svg")], "report": ["-o", str(tmp_path / "report")],
             "baseline": ["-o", str(tmp_path / "baseline.json")]}.get(command, [])
    code, _, err = cli(command, str(repo), *extra)
    assert code == 2
    assert_refused(err, "pyproject.toml: [tool.gyrelint] max-file-size")


def test_text_from_the_file_is_escaped(tmp_path: Path) -> None:
    # an ANSI sequence and a right-to-left override, written with TOML escapes
    repo = make_repo(tmp_path, '[tool.gyrelint]\n"\\u001b[2Jwipe\\u202e" = 1\n')
    code, _, err = cli("check", str(repo))
    assert code == 2 and "\x1b" not in err and "\u202e" not in err
    assert_refused(err, r"'\x1b[2Jwipe\u202e': unknown key")
    (repo / "pyproject.toml").write_text('[tool.gyrelint.rules]\nGYR003 = "\\u001b]0;owned\\u0007"\n')
    code, _, err = cli("check", str(repo))
    assert code == 2 and "\x1b" not in err and "\x07" not in err
    assert_refused(err, r"got '\x1b]0;owned\x07'")


def test_a_fifo_pyproject_is_refused_without_hanging(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    repo = make_repo(tmp_path)
    os.mkfifo(repo / "pyproject.toml")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-m", "gyrelint", "check", str(repo), "--no-cache"], capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 2
    assert_refused(proc.stderr, "pyproject.toml: a FIFO, not a regular file")


def test_a_huge_or_escaping_pyproject_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "# padding\n" * 300_000)
    code, _, err = cli("check", str(repo))
    assert code == 2
    assert_refused(err, "pyproject.toml: larger than")
    secret = tmp_path / "secret.toml"
    secret.write_text("[tool.gyrelint]\nexclude = ['x']\n")
    (repo / "pyproject.toml").unlink()
    (repo / "pyproject.toml").symlink_to(secret)
    code, _, err = cli("check", str(repo))
    assert code == 2
    assert_refused(err, "pyproject.toml: a symlink that leaves the repository")


def test_logcheck_refuses_bad_counters_in_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "run.log"
    log.write_text("sampled=4 consumed=4 step=1\n")
    (tmp_path / "pyproject.toml").write_text("[tool.gyrelint.counters]\nsampled = '(a+)+('\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("logcheck", str(log))
    assert code == 2
    assert_refused(err, "pyproject.toml: [tool.gyrelint.counters] sampled: invalid regex")
    (tmp_path / "pyproject.toml").write_text("[tool.gyrelint.counters]\nsampled = 'made (\\d+)'\n")
    code, _, _ = cli("logcheck", str(log))
    assert code in (0, 1)


def test_logcheck_reads_counters_from_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "run.log"
    log.write_text("".join(f"produced {i} made 8 ate 8 finished step {i}\n" for i in range(1, 4)))
    monkeypatch.chdir(tmp_path)
    assert cli("logcheck", str(log))[0] == 2  # no counter the built-in profiles know
    cfg = tmp_path / "counters.toml"
    cfg.write_text("[counters]\nsampled = { pattern = 'made (\\d+)', mode = 'delta' }\n"
                   "consumed = { pattern = 'ate (\\d+)', mode = 'delta' }\nstep = 'finished step (\\d+)'\n")
    code, out, err = cli("logcheck", str(log), "--config", str(cfg), "--format", "json")
    assert code == 0, err
    counters = json.loads(out)["counters"]
    assert counters["sampled"]["total"] == 24 and counters["step"]["total"] == 3


def test_valid_settings_are_typed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, """
[tool.gyrelint]
exclude = "third_party/"
entry_points = ["scripts/launch.py"]
max-file-size = 1024
respect-gitignore = false
select = ["gyr00"]
signals = [{ id = "my-engine", side = "weight_sync", call = ["mylib.Engine.load_*"], weight = 2 },
           { side = "training", methods = "fit_step" }]
[tool.gyrelint.rules]
gyr006 = "Info"
GYR003 = "off"
[tool.gyrelint.topology]
process = "actors"
ignore = ["tp", "secret.*"]
[tool.gyrelint.counters]
steps = "iteration (\\\\d+)"
sampled = [{ pattern = "made (\\\\d+)", mode = "delta" }, "rollouts=(\\\\d+)"]
[tool.gyrelint.thresholds]
timeout = 900
retries = 10
""")
    s = read_settings(repo)
    assert s.exclude == ("third_party/",) and s.entry_points == ("scripts/launch.py",)
    assert s.max_file_size == 1024 and s.respect_gitignore is False and s.select == ("GYR00",)
    assert s.rules == (RuleSetting("GYR003", "off"), RuleSetting("GYR006", "info"))
    assert s.severity("GYR006") == "info" and s.severity("GYR008") is None
    assert s.topology == TopologySettings(process=("actors",), ignore=("tp", "secret.*"))
    assert s.counters == (CounterPattern("step", "iteration (\\d+)"), CounterPattern("sampled", "made (\\d+)", "delta"),
                          CounterPattern("sampled", "rollouts=(\\d+)"))
    assert s.signals == (SignalSpec("my-engine", "handoff", "weight_sync", calls=("mylib.Engine.load_*",), weight=2.0),
                         SignalSpec("user-2", "training", methods=("fit_step",)))
    assert s.thresholds == Thresholds(timeout=900.0, retries=10)
    assert hash(s) == hash(read_settings(repo))  # immutable all the way down


def test_tables_given_to_the_python_api_are_checked_and_typed() -> None:
    from gyrelint.settings import Settings

    s = Settings(rules={"gyr006": "off"}, topology={"process": ["actors"]}, thresholds={"timeout": 5},
                 signals=[{"side": "sampling", "call": "mylib.generate"}], counters={"steps": "it (\\d+)"})
    assert s.rules == (RuleSetting("GYR006", "off"),) and s.topology.process == ("actors",)
    assert s.thresholds == Thresholds(timeout=5.0) and s.signals[0].calls == ("mylib.generate",)
    assert s.counters == (CounterPattern("step", "it (\\d+)"),)
    with pytest.raises(SettingsError, match=r"^Settings: \[thresholds\] timeout: .* got nan"):
        Settings(thresholds={"timeout": float("nan")})
    with pytest.raises(SettingsError, match=r"retries: .* got a very large integer"):
        Settings(thresholds={"retries": 10**5000})


def test_every_key_is_documented() -> None:
    from gyrelint.settings.schema import _SIGNAL_KEYS

    doc = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text()
    for key in [*KEYS, *_SIGNAL_KEYS, "process", "port", "comm", "timeout", "retries", "mode"]:
        assert f"`{key}`" in doc, key


# -- cache-dir: the repo's stays inside the repo --------------------------------------------------

@pytest.mark.parametrize("where", ["../..", "ABSOLUTE", "link/cache", "."])
def test_a_repo_cache_dir_outside_the_repo_is_refused(tmp_path: Path, where: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    value = str(outside) if where == "ABSOLUTE" else where
    repo = make_repo(tmp_path, f"[tool.gyrelint]\ncache-dir = {value!r}\n")
    (repo / "link").symlink_to(outside, target_is_directory=True)
    with pytest.warns(SettingsWarning, match="cache-dir: .* is not a folder inside the repository"):
        s = read_settings(repo)
    assert s.cache_dir == tmp_path / "xdg-cache" / "gyrelint"
    code, _, err = cli("analyze", str(repo))
    assert code == 0
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gyrelint: warning: ") and "cache-dir" in lines[0]
    assert list(outside.iterdir()) == [] and not (repo / "cache").exists()
    assert (tmp_path / "xdg-cache" / "gyrelint").is_dir()  # the run used the default cache
    # the warning stands when an explicit choice wins anyway: the repo still tried to leave
    code, _, err = cli("analyze", str(repo), "--cache-dir", str(tmp_path / "cli-cache"))
    assert code == 0 and err.count("gyrelint: warning: ") == 1 and "cache-dir" in err
    assert list(outside.iterdir()) == []


def test_a_repo_cache_dir_inside_the_repo_is_used(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, '[tool.gyrelint]\ncache-dir = "build/../.gyrelint-cache"\n')
    s = read_settings(repo)
    assert s.cache_dir == repo.resolve() / ".gyrelint-cache"
    code, _, err = cli("analyze", str(repo))
    assert code == 0 and err == ""
    assert (repo / ".gyrelint-cache").is_dir()


# -- precedence: CLI > --config / repo > user config > environment > default ----------------------

def user_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "xdg-config" / "gyrelint" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_cache_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path, '[tool.gyrelint]\ncache-dir = ".repo-cache"\n')
    repo_cache = repo.resolve() / ".repo-cache"
    assert read_settings(repo).cache_dir == repo_cache  # repo > default
    user_config(tmp_path, 'cache-dir = "user-cache"\n')
    assert read_settings(repo).cache_dir == repo_cache  # repo > user config
    monkeypatch.setenv("GYRELINT_CACHE_DIR", str(tmp_path / "env-cache"))
    # the repo's cache-dir never overrides an explicit environment choice; the user's config does
    assert read_settings(repo).cache_dir == tmp_path / "xdg-config" / "gyrelint" / "user-cache"
    (tmp_path / "xdg-config" / "gyrelint" / "config.toml").unlink()
    assert read_settings(repo).cache_dir == tmp_path / "env-cache"
    monkeypatch.delenv("GYRELINT_CACHE_DIR")
    (repo / "pyproject.toml").unlink()
    assert read_settings(repo).cache_dir == tmp_path / "xdg-cache" / "gyrelint"  # the default
    # --config is the user's choice: trusted, may point anywhere, relative to its own folder
    cfg = tmp_path / "ci" / "gyrelint.toml"
    cfg.parent.mkdir()
    cfg.write_text('cache-dir = "../shared-cache"\n')
    monkeypatch.setenv("GYRELINT_CACHE_DIR", str(tmp_path / "env-cache"))
    assert read_settings(repo, config=cfg).cache_dir.resolve() == (tmp_path / "shared-cache").resolve()
    # the CLI flag over everything
    assert read_settings(repo, config=cfg, cache_dir=tmp_path / "cli").cache_dir == tmp_path / "cli"


def test_key_precedence_through_the_cli(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)  # GYR002 fires on it (a sampler, no trainer)
    cache = tmp_path / "cli-cache"

    def found(*args: str) -> dict[str, str]:
        code, out, err = cli("check", str(repo), "--format", "json", "--cache-dir", str(cache), *args)
        assert code in (0, 1), err
        return {f["rule"]: f["severity"] for f in json.loads(out)["findings"]}

    assert found() == {"GYR002": "error"}
    user_config(tmp_path, '[tool.gyrelint.rules]\nGYR002 = "info"\n')
    assert found() == {"GYR002": "info"}  # the user's config over the default
    (repo / "pyproject.toml").write_text('[tool.gyrelint.rules]\nGYR002 = "warning"\n')
    assert found() == {"GYR002": "warning"}  # the repo over the user's config
    cfg = tmp_path / "gyrelint.toml"
    cfg.write_text('[rules]\nGYR002 = "off"\n')
    assert found("--config", str(cfg)) == {}  # --config instead of the repo's pyproject
    cfg.write_text('[tool.gyrelint]\nselect = ["GYR002"]\n')
    assert found("--config", str(cfg)) == {"GYR002": "info"}  # keys it does not name come from the user's config
    assert found("--config", str(cfg), "--select", "GYR001") == {}  # the flag over every file
    assert list(cache.iterdir())  # --cache-dir was used
    (repo / "pyproject.toml").write_text("[tool.gyrelint]\nmax-file-size = true\n")
    assert found("--config", str(cfg)) == {"GYR002": "info"}  # the repo's pyproject is not even read
    cfg.write_text("[tool.gyrelint]\nselect = 3\n")
    code, _, err = cli("check", str(repo), "--config", str(cfg))
    assert code == 2
    assert_refused(err, f"{cfg}: [tool.gyrelint] select")
    code, _, err = cli("check", str(repo), "--config", str(tmp_path / "missing.toml"))
    assert code == 2
    assert_refused(err, "missing.toml: no such file; pass a TOML file to --config")


def test_a_bad_user_config_is_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    path = user_config(tmp_path, "jobs = 4\n")
    code, _, err = cli("check", str(repo))
    assert code == 2
    assert_refused(err, f"{path}: jobs: unknown key")


# -- fuzz: the reader loads or refuses, nothing else ----------------------------------------------

_scalars = st.one_of(st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(),
                     st.text(max_size=30), st.sampled_from(["GYR006", "info", "off", "sampling", "x.y", "(a"]))
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(st.text(max_size=10), inner, max_size=4)),
                       max_leaves=12)
_key_names = st.one_of(st.sampled_from(sorted(KEYS) + ["max_file_size", "entry_points", "side", "call"]),
                       st.text(max_size=12))
_tables = st.dictionaries(_key_names, _values, max_size=5)
_signal = st.fixed_dictionaries({}, optional={
    "id": st.one_of(st.text(max_size=8), _scalars), "side": st.one_of(st.sampled_from(
        ["sampling", "training", "handoff", "trajectory", "weight_sync", "neutral"]), _scalars),
    "kind": st.one_of(st.sampled_from(["trajectory", "weight_sync"]), _scalars),
    "call": st.one_of(st.text(max_size=12), st.lists(st.text(max_size=8), max_size=3), _scalars),
    "method": st.one_of(st.text(max_size=12), _scalars), "weight": _scalars})
_words = st.text(st.characters(codec="ascii"), min_size=1, max_size=10)
_plausible = {  # values near the valid ones, so that tables load often enough to test the typed result too
    "exclude": st.one_of(_words, st.lists(_words, max_size=4)),
    "entry-points": st.lists(_words, max_size=3),
    "respect-gitignore": st.booleans(),
    "max-file-size": st.integers(min_value=-2, max_value=2**27),
    "select": st.lists(st.sampled_from(["GYR", "GYR00", "GYR006", "GYR011", "GYR999", "gyr01"]), max_size=3),
    "ignore": st.lists(st.sampled_from(["GYR008", "GYR01", "x"]), max_size=2),
    "rules": st.dictionaries(st.sampled_from(["GYR001", "gyr006", "GYR999"]),
                             st.sampled_from(["error", "Info", "off", "loud"]), max_size=3),
    "topology": st.dictionaries(st.sampled_from(["process", "port", "comm", "ignore", "proc"]),
                                st.one_of(_words, st.lists(_words, max_size=3)), max_size=3),
    "counters": st.dictionaries(st.sampled_from(["sampled", "steps", "policy-version", "loss"]),
                                st.one_of(st.sampled_from(["x=(\\d+)", "(a", "a+"]), st.fixed_dictionaries(
                                    {"pattern": st.sampled_from(["n (\\d+)", "["])},
                                    optional={"mode": st.sampled_from(["delta", "total", "sum"])})), max_size=3),
    "thresholds": st.fixed_dictionaries({}, optional={"timeout": st.floats(), "retries": st.integers(-1, 10**7)}),
    "signals": st.lists(_signal, max_size=3),
}
_gyrelint_tables = st.one_of(_tables, st.fixed_dictionaries({}, optional={k: st.one_of(v, _values)
                                                                          for k, v in _plausible.items()}))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_gyrelint_tables)
def test_fuzz_any_gyrelint_table_loads_or_is_refused(table: dict) -> None:
    try:
        fields = check_table(table, Where("pyproject.toml"))
    except SettingsError as exc:
        msg = str(exc)
        assert msg.startswith("pyproject.toml: ") and "\n" not in msg and msg.isprintable()
        event("refused")
        return
    event(f"loaded {len(fields)} keys")
    fields.pop("cache_dir", None)
    from gyrelint.settings import Settings

    s = Settings(**fields)
    for sig in s.signals:
        assert math.isfinite(sig.weight) and sig.side in ("sampling", "training", "handoff", "neutral")
    assert 0 < s.max_file_size and isinstance(s.exclude, tuple)


_toml_bits = st.sampled_from(["[tool.gyrelint]\n", "[tool]\n", "[tool.gyrelint.rules]\n", "[tool.gyrelint.counters]\n",
                              "select = ", "GYR006 = ", "sampled = ", "gyrelint = ", "tool = ", "signals = ",
                              '"info"', "'(a'", "[", "]", "{", "}", "1", "nan", "true", ", ", "\n", "=", '"', "\\u001b",
                              "[[tool.gyrelint.signals]]\n", "\x00", "\x1b"])
_documents = st.one_of(st.text(max_size=200), st.lists(_toml_bits, max_size=30).map("".join))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents)
def test_fuzz_any_pyproject_text_loads_or_is_refused(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            read_settings(root, label="pyproject.toml", user_config=False)
        except SettingsError as exc:
            msg = str(exc)
            assert msg.startswith("pyproject.toml: ") and "\n" not in msg and msg.isprintable()
            event("refused")
        else:
            event("loaded")
