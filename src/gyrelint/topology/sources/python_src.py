"""Config keys declared in Python, read from the index summaries (never re-parsed).

- argparse ``add_argument`` anywhere (helpers that take a parser, argument groups,
  parsers merged from several modules); flags built by a prefixing wrapper
  (``f"--{prefix}-port"``) are expanded from the wrapper's literal call sites;
  dotted flags (``--vllm.num_engines``) are nested keys.
- click / typer options.
- dataclass, attrs, pydantic and OmegaConf structured config fields; a field typed
  with another config class nests its fields under the field name.
- environment variables read or set in code (``os.environ["MASTER_ADDR"]``).
"""

from __future__ import annotations

from ...graphs import Graphs
from ...index import Index
from ...index.summary import Arg, CallSite, FileSummary
from ..names import Namer
from . import RawKey, value_text
from .config_tree import config_tree_keys
from .env_loops import looped_names

_ENV_CALLS = {"os.environ.get", "os.getenv", "os.environ.setdefault", "os.putenv", "os.environ.pop"}


def _lit(arg: Arg | None) -> object:
    return arg.value if arg is not None and arg.kind == "lit" else None


def _flag_name(call: CallSite) -> tuple[str | None, bool]:
    """The long option of an ``add_argument``/``option`` call; True when it is a template."""
    names = [a.value for a in call.args if a.kind == "lit" and isinstance(a.value, str)]
    flags = [n for n in names if n.startswith("-")]
    if not flags:
        return None, False
    longs = [f for f in flags if f.startswith("--")]
    best = max(longs or flags, key=len)
    return best.lstrip("-"), "{}" in best


def python_keys(index: Index, graphs: Graphs | None, namers: dict[str, Namer]) -> list[RawKey]:
    """All keys declared in Python: option defaults, environment reads, config-class fields."""
    out: list[RawKey] = []
    templates: dict[str, list[tuple[str, CallSite, FileSummary]]] = {}  # wrapper function name -> flags
    for path, s in index.summaries.items():
        namer = namers[path]
        for call in s.calls:
            attr = call.attr
            if attr == "add_argument" or attr == "add_option":
                name, template = _flag_name(call)
                if not name:
                    continue
                if template:
                    templates.setdefault(call.scope.rsplit(".", 1)[-1], []).append((name, call, s))
                    continue
                out.append(RawKey(name, value_text(_lit(call.kwarg("default"))), path, call.line, "argparse",
                                  type=_arg_type(call), choices=_choices(call)))
            elif attr in ("option", "Option", "argument"):
                canon = namer.names(call)
                if any(c.startswith(("click.", "typer.", "asyncclick.")) for c in canon):
                    name, _ = _flag_name(call)
                    if name:
                        out.append(RawKey(name, value_text(_lit(call.kwarg("default"))), path, call.line,
                                          "typer" if any(c.startswith("typer.") for c in canon) else "click",
                                          type=_arg_type(call), choices=_choices(call)))
            elif attr in ("get", "getenv", "setdefault", "putenv", "pop"):
                canon = namer.names(call)
                if any(c in _ENV_CALLS for c in canon) and call.args and isinstance(_lit(call.args[0]), str):
                    default = call.args[1] if len(call.args) > 1 else call.kwarg("default")
                    out.append(RawKey(str(call.args[0].value), value_text(_lit(default)), path, call.line, "env (python)"))
                elif call.args and call.args[0].kind == "name" and any(c in _ENV_CALLS for c in canon):
                    out.extend(RawKey(n, None, path, call.line, "env (python)") for n in looped_names(s, call))
        for sub in s.subscripts:
            if sub.receiver in ("os.environ", "environ") or namer.canon(sub.receiver, sub.scope) == "os.environ":
                out.append(RawKey(sub.key, None, path, sub.line, "env (python)"))
    out.extend(_expand_templates(index, templates, namers))
    out.extend(config_tree_keys(index, namers))
    return out


def _arg_type(call: CallSite) -> str | None:
    """``type=int`` → ``int``; ``action="store_true"`` → ``bool``."""
    t = call.kwarg("type")
    if t is not None and t.kind == "name" and isinstance(t.value, str):
        return t.value
    action = _lit(call.kwarg("action") or call.kwarg("is_flag"))
    if action in ("store_true", "store_false", True):
        return "bool"
    return None


def _choices(call: CallSite) -> tuple[str, ...]:
    """``choices=["nccl", "gloo"]`` written literally (a ``click.Choice([...])`` on the option's line is read from
    that line's literals)."""
    got = _lit(call.kwarg("choices"))
    if isinstance(got, (list, tuple)):
        return tuple(v for v in got if isinstance(v, str))[:16]
    return ()


def _first_str(call: CallSite) -> str | None:
    for a in call.args:
        if a.kind == "lit" and isinstance(a.value, str):
            return a.value
    return None


def _template(text: str) -> str:
    """An f-string's static text keeps ``{}`` between parts but loses a trailing field: restore it."""
    return text + "{}" if text.endswith((".", "-", "_")) else text


def _expand_templates(index: Index, templates: dict[str, list[tuple[str, CallSite, FileSummary]]],
                      namers: dict[str, Namer]) -> list[RawKey]:
    """Flags built from a prefix or name parameter, expanded from the literal calls of the function that builds
    them (``add_args(parser, "rollout")``) and of the wrapper (``add("num_engines", default=2)``)."""
    if not templates:
        return []
    # literal string arguments passed to each function name anywhere in the repo
    fillers: dict[str, list[tuple[str, CallSite, str]]] = {}
    outer_names = {part for items in templates.values() for _t, inner, _s in items for part in inner.scope.split(".")}
    wanted = set(templates) | outer_names
    for path, s in index.summaries.items():
        # a wrapper is called from its own file, or from a file that imports it by name
        local = {p for items in templates.values() for _t, _i, ts in items if ts.path == path for p in wanted}
        imported = namers[path].symbols.from_imported(s.module)
        for call in s.calls:
            if call.attr in wanted and (call.attr in local or call.attr in imported):
                text = _first_str(call)
                if text is not None:
                    fillers.setdefault(call.attr, []).append((text.lstrip("-"), call, path))
    out: list[RawKey] = []
    for wrapper, items in templates.items():
        for template, inner, s in items:
            template = _template(template)
            # outer scopes (a function taking the prefix) fill the leading fields
            outer = [p for p in inner.scope.split(".")[:-1] if p in fillers]
            prefix = fillers[outer[0]][0][0] if outer else None
            calls = fillers.get(wrapper, [])
            if calls and template.count("{}") >= 1:
                for filler, call, path in calls:
                    key = template
                    if prefix is not None and key.count("{}") > 1:
                        key = key.replace("{}", prefix, 1)
                    key = _fill_last(key, filler).replace("{}", "*")
                    default = call.kwarg("default") or _after_filler(call)
                    value = _lit(default) if default is not None else _lit(inner.kwarg("default"))
                    out.append(RawKey(key.strip("-."), value_text(value), path, call.line, "argparse"))
            else:
                key = template.replace("{}", prefix, 1) if prefix is not None else template
                out.append(RawKey(key.replace("{}", "*").strip("-."), value_text(_lit(inner.kwarg("default"))), s.path,
                                  inner.line, "argparse"))
    return out


def _after_filler(call: CallSite) -> Arg | None:
    """``add("num_engines", 2)``: the positional argument after the name is the default."""
    for i, a in enumerate(call.args):
        if a.kind == "lit" and isinstance(a.value, str):
            return call.args[i + 1] if i + 1 < len(call.args) else None
    return None


def _fill_last(template: str, filler: str) -> str:
    head, sep, tail = template.rpartition("{}")
    return f"{head}{filler}{tail}" if sep else template
