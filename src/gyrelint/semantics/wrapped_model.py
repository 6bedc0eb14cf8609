"""The instance's model seen through a library's unwrapping, and trained by a library's PPO step.

Trainers built on accelerate/TRL generate with an unwrapped view of the model they keep on
``self``: ``m = self.accelerator.unwrap_model(self.model)`` or ``with
unwrap_model_for_generation(self.model, acc) as m:``, then ``m.generate(...)``. The view is the
same module object, so ``m.generate`` samples with ``self.model``. TRL's online
``PPOTrainer.step(queries, responses, scores)`` (trl <= 0.11) runs its forward passes, backward
and optimizer step on the ``self.model`` it was built with: a loop that calls it trains that
attribute although no repo body touches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..index.summary import Flow
    from .facts import CallFact

# the attribute TRL's PPOTrainer keeps the policy (with its value head) on
_PPO_STEP = ("trl.PPOTrainer.step",)
_PPO_STEP_SUFFIX = "PPOTrainer.step"


def _self_attr(e: object) -> str | None:
    """``self.X`` as an expression tree: ``X``."""
    if isinstance(e, tuple) and len(e) == 3 and e[0] == "a" and e[1] == ("n", "self") and isinstance(e[2], str):
        return e[2]
    return None


def unwrapped_views(flows: list[Flow]) -> dict[str, str]:
    """Local name -> ``self`` attribute it is an unwrapped view of (``m = acc.unwrap_model(self.model)``)."""
    out: dict[str, str] = {}
    for fl in flows:
        if fl.op not in ("=", "with") or not isinstance(fl.target, tuple) or fl.target[:1] != ("n",):
            continue
        v = fl.value
        if not isinstance(v, tuple) or v[:1] != ("c",) or len(v) < 3:
            continue
        func = v[1]
        name = func[2] if isinstance(func, tuple) and func[:1] == ("a",) else \
            func[1] if isinstance(func, tuple) and func[:1] == ("n",) else None
        if not isinstance(name, str) or "unwrap" not in name:
            continue
        args = v[2] if isinstance(v[2], tuple) else ()
        attr = _self_attr(args[0]) if args else None
        if attr is not None and isinstance(fl.target[1], str):
            out[fl.target[1]] = attr
    return out


def library_trained(c: CallFact) -> set[str]:
    """The ``self`` attributes a library training call updates: TRL's PPO step trains ``self.model``."""
    if c.site.func == "self.step" and any(n in _PPO_STEP or n.endswith("." + _PPO_STEP_SUFFIX) for n in c.names):
        return {"model"}
    return set()
