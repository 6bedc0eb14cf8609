"""Call and import graphs on small fixture repos written for gyrelint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gyrelint.cli import main as cli
from gyrelint.entrypoints import find_entry_points
from gyrelint.graphs import Graphs, build_graphs
from gyrelint.index import build_index
from gyrelint.settings import Settings

FIX = Path(__file__).parent / "fixtures"


def graphs(name: str, tmp_path: Path) -> Graphs:
    settings = Settings(cache_dir=tmp_path / "cache", jobs=1)
    index = build_index(FIX / name, settings)
    entries, _ = find_entry_points(index, settings)
    return build_graphs(index, entries)


def targets(g: Graphs, caller: str, func: str, kind: str | None = None) -> set[str]:
    """Targets of the calls in ``caller`` whose callee text is ``func``."""
    out: set[str] = set()
    for rc in g.resolved.get(caller, []):
        if rc.site.func == func and (kind is None or rc.kind == kind):
            out |= set(rc.targets)
    return out


@pytest.fixture(scope="module")
def same(tmp_path_factory) -> Graphs:
    return graphs("graphs_sameproc", tmp_path_factory.mktemp("same"))


@pytest.fixture(scope="module")
def ray_g(tmp_path_factory) -> Graphs:
    return graphs("graphs_ray", tmp_path_factory.mktemp("ray"))


T = "minirl.trainer.Trainer"
E = "minirl.engine"


def test_imports_reexport_and_constructor(same: Graphs) -> None:
    # `from minirl import Trainer` goes through the package __init__ re-export
    assert targets(same, "main.build", "Trainer") == {f"{T}.__init__"}
    assert targets(same, "main.build", "VllmEngine") == {f"{E}.VllmEngine.__init__"}
    assert targets(same, "main", "build().fit") == {f"{T}.fit"}
    assert same.imports.has_edge("minirl", "minirl.trainer")
    assert same.imports.has_edge("minirl.trainer", "minirl.algo.loss")


def test_self_super_and_mro(same: Graphs) -> None:
    assert targets(same, f"{T}.fit", "self.rollout") == {f"{T}.rollout"}
    assert targets(same, f"{E}.VllmEngine.__init__", "super().__init__") == {f"{E}.BaseEngine.__init__"}
    # BaseEngine.generate calls self._run: the override (wrapped by a decorator) is found
    got = targets(same, f"{E}.BaseEngine.generate", "self._run")
    assert f"{E}.VllmEngine._run" in got or f"{E}.timed.wrapper" in got
    assert f"{E}.BaseEngine" in same.classes[f"{E}.VllmEngine"].bases


def test_external_canonical_names(same: Graphs) -> None:
    # alias resolved: `import torch.distributed as dist; dist.broadcast`
    assert targets(same, f"{E}.VllmEngine.load_weights", "dist.broadcast") == {"torch.distributed.broadcast"}
    # attribute type learned from the constructor assignment `self.llm = LLM(...)`
    assert targets(same, f"{E}.VllmEngine._run", "self.llm.generate") == {"vllm.LLM.generate"}
    # attribute type learned from a parameter annotation
    assert "torch.optim.Optimizer.step" in targets(same, f"{T}.train_step", "self.optimizer.step")
    assert targets(same, f"{T}.log_step", "print") == {"<builtin>.print"}
    assert same.attr_types[f"{E}.VllmEngine"]["llm"] == "vllm.LLM"


def test_decorator_partial_lambda_and_hooks(same: Graphs) -> None:
    assert targets(same, E, "<decorator>") == {f"{E}.timed"}
    assert targets(same, f"{E}.timed.wrapper", "fn") == {f"{E}.VllmEngine._run"}
    # functools.partial over a function taken from a dict literal of another module
    assert targets(same, f"{T}.train_step", "compute") == {"minirl.algo.loss.policy_loss"}
    # a bound method stored in a list, called in a for loop
    assert targets(same, f"{T}.train_step", "hook") == {f"{T}.log_step"}
    # a lambda handed to a library is an edge (callback) and a node
    assert same.calls.nodes[f"{T}.__init__.<lambda1>"]["kind"] == "lambda"


def test_getattr_string_and_dotted_path(same: Graphs) -> None:
    assert targets(same, f"{T}.sync_weights", "getattr()") == {f"{E}.VllmEngine.load_weights"}
    # a class attribute holding a dotted path names a repo function
    assert "minirl.algo.loss.value_loss" in targets(same, "minirl.trainer", "<string>")


def test_weak_fallback_keeps_unknown_receivers(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "class A:\n    def update_policy(self):\n        pass\n\n"
        "def f(x):\n    x.update_policy()\n    y.unknown_thing()\n")
    g = graphs_at(tmp_path)
    calls = {rc.site.func: rc for rc in g.resolved["m.f"]}
    assert calls["x.update_policy"].kind == "weak" and calls["x.update_policy"].targets == ("m.A.update_policy",)
    assert calls["y.unknown_thing"].targets == () and calls["y.unknown_thing"].via == "unresolved"


def graphs_at(root: Path) -> Graphs:
    settings = Settings(cache_dir=root / ".cache-gyr", jobs=1, use_cache=False)
    index = build_index(root, settings)
    return build_graphs(index, find_entry_points(index, settings)[0])


def test_reachability_from_main_guard(same: Graphs) -> None:
    assert "main" in same.roots
    assert {f"{T}.train_step", f"{E}.VllmEngine.load_weights", "minirl.algo.loss.policy_loss"} <= same.reached
    assert "unused.never_called" not in same.reached


def test_ray_actor_loop(ray_g: Graphs) -> None:
    d, w = "rayrl.driver", "rayrl.workers"
    assert targets(ray_g, f"{d}.make_actors", "Rollout.options().remote") == {f"{w}.Rollout.__init__"}
    assert targets(ray_g, f"{d}.make_actors", "ray.remote()().remote") == {f"{w}.Learner.__init__"}
    assert targets(ray_g, f"{d}.make_actors", "ref_cls.remote") == {f"{w}.RefWorker"}
    assert targets(ray_g, f"{d}.main", "rollout.generate.remote") == {f"{w}.Rollout.generate"}
    assert targets(ray_g, f"{d}.main", "learner.train.remote") == {f"{w}.Learner.train"}
    assert targets(ray_g, f"{d}.main", "score.remote") == {f"{w}.score"}
    assert targets(ray_g, f"{w}.Learner.train", "self.opt.step") == {"torch.optim.SGD.step"}
    # a method name passed as a string to a dispatcher, resolved inside it through getattr
    assert targets(ray_g, f"{w}.Dispatcher.execute_all", "getattr().remote") == {f"{w}.RefWorker.compute_ref"}
    assert f"{w}.RefWorker.compute_ref" in targets(ray_g, f"{d}.main", "group.execute_all", kind="weak")
    # worker_cls="pkg.mod.Cls" default argument
    assert f"{w}.RefWorker" in targets(ray_g, f"{d}.main", "<string>")
    edge = ray_g.calls.edges[f"{d}.main", f"{w}.Rollout.update_weights"]
    assert edge["via"] == "ray" and edge["kind"] == "exact"
    assert f"{w}.Rollout.update_weights" in ray_g.reached


def test_multiprocessing_queue_loop(tmp_path: Path) -> None:
    g = graphs("graphs_mpqueue", tmp_path)
    assert targets(g, "loop.run", "mp.Process") >= {"multiprocessing.Process", "loop.sampler"}
    assert targets(g, "loop.trainer", "queue.get") == {"multiprocessing.Queue.get"}
    assert {"loop.sampler", "loop.generate", "loop.trainer", "loop.update"} <= g.reached


def test_broken_file_is_skipped(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path / "cache", jobs=1)
    index = build_index(FIX / "graphs_broken", settings)
    assert any(d.file == "bad.py" for d in index.diagnostics)
    g = build_graphs(index, find_entry_points(index, settings)[0])
    assert targets(g, "good.main", "helper") == {"helper.helper"}
    assert "helper.helper" in g.reached


def test_no_entry_points_no_reach(tmp_path: Path) -> None:
    (tmp_path / "lib.py").write_text("def a():\n    b()\n\ndef b():\n    pass\n")
    g = graphs_at(tmp_path)
    assert g.calls.has_edge("lib.a", "lib.b") and g.reached == set() and g.roots == []


def test_value_flow_cases(tmp_path: Path) -> None:
    (tmp_path / "v.py").write_text(
        "def f1():\n    pass\n\ndef f2():\n    pass\n\n"
        "def make():\n    return f2\n\n"
        "def apply(fn):\n    fn()\n\n"
        "d = {'a': f1}\nd['a']()\n"
        "make()()\n"
        "apply(lambda: f1())\n"
        "for g in [f1, f2]:\n    g()\n"
        "class K:\n    def __init__(self):\n        self.cb = f2\n    def run(self):\n        self.cb()\n"
        "def gen():\n    yield f1\n\nfor h in gen():\n    h()\n")
    g = graphs_at(tmp_path)
    adj = {a: set(g.calls.adj[a]) for a in g.calls}
    assert {"v.f1", "v.f2", "v.make", "v.apply", "v.gen"} <= adj["v"]
    assert adj["v.apply"] == {"v.<lambda1>"} and adj["v.<lambda1>"] == {"v.f1"}
    assert adj["v.K.run"] == {"v.f2"}


def test_graph_command_formats(tmp_path: Path) -> None:
    runner = CliRunner()
    root = str(FIX / "graphs_sameproc")
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    res = runner.invoke(cli, ["graph", root, "--format", "pycg", "-j", "1"], env=env)
    assert res.exit_code == 0, res.output
    adj = json.loads(res.stdout)
    assert "main.build" in adj["main"] and f"{T}.fit" in adj["main"]
    assert "<builtin>.print" in adj[f"{T}.log_step"]
    res = runner.invoke(cli, ["graph", root, "--format", "pycg", "--entry", str(FIX / "graphs_sameproc/unused.py")],
                        env=env)
    assert res.exit_code == 0 and set(json.loads(res.stdout)) == {"unused"}
    res = runner.invoke(cli, ["graph", root, "--imports", "--format", "dot"], env=env)
    assert res.exit_code == 0 and '"minirl" -> "minirl.trainer"' in res.output
    res = runner.invoke(cli, ["graph", root, "--calls"], env=env)
    data = json.loads(res.stdout)
    assert res.exit_code == 0 and "imports" not in data and data["calls"]["edges"]


def test_graph_command_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["graph", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "no such file" in res.output
    res = runner.invoke(cli, ["graph", str(FIX / "graphs_broken"), "--entry", "missing.py"])
    assert res.exit_code == 2 and "missing.py" in res.output
    (tmp_path / "empty").mkdir()
    res = runner.invoke(cli, ["graph", str(tmp_path / "empty")])
    assert res.exit_code == 2 and "no Python files" in res.output


def test_resolution_cache_reused_only_when_nothing_changed(tmp_path: Path, monkeypatch) -> None:
    import gyrelint.graphs.build as build

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("from b import g\n\ndef f():\n    g()\n")
    (repo / "b.py").write_text("def g():\n    pass\n")
    settings = Settings(cache_dir=tmp_path / "cache", jobs=1)
    first = build.build_graphs(build_index(repo, settings), [], cache_dir=settings.cache_dir)
    assert first.calls.has_edge("a.f", "b.g")

    def boom(*args, **kwargs):
        raise AssertionError("resolution should come from the cache")

    with monkeypatch.context() as m:
        m.setattr(build, "Resolver", boom)
        m.setattr(build, "_resolve_edited", boom)
        again = build.build_graphs(build_index(repo, settings), [], cache_dir=settings.cache_dir)
    assert sorted(again.calls.edges) == sorted(first.calls.edges)
    (repo / "b.py").write_text("def g():\n    h()\n\ndef h():\n    pass\n")
    # a changed file: not the stored resolution, but a replay of the edit's cone (or a whole run)
    later = build.build_graphs(build_index(repo, settings), [], cache_dir=settings.cache_dir)
    assert later.calls.has_edge("b.g", "b.h")
    assert build.incremental.last_path[0] != "cached"


def test_graph_json_records_are_what_json_dumps_writes() -> None:
    from gyrelint.render.graph_dump import flat_json as _flat_json

    records = [
        {"id": "m.f", "kind": "function", "file": "pkg/ü.py", "line": 3},
        {"source": 'a"b\\c', "target": "<builtin>.print", "kind": "weak", "via": None, "lines": [1, 20]},
        {"id": "x", "flag": True, "nested": {"b": 1, "a": [1.5, "s"]}, "empty": []},
    ]
    for r in records:
        assert _flat_json(r) == json.dumps(r, sort_keys=True)


def test_with_statement_calls_enter_and_exit(tmp_path: Path) -> None:
    """``with obj:`` / ``async with obj as x:`` call the class's ``__enter__``/``__exit__`` (the async
    pair): exact edges when the object's class is known (an attribute set from a returned tuple, a
    constructor, an inherited method), none for an object of unknown class; ``as`` binds what the
    async enter method returns."""
    g = graphs("graphs_context_manager", tmp_path)
    w, gates = "tidepool.worker.Worker", "tidepool.gates"

    def out(caller: str) -> dict[str, dict]:
        return {b: d for _a, b, d in g.calls.out_edges(caller, data=True)}

    gen = out(f"{w}.generate")
    for m in ("__enter__", "__exit__"):
        assert gen[f"{gates}.WeightGate.{m}"]["kind"] == "exact" and gen[f"{gates}.WeightGate.{m}"]["via"] == "with"
    quiet = out(f"{w}.generate_quiet")
    assert {f"{gates}.WeightGate.__enter__", f"{gates}.WeightGate.__exit__"} <= set(quiet)
    lease = out(f"{w}.lease")
    assert {f"{gates}.AsyncLease.__aenter__", f"{gates}.AsyncLease.__aexit__"} <= set(lease)
    assert f"{gates}.AsyncLease.__enter__" not in lease
    assert targets(g, f"{w}.lease", "ticket.punch", "exact") == {f"{gates}.Ticket.punch"}
    assert not any(t.endswith(("__enter__", "__exit__")) for t in out("tidepool.worker.unknown"))
    # the weight push inside ``__enter__`` is reached from the entry point through the ``with``
    assert f"{gates}.WeightGate.push" in g.reached


def test_property_reads_give_the_getters_return_and_library_module_paths_do_not_stop_attributes(tmp_path: Path) -> None:
    """``self.holder.x`` where ``holder`` is a ``@property`` / ``@functools.cached_property``: the value
    is what the getter returns (not a bound method). An attribute of a library instance named like a
    part of the library's module path (``engine`` of ``vllm.engine...AsyncLLMEngine``) still resolves."""
    (tmp_path / "p.py").write_text(
        "import functools\n"
        "from vllm.engine.async_llm_engine import AsyncLLMEngine\n\n"
        "class Box:\n    def __init__(self, engine: AsyncLLMEngine):\n        self.engine = engine\n"
        "    def open(self):\n        return 1\n\n"
        "class Desk:\n    @functools.cached_property\n    def box(self):\n        return Box(None)\n"
        "    @property\n    def other(self):\n        return Box(None)\n"
        "    def use(self):\n        self.box.open()\n        self.other.open()\n"
        "        self.box.engine.engine.add_lora(1)\n")
    g = graphs_at(tmp_path)
    calls = {rc.site.func: rc for rc in g.resolved["p.Desk.use"]}
    assert calls["self.box.open"].targets == ("p.Box.open",) and calls["self.box.open"].kind == "exact"
    assert calls["self.other.open"].targets == ("p.Box.open",) and calls["self.other.open"].kind == "exact"
    assert calls["self.box.engine.engine.add_lora"].targets == ("vllm.engine.async_llm_engine.AsyncLLMEngine.engine.add_lora",)
