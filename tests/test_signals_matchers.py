"""Matchers on hand-built call facts: the receiver's role decides what ``.step()`` means."""

from __future__ import annotations

from gyrelint.index.summary import Arg, CallSite, FunctionDef
from gyrelint.semantics.catalog import SIGNALS
from gyrelint.semantics.facts import MEDIUM, STRONG, CallFact, Facts, FnFacts, role_of_name, role_of_type
from gyrelint.semantics.signals import Matcher

MATCHER = Matcher(SIGNALS)


def _fn(*calls: CallFact) -> FnFacts:
    fn = FnFacts("m.f", "m", "m.py", FunctionDef("f", "f", 1, 9), None)
    fn.calls.extend(calls)
    return fn


def _ids(*calls: CallFact) -> set[str]:
    return {m.signal.id for m in MATCHER.match(_fn(*calls), Facts()) if not m.signal.guard}


def _call(func: str, names=(), role=None, strength=0.0, args=(), kwargs=(), targets=(), kind="exact") -> CallFact:
    site = CallSite("f", func, 3, tuple(args), tuple(kwargs))
    return CallFact(site, func.rsplit(".", 1)[-1], tuple(names), role, strength, targets=tuple(targets), kind=kind,
                    ext_own=bool(names))


def test_roles_from_library_types():
    assert role_of_type("torch.optim.AdamW") == "optimizer"
    assert role_of_type("torch.optim.lr_scheduler.CosineAnnealingLR") == "scheduler"
    assert role_of_type("gymnasium.make") == "env"
    assert role_of_type("vllm.LLM") == "llm_engine"
    assert role_of_type("vllm.SamplingParams") is None


def test_roles_from_receiver_names_are_weaker():
    assert role_of_name("self.actor_optim") == ("optimizer", MEDIUM)
    assert role_of_name("self.lr_scheduler") == ("scheduler", MEDIUM)
    assert role_of_name("self.train_env")[0] == "env"
    assert role_of_name("self.report") == (None, 0.0)


def test_step_depends_on_the_receiver():
    assert "optimizer-step" in _ids(_call("opt.step", ("torch.optim.AdamW.step",), "optimizer", STRONG))
    assert _ids(_call("env.step", ("gymnasium.make.step",), "env", STRONG, args=[Arg("name", "a")])) == {"env-step"}
    assert _ids(_call("sched.step", ("torch.optim.lr_scheduler.StepLR.step",), "scheduler", STRONG)) == {
        "lr-scheduler-step"}
    assert _ids(_call("self.counter.step")) == set()


def test_generate_needs_an_engine_a_model_or_generation_kwargs():
    assert "vllm-generate" in _ids(_call("self.llm.generate", ("vllm.LLM.generate",), "llm_engine", STRONG))
    assert "hf-generate" in _ids(_call("m.generate", kwargs=[("max_new_tokens", Arg("lit", 8))]))
    assert _ids(_call("self.builder.generate_report")) == set()
    assert _ids(_call("self.rows.generate")) == set()


def test_name_only_evidence_yields_to_repo_code():
    # a bare method name counts weakly, and not at all when the call resolves to repo code
    weak = _ids(_call("x.update_weights"))
    assert weak == {"weight-update-call"}
    assert _ids(_call("x.update_weights", targets=["pkg.Engine.update_weights"])) == set()
