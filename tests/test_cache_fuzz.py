"""Bounded fuzzing of the cache decoders: real entries of every namespace, mutated
(byte flips, truncation, insertions, duplication), decode to a miss or to a valid
object of the namespace's type, never to an exception. Runs in CI in a few seconds
(fixed example count, no deadline); ``bench/fuzz.py`` runs the same target for longer."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gyrelint.analysis_cache import LastRun
from gyrelint.api import Analysis
from gyrelint.graphs.build import Resolution
from gyrelint.graphs.incremental import Provenance
from gyrelint.index.summary import FileSummary
from gyrelint.semantics.cache import Stored
from gyrelint.semantics.module_facts import ModuleFacts
from gyrelint.topology.file_cache import FileKeys


def _bench_fuzz():  # noqa: ANN202 - the bench module
    spec = importlib.util.spec_from_file_location("gyrelint_bench_fuzz", Path(__file__).parent.parent / "bench" / "fuzz.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


_fuzz = _bench_fuzz()
CACHE_NAMESPACES, cache_seeds, decode_cache_payload, mutated = (
    _fuzz.CACHE_NAMESPACES, _fuzz.cache_seeds, _fuzz.decode_cache_payload, _fuzz.mutated)
with tempfile.TemporaryDirectory(prefix="gyrelint-cache-fuzz-") as _work:
    SEEDS = cache_seeds(Path(_work))

VALID = {"summaries": (FileSummary, tuple), "analysis": (Analysis,), "last": (LastRun,), "graphs": (Resolution,),
         "semantics": (Stored,), "findings": (tuple,), "provenance": (Provenance,), "configs": (FileKeys,),
         "modfacts": (ModuleFacts,)}


def test_seeds_cover_every_namespace_and_decode() -> None:
    assert {CACHE_NAMESPACES[s[0]] for s in SEEDS} == set(CACHE_NAMESPACES)
    for seed in SEEDS:
        got = decode_cache_payload(seed)
        assert isinstance(got, VALID[CACHE_NAMESPACES[seed[0]]]), CACHE_NAMESPACES[seed[0]]


@pytest.mark.parametrize("ns", CACHE_NAMESPACES)
def test_mutated_entries_are_a_miss_or_a_valid_object(ns: str) -> None:
    own = [s for s in SEEDS if CACHE_NAMESPACES[s[0]] == ns]

    @settings(max_examples=60, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(mutated(own) | st.binary(max_size=64).map(lambda b: bytes([CACHE_NAMESPACES.index(ns)]) + b))
    def prop(data: bytes) -> None:
        if data and CACHE_NAMESPACES[data[0] % len(CACHE_NAMESPACES)] != ns:
            data = bytes([CACHE_NAMESPACES.index(ns)]) + data[1:]  # a flipped first byte: keep the namespace
        got = decode_cache_payload(data)
        assert got is None or isinstance(got, VALID[ns])

    prop()
