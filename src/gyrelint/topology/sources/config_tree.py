"""Config class trees: every leaf field of a nested dataclass / pydantic / attrs config under the path a user types.

A run's config is often one root class whose fields are config classes again
(``inference: InferenceConfig | None``, ``backend: A | B`` discriminated by a field,
``Annotated[ParallelConfig, Field(...)]``), parsed from the command line by a library
(pydantic-settings, tyro, draccus, jsonargparse, simple_parsing, chz, HfArgumentParser) or
mounted by OmegaConf/Hydra. A leaf is a key with its full path (``--inference.parallel.tp``)
spelled as that library spells it. Field types are resolved through the symbol table, so a
config class imported from another workspace package is found, and one of the same name
elsewhere is not taken for it; inherited fields come through the class's MRO.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ...graphs.symbols import SymbolTable
from ...index import Index
from ...index.summary import MODULE_SCOPE, Arg, CallSite, ClassDef, FileSummary, Param
from ..names import Namer
from . import RawKey, value_text

_DATACLASS_DECOS = {"dataclass", "dataclasses.dataclass", "define", "frozen", "mutable", "attr.s", "attrs",
                    "attr.attrs", "attrs.define", "attrs.frozen", "attr.define", "pydantic.dataclasses.dataclass",
                    "chz.chz", "chz"}
_MODEL_BASES = {"BaseModel", "BaseSettings", "RootModel"}
_DICT_BASES = {"TypedDict"}  # a typed dict of settings handed to a constructor or call
_BUILDERS = {"dacite.from_dict": "dacite", "dacite.core.from_dict": "dacite", "omegaconf.OmegaConf.structured": "OmegaConf",
             "omegaconf.OmegaConf.to_object": "OmegaConf", "hydra.core.config_store.ConfigStore.store": "Hydra ConfigStore",
             "hydra.core.config_store.ConfigStore.instance.store": "Hydra ConfigStore"}
_MAX_NEST = 6
_MAPPINGS = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}


@dataclass(frozen=True, slots=True)
class Style:
    """How a user types a nested field of one root: a ``--flag`` or a config path, its separator and case."""

    tool: str = ""  # the parser ("tyro", "pydantic-settings"...), "" for a config path
    flag: bool = False  # typed as ``--a.b``
    kebab: bool = False  # ``max_async_level`` typed as ``max-async-level``
    nested: bool = True  # False: every field is a top-level flag (HfArgumentParser)
    flatten: bool = False  # nested config fields are walked but typed by their own name (simple_parsing)
    prefix: str = ""  # pydantic-settings ``cli_prefix``
    env_prefix: str | None = None  # pydantic-settings: the env var that sets a field
    env_delim: str | None = None


# canonical callee -> the style of the class it parses (argument positions: any class argument)
_CLI_CALLS = {
    "tyro.cli": Style("tyro", flag=True, kebab=True), "tyro.extras.overridable_config_cli": Style("tyro", True, True),
    "tyro.extras.subcommand_cli_from_dict": Style("tyro", True, True),
    "draccus.parse": Style("draccus", flag=True), "draccus.wrap": Style("draccus", flag=True),
    "pyrallis.parse": Style("pyrallis", flag=True), "pyrallis.wrap": Style("pyrallis", flag=True),
    "jsonargparse.CLI": Style("jsonargparse", flag=True), "jsonargparse.auto_cli": Style("jsonargparse", flag=True),
    # simple_parsing adds a dataclass's fields without its ``dest`` prefix (``--learning_rate``), nested ones too
    # unless two names clash
    "simple_parsing.parse": Style("simple_parsing", flag=True, nested=False, flatten=True),
    "simple_parsing.ArgumentParser.add_arguments": Style("simple_parsing", flag=True, nested=False, flatten=True),
    "chz.entrypoint": Style("chz"), "chz.nested_entrypoint": Style("chz"),
    "transformers.HfArgumentParser": Style("HfArgumentParser", flag=True, nested=False),
    "trl.TrlParser": Style("HfArgumentParser", flag=True, nested=False),
    "pydantic_settings.CliApp.run": Style("pydantic-settings", flag=True),
    "pydantic_settings.CliApp.run_subcommand": Style("pydantic-settings", flag=True),
    # parsers of a function's (or a class constructor's) parameters: each parameter is a flag
    "fire.Fire": Style("fire", flag=True, nested=False), "typer.run": Style("typer", flag=True, kebab=True),
    # a class or function added under a nested key (second argument): ``--model.hidden_size``
    "jsonargparse.ArgumentParser.add_class_arguments": Style("jsonargparse", flag=True),
    "jsonargparse.ArgumentParser.add_dataclass_arguments": Style("jsonargparse", flag=True),
    "jsonargparse.ArgumentParser.add_function_arguments": Style("jsonargparse", flag=True),
}
_NESTED_KEY = {"add_class_arguments", "add_dataclass_arguments", "add_function_arguments"}
# ``@app.command()`` on a ``typer.Typer()`` app: the function's parameters are its options (``--max-workers``)
_CLI_FUNC_DECORATORS = {"typer.Typer.command": Style("typer", flag=True, kebab=True),
                        "typer.Typer.callback": Style("typer", flag=True, kebab=True)}
_SETTINGS_KW = {"cli_parse_args", "cli_kebab_case", "cli_prefix", "env_prefix", "env_nested_delimiter"}
_CALL_ATTRS = frozenset(n.rsplit(".", 1)[-1] for n in (*_CLI_CALLS, *_BUILDERS))
_CLI_DECORATORS = {"draccus.wrap": "draccus.wrap", "pyrallis.wrap": "pyrallis.wrap"}



def config_class(decorators: Iterable[str], bases: Iterable[str]) -> bool:
    """A class whose own decorators or bases make it a config: dataclass-like (dataclasses, attrs, chz, pydantic
    dataclasses) or a pydantic model / typed dict. The one test for every topology source."""
    for d in decorators:
        d = d.removesuffix("()")
        if d in _DATACLASS_DECOS or _tail(d) == "dataclass":
            return True
    return any(_tail(b) in _MODEL_BASES or _tail(b) in _DICT_BASES for b in bases)


def _settings_style(opts: dict[str, object]) -> Style:
    """The spelling pydantic-settings options give a root's fields (``cli_parse_args``, ``cli_kebab_case``,
    ``cli_prefix``, ``env_prefix``, ``env_nested_delimiter``), however they were passed."""
    cli = bool(opts.get("cli_parse_args"))
    prefix, env_prefix, delim = opts.get("cli_prefix"), opts.get("env_prefix"), opts.get("env_nested_delimiter")
    if isinstance(prefix, str) and prefix and not prefix.endswith("."):
        prefix += "."  # ``cli_prefix="rl"`` types ``--rl.field``
    return Style("pydantic-settings" if cli else "", flag=cli, kebab=bool(opts.get("cli_kebab_case")),
                 prefix=prefix if isinstance(prefix, str) else "",
                 env_prefix=env_prefix if isinstance(env_prefix, str) else "",
                 env_delim=delim if isinstance(delim, str) and delim else None)


def _keyword_value(text: str) -> object:
    """A class keyword as the index writes it (``<str:APP_>``, ``True``) back to its value."""
    if text.startswith("<str:") and text.endswith(">"):
        return text[5:-1]
    return {"True": True, "False": False}.get(text)


def _lit(arg: Arg | None) -> object:
    return arg.value if arg is not None and arg.kind == "lit" else None


def _tail(name: str) -> str:
    return name.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class _Class:
    qual: str
    cls: ClassDef
    summary: FileSummary


class ConfigTree:
    """The config classes of a repo and the keys of their leaf fields."""

    def __init__(self, index: Index, namers: dict[str, Namer], symbols: SymbolTable | None) -> None:
        self.symbols = symbols
        self.namers = namers
        self.all: dict[str, _Class] = {}
        self.by_name: dict[str, list[str]] = {}
        for s in index.summaries.values():
            for c in s.classes:
                qual = f"{s.module}.{c.qualname}"
                self.all[qual] = _Class(qual, c, s)
                self.by_name.setdefault(c.name, []).append(qual)
        self.builders: dict[str, str] = {}  # class qualname -> the builder that makes a config of it
        self.styles: dict[str, Style] = {}  # class qualname -> how the parser called on it types its fields
        self.functions: dict[str, Style] = {}  # function qualname -> the parser of its parameters (``fire.Fire(f)``)
        self.mounts: dict[str, set[tuple[str, ...]]] = {}  # class -> Hydra ConfigStore group paths it is stored at
        self.settings: dict[str, Style] = {}  # class qualname -> its own ``model_config = SettingsConfigDict(...)``
        # (file, class scope, line) -> the name a user types for that field (``Field(alias=...)``) and the
        # ``Field(8192, ...)`` positional default
        self.aliases: dict[tuple[str, str, int], str] = {}
        self.defaults: dict[tuple[str, str, int], object] = {}
        self._scan_calls(index)
        self._settings_keywords()
        self._alias_names = frozenset(self.aliases.values())  # typed as written, never re-cased
        self.config = {q for q in self.all if self._is_config(q)}

    # ---- which classes are configs -------------------------------------------------------
    def _resolve(self, module: str, scope: str, text: str) -> str | None:
        """The repo class a name or dotted text means where it is written (unique short name as a fallback)."""
        text = text.removesuffix("()")
        if self.symbols is not None:
            got = self.symbols.resolve_in(module, scope, text)
            if got in self.all:
                return got
            if got is None and scope != MODULE_SCOPE:
                got = self.symbols.resolve_in(module, MODULE_SCOPE, text)
                if got in self.all:
                    return got
        same = self.by_name.get(_tail(text), [])
        local = [q for q in same if q.startswith(module + ".")]
        if len(local) == 1:
            return local[0]
        return same[0] if len(same) == 1 else None

    def _is_config(self, qual: str, depth: int = 0) -> bool:
        k = self.all[qual]
        if config_class(k.cls.decorators, k.cls.bases) or qual in self.builders or qual in self.styles or qual in self.settings:
            return True
        if depth > 8:
            return False
        for b in k.cls.bases:
            base = self._resolve(k.summary.module, MODULE_SCOPE, b)
            if base is not None and base != qual and self._is_config(base, depth + 1):
                return True
        return False

    def _scan_calls(self, index: Index) -> None:
        """Builders (``OmegaConf.structured(C)``) and command-line parsers (``tyro.cli(C)``) of classes."""
        for path, s in index.summaries.items():
            namer = self.namers[path]
            for call in s.calls:
                attr = call.func.rsplit(".", 1)[-1]
                if attr == "SettingsConfigDict":
                    self._settings(s, call.scope, dict(call.kwargs))
                    continue
                if attr == "Field" and call.scope != MODULE_SCOPE:
                    self._field_call(s, call)
                    continue
                if attr == "arg" and call.scope != MODULE_SCOPE and isinstance(_lit(call.kwarg("name")), str) \
                        and "tyro.conf.arg" in namer.names(call):
                    # ``Annotated[int, tyro.conf.arg(name="tp")]``: the flag is named as given
                    self.aliases.setdefault((s.path, call.scope, call.line), str(_lit(call.kwarg("name"))))
                    continue
                if any(k == "_cli_parse_args" for k, _v in call.kwargs):
                    self._init_settings(s, call)  # ``Settings(_cli_parse_args=True)``
                if attr not in _CALL_ATTRS and not attr.endswith("Parser"):
                    continue  # naming every call of a repo costs; only these tails can be a parser or builder
                style = builder = None
                for canon in namer.names(call):
                    style = style or _CLI_CALLS.get(canon) or self._parser_subclass(canon)
                    builder = builder or _BUILDERS.get(canon)
                if style is None and builder is None:
                    continue
                args = (*call.args, *(v for _, v in call.kwargs))
                if style is not None and attr in _NESTED_KEY:
                    nested = _lit(call.args[1]) if len(call.args) > 1 else _lit(call.kwarg("nested_key"))
                    style = replace(style, prefix=f"{nested}.") if isinstance(nested, str) and nested else style
                    args = call.args[:1] or tuple(v for k, v in call.kwargs if k in ("theclass", "function"))
                for a in args:
                    for text in _class_args(a):
                        qual = self._resolve(s.module, call.scope, text)
                        if qual is None or (style and not builder and not self._is_config(qual)):
                            if style:  # a function, or a plain class parsed through its constructor
                                self._function_root(s, call.scope, text, style)
                            continue
                        if builder:
                            self.builders.setdefault(qual, builder)
                            if builder == "Hydra ConfigStore":
                                self._mount(qual, call)
                        if style:
                            self.styles.setdefault(qual, style)
            for f in s.functions:
                for d in f.decorators:
                    if d.endswith((".command()", ".callback()")):
                        got = _CLI_FUNC_DECORATORS.get(namer.canon(d.removesuffix("()"), MODULE_SCOPE))
                        if got is not None:
                            self.functions.setdefault(f"{s.module}.{f.qualname}", got)
                tools = [_CLI_DECORATORS.get(namer.canon(d.removesuffix("()"), f.qualname)) for d in f.decorators
                         if d.removesuffix("()").endswith("wrap")]
                tool = next((t for t in tools if t), None)
                if tool and f.params:
                    first = next((p for p in f.params if p.name not in ("self", "cls")), None)
                    if first is not None and first.annotation:
                        qual = self._resolve(s.module, MODULE_SCOPE, first.annotation)
                        if qual is not None:
                            self.styles.setdefault(qual, _CLI_CALLS[tool])

    def _field_call(self, s: FileSummary, call: CallSite) -> None:
        """``x: int = Field(8192, alias="max-model-len")``: what a user types for the field on that line, and its
        default. ``validation_alias`` (the name pydantic reads input by) wins over ``alias``; of an
        ``AliasChoices(...)`` the first choice is taken."""
        at = (s.path, call.scope, call.line)
        kw = dict(call.kwargs)
        for name in ("validation_alias", "alias"):
            a = kw.get(name)
            text = _lit(a)
            if a is not None and a.kind == "call" and str(a.value).endswith("AliasChoices"):
                inner = next((c for c in s.calls if c.line == call.line and c.scope == call.scope
                              and c.func.endswith("AliasChoices")), None)
                text = next((x.value for x in inner.args if x.kind == "lit" and isinstance(x.value, str)), None) \
                    if inner is not None else None
            if isinstance(text, str) and text.replace("-", "_").replace(".", "_").isidentifier():
                self.aliases.setdefault(at, text)
                break
        if call.args and call.args[0].kind == "lit" and call.args[0].value is not ...:
            self.defaults.setdefault(at, call.args[0].value)

    def _parser_subclass(self, canon: str) -> Style | None:
        """A repo class built on a parser library (``class TrlParser(HfArgumentParser)``) parses as it does."""
        if self.symbols is None or canon not in self.symbols.classes:
            return None
        return next((_CLI_CALLS[b] for b in self.symbols.mro(canon)[1:] if b in _CLI_CALLS), None)

    def _function_root(self, s: FileSummary, scope: str, text: str, style: Style) -> None:
        """``fire.Fire(main)`` / ``tyro.cli(main)`` / ``jsonargparse.CLI(main)``: the function's parameters are
        the flags; a class that is no config (``fire.Fire(Trainer)``) is parsed through its constructor."""
        if self.symbols is None:
            return
        qual = self.symbols.resolve_in(s.module, scope, text.removesuffix("()"))
        if qual in self.symbols.classes:
            qual = self.symbols.method_of(qual, "__init__")
        if qual is not None and qual in self.symbols.functions:
            self.functions.setdefault(qual, style)

    def _mount(self, qual: str, call: CallSite) -> None:
        """``ConfigStore.store(group="trainer", name="base", node=TrainerConfig)``: Hydra puts the node's fields
        under its group (``trainer.lr``), or under ``package=`` when given (``_global_``: at the root)."""
        package, group = _lit(call.kwarg("package")), _lit(call.kwarg("group"))
        where = package if isinstance(package, str) and package not in ("_group_", "") else group
        if not isinstance(where, str) or not where:
            return
        path = () if where == "_global_" else tuple(p for p in where.replace("/", ".").split(".") if p)
        self.mounts.setdefault(qual, set()).add(path)

    def _settings_keywords(self) -> None:
        """``class S(BaseSettings, cli_parse_args=True, env_prefix="APP_")``: pydantic-settings also takes its
        options as class keywords."""
        for qual, k in self.all.items():
            kw = {name: text for name, text in k.cls.keywords if name in _SETTINGS_KW}
            if kw and qual not in self.settings:
                self.settings[qual] = _settings_style({n: _keyword_value(v) for n, v in kw.items()})

    def _init_settings(self, s: FileSummary, call: CallSite) -> None:
        """``Settings(_cli_parse_args=True, _cli_prefix="rl")``: the same options given when the root is built."""
        qual = self._resolve(s.module, call.scope, call.func)
        if qual is None:
            return
        opts = {k[1:]: _lit(v) for k, v in call.kwargs if k[1:] in _SETTINGS_KW}
        own = self.settings.get(qual)
        if own is not None:  # the class's own options stay unless the call overrides them
            opts = {"cli_kebab_case": own.kebab, "cli_prefix": own.prefix, "env_prefix": own.env_prefix,
                    "env_nested_delimiter": own.env_delim, **opts}
        self.settings[qual] = _settings_style(opts)

    def _settings(self, s: FileSummary, scope: str, kw: dict[str, Arg]) -> None:
        """``model_config = SettingsConfigDict(cli_parse_args=True, cli_kebab_case=True, env_prefix=...)``."""
        qual = f"{s.module}.{scope}"
        if scope == MODULE_SCOPE or qual not in self.all:
            return
        self.settings[qual] = _settings_style({k: _lit(v) for k, v in kw.items()})

    def _root_style(self, qual: str) -> Style:
        """How a root's fields are typed: its parser's call, merged with the ``model_config`` it has or
        inherits (a settings base class shared by every config of a repo); a settings class without one
        still reads each top-level field from the environment variable of its name."""
        call = self.styles.get(qual)
        mro = self.symbols.mro(qual) if self.symbols is not None else (qual,)
        own = next((self.settings[c] for c in mro if c in self.settings), None)
        if own is None:
            if any(_tail(b) == "BaseSettings" for b in mro):
                own = Style(env_prefix="")
            else:
                return call or Style()
        if call is None:
            return own
        return Style(call.tool, flag=call.flag, kebab=own.kebab or call.kebab, nested=call.nested,
                     flatten=call.flatten, prefix=own.prefix, env_prefix=own.env_prefix, env_delim=own.env_delim)

    # ---- fields ----------------------------------------------------------------------------
    def fields(self, qual: str, skip: frozenset[str] = frozenset()) -> list[tuple[Param, _Class]]:
        """Fields in declaration order, inherited ones first, a subclass's redefinition in its base's place
        (``skip``: bases whose fields are not taken)."""
        order: list[str] = []
        if self.symbols is not None:
            order = [c for c in self.symbols.mro(qual) if c in self.all]
        if qual not in order:
            order = [qual, *order]
        got: dict[str, tuple[Param, _Class]] = {}
        for c in reversed(order):
            if c != qual and (c not in self.config or c in skip):
                continue
            k = self.all[c]
            for f in k.cls.fields:
                got[f.name] = (f, k)
        return list(got.values())

    def nested(self, f: Param, owner: _Class) -> list[str]:
        """Config classes a field holds (each member of a union; the items of a list or dict)."""
        names = dict(owner.cls.field_types).get(f.name) or ((f.annotation,) if f.annotation else ())
        out = []
        for n in names:
            q = self._resolve(owner.summary.module, MODULE_SCOPE, n)
            if q is not None and q in self.config and q not in out:
                out.append(q)
        return out

    def keys(self) -> list[RawKey]:
        children: set[str] = set()
        for q in self.config:
            if _tail(q).startswith("_"):
                continue  # a private class is an implementation detail, not a section a user fills
            for f, owner in self.fields(q):
                children.update(c for c in self.nested(f, owner) if c != q)
        # a base whose subclasses are nested says its fields through them
        bases_of_children: set[str] = set()
        if self.symbols is not None:
            for c in children:
                bases_of_children.update(b for b in self.symbols.mro(c)[1:] if b in self.config)
        out: list[RawKey] = []
        for q in sorted(self.config):
            if q in self.mounts:  # stored in a Hydra group: its fields live there
                for path in sorted(self.mounts[q]):
                    self._emit(q, path, self._root_style(q), 0, (q,), out)
            elif q in self.styles:  # a parser is called on it: a root even when nested elsewhere too
                self._emit(q, (), self._root_style(q), 0, (q,), out)
            elif not (q in children or q in bases_of_children or _tail(q).startswith("_")):
                # a base that is nested elsewhere says its fields under that path
                self._emit(q, (), self._root_style(q), 0, (q,), out, frozenset(children))
        for fq, style in sorted(self.functions.items()):
            self._emit_function(fq, style, out)
        return out

    def _emit_function(self, qual: str, style: Style, out: list[RawKey]) -> None:
        """The parameters of a function a CLI parser runs: ``--max-workers`` (typer, tyro), ``--max_workers``
        (fire, jsonargparse); a parameter typed with a config class nests its fields (``--cfg.lr``)."""
        d = self.symbols.definitions.get(qual) if self.symbols is not None else None
        f = self.symbols.functions.get(qual) if self.symbols is not None else None
        if d is None or f is None:
            return
        owner = d.owner.rsplit(".", 1)[-1] if d.owner else f.name
        for p in f.params:
            if p.name in ("self", "cls") or p.name.startswith("_") or p.kind in ("vararg", "kwarg"):
                continue
            sub = self._resolve(d.module, MODULE_SCOPE, p.annotation) if p.annotation else None
            if sub is not None and sub in self.config:
                self._emit(sub, (p.name,) if style.nested else (), style, 1, (qual, sub), out)
                continue
            name = p.name.replace("_", "-") if style.kebab else p.name
            line = p.default.line if p.default is not None and p.default.line else f.line
            out.append(RawKey(style.prefix + name, value_text(_lit(p.default)), d.file, line,
                              f"parameter (CLI: {style.tool})", owner, p.annotation, None, qual))

    def _emit(self, qual: str, path: tuple[str, ...], style: Style, depth: int, seen: tuple[str, ...],
              out: list[RawKey], skip: frozenset[str] = frozenset()) -> None:
        k = self.all[qual]
        pydantic = any(_tail(b) in _MODEL_BASES for b in k.cls.bases) or self._pydantic(qual)
        source = "pydantic" if pydantic else "dataclass"
        if any(_tail(b) in _DICT_BASES for b in k.cls.bases):
            source = "TypedDict"
        if qual in self.builders and not pydantic:
            source = f"dataclass ({self.builders[qual]})"
        if style.tool:
            source = f"{source} (CLI: {style.tool})" if style.flag else f"{source} ({style.tool})"
        for f, owner in self.fields(qual, skip):
            if f.name == "model_config" or (f.annotation and _tail(f.annotation) == "ClassVar"):
                continue
            at = (owner.summary.path, owner.cls.qualname, f.line)
            here = (*path, self.aliases.get(at, f.name))
            subs = [c for c in self.nested(f, owner) if c not in seen] if depth < _MAX_NEST else []
            if f.name.startswith("_") and not subs:
                continue  # private state; a private field holding a config tree is still how the tree is passed
            if subs and (style.nested or style.flatten):
                if f.annotation and _tail(f.annotation) in _MAPPINGS:
                    here = (*here, "*")  # ``teacher_models: dict[str, TeacherConfig]``: one section per name
                for sub in subs:
                    self._emit(sub, here, style, depth + 1, (*seen, sub), out)
                continue
            value = _lit(f.default)
            if value is None and f.default_kw is not None:  # x: int = field(default=8)
                value = f.default_kw.value
            if value is None:
                value = self.defaults.get(at)  # x: int = Field(8, ...)
            segs = [s if s in self._alias_names else s.replace("_", "-") for s in here] if style.kebab else list(here)
            key = style.prefix + ".".join(segs) if style.nested else segs[-1]
            env = None
            if style.env_prefix is not None and (len(here) == 1 or style.env_delim):
                env = (style.env_prefix + (style.env_delim or "").join(here)).upper()
            out.append(RawKey(key, value_text(value), owner.summary.path, f.line or owner.cls.line, source,
                              k.cls.name, f.annotation, env, seen[0]))

    def _pydantic(self, qual: str) -> bool:
        if self.symbols is None:
            return False
        return any(_tail(b) in _MODEL_BASES for b in self.symbols.mro(qual)[1:] if b not in self.all)


def _class_args(a: Arg) -> list[str]:
    """Class names an argument may hold: a name, or the names of a literal tuple/list (``(A, B)``)."""
    if a.kind == "name" and isinstance(a.value, str):
        return [a.value]
    if a.kind == "other" and isinstance(a.value, str) and a.value.startswith(("(", "[")):
        return [p.strip() for p in a.value.strip("()[]").split(",") if p.strip().replace(".", "").isidentifier()]
    return []


def config_tree_keys(index: Index, namers: dict[str, Namer]) -> list[RawKey]:
    """Every leaf field of every root config class, under the path its parser types."""
    if not namers:
        return []
    symbols = next(iter(namers.values())).symbols
    return ConfigTree(index, namers, symbols).keys()
