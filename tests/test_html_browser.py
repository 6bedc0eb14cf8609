"""Drive the HTML report in headless Chromium (Debian's package, through Playwright)."""

from __future__ import annotations

import os
import shutil

import pytest
from test_map_support import P, fixture_analysis

from gyrelint.render.dot import node_id
from gyrelint.render.html import write_report

CHROMIUM = os.environ.get("GYRELINT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None

_why = ("Chromium is not installed (apt-get install chromium)" if not CHROMIUM else
        "GraphViz 'dot' is not installed (apt-get install graphviz)" if not shutil.which("dot") else
        "the playwright package is not installed (pip install -e '.[dev]')" if sync_playwright is None else "")
if _why:
    print(f"test_html_browser: skipped: {_why}")
pytestmark = pytest.mark.skipif(bool(_why), reason=_why or "n/a")


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    page_path = write_report(fixture_analysis(), out)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1366, "height": 820})
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("dialog", lambda d: (problems.append(f"dialog opened: {d.message}"), d.dismiss()))
        page.on("request", lambda r: problems.append(f"network: {r.url}") if not r.url.startswith(("file:", "data:")) else None)
        page.goto(page_path.as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=15000)
        yield page, problems, out
        browser.close()


def test_click_node_opens_evidence(browser_page):
    page, problems, _ = browser_page
    page.click(f"#{node_id(f'{P}.rollout.Sampler.generate')}")
    panel = page.locator("#panel")
    panel.locator("h2").wait_for()
    text = panel.inner_text()
    assert f"{P}.rollout.Sampler.generate" in text
    assert "inference-engine-generate" in text  # the signal
    assert f"{P}/rollout.py:12" in text  # file:line of the evidence
    assert f"{P}.main.train_loop" in text and "driver" in text  # caller with its side
    assert f"{P}.rollout.Sampler.score" in text  # callee
    # the snippet shows the docstring's <script> as text, highlighted evidence line
    assert "<script>alert('generate')</script>" in text
    assert "self.engine.generate(prompts)" in page.locator("#panel .ln.hit").first.inner_text()
    assert page.locator("#panel script").count() == 0
    assert not problems, problems


def test_side_filter(browser_page):
    page, problems, _ = browser_page
    training_row = page.locator(f'#t-functions tr:has(a[data-q="{P}.trainer.Trainer.update"])')
    sampling_row = page.locator(f'#t-functions tr:has(a[data-q="{P}.rollout.Sampler.generate"])')
    assert training_row.is_visible()
    page.uncheck('#filters input[value="training"]')
    assert not training_row.is_visible()
    assert sampling_row.is_visible()
    node = page.locator(f"#{node_id(f'{P}.trainer.Trainer.update')}")
    assert "dim" in (node.get_attribute("class") or "")
    assert "dim" not in (page.locator(f"#{node_id(f'{P}.rollout.Sampler.generate')}").get_attribute("class") or "")
    page.check('#filters input[value="training"]')
    assert training_row.is_visible()
    # module filter and rule filter
    page.fill("#f-module", "buffer")
    assert not sampling_row.is_visible()
    page.fill("#f-module", "")
    page.select_option("#f-rule", "GYR003")
    assert page.locator('#t-findings tr[data-rule="GYR010"]').is_hidden()
    assert page.locator('#t-findings tr[data-rule="GYR003"]').is_visible()
    page.select_option("#f-rule", "")
    assert not problems, problems


def test_config_value_is_text_and_screenshot(browser_page):
    page, problems, out = browser_page
    cell = page.locator("#t-config td code", has_text="alert('config')")
    assert cell.inner_text() == "<script>alert('config')</script>"
    page.click(f"#{node_id(f'{P}.rollout.Sampler.generate')}")
    page.uncheck('#filters input[value="driver"]')
    shot = out / "report.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:4] == b"\x89PNG"
    dest = os.environ.get("GYRELINT_SCREENSHOT")
    if dest:  # used once to refresh docs/report.png
        shutil.copy(shot, dest)
    page.check('#filters input[value="driver"]')
    assert not problems, problems


def test_long_tables_load_when_opened(browser_page, monkeypatch):
    """Long tables are parked as text and parsed on first open; filters apply to them too."""
    import gyrelint.render.html as html_mod

    page, problems, out = browser_page
    monkeypatch.setattr(html_mod, "_OPEN_ROWS", 2)
    lazy = write_report(fixture_analysis(), out / "lazy")
    page.goto(lazy.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#t-functions tbody tr").count() == 0
    page.uncheck('#filters input[value="training"]')
    page.click("#t-functions summary")
    rows = page.locator("#t-functions tbody tr")
    rows.first.wait_for()
    assert rows.count() == len([r for r in fixture_analysis().functions.values() if r.side.value != "neutral"])
    assert page.locator(f'#t-functions tr:has(a[data-q="{P}.trainer.Trainer.update"])').is_hidden()
    assert page.locator(f'#t-functions tr:has(a[data-q="{P}.rollout.Sampler.generate"])').is_visible()
    page.click(f'#t-functions a[data-q="{P}.rollout.Sampler.generate"]')
    assert f"{P}.rollout.Sampler.generate" in page.locator("#panel h2").inner_text()
    assert not problems, problems


def test_findings_table_says_no_rule_fired_only_when_empty(browser_page):
    """Issue 19 item 7: "No rule fired." stood above a findings table full of rows."""
    page, problems, out = browser_page
    analysis = fixture_analysis()
    assert analysis.findings
    page.goto(write_report(analysis, out / "with-findings").as_uri())
    page.wait_for_selector("body[data-ready='1']")
    table = page.locator("#t-findings")
    assert table.locator("tbody tr").count() == len(analysis.findings)
    assert table.locator("tbody tr").first.is_visible()
    assert "No rule fired" not in table.inner_text()
    assert "No process, port or transport settings found" not in page.locator("#t-config").inner_text()
    analysis.findings = []
    page.goto(write_report(analysis, out / "no-findings").as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.click("#t-findings summary")
    assert page.locator("#t-findings tbody tr").count() == 0
    assert page.locator("#t-findings .note", has_text="No rule fired.").is_visible()
    assert not problems, problems


def test_hostile_repo_text_shows_as_escaped_text(browser_page, tmp_path):
    """The report of a repo whose README, launcher, config and file names carry terminal
    escapes, bidi overrides and markup: the page runs no script of theirs and shows the
    text visibly escaped, snippets included."""
    from test_output_escaping import build_hostile

    from gyrelint.api import analyze

    page, problems, out = browser_page
    analysis = analyze(str(build_hostile(tmp_path / "repo")), use_cache=False)
    page.goto(write_report(analysis, out / "hostile").as_uri())
    page.wait_for_selector("body[data-ready='1']")
    link = page.locator('#t-findings a.src[data-file="scripts/launch.sh"]').first
    link.click()
    panel = page.locator("#panel")
    panel.locator(".ln.hit").first.wait_for()
    text = panel.inner_text()
    assert "\\x1b]8;;https://evil.example/" in text and "\\u202e" in text
    assert "\u202e" not in text and "\x1b" not in text
    diag = page.locator("#t-diagnostics").text_content()
    assert "looprl/evil\\x1b[2J|`\\u202e::x.py" in diag
    assert page.locator("img").count() == 0
    assert not problems, problems


def test_embedded_map_fits_a_screen_and_paths_follow_the_cwd(browser_page):
    """Issue 19 items 4 and 2: the report's map of a large repo is at most MAX_WIDTH pt wide,
    and the panels print files as they open from where gyrelint ran."""
    from test_map_fit import large_analysis

    from gyrelint.render.dot import MAX_WIDTH
    from gyrelint.render.paths import PathContext

    page, problems, out = browser_page
    page.goto(write_report(large_analysis(), out / "large").as_uri())
    page.wait_for_selector("body[data-ready='1']")
    width = page.locator("#map svg").first.get_attribute("width") or ""
    assert width.endswith("pt") and 0 < float(width[:-2]) <= MAX_WIDTH
    page.goto(write_report(fixture_analysis(), out / "cwd", paths=PathContext("sub/demo/")).as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.click(f"#{node_id(f'{P}.rollout.Sampler.generate')}")
    panel = page.locator("#panel")
    panel.locator("h2").wait_for()
    assert f"sub/demo/{P}/rollout.py:12" in panel.inner_text()
    assert not problems, problems
