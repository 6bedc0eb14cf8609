"""Keys that decide whether a role runs: the condition over them sets a role switch.

A knob whose name says nothing of workers (``algorithm.adv_estimator``, ``algorithm.disable_kl``)
still decides which worker groups a run starts when code tests it and, right under the test, turns
a role on or off (``if cfg.algorithm.adv_estimator == "gae": self.use_critic = True``): with GAE
the run starts critic workers, with KL disabled no reference workers. The switch itself is
recognised by name (``use_critic``, ``ref_enabled``: classify.switched_role); the key is the one
read alone on the condition's line, a line that assigns nothing itself, with the switch set to a
literal within the next few lines.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..index import Index
from .classify import switched_role, tokenize
from .sources import RawKey

_BELOW = 3  # lines between a condition and the switch it sets


def role_switch_hits(index: Index, raws: Iterable[RawKey]) -> dict[str, tuple[str, str]]:
    """Key name → (``process``, why) when a condition reading it alone sets a role switch below it.

    The condition's read is a chain of the index (``config.algorithm.adv_estimator``); it names the
    key whose dotted name is the chain's longest tail, when exactly one known key has it."""
    by_tail: dict[str, set[str]] = {}
    for r in raws:
        parts = r.key.lstrip("-").split(".")
        for i in range(len(parts)):
            by_tail.setdefault(".".join(parts[i:]), set()).add(r.key)
    out: dict[str, tuple[str, str]] = {}
    for file, s in sorted(index.summaries.items()):
        if not file.endswith(".py"):
            continue
        switches: list[tuple[int, str, str]] = []  # (line, role, target) of ``x.use_critic = True``
        for a in s.assignments:
            if a.value_kind == "lit" and isinstance(a.value, bool):
                role = switched_role(tokenize(a.target.rsplit(".", 1)[-1]))
                if role is not None:
                    switches.append((a.line, role, a.target))
        if not switches:
            continue
        switches.sort()
        assigned = {a.line for a in s.assignments}
        reads: dict[int, set[str]] = {}
        for ch in s.chains:
            if ch.line in assigned or not ch.path:
                continue  # ``self.lr = cfg.lr`` then ``self.use_critic = True``: a statement, not a test
            if any(ln > ch.line and ln <= ch.line + _BELOW for ln, _r, _t in switches):
                reads.setdefault(ch.line, set()).add(_key_of(ch.path, by_tail) or "?")
        for line, keys in sorted(reads.items()):
            if len(keys) != 1 or "?" in keys:
                continue  # a condition over two keys (or over no known key) decides none alone
            key = next(iter(keys))
            ln, role, target = next(x for x in switches if line < x[0] <= line + _BELOW)
            out.setdefault(key, ("process", f"decides whether the '{role}' role runs: sets {target} ({file}:{ln})"))
    return out


def _key_of(path: tuple[str, ...], by_tail: dict[str, set[str]]) -> str | None:
    for i in range(len(path)):
        got = by_tail.get(".".join(path[i:]))
        if got:
            return next(iter(got)) if len(got) == 1 else None
    return None
