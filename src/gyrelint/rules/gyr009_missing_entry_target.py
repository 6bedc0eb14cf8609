"""GYR009: a README or launcher command points at a module or file that does not exist."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Finding, Location, Severity
from .base import Example, Rule, RuleContext, norm

_BAD_README = """\
# mini

Train with:

```bash
python -m mini.train_ppo --steps 10
```
"""

_GOOD_README = """\
# mini

Train with:

```bash
python -m mini.train --steps 10
```
"""

_TRAIN = """\
def main():
    print("training")


if __name__ == "__main__":
    main()
"""


class MissingEntryTarget(Rule):
    id = "GYR009"
    name = "missing-entry-target"
    severity = Severity.ERROR
    summary = "A README or launcher command points at a module or file that does not exist."
    rationale = ("The documented way to start a run is the first thing a new engineer (or a CI job) copies. A "
                 "command naming a renamed or deleted module fails at once, or, with a stale install, runs old "
                 "code while the repo shows new code.")
    fix = "Point the command at the module or file that now starts the run (or restore the missing one)."
    bad = (Example({"README.md": _BAD_README, "mini/__init__.py": "", "mini/train.py": _TRAIN},
                   "the README runs mini.train_ppo, which was renamed"),)
    good = (Example({"README.md": _GOOD_README, "mini/__init__.py": "", "mini/train.py": _TRAIN},
                    "the README runs a module that exists"),)
    tags = ("entry-points",)

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for e in ctx.analysis.entry_points:
            if e.exists:
                continue
            source = e.source or e.file or "."
            where = Location(source, max(e.line, 1), f"{e.found_by}: {norm(e.command)[:120]}")
            target = e.module or e.file or norm(e.command)[:80] or "?"
            yield self.finding(
                f"{e.found_by} command `{norm(e.command)[:100] or target}` points at `{target}`, "
                f"which does not exist in the repository",
                where, f"{e.found_by}\0{target}\0{norm(e.command)}")


RULE = MissingEntryTarget
