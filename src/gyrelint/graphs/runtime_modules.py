"""Modules loaded at run time from a path the code computes (plugin files).

``spec = importlib.util.spec_from_file_location("workflow", args.workflow_path)``,
``mod = importlib.util.module_from_spec(spec)``, ``self.run = mod.workflow``: the module is one of
the repository's files picked by a command-line path, so the attribute read off it may be any
repository module's top-level function or class of that name (a workflow, a reward function, a
processor, an agent class the launch scripts point at). Without this the call ``self.run(...)``
has no target and the rollout that calls it looks empty.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from ..index.summary import FunctionDef
from .symbols import ClassSymbols

# Library calls returning a module object chosen at run time (``import_module`` only when its argument
# names no repo module; a literal path is resolved like any import).
PATH_LOADERS = frozenset({"importlib.util.module_from_spec"})
NAME_LOADERS = frozenset({"importlib.import_module"})
RUNTIME_MODULE = "rtm:"  # the value of such a module object
# More candidates than this and the name is too common to pick the plugin (``main``, ``run``).
MAX_CANDIDATES = 12


def top_level_names(funcs: Mapping[str, FunctionDef], classes: Mapping[str, ClassSymbols],
                    func_mod: Mapping[str, str], scripts: frozenset[str] = frozenset()) -> dict[str, frozenset[str]]:
    """Name -> the resolver values of every module-level function (``f:``) and class (``c:``) so named.

    ``scripts`` are the modules run as programs (an ``if __name__ == "__main__":`` guard, ``setup``,
    ``__main__``): their functions are what the script runs, not a plugin another module loads by
    path, and the common entry names (``main``) of every script would otherwise all become targets.
    """
    out: dict[str, set[str]] = defaultdict(set)
    for q, f in funcs.items():
        if f.class_name is None and "." not in f.qualname and not f.name.startswith("<") and q in func_mod \
                and func_mod[q] not in scripts:
            out[f.name].add(f"f:{q}")
    for q, c in classes.items():
        rel = q[len(c.module) + 1:] if q.startswith(c.module + ".") else q
        if "." not in rel:
            out[rel].add(f"c:{q}")
    return {k: frozenset(v) for k, v in out.items() if len(v) <= MAX_CANDIDATES}


def script_modules(main_guards: Mapping[str, int | None]) -> frozenset[str]:
    """Modules run as programs: a ``__main__`` guard, or named ``setup`` / ``__main__``."""
    return frozenset(m for m, line in main_guards.items()
                     if line is not None or m.rsplit(".", 1)[-1] in ("setup", "__main__"))
