"""Dotted-path strings that name repo code: plugin slots, ``worker_cls="pkg.mod.Cls"``,
``importlib.import_module("pkg.mod")``, argparse defaults. Each becomes an edge from the
code that holds the string to what it names."""

from __future__ import annotations

import re

from ..index.summary import FileSummary
from .resolve import Resolver

_DOTTED = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?::[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?$")


def string_edges(sums: list[FileSummary], r: Resolver) -> dict[tuple[str, str, int], tuple[set[str], str]]:
    out: dict[tuple[str, str, int], tuple[set[str], str]] = {}
    for s in sums:
        for sc in s.strings:
            v = sc.value
            if ("." not in v and ":" not in v) or len(v) > 200 or not _DOTTED.match(v):
                continue
            target = _target(v.replace(":", "."), r)
            if target is None or target == s.module:
                continue
            key = (s.module, sc.scope, sc.line)
            got = out.get(key)
            if got is None:
                out[key] = ({target}, v)
            else:
                got[0].add(target)
    return out


def _target(name: str, r: Resolver) -> str | None:
    if name in r.funcs and not name.rsplit(".", 1)[-1].startswith("<"):
        return name
    if name in r.classes:
        init = f"{name}.__init__"
        return init if init in r.funcs else name
    if name in r.sums:
        return name
    return None
