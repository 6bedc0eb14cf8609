"""The summary cache with the value-flow records the call graph needs."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from gyrelint.index import build_index
from gyrelint.index.cache import decode, encode
from gyrelint.index.extract import extract
from gyrelint.settings import Settings


def test_changed_file_reparsed_unchanged_cached(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def f():\n    return g()\n")
    (repo / "b.py").write_text("def g():\n    pass\n")
    settings = Settings(cache_dir=tmp_path / "cache", jobs=1)
    first = build_index(repo, settings)
    assert (first.stats.parsed, first.stats.cached) == (2, 0)
    (repo / "a.py").write_text("def f():\n    return g() + 1\n")
    second = build_index(repo, settings)
    assert (second.stats.parsed, second.stats.cached) == (1, 1)
    assert second.summaries["b.py"].flows == first.summaries["b.py"].flows
    third = build_index(repo, settings.with_overrides(use_cache=False))
    assert third.stats.cached == 0


def test_flows_survive_the_cache_round_trip() -> None:
    code = (
        "import torch.optim as optim\n"
        "class T:\n    lr: float = 0.1\n"
        "    def __init__(self, opt: optim.Optimizer):\n        self.opt = opt\n        self.fns = {'a': lambda x: x}\n"
        "    def step(self):\n        for f in self.fns.values():\n            yield f\n"
    )
    s = extract(cst.parse_module(code), "t.py", "t", False)
    back = decode("k", encode("k", s))
    assert back.flows == s.flows and [c.expr for c in back.calls] == [c.expr for c in s.calls]
    ops = {f.op for f in s.flows}
    assert {"def", "base", "ann", "=", "for", "yield", "ret", "param"} - {"param"} <= ops
    assert [lam.qualname for lam in s.lambdas] == ["T.__init__.<lambda1>"]
    ann = [f for f in s.flows if f.op == "ann" and f.scope == "T.__init__"]
    assert ann[0].value == ("a", ("n", "optim"), "Optimizer")


def test_decorator_calls_are_scoped_to_the_class_body() -> None:
    code = "import ray\nclass A:\n    @ray.method(num_returns=2)\n    def m(self):\n        pass\n"
    s = extract(cst.parse_module(code), "a.py", "a", False)
    dec = [c for c in s.calls if c.func == "ray.method"]
    assert dec and dec[0].scope == "A"
