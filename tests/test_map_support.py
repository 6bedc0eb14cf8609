"""A hand-built analysis of tests/fixtures/map_loop, so the map and report tests do not depend on
the semantics stage: the sides, call edges and handoff below are what a correct analysis says."""

from __future__ import annotations

from pathlib import Path

from gyrelint.api import Analysis, index_repo
from gyrelint.graphs.model import FunctionInfo, Graphs
from gyrelint.model import (
    ConfigKey,
    EntryPoint,
    Evidence,
    FieldContract,
    FieldUse,
    Finding,
    FunctionReport,
    Handoff,
    HandoffKind,
    ModuleReport,
    Severity,
    Side,
    Topology,
)
from gyrelint.settings import load_settings

FIXTURE = Path(__file__).parent / "fixtures" / "map_loop"
P = "looprl"
SIDES = {
    f"{P}.rollout.Sampler.generate": (Side.SAMPLING, None, "inference-engine-generate"),
    f"{P}.rollout.Sampler.score": (Side.SAMPLING, None, "reward-in-rollout"),
    f"{P}.rollout.Sampler.load_weights": (Side.HANDOFF, HandoffKind.WEIGHT_SYNC, "engine-load-weights"),
    f"{P}.buffer.TrajectoryBuffer.put": (Side.HANDOFF, HandoffKind.TRAJECTORY, "queue-put"),
    f"{P}.buffer.TrajectoryBuffer.get": (Side.HANDOFF, HandoffKind.TRAJECTORY, "queue-get"),
    f"{P}.trainer.Trainer.consume": (Side.TRAINING, None, "reads-trajectory"),
    f"{P}.trainer.Trainer.compute_advantages": (Side.TRAINING, None, "advantage-estimate"),
    f"{P}.trainer.Trainer.update": (Side.TRAINING, None, "optimizer-step"),
    f"{P}.sync.push_weights": (Side.HANDOFF, HandoffKind.WEIGHT_SYNC, "state-dict-push"),
    f"{P}.main.train_loop": (Side.DRIVER, None, "drives-both"),
}
CALLS = [
    ("main.train_loop", "rollout.Sampler.generate"),
    ("main.train_loop", "buffer.TrajectoryBuffer.put"),
    ("main.train_loop", "trainer.Trainer.update"),
    ("main.train_loop", "sync.push_weights"),
    ("rollout.Sampler.generate", "rollout.Sampler.score"),
    ("trainer.Trainer.update", "trainer.Trainer.consume"),
    ("trainer.Trainer.consume", "buffer.TrajectoryBuffer.get"),
    ("sync.push_weights", "rollout.Sampler.load_weights"),
    ("main", "main.train_loop"),
]


def evidence_line(file: str, needle: str) -> int:
    for i, text in enumerate((FIXTURE / file).read_text().splitlines(), 1):
        if needle in text:
            return i
    raise AssertionError(f"{needle!r} not in {file}")


def fixture_analysis(root: Path = FIXTURE, extra: int = 0) -> Analysis:
    """The analysis of the fixture; ``extra`` adds that many synthetic sampling/training functions
    spread over packages, to exercise collapsing."""
    index = index_repo(root, use_cache=False)
    settings, _ = load_settings(root)
    graphs = Graphs()
    functions: dict[str, FunctionReport] = {}
    for s in index.summaries.values():
        graphs.imports.add_node(s.module, file=s.path)
        graphs.calls.add_node(s.module, kind="module", file=s.path, line=1)
        for f in s.functions:
            q = f"{s.module}.{f.qualname}"
            graphs.functions[q] = FunctionInfo(q, s.module, s.path, f)
            graphs.calls.add_node(q, kind="function", file=s.path, line=f.line)
            side, kind, signal = SIDES.get(q, (Side.NEUTRAL, None, ""))
            ev = []
            if signal:
                body = (root / s.path).read_text().splitlines()[f.line:f.end_line]
                line = f.line + 1 + next((i for i, t in enumerate(body) if t.strip() and not t.strip().startswith('"')), 0)
                ev = [Evidence(signal, s.path, line)]
            functions[q] = FunctionReport(q, s.path, f.line, side, kind, True, ev)
    for u, v in CALLS:
        graphs.calls.add_edge(f"{P}.{u}", f"{P}.{v}", kind="exact", via="call")
    graphs.imports.add_edges_from([(f"{P}.main", f"{P}.{m}") for m in ("rollout", "buffer", "trainer", "sync")])
    for i in range(extra):
        side = (Side.SAMPLING, Side.TRAINING)[i % 2]
        q = f"{P}.gen.pkg{i % 7}.sub{i % 3}.mod{i % 11}.fn{i}"
        file = q.rsplit(".", 1)[0].replace(".", "/") + ".py"
        functions[q] = FunctionReport(q, file, i + 1, side, None, i % 3 == 0, [Evidence("synthetic", file, i + 1)])
        graphs.calls.add_edge(f"{P}.main.train_loop", q, kind="weak" if i % 5 == 0 else "exact", via="call")
    mods = sorted({q.rsplit(".", 1)[0] for q in SIDES if q.count(".") == 2} | {f"{P}.rollout", f"{P}.trainer"})
    modules = [ModuleReport(f"{P}.rollout", Side.SAMPLING), ModuleReport(f"{P}.trainer", Side.TRAINING),
               ModuleReport(f"{P}.buffer", Side.HANDOFF, True), ModuleReport(f"{P}.sync", Side.HANDOFF),
               ModuleReport(f"{P}.main", Side.DRIVER)]
    assert mods
    contract = FieldContract(
        produced={"tokens": [FieldUse("tokens", f"{P}/rollout.py", evidence_line(f"{P}/rollout.py", '"tokens"'), f"{P}.rollout.Sampler.score")],
                  "reward": [FieldUse("reward", f"{P}/rollout.py", evidence_line(f"{P}/rollout.py", '"reward"'), f"{P}.rollout.Sampler.score")]},
        consumed={"tokens": [FieldUse("tokens", f"{P}/trainer.py", evidence_line(f"{P}/trainer.py", 'batch["tokens"]'), f"{P}.trainer.Trainer.consume")],
                  "advantages": [FieldUse("advantages", f"{P}/trainer.py", evidence_line(f"{P}/trainer.py", 'batch["advantages"]'), f"{P}.trainer.Trainer.consume")]},
    )
    handoff = Handoff(trajectory=[f"{P}.buffer.TrajectoryBuffer.put", f"{P}.buffer.TrajectoryBuffer.get"],
                      weight_sync=[f"{P}.sync.push_weights", f"{P}.rollout.Sampler.load_weights"], online=True,
                      weight_sync_path=[f"{P}.trainer.Trainer.update", f"{P}.main.train_loop", f"{P}.sync.push_weights",
                                        f"{P}.rollout.Sampler.load_weights"],
                      fields=contract)
    note_line = evidence_line("config.yaml", "note:")
    topology = Topology(
        verdict="same-process", reasons=["one python process: no launcher, no RPC"],
        config_keys=[ConfigKey("trainer.nnodes", "process", "1", "config.yaml", evidence_line("config.yaml", "nnodes")),
                     ConfigKey("rollout.port", "port", "8000", "config.yaml", evidence_line("config.yaml", "port")),
                     ConfigKey("rollout.note", "comm", "<script>alert('config')</script>", "config.yaml", note_line)],
        trajectory_transport="queue", weight_transport="in-process")
    findings = [
        Finding("GYR003", Severity.ERROR, "field 'advantages' is read by the trainer but no rollout writes it",
                f"{P}/trainer.py", evidence_line(f"{P}/trainer.py", 'batch["advantages"]'),
                fix="write 'advantages' in the rollout or compute it before the loss"),
        Finding("GYR010", Severity.WARNING, "weight sync has no version counter <b>x</b>",
                f"{P}/sync.py", 1, fix="log the policy version the sampler sees"),
        Finding("GYR020", Severity.INFO, "rollout port in config", "config.yaml", note_line, fix="nothing to do"),
    ]
    entries = [EntryPoint(f"{P}.main", f"{P}/main.py", "main-guard", f"{P}/main.py", evidence_line(f"{P}/main.py", "__main__")),
               EntryPoint(f"{P}.main", f"{P}/main.py", "readme", "README.md", 6, "python -m looprl.main --config config.yaml")]
    return Analysis(root=root, given_root=str(root), settings=settings, index=index, entry_points=entries,
                    graphs=graphs, functions=functions, modules=modules, boundary_modules=[f"{P}.buffer"],
                    handoff=handoff, topology=topology, findings=findings)
