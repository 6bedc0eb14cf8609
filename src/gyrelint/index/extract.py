"""One pass over a libcst tree that records a :class:`FileSummary`.

Line numbers are counted during the same traversal (every newline in a libcst tree
lives in a ``Newline`` node, a backslash continuation, or a string token), which
costs a fraction of libcst's ``PositionProvider``.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys

import libcst as cst

from .summary import (
    MODULE_SCOPE,
    Arg,
    Assignment,
    AttrAccess,
    CallSite,
    ChainRead,
    ClassDef,
    FileSummary,
    Flow,
    FunctionDef,
    Import,
    Loop,
    Param,
    Skip,
    StringConst,
    Subscript,
)

_SUPPRESS = re.compile(r"#\s*gyrelint:\s*ignore(?:\[([A-Za-z0-9_,\s]+)\])?")
_MAX_STRING = 300
_CHAIN_DEPTH = 12  # segments of one chain; deeper chains are not config reads
_MAX_CHAINS = 20000  # per file: a generated module must not grow its summary without bound
_EMPTY_MODULE = cst.Module(body=[])


def dotted(node: cst.BaseExpression | None, depth: int = 0) -> str:
    """Dotted text of a name/attribute/call chain; ``<expr>`` for anything else."""
    if node is None:
        return "<expr>"
    if depth > 60:
        return "<expr>"
    t = type(node)
    if t is cst.Name:
        return node.value  # type: ignore[union-attr]
    if t is cst.Attribute:
        return f"{dotted(node.value, depth + 1)}.{node.attr.value}"  # type: ignore[union-attr]
    if t is cst.Call:
        return f"{dotted(node.func, depth + 1)}()"  # type: ignore[union-attr]
    if t is cst.Subscript:
        return f"{dotted(node.value, depth + 1)}[]"  # type: ignore[union-attr]
    if t is cst.Await:
        return dotted(node.expression, depth + 1)  # type: ignore[union-attr]
    if t is cst.SimpleString or t is cst.ConcatenatedString:
        lit = literal(node)
        if isinstance(lit, str):
            return f"<str:{lit[:80]}>"
    return "<expr>"


_NO_LITERAL = object()


def _plain_string(text: str) -> str | None:
    """The value of a string literal with no prefix (or ``r``) and no escapes, without
    compiling it (``ast.literal_eval`` compiles, and files hold thousands of strings);
    None for any other literal."""
    raw = text[:1] in "rR"
    body = text[1:] if raw else text
    q = body[:3] if body[:3] in ('"""', "\'\'\'") else body[:1]
    if q not in ('"', "'", '"""', "\'\'\'") or len(body) < 2 * len(q) or not body.endswith(q):
        return None
    inner = body[len(q):-len(q)]
    if (not raw and "\\" in inner) or "\r" in inner:
        return None
    return inner


def literal(node: cst.BaseExpression, depth: int = 0) -> object:
    """The Python value of a literal expression, or ``_NO_LITERAL``."""
    if depth > 20:
        return _NO_LITERAL
    t = type(node)
    try:
        if t is cst.SimpleString:
            v = _plain_string(node.value)  # type: ignore[union-attr]
            if v is None:
                v = node.evaluated_value  # type: ignore[union-attr]
            return v.decode("latin-1") if isinstance(v, bytes) else v
        if t is cst.Integer:
            return int(node.value, 0)  # type: ignore[union-attr]
        if t is cst.Float:
            return ast.literal_eval(node.value)  # type: ignore[union-attr]
        if t is cst.ConcatenatedString:
            left = literal(node.left, depth + 1)  # type: ignore[union-attr]
            right = literal(node.right, depth + 1)  # type: ignore[union-attr]
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            return _NO_LITERAL
        if t is cst.Name:
            return {"True": True, "False": False, "None": None}.get(node.value, _NO_LITERAL)  # type: ignore[union-attr]
        if t is cst.UnaryOperation and type(node.operator) is cst.Minus:  # type: ignore[union-attr]
            v = literal(node.expression, depth + 1)  # type: ignore[union-attr]
            return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else _NO_LITERAL
        if t is cst.List or t is cst.Tuple:
            if len(node.elements) > 64:  # type: ignore[union-attr]  # not kept: do not evaluate 20k items first
                return _NO_LITERAL
            items = tuple(literal(e.value, depth + 1) for e in node.elements)  # type: ignore[union-attr]
            if any(i is _NO_LITERAL for i in items):
                return _NO_LITERAL
            return items
        if t is cst.FormattedString:
            # keep the static text of an f-string: enough to see "/generate" or "tcp://"
            parts = [p.value for p in node.parts if type(p) is cst.FormattedStringText]  # type: ignore[union-attr]
            return "{}".join(parts) if parts else _NO_LITERAL
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return _NO_LITERAL
    return _NO_LITERAL


def to_arg(node: cst.BaseExpression) -> Arg:
    lit = literal(node)
    if lit is not _NO_LITERAL:
        return Arg("lit", lit)
    t = type(node)
    if t is cst.Name or t is cst.Attribute:
        return Arg("name", dotted(node))
    if t is cst.Call:
        return Arg("call", dotted(node.func))  # type: ignore[union-attr]
    if t is cst.Lambda:
        return Arg("lambda", None)
    if t is cst.Await:
        return to_arg(node.expression)  # type: ignore[union-attr]
    return Arg("other", dotted(node))


def _annotation(node: cst.Annotation | None) -> str | None:
    if node is None:
        return None
    ann = node.annotation
    if type(ann) is cst.SimpleString:
        v = literal(ann)
        return v if isinstance(v, str) else None
    if type(ann) is cst.Subscript:
        # Optional[Foo] / list[Foo] -> keep the first inner name as a type hint
        inner = ann.slice[0].slice if ann.slice else None
        if isinstance(inner, cst.Index):
            head = dotted(ann.value)
            if head.rsplit(".", 1)[-1] in {"Optional", "Type", "type", "Annotated", "Union"}:
                return dotted(inner.value)
        return dotted(ann.value)
    if type(ann) is cst.BinaryOperation:  # Foo | None
        return dotted(ann.left)  # type: ignore[attr-defined]
    return dotted(ann)


# names that are no class of the repo: typing forms, builtins, None
_NOT_A_CLASS = frozenset({"None", "Any", "int", "float", "str", "bool", "bytes", "complex", "object", "list", "dict",
                          "set", "frozenset", "tuple", "type", "List", "Dict", "Set", "FrozenSet", "Tuple", "Type",
                          "Optional", "Union", "Annotated", "ClassVar", "Final", "Literal", "Sequence", "Mapping",
                          "MutableMapping", "Iterable", "Callable", "Path", "TypeVar"})


def _ann_names(node: cst.BaseExpression, out: list[str], depth: int = 0) -> None:
    """Every class name in the type positions of an annotation: both sides of ``A | B``, the items of
    ``list[A]``/``dict[str, A]``/``Union[A, B]``, the first argument of ``Annotated``; never ``Literal``."""
    t = type(node)
    if depth > 6:
        return
    if t is cst.Name or t is cst.Attribute:
        name = dotted(node)
        if name and name.rsplit(".", 1)[-1] not in _NOT_A_CLASS:
            out.append(name)
    elif t is cst.SimpleString:
        v = literal(node)
        if isinstance(v, str) and v and all(p.isidentifier() for p in v.split(".")):
            out.append(v)
    elif t is cst.BinaryOperation:
        _ann_names(node.left, out, depth + 1)  # type: ignore[union-attr]
        _ann_names(node.right, out, depth + 1)  # type: ignore[union-attr]
    elif t is cst.Subscript:
        head = dotted(node.value).rsplit(".", 1)[-1]  # type: ignore[union-attr]
        if head in ("Literal", "Callable"):
            return  # values, or a function's signature: no field of that type
        items = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]  # type: ignore[union-attr]
        if head == "Annotated":
            items = items[:1]
        elif head not in _NOT_A_CLASS:
            _ann_names(node.value, out, depth + 1)  # type: ignore[union-attr]
            return
        for item in items:
            _ann_names(item, out, depth + 1)


_UNKNOWN = ("?",)
_WRAPPER_TYPES = {"Optional", "Type", "type", "Annotated", "Union", "ClassVar", "Final"}


def _ann_tree(node: cst.BaseExpression | None) -> tuple:
    """Expression tree of the type an annotation names (``Optional[X]`` -> X)."""
    if node is None:
        return _UNKNOWN
    t = type(node)
    if t is cst.SimpleString:
        v = literal(node)
        if isinstance(v, str) and v and all(p.isidentifier() for p in v.split(".")):
            parts = v.split(".")
            tree: tuple = ("n", parts[0])
            for p in parts[1:]:
                tree = ("a", tree, p)
            return tree
        return _UNKNOWN
    if t is cst.Subscript:
        head = dotted(node.value).rsplit(".", 1)[-1]  # type: ignore[union-attr]
        if head == "Union":  # Union[A, B]: either class
            items = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]  # type: ignore[union-attr]
            return _ann_union(items)
        if head in _WRAPPER_TYPES and node.slice:  # type: ignore[union-attr]
            inner = node.slice[0].slice  # type: ignore[union-attr]
            if isinstance(inner, cst.Index):
                return _ann_tree(inner.value)
        return _ann_tree(node.value)  # type: ignore[union-attr]
    if t is cst.BinaryOperation and type(node.operator) is cst.BitOr:  # type: ignore[union-attr]
        return _ann_union([node.left, node.right])  # type: ignore[union-attr]  # A | B | None
    if t is cst.Name:
        return ("n", node.value)  # type: ignore[union-attr]
    if t is cst.Attribute:
        base = _ann_tree(node.value)  # type: ignore[union-attr]
        return ("a", base, node.attr.value) if base is not _UNKNOWN else _UNKNOWN  # type: ignore[union-attr]
    return _UNKNOWN


_PLAIN_TYPES = _NOT_A_CLASS | frozenset(dir(builtins))


def _ann_union(items: list) -> tuple:
    """``A | B`` / ``Union[A, B]``: every member but ``None`` (a value of the annotated name may be
    of either class; before, only the first one was kept and calls on it missed the others)."""
    trees = [_ann_tree(i) for i in items if not (type(i) is cst.Name and i.value == "None")]
    trees = [tr for tr in trees if tr is not _UNKNOWN]
    if len(trees) > 1:  # the classes a value may be: builtins and typing forms in a union say nothing more
        named = list(dict.fromkeys(tr for tr in trees if not (tr[0] == "n" and tr[1] in _PLAIN_TYPES)))
        trees = named or trees[:1]
    if not trees:
        return _UNKNOWN
    return trees[0] if len(trees) == 1 else ("u", tuple(trees))


def _code(node: cst.CSTNode, limit: int = 120) -> str:
    try:
        text = _EMPTY_MODULE.code_for_node(node)
    except Exception:  # noqa: BLE001 - codegen of an odd node must not sink the file
        return "<expr>"
    text = " ".join(text.split())
    return text[:limit]


_FIELD_ORDER: dict[type, tuple[str, ...]] = {}  # node type -> child fields in source order
_NODE_TYPES: set[type] = set()
_LEAF_TYPES: set[type] = {str, int, float, bool, type(None)}


class _OrderRecorder(cst.CSTVisitor):
    """Learns, once per node type, the order libcst visits its child fields (= source order)."""

    def __init__(self, top: cst.CSTNode) -> None:
        super().__init__()
        self.top = top
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.top and attribute not in self.fields:
            self.fields.append(attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave(self, original_node: cst.CSTNode) -> None:
        return None


def _child_fields(node: cst.CSTNode) -> tuple[str, ...]:
    t = type(node)
    got = _FIELD_ORDER.get(t)
    if got is None:
        rec = _OrderRecorder(node)
        node._visit_and_replace_children(rec)  # children are not descended into
        got = _FIELD_ORDER[t] = tuple(rec.fields)
    return got


class _Extractor(cst.CSTVisitor):
    def __init__(self, summary: FileSummary) -> None:
        super().__init__()
        self.s = summary
        self.line = 1
        self.scopes: list[str] = []  # qualname parts
        self.kinds: list[str] = []  # "class" | "function"
        self.decorator_depth = 0
        self.store_ids: set[int] = set()
        self.awaited_ids: set[int] = set()
        self.pending_def: dict[int, tuple] = {}
        self.open_funcs: list[dict] = []
        self.open_classes: list[dict] = []
        self.doc_ids: set[int] = set()
        self.module_names: set[str] = set()
        self.lambda_names: dict[int, str] = {}
        self.lambda_count: dict[str, int] = {}
        self.open_lambdas: list[dict] = []
        self.open_loops: list[int] = []  # first lines of the loops being walked
        self.alloc = 0
        self.chain_seen: set[int] = set()  # nodes inside a chain already recorded whole
        self.callee_ids: set[int] = set()  # attributes that are called (``cfg.model.items``)
        self._dispatch = {
            cst.Newline: self._newline,
            cst.SimpleWhitespace: self._ws,
            cst.SimpleString: self._string,
            cst.FormattedString: self._fstring,
            cst.FormattedStringText: self._ws,
            cst.Call: self._call,
            cst.FunctionDef: self._funcdef,
            cst.ClassDef: self._classdef,
            cst.Decorator: self._decorator,
            cst.Import: self._import,
            cst.ImportFrom: self._importfrom,
            cst.Assign: self._assign,
            cst.AnnAssign: self._annassign,
            cst.AugAssign: self._augassign,
            cst.Subscript: self._subscript,
            cst.Attribute: self._attribute,
            cst.Await: self._await,
            cst.Return: self._return,
            cst.Yield: self._yield,
            cst.If: self._if,
            cst.Comment: self._comment,
            cst.With: self._with,
            cst.Dict: self._dict,
            cst.Name: self._name,
            cst.IndentedBlock: self._block,
            cst.Module: self._block,
            cst.Lambda: self._lambda,
            cst.For: self._for,
            cst.CompFor: self._compfor,
            cst.ListComp: self._open_loop,
            cst.SetComp: self._open_loop,
            cst.GeneratorExp: self._open_loop,
            cst.DictComp: self._open_loop,
            cst.Global: self._global,
            cst.Nonlocal: self._nonlocal,
            cst.NamedExpr: self._namedexpr,
            cst.Raise: self._raise,
        }
        self._leave = {
            cst.FunctionDef: self._leave_funcdef,
            cst.ClassDef: self._leave_classdef,
            cst.Decorator: self._leave_decorator,
            cst.Lambda: self._leave_lambda,
            cst.For: self._close_loop,
            cst.ListComp: self._close_loop,
            cst.SetComp: self._close_loop,
            cst.GeneratorExp: self._close_loop,
            cst.DictComp: self._close_loop,
        }

    # ---- traversal -------------------------------------------------------------
    # libcst looks up a visit_<Type>_<field> hook for every field of every node; none is used
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def walk(self, node: cst.CSTNode) -> None:
        """Visit ``node`` and its subtree in source order without rebuilding nodes
        (``CSTNode.visit`` reconstructs every node, which doubles the cost of a pass)."""
        t = type(node)
        handler = self._dispatch.get(t)
        if handler is not None:
            handler(node)
        for name in _FIELD_ORDER.get(t) or _child_fields(node):
            v = getattr(node, name)
            tv = type(v)
            if tv in _NODE_TYPES:
                self.walk(v)
            elif tv is list or tv is tuple:
                for c in v:
                    tc = type(c)
                    if tc in _NODE_TYPES or (tc not in _LEAF_TYPES and self._is_node(c)):
                        self.walk(c)
            elif tv not in _LEAF_TYPES and self._is_node(v):
                self.walk(v)
        leave = self._leave.get(t)
        if leave is not None:
            leave(node)

    @staticmethod
    def _is_node(v: object) -> bool:
        if isinstance(v, cst.CSTNode):
            _NODE_TYPES.add(type(v))
            return True
        _LEAF_TYPES.add(type(v))
        return False

    def on_visit(self, node: cst.CSTNode) -> bool:
        handler = self._dispatch.get(type(node))
        if handler is not None:
            handler(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        handler = self._leave.get(type(original_node))
        if handler is not None:
            handler(original_node)

    @property
    def scope(self) -> str:
        return ".".join(self.scopes) if self.scopes else MODULE_SCOPE

    def _in_function(self) -> bool:
        return bool(self.kinds) and self.kinds[-1] == "function"

    # ---- line counting ---------------------------------------------------------
    def _newline(self, node: cst.Newline) -> None:
        self.line += 1

    def _ws(self, node) -> None:
        v = node.value
        if "\n" in v:
            self.line += v.count("\n")

    def _string(self, node: cst.SimpleString) -> None:
        if id(node) not in self.doc_ids:
            val = literal(node)
            if isinstance(val, str) and 0 < len(val) <= _MAX_STRING:
                self.s.strings.append(StringConst(self.scope, val, self.line))
        v = node.value
        if "\n" in v:
            self.line += v.count("\n")

    def _fstring(self, node: cst.FormattedString) -> None:
        """The static text of an f-string shaped like a URL or path (``f"{base}/batch"``): a slash and
        no whitespace, so messages stay out. Its holes read ``{}``; the text parts count their own lines."""
        if len(node.parts) > 32:
            return
        val = "".join(p.value if type(p) is cst.FormattedStringText else "{}" for p in node.parts)  # type: ignore[union-attr]
        if "/" in val and len(val) <= _MAX_STRING and not any(ch.isspace() for ch in val):
            self.s.strings.append(StringConst(self.scope, val, self.line))

    def _comment(self, node: cst.Comment) -> None:
        m = _SUPPRESS.search(node.value)
        if m:
            ids = tuple(x.strip().upper() for x in (m.group(1) or "*").split(",") if x.strip())
            self.s.suppressions[self.line] = ids

    def _block(self, node) -> None:
        body = node.body
        if body and type(body[0]) is cst.SimpleStatementLine and body[0].body:
            first = body[0].body[0]
            if type(first) is cst.Expr and type(first.value) in (cst.SimpleString, cst.ConcatenatedString):
                self.doc_ids.add(id(first.value))
                if type(first.value) is cst.ConcatenatedString:
                    self.doc_ids.add(id(first.value.left))

    # ---- definitions -----------------------------------------------------------
    def _funcdef(self, node: cst.FunctionDef) -> None:
        self.pending_def[id(node.name)] = ("function", node)

    def _classdef(self, node: cst.ClassDef) -> None:
        self.pending_def[id(node.name)] = ("class", node)

    def _name(self, node: cst.Name) -> None:
        pending = self.pending_def.pop(id(node), None)
        if pending is None:
            return
        kind, defnode = pending
        if kind == "function":
            self._open_function(defnode, self.line)
        else:
            self._open_class(defnode, self.line)

    def _open_function(self, node: cst.FunctionDef, line: int) -> None:
        class_name = ".".join(self.scopes) if self.kinds and self.kinds[-1] == "class" else None
        outer = self.scope
        qual = ".".join([*self.scopes, node.name.value])
        self._flow(outer, "def", node.name.value,
                   ("dec", ("fn", qual), tuple(self._x(d.decorator) for d in node.decorators)))
        self._param_flows(outer, qual, node.params)
        if node.returns is not None:
            self._flow(qual, "rann", None, _ann_tree(node.returns.annotation))
        self.scopes.append(node.name.value)
        self.kinds.append("function")
        params: list[Param] = []
        p = node.params
        for group, kind in ((p.posonly_params, "pos"), (p.params, "pos"), (p.kwonly_params, "kwonly")):
            for prm in group:
                params.append(
                    Param(prm.name.value, _annotation(prm.annotation), to_arg(prm.default) if prm.default else None, kind)
                )
        if isinstance(p.star_arg, cst.Param):
            params.append(Param(p.star_arg.name.value, _annotation(p.star_arg.annotation), None, "vararg"))
        if p.star_kwarg is not None:
            params.append(Param(p.star_kwarg.name.value, _annotation(p.star_kwarg.annotation), None, "kwarg"))
        self.open_funcs.append(
            {
                "qualname": ".".join(self.scopes),
                "name": node.name.value,
                "line": line,
                "params": tuple(params),
                "decorators": tuple(dotted(d.decorator) for d in node.decorators),
                "returns": _annotation(node.returns),
                "is_async": node.asynchronous is not None,
                "class_name": class_name,
                "returned": [],
                "yields": False,
            }
        )

    def _leave_funcdef(self, node: cst.FunctionDef) -> None:
        if not self.open_funcs or self.kinds[-1:] != ["function"]:
            return
        f = self.open_funcs.pop()
        self.scopes.pop()
        self.kinds.pop()
        self.s.functions.append(
            FunctionDef(
                qualname=f["qualname"],
                name=f["name"],
                line=f["line"],
                end_line=max(f["line"], self.line - 1),
                params=f["params"],
                decorators=f["decorators"],
                returns=f["returns"],
                is_async=f["is_async"],
                class_name=f["class_name"],
                returned=tuple(dict.fromkeys(f["returned"])),
                yields=f["yields"],
            )
        )

    def _open_class(self, node: cst.ClassDef, line: int) -> None:
        outer = self.scope
        qual = ".".join([*self.scopes, node.name.value])
        self._flow(outer, "def", node.name.value,
                   ("dec", ("cls", qual), tuple(self._x(d.decorator) for d in node.decorators)))
        self._flow(outer, "base", qual, tuple(self._x(b.value) for b in node.bases))
        self.scopes.append(node.name.value)
        self.kinds.append("class")
        fields: list[Param] = []  # filled by _annassign, which knows each field's line
        field_ids: set[int] = set()
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        for stmt in body:
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                        field_ids.add(id(small))
        self.open_classes.append(
            {
                "qualname": ".".join(self.scopes),
                "name": node.name.value,
                "line": line,
                "bases": tuple(dotted(b.value) for b in node.bases),
                "decorators": tuple(dotted(d.decorator) for d in node.decorators),
                "fields": fields,
                "field_types": [],
                "field_ids": field_ids,
                "keywords": tuple((k.keyword.value, dotted(k.value)) for k in node.keywords if k.keyword),
            }
        )

    def _leave_classdef(self, node: cst.ClassDef) -> None:
        if not self.open_classes or self.kinds[-1:] != ["class"]:
            return
        c = self.open_classes.pop()
        self.scopes.pop()
        self.kinds.pop()
        self.s.classes.append(
            ClassDef(
                qualname=c["qualname"],
                name=c["name"],
                line=c["line"],
                end_line=max(c["line"], self.line - 1),
                bases=c["bases"],
                decorators=c["decorators"],
                fields=tuple(c["fields"]),
                keywords=c["keywords"],
                field_types=tuple(c["field_types"]),
            )
        )

    def _decorator(self, node: cst.Decorator) -> None:
        self.decorator_depth += 1

    def _leave_decorator(self, node: cst.Decorator) -> None:
        self.decorator_depth -= 1

    # ---- imports ---------------------------------------------------------------
    def _skip_chains(self, node: cst.BaseExpression | None) -> None:
        """A dotted module name in an import is no attribute read."""
        while isinstance(node, cst.Attribute):
            self.chain_seen.add(id(node))
            node = node.value

    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._skip_chains(alias.name)
            name = dotted(alias.name)
            asname = alias.asname.name.value if alias.asname and type(alias.asname.name) is cst.Name else None
            imp = Import(self.scope, name, None, asname, 0, self.line)
            self.s.imports.append(imp)
            if not self.scopes:
                self.module_names.add(imp.bound)

    def _importfrom(self, node: cst.ImportFrom) -> None:
        self._skip_chains(node.module)
        module = dotted(node.module) if node.module is not None else ""
        level = len(node.relative)
        if isinstance(node.names, cst.ImportStar):
            self.s.imports.append(Import(self.scope, module, "*", None, level, self.line))
            return
        for alias in node.names:
            name = dotted(alias.name)
            asname = alias.asname.name.value if alias.asname and type(alias.asname.name) is cst.Name else None
            imp = Import(self.scope, module, name, asname, level, self.line)
            self.s.imports.append(imp)
            if not self.scopes:
                self.module_names.add(imp.bound)

    # ---- calls -----------------------------------------------------------------
    def _call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute:
            if func.attr.value == "get" and node.args and node.args[0].keyword is None:
                self._record_chain(node)
            self.callee_ids.add(id(func))
        args: list[Arg] = []
        kwargs: list[tuple[str, Arg]] = []
        star = False
        for a in node.args:
            if a.star:
                star = True
                continue
            if a.keyword is not None:
                kwargs.append((a.keyword.value, to_arg(a.value)))
            else:
                args.append(to_arg(a.value))
        self.s.calls.append(
            CallSite(
                scope=self.scope,
                func=dotted(node.func),
                line=self.line,
                args=tuple(args),
                kwargs=tuple(kwargs),
                star_args=star,
                awaited=id(node) in self.awaited_ids,
                expr=self._x(node),
            )
        )

    def _await(self, node: cst.Await) -> None:
        self.awaited_ids.add(id(node.expression))

    # ---- assignments -----------------------------------------------------------
    def _record_assign(self, target: cst.BaseExpression, value: cst.BaseExpression | None,
                       annotation: str | None = None, augmented: bool = False) -> None:
        self.store_ids.add(id(target))
        t = type(target)
        if t is cst.Tuple or t is cst.List:
            for el in target.elements:  # type: ignore[union-attr]
                inner = el.value
                if type(inner) is cst.StarredElement:
                    inner = inner.value
                self._record_assign(inner, None, None, augmented)
                if value is not None:
                    self.s.assignments.append(
                        Assignment(self.scope, dotted(inner), "unpack", dotted(value), self.line)
                    )
            return
        if t is not cst.Name and t is not cst.Attribute and t is not cst.Subscript:
            return
        if t is cst.Subscript:
            return  # recorded by _subscript as a write
        if value is None:
            kind, val, cargs = ("none", None, ())
        else:
            vt = type(value)
            if vt is cst.Await:
                value = value.expression  # type: ignore[union-attr]
                vt = type(value)
            if vt is cst.Call:
                kind, val = "call", dotted(value.func)  # type: ignore[union-attr]
                cargs = tuple(to_arg(a.value) for a in value.args if not a.keyword and not a.star)  # type: ignore[union-attr]
            elif vt is cst.Lambda:
                kind, val, cargs = "lambda", None, ()
            else:
                lit = literal(value)
                if lit is not _NO_LITERAL:
                    kind, val, cargs = "lit", lit, ()
                elif vt is cst.Name or vt is cst.Attribute:
                    kind, val, cargs = "name", dotted(value), ()
                else:
                    kind, val, cargs = "other", dotted(value), ()
        self.s.assignments.append(
            Assignment(self.scope, dotted(target), kind, val, self.line, annotation, augmented, cargs)
        )
        if target is not None and t is cst.Name and target.value == "__all__" and not self.scopes:  # type: ignore[union-attr]
            lit = literal(value) if value is not None else _NO_LITERAL
            if isinstance(lit, tuple) and all(isinstance(x, str) for x in lit):
                self.s.all_exports = lit  # type: ignore[assignment]

    def _assign(self, node: cst.Assign) -> None:
        value = self._x(node.value)
        for t in node.targets:
            self._record_assign(t.target, node.value)
            self._flow(self.scope, "=", self._tx(t.target), value)

    def _annassign(self, node: cst.AnnAssign) -> None:
        if self.kinds[-1:] == ["class"] and type(node.target) is cst.Name:
            self.store_ids.add(id(node.target))
            c = self.open_classes[-1] if self.open_classes else None
            if c is not None and id(node) in c["field_ids"]:
                self._class_field(c, node)
            return
        self._record_assign(node.target, node.value, _annotation(node.annotation))
        target = self._tx(node.target)
        self._flow(self.scope, "ann", target, _ann_tree(node.annotation.annotation))
        if node.value is not None:
            self._flow(self.scope, "=", target, self._x(node.value))

    def _class_field(self, c: dict, node: cst.AnnAssign) -> None:
        """``name: type [= value]`` directly in a class body: a field, and its flows."""
        qual, name = c["qualname"], node.target.value  # type: ignore[union-attr]
        self._flow(qual, "ann", ("n", name), _ann_tree(node.annotation.annotation))
        default_kw = None
        if node.value is not None:
            self._flow(qual, "=", ("n", name), self._x(node.value))
            if type(node.value) is cst.Call:
                for a in node.value.args:  # type: ignore[union-attr]
                    if a.keyword is not None and a.keyword.value == "default":
                        lit = literal(a.value)
                        if lit is not _NO_LITERAL:
                            default_kw = Arg("lit", lit)
        text = _annotation(node.annotation)
        names: list[str] = []
        _ann_names(node.annotation.annotation, names)
        if names and names != [text]:
            c["field_types"].append((name, tuple(dict.fromkeys(names))))
        c["fields"].append(Param(name, text,
                                 to_arg(node.value) if node.value is not None else None, "field",
                                 self.line, default_kw))

    def _augassign(self, node: cst.AugAssign) -> None:
        self._record_assign(node.target, node.value, augmented=True)
        self._flow(self.scope, "=", self._tx(node.target), self._x(node.value))

    def _with(self, node: cst.With) -> None:
        # ``enter`` / ``aenter``: the statement calls the object's ``__enter__``/``__exit__`` (or the
        # async pair); an ``async with ... as x`` also binds ``x`` to what ``__aenter__`` gives
        aio = node.asynchronous is not None
        for item in node.items:
            value = self._x(item.item)
            if item.asname is not None:
                self._record_assign(item.asname.name, item.item)
                self._flow(self.scope, "with", self._tx(item.asname.name), value)
            if value != ("?",):
                target = self._tx(item.asname.name) if aio and item.asname is not None else None
                self._flow(self.scope, "aenter" if aio else "enter", target, value)

    def _for(self, node: cst.For) -> None:
        self.open_loops.append(self.line)
        self._flow(self.scope, "for", self._tx(node.target), self._x(node.iter))

    def _open_loop(self, node: cst.BaseExpression) -> None:
        self.open_loops.append(self.line)

    def _close_loop(self, node: cst.CSTNode) -> None:
        if self.open_loops:
            start = self.open_loops.pop()
            # a ``for`` statement's line counter stands past its body's last newline
            end = self.line - 1 if type(node) is cst.For else self.line
            self.s.loops.append(Loop(self.scope, start, max(start, end)))

    def _compfor(self, node: cst.CompFor) -> None:
        self._flow(self.scope, "for", self._tx(node.target), self._x(node.iter))

    def _global(self, node: cst.Global) -> None:
        for n in node.names:
            self._flow(self.scope, "global", n.name.value, None)

    def _nonlocal(self, node: cst.Nonlocal) -> None:
        for n in node.names:
            self._flow(self.scope, "nonlocal", n.name.value, None)

    def _raise(self, node: cst.Raise) -> None:
        if node.exc is not None and type(node.exc) in (cst.Name, cst.Attribute):
            self._flow(self.scope, "raise", None, self._x(node.exc))  # ``raise Cls`` builds an instance

    def _namedexpr(self, node: cst.NamedExpr) -> None:
        self._flow(self.scope, "=", self._tx(node.target), self._x(node.value))

    # ---- value flow ------------------------------------------------------------
    def _flow(self, scope: str, op: str, target: object, value: object) -> None:
        self.s.flows.append(Flow(scope, op, target, value, self.line))

    def _param_flows(self, outer: str, qual: str, params: cst.Parameters) -> None:
        for prm in (*params.posonly_params, *params.params, *params.kwonly_params):
            if prm.default is not None:
                self._flow(outer, "param", (qual, prm.name.value), self._x(prm.default))
            if prm.annotation is not None:
                self._flow(qual, "ann", ("n", prm.name.value), _ann_tree(prm.annotation.annotation))

    def _alloc_id(self) -> str:
        self.alloc += 1
        return f"{self.line}.{self.alloc}"

    def _lambda_name(self, node: cst.Lambda) -> str:
        name = self.lambda_names.get(id(node))
        if name is None:
            scope = self.scope
            n = self.lambda_count.get(scope, 0) + 1
            self.lambda_count[scope] = n
            name = f"<lambda{n}>" if scope == MODULE_SCOPE else f"{scope}.<lambda{n}>"
            self.lambda_names[id(node)] = name
        return name

    def _lambda(self, node: cst.Lambda) -> None:
        qual = self._lambda_name(node)
        outer = self.scope
        self._param_flows(outer, qual, node.params)
        self.scopes.append(qual.rsplit(".", 1)[-1])
        self.kinds.append("function")
        self._flow(qual, "ret", None, self._x(node.body))
        params = tuple(Param(p.name.value, None, None, "pos") for p in (*node.params.posonly_params, *node.params.params))
        params += tuple(Param(p.name.value, None, None, "kwonly") for p in node.params.kwonly_params)
        if isinstance(node.params.star_arg, cst.Param):
            params += (Param(node.params.star_arg.name.value, None, None, "vararg"),)
        if node.params.star_kwarg is not None:
            params += (Param(node.params.star_kwarg.name.value, None, None, "kwarg"),)
        self.open_lambdas.append({"qualname": qual, "line": self.line, "params": params,
                                  "class_name": None})

    def _leave_lambda(self, node: cst.Lambda) -> None:
        if not self.open_lambdas:
            return
        f = self.open_lambdas.pop()
        self.scopes.pop()
        self.kinds.pop()
        self.s.lambdas.append(FunctionDef(qualname=f["qualname"], name=f["qualname"].rsplit(".", 1)[-1],
                                          line=f["line"], end_line=self.line, params=f["params"]))

    def _tx(self, node: cst.BaseExpression) -> tuple:
        """Expression tree of an assignment target."""
        t = type(node)
        if t is cst.Tuple or t is cst.List:
            items = []
            for el in node.elements:  # type: ignore[union-attr]
                inner = el.value
                if type(el) is cst.StarredElement or type(inner) is cst.StarredElement:
                    items.append(("*", self._tx(inner.value if type(inner) is cst.StarredElement else inner)))
                else:
                    items.append(self._tx(inner))
            return ("l", None, tuple(items))
        return self._x(node)

    def _x(self, node: cst.BaseExpression | None, depth: int = 0) -> tuple:
        """Expression tree of ``node`` (see :class:`Flow`); cheap, bounded depth."""
        if node is None or depth > 40:
            return _UNKNOWN
        t = type(node)
        d = depth + 1
        if t is cst.Name:
            v = node.value  # type: ignore[union-attr]
            if v in ("True", "False", "None"):
                return ("k", {"True": True, "False": False, "None": None}[v])
            return ("n", v)
        if t is cst.Attribute:
            return ("a", self._x(node.value, d), node.attr.value)  # type: ignore[union-attr]
        if t is cst.Call:
            args: list = []
            kwargs: list = []
            for a in node.args:  # type: ignore[union-attr]
                v = self._x(a.value, d)
                if a.star == "*":
                    args.append(("*", v))
                elif a.star == "**":
                    kwargs.append(("**", v))
                elif a.keyword is not None:
                    kwargs.append((a.keyword.value, v))
                else:
                    args.append(v)
            return ("c", self._x(node.func, d), tuple(args), tuple(kwargs))  # type: ignore[union-attr]
        if t is cst.Subscript:
            key: tuple = _UNKNOWN
            sl = node.slice  # type: ignore[union-attr]
            if len(sl) == 1 and isinstance(sl[0].slice, cst.Index):
                key = self._x(sl[0].slice.value, d)
            elif len(sl) == 1 and isinstance(sl[0].slice, cst.Slice):
                key = ("sl", _int_or_none(sl[0].slice.lower), _int_or_none(sl[0].slice.upper),
                       _int_or_none(sl[0].slice.step))  # x[a:b]; "?" for a bound that is no literal
            return ("s", self._x(node.value, d), key)  # type: ignore[union-attr]
        if t is cst.Await:
            return self._x(node.expression, d)  # type: ignore[union-attr]
        if t is cst.SimpleString or t is cst.ConcatenatedString or t is cst.Integer or t is cst.Float:
            v = literal(node)
            if isinstance(v, str) and len(v) > 200:
                v = v[:200]
            return ("k", v) if v is not _NO_LITERAL else _UNKNOWN
        if t is cst.FormattedString:
            return ("k", "")
        if t is cst.Lambda:
            return ("fn", self._lambda_name(node))  # type: ignore[arg-type]
        if t is cst.Dict:
            items = []
            for el in node.elements:  # type: ignore[union-attr]
                if type(el) is cst.DictElement:
                    items.append((self._x(el.key, d), self._x(el.value, d)))
                else:
                    items.append(("**", self._x(el.value, d)))
            return ("d", self._alloc_id(), tuple(items))
        if t is cst.List or t is cst.Tuple or t is cst.Set:
            items = []
            for el in node.elements:  # type: ignore[union-attr]
                if type(el) is cst.StarredElement:
                    items.append(("*", self._x(el.value, d)))
                else:
                    items.append(self._x(el.value, d))
            return ("l", self._alloc_id(), tuple(items))
        if t is cst.ListComp or t is cst.SetComp or t is cst.GeneratorExp:
            return ("l", self._alloc_id(), (self._x(node.elt, d),))  # type: ignore[union-attr]
        if t is cst.DictComp:
            return ("d", self._alloc_id(), ((_UNKNOWN, self._x(node.value, d)),))  # type: ignore[union-attr]
        if t is cst.IfExp:
            return ("u", (self._x(node.body, d), self._x(node.orelse, d)))  # type: ignore[union-attr]
        if t is cst.BooleanOperation:
            return ("u", (self._x(node.left, d), self._x(node.right, d)))  # type: ignore[union-attr]
        if t is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.BitOr):  # type: ignore[union-attr]
            # ``a + b`` of lists, ``a | b`` of sets or dicts, and a type alias ``A | B``: either side's values
            return ("u", (self._x(node.left, d), self._x(node.right, d)))  # type: ignore[union-attr]
        if t is cst.NamedExpr:
            return self._x(node.value, d)  # type: ignore[union-attr]
        return _UNKNOWN

    # ---- container keys and attributes ----------------------------------------
    def _subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1:
            return
        inner = node.slice[0].slice
        if not isinstance(inner, cst.Index):
            return
        key = literal(inner.value)
        if not isinstance(key, str) or len(key) > 120:
            return
        mode = "write" if id(node) in self.store_ids else "read"
        self.s.subscripts.append(Subscript(self.scope, dotted(node.value), key, mode, self.line))
        self._record_chain(node)

    def _dict(self, node: cst.Dict) -> None:
        for el in node.elements:
            if type(el) is cst.DictElement:
                key = literal(el.key)
                if isinstance(key, str) and len(key) <= 120:
                    self.s.subscripts.append(Subscript(self.scope, "<dict>", key, "write", self.line))

    def _attribute(self, node: cst.Attribute) -> None:
        self._record_chain(node)
        recv = node.value
        if type(recv) is not cst.Name:
            return
        name = recv.value
        if name in ("self", "cls") or name in self.module_names or not self.scopes:
            return
        mode = "write" if id(node) in self.store_ids else "read"
        self.s.attrs.append(AttrAccess(self.scope, name, node.attr.value, mode, self.line))

    def _record_chain(self, node: cst.BaseExpression) -> None:
        """Record the outermost chain on a plain name once (its inner nodes are skipped when visited)."""
        if id(node) in self.chain_seen or len(self.s.chains) >= _MAX_CHAINS:
            return
        got = _chain(node)
        if got is None:
            return
        root, path, default, inner = got
        self.chain_seen.update(inner)
        if id(node) in self.callee_ids:
            path = path[:-1]  # ``cfg.model.items()``: the method is no key
        if root in ("cls", "super") or root in self.module_names or not path or (root == "self" and len(path) < 2):
            return
        mode = "write" if id(node) in self.store_ids else "read"
        self.s.chains.append(ChainRead(self.scope, root, tuple(path), self.line, mode, default))

    # ---- control flow ----------------------------------------------------------
    def _return(self, node: cst.Return) -> None:
        if self.open_funcs and node.value is not None:
            self.open_funcs[-1]["returned"].append(dotted(node.value))
            self._flow(self.scope, "ret", None, self._x(node.value))

    def _yield(self, node: cst.Yield) -> None:
        if self.open_funcs:
            self.open_funcs[-1]["yields"] = True
            v = node.value
            if isinstance(v, cst.From):
                self._flow(self.scope, "yieldfrom", None, self._x(v.item))
            elif v is not None:
                self._flow(self.scope, "yield", None, self._x(v))

    def _if(self, node: cst.If) -> None:
        test = node.test
        if (
            type(test) is cst.Comparison
            and type(test.left) is cst.Name
            and test.left.value == "__name__"
            and len(test.comparisons) == 1
            and literal(test.comparisons[0].comparator) == "__main__"
        ):
            self.s.main_guard_line = self.line
            return
        if not self._in_function():
            return
        body = node.body
        stmts = list(body.body)
        smalls: list[cst.BaseSmallStatement] = []
        if isinstance(body, cst.SimpleStatementSuite):
            smalls = list(body.body)
            others = len(smalls) - 1
        else:
            if not stmts or type(stmts[-1]) is not cst.SimpleStatementLine:
                return
            smalls = list(stmts[-1].body)
            others = len(stmts) - 1 + len(smalls) - 1
        if not smalls:
            return
        last = smalls[-1]
        kind = {cst.Continue: "continue", cst.Break: "break", cst.Return: "return"}.get(type(last))
        if kind is None:
            return
        if kind == "return" and last.value is not None and literal(last.value) is _NO_LITERAL:  # type: ignore[attr-defined]
            return  # returning a computed value is not dropping work
        self.s.skips.append(Skip(self.scope, kind, _code(test), self.line, others > 0))


def extract(module: cst.Module, path: str, module_name: str, is_package: bool) -> FileSummary:
    summary = FileSummary(path=path, module=module_name, is_package=is_package)
    visitor = _Extractor(summary)
    old = sys.getrecursionlimit()
    try:
        visitor.walk(module)
    finally:
        sys.setrecursionlimit(old)
    summary.lines = visitor.line
    return summary


def _chain(node: cst.BaseExpression) -> tuple[str, list[str], object, list[int]] | None:
    """Root name, path, ``.get`` default and inner node ids of a chain of attributes, literal string
    subscripts and ``.get("k")`` calls on a plain name; None for anything else."""
    path: list[str] = []
    inner: list[int] = []
    default: object = None
    cur: cst.BaseExpression = node
    for _ in range(_CHAIN_DEPTH):
        inner.append(id(cur))
        t = type(cur)
        if t is cst.Name:
            path.reverse()
            return cur.value, path, default, inner  # type: ignore[attr-defined]
        if t is cst.Attribute:
            path.append(cur.attr.value)  # type: ignore[attr-defined]
            cur = cur.value  # type: ignore[attr-defined]
        elif t is cst.Subscript:
            sl = cur.slice  # type: ignore[attr-defined]
            key = literal(sl[0].slice.value) if len(sl) == 1 and isinstance(sl[0].slice, cst.Index) else None
            if not isinstance(key, str) or not key or len(key) > 80:
                return None
            path.append(key)
            cur = cur.value  # type: ignore[attr-defined]
        elif t is cst.Call and type(cur.func) is cst.Attribute and cur.func.attr.value == "get" \
                and cur.args and cur.args[0].keyword is None:  # type: ignore[attr-defined]
            key = literal(cur.args[0].value)  # type: ignore[attr-defined]
            if not isinstance(key, str) or not key or len(key) > 80:
                return None
            if not path and len(cur.args) > 1:  # type: ignore[attr-defined]
                value = literal(cur.args[1].value)  # type: ignore[attr-defined]
                # a scalar default, bounded: a summary holds no bulk literal
                scalar = isinstance(value, (int, float, bool)) or (isinstance(value, str) and len(value) <= 200)
                default = value if scalar else None
            path.append(key)
            inner.append(id(cur.func))  # type: ignore[attr-defined]
            cur = cur.func.value  # type: ignore[attr-defined]
        else:
            return None
    return None


def _int_or_none(node: cst.BaseExpression | None) -> int | str | None:
    """A slice bound: the int it is, None when absent, "?" when not a literal int."""
    if node is None:
        return None
    v = literal(node)
    return v if isinstance(v, int) and not isinstance(v, bool) else "?"
