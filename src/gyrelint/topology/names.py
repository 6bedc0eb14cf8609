"""Canonical names for call sites: ``dist.init_process_group`` → ``torch.distributed.init_process_group``.

Uses the graphs stage's resolved targets when it has them; otherwise a small
fallback maps a callee's first name through the imports the symbol table sees from the
call's scope, and a receiver through the local (or ``self.``) assignment that created it,
which is enough for ``sock = socket.socket(); sock.bind(...)`` and
``ctx = zmq.Context(); ctx.socket(...)``.
"""

from __future__ import annotations

from ..graphs import Graphs
from ..graphs.symbols import SymbolTable, build_symbols
from ..index.summary import CallSite, FileSummary

Resolved = dict[tuple[int, str], tuple[str, ...]]  # (line, callee text) -> targets


def resolved_by_file(graphs: Graphs | None) -> dict[str, Resolved]:
    """The resolver's targets per file, indexed once for every :class:`Namer`."""
    out: dict[str, Resolved] = {}
    if graphs is None:
        return out
    for calls in graphs.resolved.values():
        for rc in calls:
            if rc.targets:
                # the first name that says something decides a site's signal and detail: repo code the
                # resolver found first, then library names, each in name order (the graphs stage's own
                # order of one site's targets is not defined)
                out.setdefault(rc.file, {})[(rc.site.line, rc.site.func)] = tuple(sorted(
                    set(rc.targets), key=lambda t: (t not in graphs.functions and t not in graphs.classes, t)))
    return out


class Namer:
    """Canonical dotted names of the call sites of one file."""

    def __init__(self, summary: FileSummary, resolved: Resolved | None = None,
                 symbols: SymbolTable | None = None) -> None:
        """``symbols``: the repo's symbol table (without it, one of this file alone: its imports
        are named, re-exports of other files are not followed)."""
        self.summary = summary
        self.symbols = symbols if symbols is not None else build_symbols([summary])
        self.types: dict[tuple[str, str], str] = {}  # (scope or class, name) -> creating call, canonical
        self.resolved: Resolved = resolved or {}
        self._memo: dict[tuple[str, str], str] = {}
        for a in summary.assignments:
            if a.value_kind == "call" and isinstance(a.value, str) and not a.augmented:
                owner = a.scope.rsplit(".", 1)[0] if a.target.startswith("self.") else a.scope
                self.types.setdefault((owner, a.target), a.value)

    def canon(self, text: str, scope: str = "", depth: int = 0) -> str:
        """Dotted text with imports and known receivers replaced by what they name."""
        if depth > 4 or not text:
            return text
        head, _, rest = text.partition(".")
        if head == "self" and rest:
            owner = scope.rsplit(".", 1)[0] if "." in scope else scope
            attr, _, tail = rest.partition(".")
            made = self._type(owner, f"self.{attr}") or self._type_any_method(owner, f"self.{attr}")
            if made:
                return self._join(self.canon(made, scope, depth + 1), tail)
            return text
        made = self._type(scope, head)
        if made and made != text:
            return self._join(self.canon(made, scope, depth + 1), rest)
        target = self.symbols.imported(self.summary.module, scope or "<module>", head.removesuffix("()"))
        if target:
            return self._join(target + ("()" if head.endswith("()") else ""), rest)
        return text

    def _type(self, scope: str, name: str) -> str | None:
        while True:
            t = self.types.get((scope, name))
            if t:
                return t
            if "." not in scope:
                return self.types.get(("<module>", name)) if scope != "<module>" else None
            scope = scope.rsplit(".", 1)[0]

    def _type_any_method(self, owner: str, name: str) -> str | None:
        for (sc, nm), t in self.types.items():
            if nm == name and (sc == owner or sc.startswith(owner + ".")):
                return t
        return None

    @staticmethod
    def _join(base: str, rest: str) -> str:
        base = base.replace("()", "")
        rest = rest.replace("()", "")
        return f"{base}.{rest}" if rest else base

    def names(self, call: CallSite) -> tuple[str, ...]:
        """Canonical names for a call site: resolver targets first, the fallback otherwise."""
        got = self.resolved.get((call.line, call.func)) if self.resolved else None
        memo = (call.scope, call.func)
        own = self._memo.get(memo)
        if own is None:
            own = self._memo[memo] = self.canon(call.func, call.scope).replace("()", "")
        if got:
            return tuple(dict.fromkeys((*got, own)))
        return (own,)
