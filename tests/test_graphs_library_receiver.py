"""A method called on a value a library call made is a library call, not a name guess.

``sub = parser.add_subparsers(); run = sub.add_parser("run")``: ``sub`` and ``run`` hold no
repo value, yet they are not unknown: a library built them. Guessing every repo method named
``add_parser``/``set_defaults``/``run`` for them was a false edge; only a repo subclass of
that library's classes can be the target (``gymnasium.make`` hands back a repo env)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gyrelint.entrypoints import find_entry_points
from gyrelint.graphs import Graphs, build_graphs
from gyrelint.index import build_index
from gyrelint.settings import Settings

FIX = Path(__file__).parent / "fixtures" / "graphs_library_receiver"
M = "cliapp.main"
C = "cliapp.commands"


@pytest.fixture(scope="module")
def g(tmp_path_factory) -> Graphs:
    settings = Settings(cache_dir=tmp_path_factory.mktemp("libcache"), jobs=1, use_cache=False)
    index = build_index(FIX, settings)
    return build_graphs(index, find_entry_points(index, settings)[0])


def repo_targets(g: Graphs, caller: str, func: str) -> set[tuple[str, str]]:
    """Repo targets the call's method name gave (a literal argument naming a method is
    string dispatch, a rule of its own)."""
    return {(t, rc.kind) for rc in g.resolved.get(caller, []) if rc.site.func == func and rc.via != "string"
            for t in rc.targets if t.startswith("cliapp.")}


def test_methods_of_library_results_guess_nothing(g: Graphs) -> None:
    assert repo_targets(g, f"{M}.build_parser", "sub.add_parser") == set()
    assert repo_targets(g, f"{M}.build_parser", "run.set_defaults") == set()  # a library result's result
    assert repo_targets(g, f"{M}.drain", "fut.result") == set()
    assert not g.calls.has_edge(f"{M}.build_parser", f"{C}.Launcher.add_parser")


def test_repo_subclass_of_the_library_stays_a_target(g: Graphs) -> None:
    assert repo_targets(g, f"{M}.rollout", "env.step") == {(f"{C}.GridEnv.step", "weak")}
    assert repo_targets(g, f"{M}.rollout", "env.reset().run") == set()


def test_unknown_and_retrieved_values_keep_the_guess(g: Graphs) -> None:
    # a future's result, a parameter: what they hold is not known, the guess stays
    assert repo_targets(g, f"{M}.drain", "done.run") == {(f"{C}.Launcher.run", "weak")}
    assert repo_targets(g, f"{M}.drain", "item.run") == {(f"{C}.Launcher.run", "weak")}


def test_a_library_handed_repo_objects_may_hand_them_back(g: Graphs) -> None:
    assert repo_targets(g, f"{M}.best", "top.result") == {(f"{C}.Worker.result", "weak")}
    assert repo_targets(g, f"{M}.best", "wrapped.result") == {(f"{C}.Worker.result", "weak")}
    # a module made from a file spec is repo code, whatever library loaded it: its ``Worker`` is the
    # repo's one top-level class of that name (graphs/runtime_modules.py), so the call is exact
    assert repo_targets(g, f"{M}.load_by_path", "worker.result") == {(f"{C}.Worker.result", "exact")}


def test_an_attribute_of_a_library_object_may_hold_repo_objects(g: Graphs) -> None:
    assert repo_targets(g, f"{M}.serve", "job.set_defaults") == {(f"{C}.Launcher.set_defaults", "weak")}
