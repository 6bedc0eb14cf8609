"""A body named like a reporter that hands a training callee's loss back (pattern G/K).

``get_batch_loss_metrics`` returns ``(loss, metrics)``: the loss it returns is computed from
what its training callees gave (``losses, ... = self.pair_loss(...)``; ``return losses.mean(),
metrics``), so the caller backpropagates the very value it returns. The metrics it also builds
do not make it a reporter; a reporter returns its dict of numbers (or nothing), never the loss
first. Follows the value, not the name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..index.summary import Flow
from ..model import Side
from .taint import BodyTaint, FlowIndex, dotted_text

if TYPE_CHECKING:
    from .facts import FnFacts
    from .sides import SideResult


class _CalleeResult(BodyTaint):
    """Names holding (or computed from) what one of the given callees returned."""

    def __init__(self, flows: list[Flow], callees: set[str]) -> None:
        super().__init__(flows)
        self.callees = callees

    def call_holds(self, e: tuple, depth: int) -> bool:
        if dotted_text(e[1]) in self.callees:
            return True
        # ``losses.mean()``: a method of a held value; ``self.lib_loss(logps, ...)``: computed from one
        return self.holds(e[1], depth) or self.args_hold(e, depth)


def returns_training_loss(q: str, fn: FnFacts, results: Mapping[str, SideResult], flows: FlowIndex) -> bool:
    """The body returns a tuple whose first item is built from a training callee's result."""
    callees = {c.site.func for c in fn.calls
               if any((cr := results.get(t)) is not None and cr.side == Side.TRAINING for t in c.targets if t != q)}
    if not callees:
        return False
    body = flows.of(q)
    rets = [fl.value for fl in body if fl.op == "ret"]
    firsts = [v[2][0] for v in rets if isinstance(v, tuple) and v[:1] == ("l",) and len(v) > 2 and v[2]]
    if not firsts or len(firsts) != len(rets):
        return False
    taint = _CalleeResult(body, callees)
    taint.run()
    return all(taint.holds(x) for x in firsts)
