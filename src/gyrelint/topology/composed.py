"""Flags a helper adds under a prefix: listed under the name a user types.

Frameworks wrap a third-party ``add_cli_args`` (an inference server's own options) so
every flag it adds gets a prefix: ``parser.add_argument`` is swapped for a wrapper that
builds ``f"--sglang-{stem}"``, or the helper takes ``prefix="rollout"``. The repo never
spells those flags out; launch scripts do (``--sglang-mem-fraction-static 0.7``). Such a
launcher flag is declared by the wrapper (its file:line) and the helper it wraps.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..index import Index
from .names import Namer
from .sources import RawKey

_HELPERS = ("add_cli_args", "add_args", "add_arguments", "add_argparse_args", "add_cli_arguments")
_PREFIX_KWARGS = ("prefix", "arg_prefix", "flag_prefix", "cli_prefix")
_SEPARATORS = ("-", "_", ".")


@dataclass(frozen=True, slots=True)
class Prefix:
    text: str  # as typed after ``--``, separator included: ``sglang-``
    file: str
    line: int
    helper: str  # what adds the flags (canonical name), "" when not found


def _fold(text: str) -> str:
    return text.lstrip("-").replace("-", "_").lower()


def _is_helper(attr: str) -> bool:
    return attr in _HELPERS or attr.endswith("_cli_args")


def _stem(text: str) -> str | None:
    """``--sglang-`` / ``--sglang-{}`` → ``sglang-``; None for a whole flag."""
    if not text.startswith("--"):
        return None
    stem = text[2:]
    stem = stem[:-2] if stem.endswith("{}") and stem.count("{}") == 1 else stem
    if len(stem) < 2 or "{" in stem or " " in stem or not stem.endswith(_SEPARATORS):
        return None
    return stem


def find_prefixes(index: Index, namers: dict[str, Namer]) -> list[Prefix]:
    """Prefix-only flag templates followed by a helper call, and ``prefix=`` arguments of helpers."""
    out: list[Prefix] = []
    for path, s in index.summaries.items():
        helpers = [c for c in s.calls if _is_helper(c.attr)]
        if helpers:
            # a flag template (``f"--sglang-{stem}"``: its static text keeps the prefix) built before a helper runs,
            # passed to ``add_argument`` or assigned to the name a wrapper then passes on
            texts = [(a.value, call.line) for call in s.calls if call.attr in ("add_argument", "add_option")
                     for a in call.args if a.kind == "lit" and isinstance(a.value, str)]
            texts += [(a.value, a.line) for a in s.assignments if a.value_kind == "lit" and isinstance(a.value, str)]
            for text, line in texts:
                stem = _stem(text)
                after = [h for h in helpers if h.line > line] if stem else []
                if after:
                    out.append(Prefix(stem, path, line, namers[path].names(after[0])[0]))
        for call in helpers:
            if _is_helper(call.attr):
                for kw, arg in call.kwargs:
                    if kw in _PREFIX_KWARGS and arg.kind == "lit" and isinstance(arg.value, str) and arg.value.strip("-"):
                        text = arg.value.lstrip("-")
                        out.append(Prefix(text if text.endswith(_SEPARATORS) else text + "-", path, call.line,
                                          namers[path].names(call)[0]))
    return out


def composed_keys(raws: list[RawKey], prefixes: list[Prefix], launcher_sources: tuple[str, ...]) -> list[RawKey]:
    """A declaration for each launcher flag that only a prefixed helper adds."""
    if not prefixes:
        return []
    declared = {_fold(r.key) for r in raws if r.source not in launcher_sources and r.source != "readme"}
    heads = [(_fold(p.text).rstrip("_."), p) for p in prefixes]
    out: list[RawKey] = []
    seen: set[str] = set()
    for r in raws:
        if r.source not in (*launcher_sources, "readme"):
            continue
        name = _fold(r.key)
        if name in declared or name in seen:
            continue
        for head, p in heads:
            if len(name) > len(head) + 1 and name.startswith(head) and name[len(head)] in "_.":
                seen.add(name)
                helper = f" on {p.helper}" if p.helper else ""
                out.append(RawKey(r.key, None, p.file, p.line, f"argparse (prefix '--{p.text}'{helper})"))
                break
    return out
