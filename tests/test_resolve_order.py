"""Resolution gives the same graph whatever the string-hash seed, and models slices.

Python randomises string hashes per process, so any walk over a set of values can change
order between runs. The resolver caps a key at a fixed number of values, which made the
kept values (and the call edges built on them) depend on that order."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gyrelint.api import demo_root
from gyrelint.entrypoints import find_entry_points
from gyrelint.graphs import build_graphs
from gyrelint.graphs.resolve import _MAX_VALUES
from gyrelint.graphs.symbols import symbols_of
from gyrelint.index import build_index
from gyrelint.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"


def _write_capped_repo(root: Path) -> None:
    """More classes than a key keeps flow into one parameter; two bases are bound two ways
    (a cycle in the imprecise hierarchy); one dict gets keys through setdefault."""
    n = _MAX_VALUES + 16
    lines = ["import random", "", "class Base:", "    def run(self):", "        return self.step()", ""]
    for i in range(n):
        lines += [f"class W{i}(Base):", "    def step(self):", f"        return h{i}", "",
                  f"def h{i}():", "    pass", ""]
    lines += ["def drive(w):", "    f = w.step()", "    f()", "    return w.run()", ""]
    lines += [f"drive(W{i}())" for i in range(n)]
    lines += ["", "Left = W1 if random.random() else W2", "Right = W2 if random.random() else W1",
              "class Mix(Left, Right):", "    def go(self):", "        return super().step()", "",
              "Mix().go()", "table = {}", f"for key in {[f'k{i}' for i in range(n)]!r}:",
              "    table.setdefault(key, []).append(h0)", "table['k3'][0]()", ""]
    (root / "capped.py").write_text("\n".join(lines))


_DUMP = """
import json, sys
from gyrelint.entrypoints import find_entry_points
from gyrelint.graphs import build_graphs
from gyrelint.index import build_index
from gyrelint.settings import Settings
from pathlib import Path
root = Path(sys.argv[1])
s = Settings(use_cache=False, jobs=1)
idx = build_index(root, s)
g = build_graphs(idx, find_entry_points(idx, s)[0])
print(json.dumps(sorted((a, b, d["kind"], d["via"]) for a, b, d in g.calls.edges(data=True))))
"""


def _graphs_of(root: Path):
    settings = Settings(use_cache=False, jobs=1)
    index = build_index(root, settings)
    return build_graphs(index, find_entry_points(index, settings)[0])


def _targets_by_line(g, caller: str) -> dict[int, set[str]]:
    by_line: dict[int, set[str]] = {}
    for rc in g.resolved[caller]:
        by_line.setdefault(rc.site.line, set()).update(rc.targets)
    return by_line


def test_same_edges_under_every_hash_seed(tmp_path: Path) -> None:
    _write_capped_repo(tmp_path)
    outs = set()
    for seed in ("1", "2", "3", "4"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run([sys.executable, "-c", _DUMP, str(tmp_path)], env=env, capture_output=True,
                              text=True, check=True)
        outs.add(proc.stdout)
    assert len(outs) == 1
    edges = {(a, b) for a, b, *_ in __import__("json").loads(outs.pop())}
    assert ("capped.drive", "capped.Base.run") in edges
    assert ("capped.Mix.go", "capped.W1.step") in edges or ("capped.Mix.go", "capped.W2.step") in edges


def test_slices_shift_literal_indices(tmp_path: Path) -> None:
    (tmp_path / "s.py").write_text(
        "def f1():\n    pass\n\ndef f2():\n    pass\n\ndef f3():\n    pass\n\n"
        "ls = [f1, f2, f3]\n"
        "ls[1:3][0]()\n"
        "ls[2:][0]()\n"
        "def tail(xs, i):\n    for x in xs[i:]:\n        x()\n\n"
        "tail(ls, 1)\n")
    g = _graphs_of(tmp_path)
    by_line = _targets_by_line(g, "s")
    assert by_line[11] == {"s.f2"}
    assert by_line[12] == {"s.f3"}
    # a bound that is not a literal: every element may come out
    assert set(g.calls.adj["s.tail"]) == {"s.f1", "s.f2", "s.f3"}


def test_min_max_sorted_call_only_their_key(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(
        "def size(x):\n    return 1\n\ndef rank(x):\n    return 2\n\n"
        "class Group:\n    def world(self):\n        return 4\n\n"
        "g = Group()\n"
        "a = min(g.world, 3)\n"          # a bound method as a value: min compares, it calls nothing
        "b = max([1, 2], key=size)\n"
        "c = sorted([3, 1], key=rank)\n"
        "d = list(map(size, [1]))\n")
    g = _graphs_of(tmp_path)
    by_line = _targets_by_line(g, "k")
    assert by_line[12] == {"<builtin>.min"}
    assert by_line[13] == {"<builtin>.max", "k.size"}
    assert by_line[14] == {"<builtin>.sorted", "k.rank"}
    assert "k.size" in by_line[15]


def test_plugin_loaded_from_an_option_default_is_called_where_it_is_called(tmp_path: Path) -> None:
    """``--rollout-fn-path`` defaults to a dotted path; a loader turns it into the function,
    which runs where the loaded value is called, not where the option is declared."""
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("")
    (tmp_path / "plug" / "rollouts.py").write_text("def generate_rollout(args, step):\n    return [step]\n")
    (tmp_path / "plug" / "misc.py").write_text(
        "import importlib\n\n"
        "def load_function(path):\n"
        "    mod, _, name = path.rpartition('.')\n"
        "    return getattr(importlib.import_module(mod), name)\n")
    (tmp_path / "plug" / "train.py").write_text(
        "import argparse\n"
        "from plug.misc import load_function\n\n"
        "def parse():\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--rollout-fn-path', default='plug.rollouts.generate_rollout')\n"
        "    return p.parse_args()\n\n"
        "class Manager:\n"
        "    def __init__(self, args):\n"
        "        self.generate = load_function(args.rollout_fn_path)\n\n"
        "    def step(self, args, i):\n"
        "        return self.generate(args, i)\n")
    g = _graphs_of(tmp_path)
    assert g.calls.edges["plug.train.Manager.step", "plug.rollouts.generate_rollout"]["kind"] == "exact"
    edge = g.calls.edges["plug.train.Manager.__init__", "plug.rollouts.generate_rollout"]
    assert edge["via"] == "load"


def test_a_method_forwarding_its_own_name_proxies_the_worker_next_to_it(tmp_path: Path) -> None:
    (tmp_path / "ctl").mkdir()
    (tmp_path / "ctl" / "__init__.py").write_text("")
    (tmp_path / "ctl" / "base.py").write_text(
        "class Controller:\n"
        "    def _call_workers(self, method, *args):\n"
        "        return [w.call(method, *args) for w in self.workers]\n")
    (tmp_path / "ctl" / "actor.py").write_text(
        "from ctl.base import Controller\n\n"
        "class Actor:\n"
        "    def update(self, batch):\n"
        "        return batch\n\n"
        "class ActorController(Controller):\n"
        "    def update(self, *args):\n"
        "        return self._call_workers('update', *args)\n")
    (tmp_path / "ctl" / "other.py").write_text(
        "class Cache:\n"
        "    def update(self, key):\n"
        "        return key\n")
    g = _graphs_of(tmp_path)
    out = {b: d for b, d in g.calls.adj["ctl.actor.ActorController.update"].items()}
    assert out["ctl.actor.Actor.update"]["via"] == "forward" and out["ctl.actor.Actor.update"]["kind"] == "exact"
    assert "ctl.actor.ActorController.update" not in out  # not a call of itself
    assert "ctl.other.Cache.update" not in out  # a same-named method elsewhere is no worker of it


def test_no_key_holds_more_than_the_cap_even_from_one_write(tmp_path: Path) -> None:
    """One list literal with more functions than a key keeps (and as many strings) fills its
    element key in a single write: the cap held only for keys that grew step by step, so one
    write could store thousands of values that every reader copied on (the cause of the
    resolver's > 5 GiB on transformers). The kept values are the repo functions first."""
    from gyrelint.graphs.resolve import resolve
    from gyrelint.graphs.symbols import symbols_of

    n = _MAX_VALUES + 36
    lines = [f"def f{i}():\n    pass\n" for i in range(n)]
    lines += ["table = [" + ", ".join([f"f{i}" for i in range(n)] + [repr(f"s{i}") for i in range(n)]) + "]",
              "def pick(xs):\n    return xs\n",
              "for fn in pick(table):\n    fn()\n"]
    (tmp_path / "wide.py").write_text("\n".join(lines))
    index = build_index(tmp_path, Settings(use_cache=False, jobs=1))
    r, res = resolve(list(index.summaries.values()), symbols_of(index))
    sizes = {k: len(v) for k, v in r.store.items()}
    assert max(sizes.values()) <= _MAX_VALUES, sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
    held = r.store["wide.fn"]
    assert len(held) == _MAX_VALUES and all(v.startswith("f:wide.f") for v in held)


def test_a_decorator_returning_its_argument_keeps_each_class_apart(tmp_path: Path) -> None:
    """A registry decorator returns the class it is handed; its return key merges every class
    it decorated, and each decorated name stood for all of them (on transformers a model
    class had 165 bases). A call of a function that returns a parameter unchanged returns
    what that call passed."""
    (tmp_path / "reg.py").write_text(
        "REGISTRY = {}\n\n"
        "def register(name):\n"
        "    def inner(cls):\n"
        "        REGISTRY[name] = cls\n"
        "        return cls\n"
        "    return inner\n\n"
        "def same(x, note=None):\n"
        "    return x\n\n"
        "@register('a')\n"
        "class Sampler:\n"
        "    def run(self):\n"
        "        return 1\n\n"
        "@register('b')\n"
        "class Learner:\n"
        "    def run(self):\n"
        "        return 2\n\n"
        "class FastSampler(Sampler):\n"
        "    def go(self):\n"
        "        return self.run()\n\n"
        "def drive():\n"
        "    same(Learner())\n"
        "    return same(Sampler()).run()\n")
    g = _graphs_of(tmp_path)
    assert g.classes["reg.FastSampler"].bases == ("reg.Sampler",)
    assert set(g.calls.adj["reg.FastSampler.go"]) == {"reg.Sampler.run"}
    assert "reg.Learner.run" not in g.calls.adj["reg.drive"]
    assert "reg.Sampler.run" in g.calls.adj["reg.drive"]


def test_an_annotated_parameter_is_still_returned_unchanged(tmp_path: Path) -> None:
    """The same registry decorator with its parameter annotated (``def inner(cls: type[Base])``)
    and held on a registry class: the annotation is no rebinding, so each decorated name keeps
    its own class and a subclass of one backend has that backend alone as its base (verl's
    delta engine had every registered engine as a base)."""
    (tmp_path / "eng.py").write_text(
        "class Registry:\n"
        "    table = {}\n\n"
        "    def register(name: str):\n"
        "        def inner(cls: type['Base']):\n"
        "            Registry.table[name] = cls\n"
        "            return cls\n"
        "        return inner\n\n"
        "class Base:\n"
        "    def send(self):\n"
        "        raise NotImplementedError\n\n"
        "@Registry.register('ring')\n"
        "class Ring(Base):\n"
        "    def send(self):\n"
        "        return 1\n\n"
        "@Registry.register('tree')\n"
        "class Tree(Base):\n"
        "    def send(self):\n"
        "        return 2\n\n"
        "@Registry.register('delta')\n"
        "class Delta(Ring):\n"
        "    def go(self):\n"
        "        return super().send()\n")
    g = _graphs_of(tmp_path)
    assert g.classes["eng.Delta"].bases == ("eng.Ring", "eng.Base")
    sent = {t for t in g.calls.adj["eng.Delta.go"] if t.startswith("eng.")}
    assert sent == {"eng.Ring.send"}


def test_an_implicit_call_reports_what_the_final_store_gives(tmp_path: Path) -> None:
    """The loop runs before the subclass's decorated ``__iter__`` is bound: its first run
    finds the base's. Side outputs are those of each item's latest run, so the base's
    ``__iter__`` (never called on a ``Sub``) is no target of the loop."""
    (tmp_path / "m.py").write_text(
        "def keep(fn):\n    return fn\n\n"
        "def consume():\n    for x in Sub():\n        pass\n\n"
        "class Base:\n    def __iter__(self):\n        return iter([])\n\n"
        "class Sub(Base):\n    @keep\n    def __iter__(self):\n        return iter([])\n")
    g = _graphs_of(tmp_path)
    iters = {t for rc in g.resolved["m.consume"] if rc.via == "iter" for t in rc.targets}
    assert iters == {"m.Sub.__iter__"}


def test_an_iteration_inside_a_call_is_reported_at_that_call(tmp_path: Path) -> None:
    """``zip(loader, xs)`` iterates the loader where the call is: every implicit ``iter``
    edge sits on that line (the results pass used the line of the last step it ran)."""
    (tmp_path / "z.py").write_text(
        "class Loader:\n    def __iter__(self):\n        return self\n\n    def __next__(self):\n        return 1\n\n"
        "def consume(xs):\n    return zip(Loader(), xs)\n\n"
        "def other():\n    pass\n\n"
        "other()\n")
    g = _graphs_of(tmp_path)
    lines = {rc.site.line for calls in g.resolved.values() for rc in calls if rc.via == "iter"}
    assert lines == {9}


def _bench():
    """Load bench/resolve_order.py by path (bench/ is not a package); it imports no corpus."""
    name = "_gyrelint_bench_resolve_order"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).parent.parent / "bench" / "resolve_order.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def _facts_in_orders(root: Path, seeds: list[int | None]) -> list[set]:
    bench = _bench()
    index = build_index(root, Settings(use_cache=False, jobs=1))
    sums = list(index.summaries.values())
    symbols = symbols_of(index)
    return [bench.facts(bench.solve(sums, symbols, seed)[0], sums) for seed in seeds]


@pytest.mark.parametrize("root", [demo_root(), FIXTURES / "accuracy_wrappers", FIXTURES / "accuracy_registry",
                                  FIXTURES / "accuracy_library_loop", FIXTURES / "graphs_sameproc"],
                         ids=lambda p: p.name)
def test_small_repos_resolve_alike_whatever_the_item_order(root: Path) -> None:
    """Flows and modules shuffled (three seeds): the same call targets, implicit calls,
    strings, attribute types and MROs as in the resolver's own order."""
    first, *shuffled = _facts_in_orders(root, [None, 1, 2, 3])
    assert any(f[0] == "site" for f in first)
    assert all(got == first for got in shuffled)


def test_a_read_before_its_key_is_written_does_not_depend_on_order(tmp_path: Path) -> None:
    """``h = d.get("x")`` runs while ``d`` holds only ``"y"``: the read used to fall back to
    every element, so in source order ``g`` reached ``h`` and stayed there after
    ``d["x"] = f`` ran, while in other orders ``h`` held ``f`` only. A known key the
    container lacks now reads as nothing, in every order. (``bench/resolve_order.py``
    measures the same on real repos.)"""
    (tmp_path / "m.py").write_text('def f():\n    pass\n\ndef g():\n    pass\n\n'
                                   'd = {}\nd["y"] = g\nh = d.get("x")\nh()\nd["x"] = f\n')
    first, *shuffled = _facts_in_orders(tmp_path, [None, 1, 2, 3])
    assert all(got == first for got in shuffled)
    assert {f[3] for f in first if f[:3] == ("site", "m", 1)} == {"m.f"}


def test_a_capped_key_keeps_the_same_values_whatever_the_module_order(tmp_path: Path) -> None:
    """More workers than a key keeps reach one parameter, each from a call site of its own
    module. Applied after each item, the writes filled the key in the order the modules came
    in and the first ``_MAX_VALUES`` stayed, so ``w.step()`` named other methods when the
    modules were shuffled; applied together at the end of a batch, the kept values are chosen
    from the whole batch, the same in every order."""
    n = _MAX_VALUES + 16
    lines = ["def drive(w):", "    w.step()", ""]
    for i in range(n):
        lines += [f"class W{i}:", "    def step(self):", "        pass", ""]
    (tmp_path / "base.py").write_text("\n".join(lines))
    for i in range(n):
        (tmp_path / f"m{i}.py").write_text(f"from base import drive, W{i}\ndrive(W{i}())\n")
    first, *shuffled = _facts_in_orders(tmp_path, [None, 1, 2, 3])
    steps = {f[3] for f in first if f[:3] == ("site", "base", 0)}
    assert len(steps) == _MAX_VALUES
    assert all(got == first for got in shuffled)
