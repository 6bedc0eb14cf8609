"""The graphs stage copies the resolver's answer in its compact form as it reads it
(``build._resolution_of``) and frees the resolver before building the graph: the copy must be
what :func:`graphs.resolve.results` says, value for value and in the same order, and the token
memos the semantics stage frees must rebuild the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from gyrelint.graphs import build
from gyrelint.graphs.resolve import Resolver, results
from gyrelint.graphs.strings import string_edges
from gyrelint.index import build_index
from gyrelint.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("name", ["accuracy_dispatch", "accuracy_handoff_hops", "accuracy_chain"])
def test_compact_resolution_equals_the_results_pass(name: str) -> None:
    index = build_index(FIXTURES / name, Settings(use_cache=False, jobs=1))
    sums = list(index.summaries.values())
    ref = Resolver(sums)
    ref.run()
    res = results(ref)
    want_sites = {k: tuple((e.target, e.kind, e.via) for e in v) for k, v in res.site_edges.items() if v}
    want_strings = {k: (tuple(sorted(t)), text) for k, (t, text) in string_edges(sums, ref).items()}
    r = Resolver(sums)
    r.run()
    got = build._resolution_of(r, sums)
    assert list(got.sites.items()) == list(want_sites.items())
    assert got.implicit == {k: tuple(sorted(v)) for k, v in res.implicit.items()}
    assert got.strings == want_strings and got.attr_types == res.attr_types and got.bases == res.bases
    assert got.sites


def test_token_memos_rebuild_the_same() -> None:
    from gyrelint.graphs import build_graphs
    from gyrelint.semantics.catalog import SIGNALS
    from gyrelint.semantics.facts import build_facts
    from gyrelint.semantics.signals import Matcher

    index = build_index(FIXTURES / "accuracy_chain", Settings(use_cache=False, jobs=1))
    graphs = build_graphs(index, [])
    facts = build_facts(index, graphs, Matcher(list(SIGNALS)).methods)
    before = {q: (fn.tokens(), fn.token_text()) for q, fn in facts.functions.items()}
    import importlib

    importlib.import_module("gyrelint.semantics.tag")._drop_token_memos(facts)
    assert all(fn._tokens is None for fn in facts.functions.values())
    assert {q: (fn.tokens(), fn.token_text()) for q, fn in facts.functions.items()} == before
