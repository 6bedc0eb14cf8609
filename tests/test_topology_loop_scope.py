"""The process verdict weighs what the online loop reaches with the shipped defaults above repo-wide
evidence: a chat API server the loop never calls and a launcher running whole copies of the trainer as
Ray workers (``topology_loop_servers``), or an engine path inside the loop behind a handle that stays
``None`` unless a config value unset by default is given (``topology_loop_optional``), do not make a
loop that generates with the module its optimizer steps cross-process. Both verdicts were
cross-process before ``topology/loop_scope.py``."""

import shutil
from pathlib import Path

from gyrelint.api import analyze
from gyrelint.topology.loop_scope import off_handles

FIXTURES = Path(__file__).parent / "fixtures"


def test_servers_and_launch_copies_outside_the_loop_leave_it_in_one_process():
    a = analyze(FIXTURES / "topology_loop_servers", use_cache=False, jobs=1)
    assert [e.via for e in a.handoff.online_evidence] == ["self.model"]
    assert a.topology.verdict == "same-process"
    assert "quillmoor.tune.HeronTuner.draw" in a.topology.reasons[0]
    # the other evidence is still reported, only outweighed
    assert any("ray.init" in r for r in a.topology.reasons)


def test_an_engine_path_behind_a_handle_unset_by_default_is_not_the_loop():
    a = analyze(FIXTURES / "topology_loop_optional", use_cache=False, jobs=1)
    assert a.topology.verdict == "same-process"
    assert off_handles(a.index, a.topology.keys) == {("tidewell/loop.py", "OnlineTuner"): {"hosts"}}


def test_the_same_path_on_by_default_is_cross_process(tmp_path):
    """The counter-case: a default size starts the engine actors, so the loop generates through them."""
    root = tmp_path / "on"
    shutil.copytree(FIXTURES / "topology_loop_optional", root)
    loop = root / "tidewell" / "loop.py"
    loop.write_text(loop.read_text().replace('cfg.get("host_tp_size", None)', 'cfg.get("host_tp_size", 2)'))
    a = analyze(root, use_cache=False, jobs=1)
    assert off_handles(a.index, a.topology.keys) == {}
    assert a.topology.verdict == "cross-process"


def test_a_same_object_site_nothing_runs_says_nothing_about_the_loop():
    """A model wrapper's own ``generate`` that no loop is seen to call (unreached) must not outweigh the
    repo's cross-process evidence: the rule only reads a sampler the run reaches."""
    from gyrelint.topology.evidence import collect
    from gyrelint.topology.loop_scope import sampler_stays_local
    from gyrelint.topology.names import Namer, resolved_by_file

    a = analyze(FIXTURES / "topology_loop_servers", use_cache=False, jobs=1)
    resolved = resolved_by_file(a.graphs)
    namers = {p: Namer(s, resolved.get(p), a.graphs.symbols) for p, s in a.index.summaries.items()}
    ev = collect(a.index, a.graphs, namers, set())
    online = a.handoff.online_evidence
    reached = {q for q, f in a.functions.items() if f.reached}
    assert sampler_stays_local(a.graphs, ev, online, a.index, a.topology.keys, reached) is not None
    assert sampler_stays_local(a.graphs, ev, online, a.index, a.topology.keys, set()) is None
