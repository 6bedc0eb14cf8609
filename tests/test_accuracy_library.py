"""A library shipped without a launcher: one-process trainers driven by one ``fit`` loop.

The fixture ``accuracy_library_loop`` is an unpacked wheel (``*.dist-info``, no script, no
``__main__``): user scripts outside the tree call the trainer's ``fit()``/``run()``. Generation goes
through a compiled engine wrapper, rewards through a Triton futures client, the loss through
Megatron's forward-backward function, and the engine is refit with the trained module's weights
in the same process; a variant keeps the rollouts in a store between the two chains.
"""

from __future__ import annotations

from test_accuracy_patterns import FIX, _analysis, own_signals, wrong_labels

from gyrelint.api import analyze
from gyrelint.graphs.reach import ENTRY_POINTS, PUBLIC_API, api_roots, loop_reach

NAME = "accuracy_library_loop"


def test_sides_of_a_one_process_library_trainer():
    """Engine wrapper and remote scorer sampling, refit weight sync, fit/run drivers, store handoff."""
    assert wrong_labels(NAME) == []


def test_the_library_loop_is_online_in_one_process():
    a = _analysis(NAME)
    assert a.handoff.online
    assert a.handoff.weight_sync_path[-1] in ("quillrl.engines.fast_decoder.FastDecoder.refit",
                                              "quillrl.engines.colocated.ColocatedSampler.sync")
    first = a.functions[a.handoff.weight_sync_path[0]]  # from the weight sender, not the optimizer step
    assert first.side.value == "handoff" and first.handoff_kind.value == "weight_sync"
    assert a.topology.verdict == "same-process"


def test_public_api_stands_in_for_missing_entry_points():
    """No entry point at all: the trainer's public methods are the roots, so the loop counts as reached
    and the rules do not report both chains as unreachable."""
    a = analyze(FIX / NAME, use_cache=False, jobs=1)
    assert not a.entry_points
    assert a.functions["quillrl.algorithms.trainer.OnlineTrainer.fit"].reached
    assert a.functions["quillrl.engines.fast_decoder.FastDecoder.generate"].reached
    assert not {f.rule for f in a.findings} & {"GYR001", "GYR002"}


def test_api_roots_are_public_and_uncalled():
    g = _analysis(NAME).graphs
    roots = set(api_roots(g, lambda _f: False))
    assert "quillrl.algorithms.trainer.OnlineTrainer.fit" in roots
    assert "quillrl.algorithms.trainer.OnlineTrainer.generate_rollouts" not in roots  # fit calls it
    assert not any("._" in q.replace(".__init__", "") for q in roots)  # no private helper


def test_entry_points_that_reach_the_loop_keep_their_answer():
    """A repo whose launcher reaches the loop: the public API adds nothing."""
    a = _analysis("accuracy_same_object")
    g = a.graphs
    loop = [q for q, f in a.functions.items() if f.side.value != "neutral"]
    assert any(q in g.reached for q in loop)
    got = loop_reach(g, loop, lambda _f: False)
    assert got.reached == g.reached and got.roots == ENTRY_POINTS


def test_the_public_api_reach_is_the_semantics_result_and_the_graphs_stay_as_built():
    """The public-API reach is a result of its own (``Semantics.reach``, ``Analysis.reach_roots``):
    the graphs' ``reached`` keeps what the entry points reach (here nothing), on a cold run and on
    a run whose semantics come from the cache alike. Before, the semantics stage overwrote it."""
    import tempfile
    from pathlib import Path

    from gyrelint.graphs import build_graphs
    from gyrelint.index import build_index
    from gyrelint.semantics import tag
    from gyrelint.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(cache_dir=Path(tmp), jobs=1)
        for _ in range(2):  # cold, then the semantics cache
            index = build_index(FIX / NAME, settings)
            g = build_graphs(index, [])
            before = set(g.reached)
            sem = tag(index, g, settings)
            assert g.reached == before == set()
            assert sem.reach.roots == PUBLIC_API
            assert "quillrl.algorithms.trainer.OnlineTrainer.fit" in sem.reach.reached
            assert sem.functions["quillrl.algorithms.trainer.OnlineTrainer.fit"].reached
    assert analyze(FIX / NAME, use_cache=False, jobs=1).reach_roots == PUBLIC_API


def test_look_alikes_around_a_trainer_stay_neutral():
    """A CLI parser called only by the training main, a ``parameters()`` override of a module list,
    a stats export gathering key names over a process group and a pool popping server handles
    take no side; a real experience buffer stays the trajectory handoff."""
    assert wrong_labels("accuracy_lookalikes") == []


def test_a_repo_helper_named_like_a_module_is_no_forward_pass():
    """``_swap_module(model, ...)`` in a body that mentions logits runs no model."""
    for q in ("brindle.train.fake_quantize", "brindle.train._swap_module"):
        assert "model-logprob-forward" not in own_signals("accuracy_lookalikes", q)
