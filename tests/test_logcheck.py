"""logcheck on hand-written logs in each supported style, bad inputs, patterns, pyproject counters."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gyrelint.cli import main
from gyrelint.logcheck import LogInputError, PatternError, build_rules, check_logs, read_log
from gyrelint.logcheck.reader import parse_line

FIX = Path(__file__).parent / "fixtures"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["logcheck", *args])
    return result.exit_code, result.stdout, result.stderr


def verdict_of(*paths: Path, **kw):
    return check_logs([str(p) for p in paths], build_rules(**kw))


def statuses(verdict) -> dict[str, str]:
    return {c.id: c.status for c in verdict.checks}


# --- line parsing ---------------------------------------------------------------------------------

def test_parse_line_styles():
    verl = parse_line("step:3 - actor/pg_loss:-0.01 - training/global_step:3 - timing_s/step:12.5", "f", 1)
    assert verl.values["step"] == 3 and verl.values["actor/pg_loss"] == -0.01
    assert verl.values["timing_s/step"] == 12.5
    d = parse_line("INFO x.py:5] Global step 7: {'policy_loss': 0.5, 'kl': nan, 'x': 'text'}", "f", 2)
    assert d.values["global_step"] == 7 and d.values["policy_loss"] == 0.5 and "x" not in d.values
    j = parse_line('{"step": 2, "counters": {"sampled": 8}, "ok": true}', "f", 3)
    assert j.values == {"step": 2.0, "counters/sampled": 8.0}
    kv = parse_line("epoch: 1 loss = 0.25 lr=1e-06", "f", 4)
    assert kv.values == {"epoch": 1.0, "loss": 0.25, "lr": 1e-06}
    p = parse_line("gyrelint-probe sampled=+4 total=12 pid=77 t=1.5", "f", 5)
    assert p.probe == ("sampled", True, 4.0) and p.stream == "f#pid77"
    v = parse_line("gyrelint-probe policy_version=3 pid=77 t=1.5", "f", 6)
    assert v.probe == ("policy_version", False, 3.0)
    assert parse_line("   ", "f", 7) is None
    wrapped = parse_line("step:2 - actor/pg_loss:np.float64(-0.5) - count/x:tensor(7, device='cuda:0')", "f", 8)
    assert wrapped.values["actor/pg_loss"] == -0.5 and wrapped.values["count/x"] == 7


# --- hand-written samples per style --------------------------------------------------------------

def test_verl_style_healthy_and_frozen_version():
    # sampled, steps and versions but no consumed counter: every check it can make passes, yet the
    # handoff is unverified, so it is inconclusive (it was "healthy ... not checked: handoff, ratio").
    ok = verdict_of(FIX / "logs_verl" / "healthy.log")
    assert ok.status == "inconclusive" and ok.missing == ["consumed"] and ok.exit_code == 0
    assert "'consumed'" in ok.headline and "probe.consumed(n)" in ok.headline
    assert statuses(ok)["online"] == "ok" and statuses(ok)["steps"] == "ok"
    assert statuses(ok)["handoff"] == "unknown" and statuses(ok)["ratio"] == "unknown"
    assert ok.counters["sampled"]["total"] == 6 * 256
    frozen = verdict_of(FIX / "logs_verl" / "frozen_version.log")
    assert frozen.status == "problem" and frozen.checks[3].id == "online"
    assert statuses(frozen)["online"] == "problem"
    assert all(e.file.endswith("frozen_version.log") and e.line > 0 for e in frozen.checks[3].evidence)


def test_verl_style_stuck_steps_is_a_link_problem():
    v = verdict_of(FIX / "logs_verl" / "stuck_steps.log")
    assert statuses(v)["steps"] == "problem"
    assert "link problem" in v.checks[2].hint


def test_openrlhf_style_global_step_dict_lines():
    v = verdict_of(FIX / "logs_openrlhf" / "train.log")  # steps only: inconclusive (was "healthy")
    assert v.status == "inconclusive" and v.counters["step"]["total"] == 4
    assert v.missing == ["sampled", "consumed"] and statuses(v)["steps"] == "ok"
    stuck = verdict_of(FIX / "logs_openrlhf" / "stuck.log", profile="openrlhf-like")
    assert stuck.status == "problem" and statuses(stuck)["steps"] == "problem"


def test_trl_style_dict_lines_and_async_jsonl():
    # its only progress field is a fractional epoch (0.02 ... 0.1): not a step counter (it read as "0.1 steps")
    v = verdict_of(FIX / "logs_trl" / "train.log", profile="trl-like")
    assert statuses(v)["steps"] == "unknown" and v.status == "inconclusive"
    assert not v.counters["step"]["present"] and "'epoch' is fractional" in v.checks[2].message
    a = verdict_of(FIX / "logs_trl" / "async.jsonl", profile="trl-like")
    assert a.counters["consumed"]["total"] == 5 * 64
    assert statuses(a)["online"] == "ok"


def test_jsonl_nested_counters_broken_handoff_and_filtering():
    broken = verdict_of(FIX / "logs_jsonl" / "broken_handoff.jsonl")
    assert broken.status == "problem"
    first = broken.checks[0]
    assert first.id == "handoff" and first.status == "problem"
    assert "carrier" in first.hint and first.hint.index("carrier") < first.hint.index("fields") < first.hint.index("filters")
    assert any(e.line == 6 for e in first.evidence)  # the last line with the sampled total
    filt = verdict_of(FIX / "logs_jsonl" / "heavy_filtering.jsonl")
    assert statuses(filt)["handoff"] == "ok" and statuses(filt)["ratio"] == "problem"
    lenient = check_logs([str(FIX / "logs_jsonl" / "heavy_filtering.jsonl")], build_rules(), threshold=0.9)
    assert lenient.status == "healthy"


def test_tensorboard_csv_exports():
    tags = sorted((FIX / "logs_csv").glob("run-*.csv"))
    v = verdict_of(*tags)
    assert v.status == "healthy"
    assert v.counters["sampled"]["total"] == 640 and v.counters["consumed"]["total"] == 620
    assert statuses(v)["online"] == "ok"
    long = verdict_of(FIX / "logs_csv" / "scalars_long.csv")
    assert statuses(long)["online"] == "problem"  # policy_version column stays 0
    wide = verdict_of(FIX / "logs_csv" / "scalars_wide.csv")
    assert wide.counters["consumed"]["total"] == 128 and wide.status == "healthy"


def test_plain_sentences_and_user_patterns(tmp_path, monkeypatch):
    s = verdict_of(FIX / "logs_text" / "sentences.log")
    assert s.counters["sampled"]["total"] == 80 and s.counters["consumed"]["total"] == 80
    custom = FIX / "logs_text" / "custom.log"
    code, _, err = run(str(custom))
    assert code == 2 and "no run counter" in err
    pats = ["sampled+=produced batch #\\d+ size (\\d+)", "consumed+=ate batch #\\d+ size (\\d+)",
            "step=iteration (\\d+) finished", "version=weights rev (\\d+)"]
    args = [x for p in pats for x in ("--pattern", p)]
    code, out, _ = run(str(custom), *args, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "healthy" and data["counters"]["sampled"]["total"] == 160
    # the same patterns from [tool.gyrelint.counters] of the current directory
    (tmp_path / "pyproject.toml").write_text(
        "[tool.gyrelint.counters]\n"
        "sampled = { pattern = 'produced batch #\\d+ size (\\d+)', mode = 'delta' }\n"
        "consumed = { pattern = 'ate batch #\\d+ size (\\d+)', mode = 'delta' }\n"
        "step = 'iteration (\\d+) finished'\n"
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(str(custom), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["counters"]["consumed"]["total"] == 160 and data["counters"]["step"]["total"] == 5


def test_bad_patterns_are_input_errors(tmp_path, monkeypatch):
    log = FIX / "logs_text" / "custom.log"
    assert run(str(log), "--pattern", "bogus=(\\d+)")[0] == 2
    code, _, err = run(str(log), "--pattern", "sampled=(")
    assert code == 2 and "invalid regex" in err
    with pytest.raises(PatternError):
        build_rules(patterns=["sampled"])
    (tmp_path / "pyproject.toml").write_text("[tool.gyrelint.counters]\nsampled = 3\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(str(log))
    assert code == 2 and "pyproject.toml" in err


def test_event_pattern_without_group_counts_lines():
    v = check_logs([str(FIX / "logs_text" / "custom.log")],
                   build_rules(patterns=["sampled=produced batch", "consumed=ate batch"]))
    assert v.counters["sampled"]["total"] == 5 and v.counters["consumed"]["total"] == 5


def test_profile_restricts_key_names():
    log = FIX / "logs_verl" / "healthy.log"
    code, _, err = run(str(log), "--profile", "probe")
    assert code == 2 and "no run counter" in err
    assert run(str(log), "--profile", "verl-like")[0] == 0


def test_probe_lines_win_over_profile_keys(tmp_path):
    log = tmp_path / "mixed.log"
    log.write_text("consumed_total=999 step=1\n"
                   "gyrelint-probe sampled=+8 total=8 pid=1 t=1\n"
                   "gyrelint-probe consumed=+8 total=8 pid=2 t=2\n")
    v = verdict_of(log)
    assert v.counters["consumed"]["total"] == 8 and v.counters["consumed"]["source"].startswith("probe")


def test_probe_sums_processes_in_one_file(tmp_path):
    log = tmp_path / "p.log"
    lines = [f"gyrelint-probe sampled=+{n} total=0 pid={pid} t=1" for pid in (10, 11, 12) for n in (2, 3)]
    lines += ["gyrelint-probe consumed=+15 total=15 pid=20 t=2"]
    log.write_text("\n".join(lines) + "\n")
    v = verdict_of(log)
    assert v.counters["sampled"]["total"] == 15 and statuses(v)["ratio"] == "ok"


# --- CLI output and exit codes --------------------------------------------------------------------

def test_cli_exit_codes_and_text():
    code, out, _ = run(str(FIX / "logs_jsonl" / "broken_handoff.jsonl"))
    assert code == 1
    assert "handoff broken" in out.splitlines()[0]
    assert "broken_handoff.jsonl:6" in out
    code, out, _ = run(str(FIX / "logs_areal" / "train.log"))
    assert code == 0 and out.startswith("logcheck: HEALTHY")
    code, out, _ = run(str(FIX / "logs_verl" / "healthy.log"))  # no consumed counter (was HEALTHY)
    assert code == 0 and out.startswith("logcheck: INCONCLUSIVE") and "probe.consumed(n)" in out.splitlines()[0]


def test_cli_json_contract():
    code, out, _ = run(str(FIX / "logs_jsonl" / "heavy_filtering.jsonl"), "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["exit_code"] == 1
    assert data["schema"] == "gyrelint-logcheck/1" and data["status"] == "problem"
    assert [c["id"] for c in data["checks"]] == ["handoff", "ratio", "steps", "online"]
    ratio = data["checks"][1]
    assert ratio["status"] == "problem" and ratio["evidence"][0]["line"] >= 1


# --- unreadable input -----------------------------------------------------------------------------

@pytest.mark.parametrize("name,content,needle", [
    ("empty.log", b"", "empty"),
    ("blank.log", b"\n\n  \n", "empty"),
    ("events.out.tfevents.123.host", b"\x18\x00\x00\x00\x00\x00\x00\x00\xa3\x7f\x4b\x22" * 20, "binary"),
    ("trunc.jsonl", b'{"step": 1, "sampled": 8}\n{"step": 2, "sam', "truncated at line 2"),
    ("trunc_blank.jsonl", b'{"step": 1}\n{"step": 2, "sam\n\n  \n', "truncated at line 2"),
    ("trunc_probe.log", b"gyrelint-probe sampled=+8 total=8 pid=1 t=1\ngyrelint-probe sampled=+8 tot", "truncated"),
    ("trunc.csv", b"Wall time,Step,Value\n1.0,1,8\n2.0,2", "truncated"),
    ("nostep.csv", b"a,b\n1,2\n", "step"),
])
def test_unreadable_logs_give_one_line_errors(tmp_path, name, content, needle):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(LogInputError) as exc:
        read_log(path)
    assert name in str(exc.value) and needle in str(exc.value)
    code, out, err = run(str(path))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and name in err


def test_missing_directory_and_gzip(tmp_path):
    code, _, err = run(str(tmp_path / "nope.log"))
    assert code == 2 and "nope.log" in err and "no such file" in err
    assert run(str(tmp_path))[0] == 2
    good = tmp_path / "run.log.gz"
    good.write_bytes(gzip.compress((FIX / "logs_verl" / "healthy.log").read_bytes()))
    assert run(str(good))[0] == 0
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(good.read_bytes()[:-20])
    code, _, err = run(str(cut))
    assert code == 2 and "cut.log.gz" in err and "gzip" in err


def test_one_bad_file_among_good_ones_is_named(tmp_path):
    bad = tmp_path / "bad.log"
    bad.write_bytes(b"\x00\x01\x02" * 100)
    code, _, err = run(str(FIX / "logs_verl" / "healthy.log"), str(bad))
    assert code == 2 and "bad.log" in err and "healthy.log" not in err


def test_one_sampler_never_receiving_weights_is_flagged(tmp_path):
    lines = ["gyrelint-probe policy_version=0 pid=1 t=1", "gyrelint-probe policy_version=0 pid=2 t=1"]
    for i in range(1, 5):
        lines += [f"gyrelint-probe sampled=+8 total={8 * i} pid=1 t=2", f"gyrelint-probe sampled=+8 total={8 * i} pid=2 t=2",
                  f"gyrelint-probe consumed=+16 total={16 * i} pid=3 t=2", f"gyrelint-probe step=+1 total={i} pid=3 t=3",
                  f"gyrelint-probe policy_version={i} pid=1 t=4", "gyrelint-probe policy_version=0 pid=2 t=4"]
    log = tmp_path / "two_samplers.log"
    log.write_text("\n".join(lines) + "\n")
    v = verdict_of(log)
    online = v.checks[3]
    assert online.status == "problem" and "1 of 2" in online.message
    assert all("pid=2" in e.text for e in online.evidence)
    log.write_text("\n".join(x.replace("policy_version=0 pid=2 t=4", "policy_version=3 pid=2 t=4") for x in lines) + "\n")
    assert verdict_of(log).status == "healthy"


def test_version_reported_only_before_updates_is_too_early(tmp_path):
    log = tmp_path / "early.log"
    log.write_text("gyrelint-probe policy_version=0 pid=1 t=1\ngyrelint-probe policy_version=0 pid=1 t=1\n"
                   + "".join(f"gyrelint-probe step=+1 total={i} pid=2 t=2\n" for i in range(1, 5)))
    assert statuses(verdict_of(log))["online"] == "unknown"


def test_probe_times_order_reports_across_files(tmp_path):
    sampler, trainer = tmp_path / "sampler.log", tmp_path / "trainer.log"
    trainer.write_text("".join(f"gyrelint-probe consumed=+8 total={8 * i} pid=2 t={100 + i}.0\n"
                               f"gyrelint-probe step=+1 total={i} pid=2 t={100 + i}.5\n" for i in range(1, 5)))
    # versions reported only before the updates (t < 101.5): too early to tell
    sampler.write_text("".join(f"gyrelint-probe sampled=+8 total={8 * i} pid=1 t={99 + i * 0.1:.1f}\n"
                               f"gyrelint-probe policy_version=0 pid=1 t={99 + i * 0.1:.1f}\n" for i in range(1, 5)))
    assert statuses(verdict_of(sampler, trainer))["online"] == "unknown"
    # the same frozen version reported after the updates: not online
    with sampler.open("a") as f:
        f.write("gyrelint-probe policy_version=0 pid=1 t=110.0\n")
    assert statuses(verdict_of(sampler, trainer))["online"] == "problem"


def test_ansi_colours_and_ray_prefixes():
    rec = parse_line("\x1b[36m(TaskRunner pid=99)\x1b[0m step:4 - training/global_step:4 - "
                     "fully_async/count/current_param_version:2", "f", 1)
    assert rec.values["step"] == 4 and rec.values["fully_async/count/current_param_version"] == 2
    assert "\x1b" not in rec.text


def test_standard_input():
    text = (FIX / "logs_jsonl" / "broken_handoff.jsonl").read_text()
    result = CliRunner().invoke(main, ["logcheck", "-"], input=text)
    assert result.exit_code == 1 and "-:6" in result.stdout
    assert CliRunner().invoke(main, ["logcheck", "-"], input="").exit_code == 2


def test_areal_style_executor_lines_and_stats_tables():
    v = verdict_of(FIX / "logs_areal" / "train.log")
    assert v.counters["sampled"]["total"] == 48  # the last "accepted: N"
    assert v.counters["consumed"]["total"] == 3 * 16  # n_seqs per step, summed
    assert v.counters["step"]["total"] == 3 and v.status == "healthy"
    assert statuses(v)["ratio"] == "ok"


def test_open_brace_in_a_complete_text_line_is_not_truncation(tmp_path):
    log = tmp_path / "cfg.log"
    log.write_text("step=1\nstep=2\nINFO final config = {\n")
    assert verdict_of(log).counters["step"]["total"] == 2
    log.write_text('{"step": 1}\n{"step": 2, "note": "a { b"}\n')
    assert verdict_of(log).counters["step"]["total"] == 2


def test_a_single_step_report_is_not_a_stuck_step(tmp_path):
    log = tmp_path / "one.log"
    log.write_text("step=0 loss=1.0\n")
    assert statuses(verdict_of(log))["steps"] == "unknown"
    log.write_text("step=0 loss=1.0\nstep=0 loss=0.9\n")
    assert statuses(verdict_of(log))["steps"] == "problem"
