"""Environment variables read through a loop over a literal list of their names.

Launchers check or copy a handful of variables at once::

    for var in ["MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE"]:   # or a local list named first
        log.info(os.environ.get(var))

The read's argument is the loop variable, so the names are the list's strings. Follows the loop
target to its iterable in the same scope, through one local assigned a list or tuple literal.
"""

from __future__ import annotations

from ...index.summary import CallSite, FileSummary


def _strings(value: object) -> list[str]:
    """The strings of a list/tuple literal expression ``("l", id, items)``."""
    if not (isinstance(value, tuple) and len(value) == 3 and value[0] == "l" and isinstance(value[2], tuple)):
        return []
    out = []
    for item in value[2]:
        if not (isinstance(item, tuple) and len(item) == 2 and item[0] == "k" and isinstance(item[1], str)):
            return []  # not a plain list of names
        out.append(item[1])
    return out


def looped_names(s: FileSummary, call: CallSite) -> list[str]:
    """The literal names the loop variable handed to ``call`` ranges over (empty when unknown)."""
    arg = call.args[0] if call.args else None
    if arg is None or arg.kind != "name" or not isinstance(arg.value, str) or "." in arg.value:
        return []
    name = arg.value
    loops = [f for f in s.flows if f.scope == call.scope and f.op == "for" and f.target == ("n", name)
             and f.line <= call.line]
    for f in sorted(loops, key=lambda f: -f.line)[:1]:  # the loop the read sits in: the nearest one above it
        got = _strings(f.value)
        if got:
            return got
        if isinstance(f.value, tuple) and len(f.value) == 2 and f.value[0] == "n":
            for g in s.flows:
                if g.scope == call.scope and g.op == "=" and g.target == ("n", f.value[1]):
                    got = _strings(g.value)
                    if got:
                        return got
    return []
