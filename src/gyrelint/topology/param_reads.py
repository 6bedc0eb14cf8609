"""Library functions that read a module's parameters when handed it (``get_model_state_dict(self.module)``).

The engine-local-load evidence looks for a method that reads one attribute's parameters and loads
them into another attribute's engine. The read is often no method of the module
(``self.module.state_dict()``) but a library function handed the module: the distributed
checkpoint API's state-dict getters (which gather FSDP shards), PEFT's adapter state dict, or
torch's flattening of the parameters. These name what the call reads, whatever the repo calls it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..index.summary import CallSite

# canonical names of library functions whose first argument is the module whose parameters they read
STATE_DICT_GETTERS = frozenset({
    "torch.distributed.checkpoint.state_dict.get_model_state_dict",
    "torch.distributed.checkpoint.state_dict.get_state_dict",
    "peft.get_peft_model_state_dict",
    "peft.utils.get_peft_model_state_dict",
    "peft.utils.save_and_load.get_peft_model_state_dict",
    "torch.nn.utils.parameters_to_vector",
})


def library_reads(calls: Iterable[tuple[CallSite, tuple[str, ...], str | None]]) -> set[str]:
    """Attribute paths of ``self`` (``module``) whose parameters a scope reads through a library getter."""
    out: set[str] = set()
    for c, names, _sig in calls:
        if not c.args or not (any(n in STATE_DICT_GETTERS for n in names)
                              or c.receiver != "self" and "state_dict" in c.attr):
            continue  # (any state-dict function of the module counts, whatever library it comes from)
        a = c.args[0]
        if a.kind == "name" and isinstance(a.value, str) and a.value.startswith("self.") and "(" not in a.value:
            out.add(a.value[5:])
    return out
