"""logcheck on hostile input: ReDoS patterns, gzip bombs, endless lines, FIFOs, escape sequences.

Every test here asserts what the user sees (exit code, the one-line diagnostic, escaped output),
never how long something took: bounds show up as the diagnostic that says a cap was hit.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gyrelint.cli import main
from gyrelint.logcheck import Limits, LogInputError, PatternTimeout, build_rules, check_logs
from gyrelint.logcheck.escape import markdown_code, markdown_text, terminal
from gyrelint.logcheck.follow import follow
from gyrelint.logcheck.reader import parse_line
from gyrelint.logcheck.source import LineSplitter, ReadStats

HEALTHY = "".join(f"gyrelint-probe sampled=+8 total={8 * i} pid=1 t={i}\n"
                  f"gyrelint-probe consumed=+8 total={8 * i} pid=2 t={i}.5\n"
                  f"gyrelint-probe step=+1 total={i} pid=2 t={i}.6\n" for i in range(1, 5))


def run(*args: str, input: str | bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["logcheck", *args], input=input)
    return result.exit_code, result.stdout, result.stderr


# --- user patterns are time-bounded ---------------------------------------------------------------

def test_redos_counter_pattern_from_pyproject_ends_with_exit_2(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.gyrelint.counters]\nsampled = '^(a+)+$'\n")
    log = tmp_path / "run.log"
    log.write_text("step=1\n" + "a" * 50_000 + "!\nstep=2\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run("run.log")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "pyproject.toml" in err and "[tool.gyrelint.counters] sampled" in err and "'^(a+)+$'" in err
    assert "time budget" in err and "run.log line" in err and "Traceback" not in err


def test_redos_cli_pattern_and_until_are_time_bounded(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(HEALTHY + "x" * 30_000 + "\n")
    code, _, err = run(str(log), "--pattern", "step=(x*)*y")
    assert code == 2 and "--pattern step" in err and "time budget" in err
    with pytest.raises(PatternTimeout, match="--until"):
        follow([str(log)], build_rules(), 0.5, lambda *_: None, until=re.compile("(x*)*y"), max_seconds=30,
               sleep=lambda s: None)


def test_ordinary_user_patterns_still_count_in_the_child(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("".join(f"pushed {8} rollouts\nlearner took 8 rollouts\niteration {i} done\n"
                           for i in range(1, 6)))
    v = check_logs([log], build_rules(patterns=["sampled+=pushed (\\d+) rollouts", "consumed+=took (\\d+)",
                                               "step=iteration (?P<n>\\d+) done", "step=never (\\d+)"]))
    assert v.status == "healthy"
    assert v.counters["sampled"]["total"] == 40 and v.counters["consumed"]["total"] == 40
    assert v.counters["step"]["total"] == 5 and v.counters["step"]["source"].startswith("pattern")


# --- reading in bounded memory --------------------------------------------------------------------

def _bomb(path: Path, payload: bytes, repeat: int) -> None:
    """A gzip file inflating to ``payload * repeat``, written as a stream (small on disk and in memory)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    with path.open("wb") as f:
        for _ in range(repeat):
            f.write(z.compress(payload))
        f.write(z.flush())


def test_gzip_bomb_of_one_endless_line_stops_at_the_line_cap(tmp_path):
    bomb = tmp_path / "bomb.log.gz"
    _bomb(bomb, b"a" * (1 << 20), 40)  # 40 MiB without a newline, ~40 KiB on disk
    assert bomb.stat().st_size < 1 << 20
    code, out, err = run(str(bomb))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "bomb.log.gz: line 1 is longer than 16 MiB" in err


def test_gzip_bomb_of_many_lines_stops_at_the_inflate_cap(tmp_path):
    bomb = tmp_path / "lines.log.gz"
    _bomb(bomb, b"step=1 loss=0.5\n" * 4096, 64)  # 4 MiB of lines, a ratio of several hundred
    limits = Limits(inflate_floor=1 << 20, inflate_ratio=50)
    with pytest.raises(LogInputError, match=r"lines\.log\.gz: decompresses to more than .*gzip bomb"):
        check_logs([bomb], build_rules(), limits=limits)
    assert check_logs([bomb], build_rules()).counters["step"]["present"]  # the default caps let it through


def test_over_long_line_is_cut_counted_and_noted_once(tmp_path):
    log = tmp_path / "long.log"
    long_line = "step=99 " + "x" * 200_000 + " step=100"
    log.write_text(HEALTHY + long_line + "\n" + long_line + "\ngyrelint-probe step=+1 total=5 pid=2 t=9\n")
    v = check_logs([log], build_rules())
    assert v.counters["step"]["total"] == 5  # the lines after the long ones are read
    assert len(v.notes) == 1 and "2 line(s) longer than 64 KiB" in v.notes[0] and "line 13" in v.notes[0]
    code, out, _ = run(str(log))
    assert code == 0 and out.count("longer than 64 KiB") == 1
    data = json.loads(run(str(log), "--format", "json")[1])
    assert data["notes"] == v.notes


@given(data=st.binary(max_size=300), cuts=st.lists(st.integers(0, 300), max_size=6))
@settings(max_examples=200, deadline=None)
def test_line_splitter_is_chunking_independent(data: bytes, cuts: list[int]):
    """Lines come out the same whatever the chunk boundaries, each cut to the cap."""
    cap = 16
    pieces, last = [], 0
    for c in sorted(cuts):
        pieces.append(data[last:c])
        last = max(last, c)
    pieces.append(data[last:])
    splitter = LineSplitter(ReadStats("f"), Limits(line_bytes=cap, line_skip_bytes=1 << 20))
    got = [line for p in pieces for line in splitter.feed(p)]
    tail = splitter.finish()
    expected = data.split(b"\n")
    rest = expected.pop()
    assert got == [x[:cap].decode("utf-8", errors="replace") for x in expected]
    assert tail == (rest[:cap].decode("utf-8", errors="replace") if rest else None)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_log_is_refused_unless_explicit(tmp_path):
    fifo = tmp_path / "run.log"
    os.mkfifo(fifo)
    code, out, err = run(str(fifo))  # no writer: a blocking open would hang here
    assert code == 2 and out == "" and "run.log: a FIFO, not a regular file" in err and "--follow" in err
    # standard input is explicit: a pipe there is read
    code, out, _ = run("-", input=HEALTHY)
    assert code == 0 and "HEALTHY" in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_follow_reads_a_fifo_it_was_given(tmp_path):
    fifo = tmp_path / "live.log"
    os.mkfifo(fifo)
    chunks = [HEALTHY[: len(HEALTHY) // 2], HEALTHY[len(HEALTHY) // 2:] + "run finished\n"]
    writer: list[int] = []

    def sleep(_: float) -> None:  # the reader opened the FIFO on the first poll: now a writer can
        if not writer:
            writer.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        if chunks:
            os.write(writer[0], chunks.pop(0).encode())

    try:
        v = follow([str(fifo)], build_rules(), 0.5, lambda *_: None, until=re.compile("run finished"),
                   max_seconds=60, sleep=sleep)
    finally:
        for fd in writer:
            os.close(fd)
    assert v.status == "healthy" and v.counters["consumed"]["total"] == 32


def test_device_is_never_read(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    code, _, err = run("/dev/zero")
    assert code == 2 and "a device, not a regular file" in err


# --- honest verdicts ------------------------------------------------------------------------------

def test_fractional_epoch_only_log_is_inconclusive_not_steps(tmp_path):
    log = tmp_path / "trainer.log"
    log.write_text("".join(f"{{'loss': {0.5 - i / 100}, 'grad_norm': 0.3, 'learning_rate': 1e-06, "
                           f"'epoch': {i / 10}}}\n" for i in range(1, 8)))
    v = check_logs([log], build_rules())
    assert v.status == "inconclusive" and not v.counters["step"]["present"]
    assert "'epoch'" in v.checks[2].message and "fractional" in v.checks[2].message
    code, out, _ = run(str(log))
    assert code == 0 and out.startswith("logcheck: INCONCLUSIVE")
    assert "0.7 steps" not in out and "step=n/a" in out and "probe.step()" in out.splitlines()[0]


def test_learning_rate_or_decreasing_value_is_never_a_step(tmp_path):
    log = tmp_path / "lr.jsonl"
    log.write_text("".join(json.dumps({"step": s, "lr": 1e-6}) + "\n" for s in (3, 2, 1)))
    v = check_logs([log], build_rules())
    assert not v.counters["step"]["present"] and "going down" in v.checks[2].message


def test_sampled_and_steps_without_consumed_is_inconclusive(tmp_path):
    # (with probe lines, sampled lines without any consumed line are a broken handoff instead)
    log = tmp_path / "run.jsonl"
    log.write_text("".join(json.dumps({"step": i, "count": {"total_generated_samples": 64 * i}}) + "\n"
                           for i in range(1, 6)))
    v = check_logs([log], build_rules())
    assert v.status == "inconclusive" and v.missing == ["consumed"] and v.exit_code == 0
    assert "probe.consumed(n)" in v.headline and "Verify a run" in v.headline
    assert {c.id: c.status for c in v.checks}["steps"] == "ok"


# --- output escaping ------------------------------------------------------------------------------

HOSTILE = ("::error file=x.py,line=1::pwned step=1\n"
           "   ::add-mask::secret step=2\n"
           "\x1b]0;owned title\x07\x1b[2J step=3 \u202egnp.exe\n"
           "\x1b[31m::warning::red\x1b[0m step=4\r::notice::after-cr step=5\n")


def _assert_safe(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text and "\r" not in text
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_log_bytes_are_escaped_in_every_format(tmp_path, fmt):
    log = tmp_path / "evil.log"
    log.write_text(HOSTILE + "".join(f"step={i} gyrelint-probe sampled=+1 total={i} pid=1 t={i}\n"
                                     for i in range(6, 9)))
    code, out, err = run(str(log), "--format", fmt, "--pattern", "step=step=(\\d+)")
    assert code in (0, 1), err
    _assert_safe(out)
    _assert_safe(err)
    if fmt == "json":
        data = json.loads(out)
        texts = [e["text"] for c in data["checks"] for e in c["evidence"]]
        assert texts and all("\x1b" not in t and "\u202e" not in t for t in texts)
    assert "::error file=x.py" in out  # shown, after its file:line prefix


def test_escape_helpers():
    assert terminal("ok\n::error::x\n   ::add-mask::y") == "ok\n\\x3a:error::x\n   \\x3a:add-mask::y"
    assert terminal("a\x1b[2Jb\rc\u202ed\x85e") == "a\\x1b[2Jb\\x0dc\\u202ed\\x85e"
    assert markdown_text("<img src=x> | `x` *y*") == "\\<img src=x\\> \\| \\`x\\` \\*y\\*"
    block = markdown_code(["a ``` b", "::error::z"])
    fence = block.splitlines()[0][:-4]
    assert fence == "````" and block.endswith("\n" + fence)


def test_file_names_and_errors_are_escaped(tmp_path):
    name = tmp_path / "bad\n::error::x\x1b[2J.log"
    code, out, err = run(str(name))
    assert code == 2 and len(err.strip().splitlines()) == 1
    _assert_safe(err)
    assert "\\x0a" in err or "\\x1b" in err


def test_follow_lines_are_escaped(tmp_path):
    log = tmp_path / "evil.log"
    log.write_text(HOSTILE + HEALTHY)
    code, out, _ = run(str(log), "--follow", "--max-seconds", "0.3")
    assert code == 0
    _assert_safe(out)


# --- fuzzing the reader ---------------------------------------------------------------------------

@given(data=st.binary(max_size=2000), gz=st.booleans(), name=st.sampled_from(["run.log", "run.csv"]))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fuzz_log_reader_never_raises(tmp_path, data: bytes, gz: bool, name: str):
    path = tmp_path / (name + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(data) if gz else data)
    try:
        v = check_logs([path], build_rules())
    except LogInputError as exc:
        assert path.name in str(exc) and "\n" not in str(exc)
    else:
        assert v.status in ("healthy", "problem", "inconclusive", "no-counters")


def test_invented_keys_and_pids_cannot_grow_memory(tmp_path, monkeypatch):
    monkeypatch.setattr("gyrelint.logcheck.counters.MAX_SERIES", 8)
    log = tmp_path / "keys.jsonl"
    log.write_text("".join(json.dumps({f"ns{i}{'x' * 1000}/num_sampled": 8, "step": i}) + "\n" for i in range(1, 21)))
    v = check_logs([log], build_rules())
    assert any("12 report(s) of new keys or processes past 8 per counter were not counted" in n for n in v.notes)
    assert len(v.counters["sampled"]["source"]) < 1000  # keys in a series are cut (counters.MAX_NAME)


def test_crafted_probe_fields_are_not_probe_lines():
    crafted = parse_line("gyrelint-probe sampled=+1 pid=1 t=1.2.3", "f", 1)  # raised ValueError before
    assert crafted.probe == ("sampled", True, 1.0) and crafted.t is None
    assert parse_line("gyrelint-probe sampled=+1 pid=" + "9" * 60_000 + " t=1", "f", 1).probe is None
    ok = parse_line("gyrelint-probe sampled=+4 total=12 pid=77 t=1733140000.123456", "f", 1)
    assert ok.probe == ("sampled", True, 4.0) and ok.t == 1733140000.123456


@given(text=st.text(max_size=400))
@settings(max_examples=300, deadline=None)
def test_fuzz_parse_line_never_raises(text: str):
    rec = parse_line(text, "f", 1)
    assert rec is None or isinstance(rec.values, dict)
