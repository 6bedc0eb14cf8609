"""``logcheck --follow``: a log that grows while it is read, verdict printed as it changes."""

from __future__ import annotations

import json
import threading
import time

import pytest
from click.testing import CliRunner

from gyrelint.cli import main
from gyrelint.logcheck import LogInputError, build_rules
from gyrelint.logcheck.follow import follow

CHUNKS = [
    "gyrelint-probe policy_version=0 pid=1 t=1\ngyrelint-probe sampled=+8 total=8 pid=1 t=1\n",
    "gyrelint-probe sampled=+8 total=16 pid=1 t=2\ngyrelint-probe consu",  # a line still being written
    "med=+8 total=8 pid=2 t=2\ngyrelint-probe step=+1 total=1 pid=2 t=3\n",
    "gyrelint-probe step=+1 total=2 pid=2 t=3\ngyrelint-probe policy_version=2 pid=1 t=4\n",
    "run finished\n",
]


class Script:
    """A fake sleep that appends the next chunk to the log: deterministic growth, no threads."""

    def __init__(self, path, chunks):
        self.path, self.chunks, self.t = path, list(chunks), 0.0

    def sleep(self, seconds):
        self.t += seconds
        if self.chunks:
            with self.path.open("a") as f:
                f.write(self.chunks.pop(0))

    def clock(self):
        return self.t


def test_follow_reports_each_change_and_stops_on_marker(tmp_path):
    import re

    log = tmp_path / "live.log"
    script = Script(log, CHUNKS)  # the file does not exist yet: follow waits for it
    seen = []
    verdict = follow([str(log)], build_rules(), 0.5, lambda v, t: seen.append(v), until=re.compile("run finished"),
                     max_seconds=60, clock=script.clock, sleep=script.sleep)
    statuses = [v.status for v in seen]
    assert statuses[0] == "problem" and "handoff broken" in seen[0].headline  # sampled, nothing consumed yet
    assert statuses[-1] == "healthy" and verdict.status == "healthy"
    assert verdict.counters["consumed"]["total"] == 8  # the split line was read once, whole
    assert len({v.key for v in seen}) == len(seen)  # printed only when the verdict changed


def test_follow_stops_after_max_seconds_and_rejects_binary(tmp_path):
    log = tmp_path / "live.log"
    log.write_text("gyrelint-probe sampled=+8 total=8 pid=1 t=1\n")
    script = Script(log, [])
    v = follow([str(log)], build_rules(), 0.5, lambda *_: None, max_seconds=1.0, clock=script.clock,
               sleep=script.sleep)
    assert v.status == "problem" and script.t >= 1.0
    binary = tmp_path / "bin.log"
    binary.write_bytes(b"\x00\x01" * 64)
    with pytest.raises(LogInputError, match="bin.log: binary"):
        follow([str(binary)], build_rules(), 0.5, lambda *_: None, max_seconds=1.0, clock=script.clock,
               sleep=script.sleep)
    never = tmp_path / "never.log"
    with pytest.raises(LogInputError, match="never.log"):
        follow([str(never)], build_rules(), 0.5, lambda *_: None, max_seconds=0.5, clock=script.clock,
               sleep=script.sleep)


def test_follow_cli_with_a_writer_thread(tmp_path):
    log = tmp_path / "live.log"
    log.write_text("")

    def writer():
        for chunk in CHUNKS:
            time.sleep(0.3)
            with log.open("a") as f:
                f.write(chunk)

    t = threading.Thread(target=writer)
    t.start()
    result = CliRunner().invoke(main, ["logcheck", str(log), "--follow", "--until", "run finished",
                                       "--max-seconds", "30", "--format", "json"])
    t.join()
    lines = [json.loads(x) for x in result.stdout.splitlines() if x.strip()]
    assert result.exit_code == 0
    assert lines[-1]["status"] == "healthy" and lines[0]["status"] in ("problem", "healthy")
    assert all("elapsed" in x for x in lines)


def test_follow_a_growing_csv_export(tmp_path):
    log = tmp_path / "run-x-tag-count_total_generated_samples.csv"
    rows = ["Wall time,Step,Value\n"] + [f"{100 + i}.0,{i},{64 * i}\n" for i in range(1, 5)]
    log.write_text(rows[0] + rows[1])
    script = Script(log, rows[2:])
    seen = []
    v = follow([str(log)], build_rules(), 0.5, lambda v, t: seen.append(v), max_seconds=2.0, clock=script.clock,
               sleep=script.sleep)
    assert v.counters["sampled"]["total"] == 256 and v.counters["step"]["total"] == 4
    assert seen and seen[-1].key == v.key
