"""The reports say where "reached" starts: entry points, or the package's public API.

``tests/fixtures/library_no_launcher`` is a library (``plover``) with no launcher, script or main
guard: users import ``OnlineTrainer`` and call ``fit()``. Reachability then starts from the public
API (``graphs.reach.loop_reach``), and the text said "reached from an entry point" though the
repo has none (it did before this test).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jsonschema

from gyrelint.api import analyze
from gyrelint.render.html import render_html
from gyrelint.render.json_report import to_report
from gyrelint.render.schemas import report_schema
from gyrelint.render.text import API_ROOTS, render_text

FIX = Path(__file__).parent / "fixtures" / "library_no_launcher"
DEMO = Path(__file__).parents[1] / "src" / "gyrelint" / "demo" / "minirl"


@cache
def _analysis(root: Path):
    return analyze(root, use_cache=False, jobs=1)


def test_a_library_without_launcher_says_its_public_api_was_the_root() -> None:
    a = _analysis(FIX)
    assert not a.entry_points and a.functions["plover.trainer.OnlineTrainer._update"].reached
    text = render_text(a)
    assert API_ROOTS in text
    assert "reached from the public API" in text and "reached from an entry point" not in text
    report = to_report(a)
    jsonschema.validate(report, report_schema())
    assert report["reach_roots"] == "public-api"
    page = render_html(a)
    assert "the package&#x27;s public API was taken as roots" in page or "the package's public API was taken as roots" in page
    assert '"unreached":"not reached from the public API"' in page


def test_a_repo_whose_entry_points_reach_the_loop_says_so() -> None:
    a = _analysis(DEMO)
    text = render_text(a)
    assert API_ROOTS not in text and "reached from an entry point" in text
    report = to_report(a)
    jsonschema.validate(report, report_schema())
    assert report["reach_roots"] == "entry-points"
    assert "public API was taken as roots" not in render_html(a)


def test_the_schema_knows_only_the_two_roots() -> None:
    report = to_report(_analysis(DEMO))
    report["reach_roots"] = "somewhere"
    try:
        jsonschema.validate(report, report_schema())
    except jsonschema.ValidationError:
        return
    raise AssertionError("an unknown reach_roots value validated")
