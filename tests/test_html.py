"""The HTML report: self-contained, escaped, with the summary, the clickable map and the tables."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from click.testing import CliRunner
from test_map_support import P, fixture_analysis

from gyrelint.cli import main
from gyrelint.cli import report_cmd as report_cmd_module
from gyrelint.render import dot as dot_mod
from gyrelint.render.dot import node_id
from gyrelint.render.html import render_html, write_report

HAS_DOT = shutil.which("dot") is not None


@pytest.fixture(scope="module")
def analysis():
    return fixture_analysis()


@pytest.fixture(scope="module")
def page(analysis) -> str:
    return render_html(analysis)


def _data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="gyre-data">(.*?)</script>', page, re.S)
    assert m
    return json.loads(m.group(1))


def test_no_network_and_no_injection(page):
    # self-contained: nothing is fetched
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', page)
    assert "@import" not in page and "url(http" not in page
    # the fixture's <script> strings (docstrings, config value) never become markup
    assert "<script>alert" not in page
    assert len(re.findall(r"<script\b", page)) == 2
    assert page.count("</script>") == 2
    assert "&lt;script&gt;alert(&#x27;config&#x27;)&lt;/script&gt;" in page  # config table, escaped
    # the finding message carries markup, shown as text
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


def test_summary_strip(page, analysis):
    strip = re.search(r'<section id="summary".*?</section>', page, re.S).group(0)
    assert "Loop online" in strip and ">yes<" in strip
    assert "Trainer.update" in strip and "Sampler.load_weights" in strip  # weight-sync path
    assert "same-process" in strip and "queue" in strip and "in-process" in strip
    assert re.search(r"sampling <b>2</b>", strip) and re.search(r"training <b>3</b>", strip)
    assert re.search(r"error</span> <b>1</b>", strip) and re.search(r"warning</span> <b>1</b>", strip)


def test_tables(page):
    for tid in ("t-functions", "t-findings", "t-contract", "t-config", "t-boundary", "t-entries"):
        assert f'id="{tid}"' in page
    contract = re.search(r'id="t-contract".*?</details>', page, re.S).group(0)
    assert re.search(r"advantages</code></td><td><span class=\"status st-missing\">missing", contract)
    assert re.search(r"tokens</code></td><td><span class=\"status st-ok\">ok", contract)
    findings = re.search(r'id="t-findings".*?</details>', page, re.S).group(0)
    assert "write &#x27;advantages&#x27; in the rollout" in findings  # what-to-do line
    config = re.search(r'id="t-config".*?</details>', page, re.S).group(0)
    assert config.index(">process<") < config.index(">port<") < config.index(">comm<")
    assert f"{P}.buffer" in re.search(r'id="t-boundary".*?</details>', page, re.S).group(0)


def test_data_for_the_panel(page):
    data = _data(page)
    gen = data["functions"][f"{P}.rollout.Sampler.generate"]
    assert gen["side"] == "sampling"
    assert [f"{P}.main.train_loop", "driver"] in gen["callers"]
    assert [f"{P}.rollout.Sampler.score", "sampling"] in gen["callees"]
    snip = data["snippets"][f"{P}/rollout.py"]
    line = gen["ev"][0][2]
    assert "self.engine.generate" in snip[str(line)]
    assert "<script>alert('generate')</script>" in snip[str(line - 1)]  # raw in data, escaped in JSON text
    assert f"{P}.trainer.Trainer.consume" in data["functions"]
    assert "GYR003" in data["functions"][f"{P}.trainer.Trainer.consume"]["rules"]
    assert data["snippets"]["config.yaml"]


def test_snippets_stay_inside_the_repo(analysis, tmp_path):
    from gyrelint.model import Finding, Severity

    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET\n")
    analysis.findings.append(Finding("GYR999", Severity.INFO, "x", f"../../../../../../..{secret}", 1))
    try:
        page = render_html(analysis)
    finally:
        analysis.findings.pop()
    assert "TOPSECRET" not in page


@pytest.mark.skipif(not HAS_DOT, reason="GraphViz 'dot' is not installed (apt-get install graphviz)")
def test_map_is_inline_svg(page):
    assert re.search(r'<div id="map"><svg', page)
    assert f'id="{node_id(f"{P}.rollout.Sampler.generate")}"' in page
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page


def test_fallback_without_graphviz(analysis, monkeypatch):
    monkeypatch.setattr(dot_mod, "dot_program", lambda: None)
    page = render_html(analysis)
    assert 'class="fallback"' in page and "graphviz" in page
    assert f'id="{node_id(f"{P}.rollout.Sampler.generate")}"' in page


def test_cli_report(monkeypatch, analysis, tmp_path):
    monkeypatch.setattr(report_cmd_module, "run_analysis", lambda *a, **k: analysis)
    out = tmp_path / "rep"
    r = CliRunner().invoke(main, ["report", "x", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "index.html").read_text().startswith("<!doctype html>")
    f = tmp_path / "file"
    f.write_text("")
    r = CliRunner().invoke(main, ["report", "x", "-o", str(f)])
    assert r.exit_code == 2 and "not a folder" in r.output


def test_write_report_returns_page(analysis, tmp_path):
    p = write_report(analysis, tmp_path / "a" / "b")
    assert p.name == "index.html" and p.stat().st_size > 1000


def test_long_tables_are_parked_as_text(analysis, monkeypatch):
    import gyrelint.render.html as html_mod

    monkeypatch.setattr(html_mod, "_OPEN_ROWS", 2)
    page = render_html(analysis)
    parked = re.search(r'<script type="text/x-gyrelint-rows" id="rows-t-functions">(.*?)</script>', page, re.S)
    assert parked and "</" not in parked.group(1) and "<tr" in parked.group(1)
    assert "<script>alert" not in page


def test_analyze_html_on_the_demo(tmp_path):
    """`analyze --html DIR` (the real pipeline) writes the page; every tagged function is in its data."""
    r = CliRunner().invoke(main, ["analyze", "--demo", "--no-cache", "--html", str(tmp_path / "rep")])
    assert r.exit_code in (0, 1), r.output
    page = (tmp_path / "rep" / "index.html").read_text()
    data = _data(page)
    from gyrelint.api import analyze, demo_root

    a = analyze(demo_root())
    tagged = {q for q, f in a.functions.items() if f.side.value != "neutral" or f.handoff_kind}
    assert tagged <= set(data["functions"])
    for q in tagged:
        assert f'data-q="{q}"' in page
