"""The whole-analysis cache: same answer warm as cold, invalidated by any input change,
and never trusting an entry it did not write."""

from __future__ import annotations

from pathlib import Path

import pytest

from gyrelint import analysis_cache, cachestore
from gyrelint.api import analyze
from gyrelint.render.json_report import to_report
from gyrelint.settings import Settings

LOOP = '''
import torch
from vllm import LLM, SamplingParams


class Sampler:
    def __init__(self):
        self.llm = LLM(model="m")

    def rollout(self, prompts):
        return self.llm.generate(prompts, SamplingParams(n=4))


class Learner:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters())

    def update(self, batch):
        loss = self.model(batch["input_ids"]).mean()
        loss.backward()
        self.opt.step()


def main():
    s = Sampler()
    t = Learner(torch.nn.Linear(2, 2))
    for _ in range(3):
        t.update({"input_ids": s.rollout(["hi"])})


if __name__ == "__main__":
    main()
'''


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "loop").mkdir(parents=True)
    (root / "loop" / "__init__.py").write_text("")
    (root / "loop" / "main.py").write_text(LOOP)
    (root / "config.yaml").write_text("trainer:\n  nnodes: 1\n")
    return root


def _settings(tmp_path: Path) -> Settings:
    return Settings(cache_dir=tmp_path / "cache", jobs=1)


def _report(a) -> dict:
    r = to_report(a)
    r.pop("stats")
    return r


def test_warm_run_returns_the_same_report(repo: Path, tmp_path: Path) -> None:
    cold = analyze(repo, _settings(tmp_path))
    assert cold.stats.parsed == 2
    warm = analyze(repo, _settings(tmp_path))
    assert warm.stats.parsed == 0 and warm.stats.cached == 2
    assert _report(warm) == _report(cold)
    # the lazily loaded summaries are the real ones
    assert [f.name for f in warm.index.summaries["loop/main.py"].functions] == \
        [f.name for f in cold.index.summaries["loop/main.py"].functions]


@pytest.mark.parametrize("edit", ["python", "yaml", "new-file", "settings"])
def test_any_input_change_invalidates(repo: Path, tmp_path: Path, edit: str) -> None:
    settings = _settings(tmp_path)
    before = analyze(repo, settings)
    assert before.functions["loop.main.Learner.update"].side.value == "training"
    if edit == "python":
        (repo / "loop" / "main.py").write_text(LOOP.replace("loss.backward()\n        self.opt.step()", "return loss"))
    elif edit == "yaml":
        (repo / "config.yaml").write_text("trainer:\n  nnodes: 4\n")
    elif edit == "new-file":
        (repo / "loop" / "extra.py").write_text("def helper():\n    return 1\n")
    else:
        settings = Settings(cache_dir=tmp_path / "cache", jobs=1, ignore=("GYR006",))
    again = analyze(repo, settings)
    if edit in ("python", "new-file"):
        assert again.stats.parsed == 1
    if edit == "yaml":
        # nothing loads config.yaml, so its key is set aside (scope unloaded-config) but still read
        assert [k.value for k in again.topology.keys if k.name == "trainer.nnodes"] == ["4"]
    if edit == "python":
        assert again.functions["loop.main.Learner.update"].side.value != "training"
    if edit == "new-file":
        assert "loop.extra.helper" in again.functions
    if edit == "settings":
        assert not any(f.rule == "GYR006" for f in again.findings)
        assert again.settings.ignore == ("GYR006",)


def test_corrupt_and_foreign_entries_are_refused(repo: Path, tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    analyze(repo, settings)
    entries = list((tmp_path / "cache").glob("analysis/*/*"))
    assert len(entries) == 1
    entry = entries[0]
    key = entry.name
    root = repo.resolve()
    assert analysis_cache.load(settings, key, root) is not None
    good = entry.read_bytes()
    entry.write_bytes(good[: len(good) // 2])
    assert analysis_cache.load(settings, key, root) is None
    # a payload of another analyzer version, in a valid frame
    entry.write_bytes(cachestore.frame("analysis", key, b"GYRA\x02" + good[-100:]))
    assert analysis_cache.load(settings, key, root) is None
    analyze(repo, settings)  # recomputed, and the entry rewritten
    assert analysis_cache.load(settings, key, root) is not None


def test_no_cache_bypasses_it(repo: Path, tmp_path: Path) -> None:
    analyze(repo, _settings(tmp_path))
    fresh = analyze(repo, Settings(cache_dir=tmp_path / "cache", jobs=1, use_cache=False))
    assert fresh.stats.parsed == 2


def _graph_json(root: Path, cache: Path) -> str:
    from click.testing import CliRunner

    from gyrelint.cli import main as cli

    res = CliRunner().invoke(cli, ["graph", str(root), "--format", "json"], env={"GYRELINT_CACHE_DIR": str(cache)})
    assert res.exit_code == 0, res.output
    return res.output


def _no_pipeline(monkeypatch) -> None:
    from gyrelint.graphs import build as graph_stage

    def boom(*a, **k):
        raise AssertionError("the pipeline ran")

    monkeypatch.setattr(graph_stage, "build_graphs", boom)


def test_edit_that_summarises_the_same_reuses_the_last_graph(repo: Path, tmp_path: Path, monkeypatch) -> None:
    cache = tmp_path / "cache"
    before = _graph_json(repo, cache)
    main = repo / "loop" / "main.py"
    # a comment inside a line and trailing lines: no stage reads either
    main.write_text(LOOP.replace('self.opt.step()', 'self.opt.step()  # one step') + "\n# trailing note\n\n")
    with monkeypatch.context() as m:
        _no_pipeline(m)
        assert _graph_json(repo, cache) == before
    # the reused result is stored under the new content: a warm run hits it exactly
    with monkeypatch.context() as m:
        _no_pipeline(m)
        m.setattr(analysis_cache, "reuse_if_summaries_unchanged", lambda *a: None)
        assert _graph_json(repo, cache) == before


@pytest.mark.parametrize("edit", ["code", "shift", "other-file"])
def test_edit_that_changes_what_stages_read_runs_the_pipeline(repo: Path, tmp_path: Path, monkeypatch, edit) -> None:
    cache = tmp_path / "cache"
    before = _graph_json(repo, cache)
    main = repo / "loop" / "main.py"
    if edit == "code":
        main.write_text(LOOP.replace("self.opt.step()", "self.opt.zero_grad()"))
    elif edit == "shift":  # a line added at the top moves every line below it
        main.write_text("# header\n" + LOOP)
    else:
        (repo / "config.yaml").write_text("trainer:\n  nnodes: 2\n")
    calls = []
    from gyrelint.graphs import build as graph_stage

    real = graph_stage.build_graphs
    monkeypatch.setattr(graph_stage, "build_graphs", lambda *a, **k: calls.append(1) or real(*a, **k))
    after = _graph_json(repo, cache)
    assert calls == [1]
    if edit == "code":
        assert "zero_grad" in after and "zero_grad" not in before
    elif edit == "shift":
        assert after != before


def test_reuse_needs_the_old_summary_from_the_cache(repo: Path, tmp_path: Path) -> None:
    from gyrelint.api import discover_python, load

    cache = tmp_path / "cache"
    _graph_json(repo, cache)
    (repo / "loop" / "main.py").write_text(LOOP + "\n# note\n")
    root, settings, _ = load(repo, Settings(cache_dir=cache))
    files = discover_python(root, repo, settings)
    fp = analysis_cache.fingerprint(root, files, settings, "graph")
    assert analysis_cache.reuse_if_summaries_unchanged(settings, root, files, fp) is not None
    summary_dirs = [d for d in cache.iterdir() if d.is_dir() and d.name.startswith("summaries-")]
    assert summary_dirs
    for d in summary_dirs:
        for entry in d.rglob("*"):
            if entry.is_file():
                entry.unlink()
    # the old summary is gone: the edited file must not stand in for it
    assert analysis_cache.reuse_if_summaries_unchanged(settings, root, files, fp) is None


def test_analyze_reuses_the_last_analysis_when_summaries_are_unchanged(repo: Path, tmp_path: Path,
                                                                       monkeypatch) -> None:
    import gyrelint.api as api

    settings = _settings(tmp_path)
    before = _report(analyze(repo, settings))
    main = repo / "loop" / "main.py"
    main.write_text(LOOP.replace("loss.backward()", "loss.backward()  # gradients") + "\n# end\n")
    with monkeypatch.context() as m:
        m.setattr(api, "build_index", lambda *a, **k: (_ for _ in ()).throw(AssertionError("pipeline ran")))
        assert _report(analyze(repo, settings)) == before
    # a suppression comment is part of the summary: the pipeline runs and honours it
    main.write_text(LOOP.replace("loss.backward()", "loss.backward()  # gyrelint: ignore[GYR001]"))
    ran = []
    real = api.build_index
    monkeypatch.setattr(api, "build_index", lambda *a, **k: ran.append(1) or real(*a, **k))
    analyze(repo, settings)
    assert ran == [1]


def test_counters_are_stored_with_the_analysis(repo: Path, tmp_path: Path) -> None:
    """The counters are part of the analysis: a warm run has them without reading any file summary
    (the text report computed them from every summary on each run before)."""
    from gyrelint.render.text import render_text

    (repo / "loop" / "main.py").write_text(LOOP.replace(
        "        t.update(", "        print(f\"global_step={_} num_samples_generated=4\")\n        t.update("))
    cold = analyze(repo, _settings(tmp_path))
    assert cold.counters.found["step"] and cold.counters.found["sampled"]
    warm = analyze(repo, _settings(tmp_path))
    assert warm.stats.cached == 2 and warm.counters == cold.counters
    assert isinstance(warm.index.summaries, analysis_cache.LazySummaries)
    text = render_text(warm)
    assert "training steps: 'global_step=" in text
    assert warm.index.summaries._loaded == {}


def test_graph_after_analyze_reads_the_whole_analysis(repo: Path, tmp_path: Path, monkeypatch) -> None:
    """`graph` is the API's pipeline stopped after the graphs, so the entry `analyze` wrote answers
    it (it ran an index and graph build of its own before)."""
    cache = tmp_path / "cache"
    analyze(repo, Settings(cache_dir=cache))
    with monkeypatch.context() as m:
        _no_pipeline(m)
        from gyrelint.api import analyze_graphs

        got = analyze_graphs(repo, Settings(cache_dir=cache))
        assert got.stats.parsed == 0 and "loop.main.Learner.update" in got.graphs.calls
        out = _graph_json(repo, cache)
    assert '"loop.main.Learner.update"' in out
