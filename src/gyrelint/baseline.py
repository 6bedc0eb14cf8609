"""Baselines: record today's findings so a check reports only the new ones.

A finding is matched by its fingerprint (rule + file + a content key, no line number),
so edits that only move code keep old findings matched. Matching is a multiset: two
identical old findings absorb at most two new ones.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .model import Finding
from .safeio import InputFileError, read_input, write_output

MAX_BASELINE_BYTES = 64 << 20  # room for hundreds of thousands of findings; a FIFO or a huge file is refused

SCHEMA = "gyrelint-baseline/1"
DEFAULT_NAME = ".gyrelint-baseline.json"


class BaselineError(Exception):
    """The baseline file is missing or not one gyrelint wrote; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Baseline:
    fingerprints: Counter

    def new(self, findings: list[Finding]) -> list[Finding]:
        left = Counter(self.fingerprints)
        out = []
        for f in findings:
            if left[f.fingerprint] > 0:
                left[f.fingerprint] -= 1
            else:
                out.append(f)
        return out


def to_json(findings: list[Finding]) -> dict:
    rows = sorted(findings, key=lambda f: (f.file, f.rule, f.fingerprint))
    return {
        "schema": SCHEMA,
        "generator": f"gyrelint {__version__}",
        "findings": [{"fingerprint": f.fingerprint, "rule": f.rule, "file": f.file, "message": f.message}
                     for f in rows],
    }


def write(path: Path, findings: list[Finding]) -> None:
    """Write the baseline through a fresh temporary file (a ``.tmp`` or the baseline itself planted
    as a symlink by the repo is replaced, never written through)."""
    write_output(path, json.dumps(to_json(findings), indent=2) + "\n")


def read(path: Path) -> Baseline:
    try:
        data = json.loads(read_input(path, MAX_BASELINE_BYTES).decode("utf-8"))
    except InputFileError as exc:
        if exc.reason == "no such file":
            raise BaselineError(f"{path}: no such baseline; create it with `gyrelint baseline PATH`") from None
        raise BaselineError(f"{path}: {exc.reason}; recreate it with `gyrelint baseline`") from None
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such baseline; create it with `gyrelint baseline PATH`") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{path}: unreadable ({exc.__class__.__name__}); recreate it with `gyrelint baseline`") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); recreate it with `gyrelint baseline`") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a gyrelint baseline (expected schema {SCHEMA}); recreate it with "
                            f"`gyrelint baseline`")
    fps = Counter()
    for row in data["findings"]:
        if isinstance(row, dict) and isinstance(row.get("fingerprint"), str):
            fps[row["fingerprint"]] += 1
    return Baseline(fps)


@dataclass(frozen=True, slots=True)
class OldFindings:
    """What counts as already there for ``check --new-only``, and the words naming it (``in HEAD``)."""

    baseline: Baseline
    where: str

    @classmethod
    def of(cls, findings: list[Finding], where: str) -> OldFindings:
        return cls(Baseline(Counter(f.fingerprint for f in findings)), where)


def repo_baseline(root: Path) -> Path | None:
    """``.gyrelint-baseline.json`` at the root of the checked repo, when there is one. The repo
    may have planted it as a symlink out of the tree: such a file is refused (BaselineError), not read."""
    from .safeio import inside

    candidate = root / DEFAULT_NAME
    if not candidate.is_symlink() and not candidate.exists():
        return None
    if not inside(root, candidate):
        raise BaselineError(f"{candidate}: a symlink that leaves the repository; replace it with `gyrelint baseline`")
    return candidate


def reference(root: Path, baseline_file: str | None) -> OldFindings | None:
    """``--new-only``'s reference when a file gives it: ``baseline_file``, else the repo's own
    baseline file; None when neither exists (then the last commit is the reference)."""
    if baseline_file:
        return OldFindings(read(Path(baseline_file)), f"in the baseline {baseline_file}")
    found = repo_baseline(root)
    if found is not None:
        return OldFindings(read(found), f"in the baseline {DEFAULT_NAME}")
    return None
