"""A plain run depends on a cached MRO as one key, a recording run on the MRO's keys themselves
(graphs/incremental.py replays and checks those): both must reach the same fixed point."""

from __future__ import annotations

from pathlib import Path

import pytest

from gyrelint.api import demo_root
from gyrelint.graphs.resolve import Resolver, results
from gyrelint.graphs.symbols import symbols_of
from gyrelint.index import build_index
from gyrelint.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"


def _fixed_point(root: Path, record: bool):
    index = build_index(root, Settings(use_cache=False, jobs=1))
    r = Resolver(list(index.summaries.values()), symbols_of(index))
    runs = r.run(record=record)
    res = results(r)
    return runs, dict(r.store), res.site_edges, res.implicit, res.bases


@pytest.mark.parametrize("root", [FIXTURES / "late_mro", demo_root()], ids=["late_mro", "demo"])
def test_one_key_mro_dependency_reaches_the_recorded_fixed_point(root: Path) -> None:
    plain, recorded = _fixed_point(root, False), _fixed_point(root, True)
    assert plain == recorded


def test_late_base_is_followed() -> None:
    """The base arrives through a call's return: the subclasses' MROs are recomputed once it does."""
    _, _, edges, _, bases = _fixed_point(FIXTURES / "late_mro", False)
    assert bases["pkg.shop.Teapot"] == ("pkg.core.Kettle",)
    targets = {e.target for es in edges.values() for e in es}
    assert {"pkg.shop.Samovar.brew", "pkg.shop.Teapot.pour", "pkg.core.Kettle.pour", "pkg.shop.whistle"} <= targets
