"""A launcher that calls the step loop is a driver even when the loop's scores reach it faintly.

Failed before: ``_calls_both_chains`` skipped a non-solid callee when the caller's scores were
faint, before it looked at whether that callee was a driver, so verl's ``main_ppo.main`` (one
exact call to the driver ``run_ppo``, whose sampling evidence is several hops down) came out
training once the vendored-copy fix removed an accidental handoff it used to inherit.
"""

from __future__ import annotations

from gyrelint.model import Side
from gyrelint.semantics.sides import FIRM, SideResult, _calls_both_chains


def test_an_exact_call_to_a_driver_makes_a_driver_whatever_the_scores():
    results = {"pkg.loop.run": SideResult(side=Side.DRIVER, solid=False)}
    assert _calls_both_chains(0.1, 0.6, {}, {"pkg.loop.run": FIRM}, results)


def test_a_guessed_call_to_a_driver_does_not():
    results = {"pkg.loop.run": SideResult(side=Side.DRIVER, solid=False)}
    assert not _calls_both_chains(0.1, 0.6, {}, {"pkg.loop.run": FIRM * 0.5}, results)


def test_faint_calls_to_non_solid_chains_still_do_not():
    results = {"pkg.gen.rollout": SideResult(side=Side.SAMPLING, solid=False),
               "pkg.learn.update": SideResult(side=Side.TRAINING, solid=False)}
    assert not _calls_both_chains(0.1, 0.1, {}, {"pkg.gen.rollout": FIRM, "pkg.learn.update": FIRM}, results)
