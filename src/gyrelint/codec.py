"""A data-only codec for gyrelint's records: msgpack bytes in, gyrelint's own types out.

Nothing here can run code while decoding: the bytes are plain msgpack (maps, arrays,
strings, numbers), and the only objects built from them are the types a
:class:`Registry` was given (an allow-list by type, never by module), rebuilt by calling
their constructors with fields whose wire types are checked first.

Two layouts:

* **planned** (the fast one): a plan derived once from a record's type hints says how to
  store each field. A record is the array of its fields; a field that holds records is
  converted by its plan, every other one is stored as it is. Arrays decode as tuples, so a
  field hinted ``list[...]`` or ``set[...]`` is converted back by its plan: a decoded value
  is ``==`` to the stored one, lists and tuples included.
* **tagged** (for values whose type the hints do not fix, ``object`` fields, and records
  that do not match their hints): a walk that stores records, lists, sets and big
  integers as msgpack extension values, rebuilt by the decoder's extension hook.

Any failure to decode raises :class:`CodecError`; callers treat it as a cache miss.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from itertools import chain, compress, cycle, islice, repeat, starmap
from pathlib import Path

import msgpack

T = typing.TypeVar("T")

Conv = Callable[[object], object]
_NONE = type(None)
_PLAIN_HINTS: dict[object, tuple[type, ...]] = {
    str: (str,), int: (int,), bool: (bool,), float: (float, int), bytes: (bytes,), _NONE: (_NONE,),
}
_PLAIN = frozenset({str, int, float, bool, bytes, _NONE})
# extension codes of the tagged layout
_X_LIST, _X_RECORD, _X_SET, _X_FROZENSET, _X_BIGINT, _X_ENUM = range(1, 7)
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1


class CodecError(ValueError):
    """Bytes that do not decode to what the plan expects."""


class Mismatch(ValueError):
    """A value does not have the shape its type hint promises (encoding only)."""


@dataclasses.dataclass(frozen=True)
class Plan:
    enc: Conv
    dec: Conv
    wire: tuple[type, ...]  # the types the encoded value has once msgpack decoded it
    many: Conv | None = None  # decodes a tuple of encoded values at once (records: by column, from C)


def _many(plan: Plan | None) -> Conv:
    """The batch decoder of ``plan``: its own, or one call of ``dec`` per value."""
    if plan is None:
        return _identity
    if plan.many is not None:
        return plan.many
    dec = plan.dec
    return lambda col: list(map(dec, col))  # type: ignore[call-overload]


def _check(vals: object, n: int, wires: tuple[tuple[type, ...], ...], name: str) -> None:
    if type(vals) is not tuple or len(vals) != n or not all(map(isinstance, vals, wires)):
        raise CodecError(f"bad {name} record")


class Registry:
    """The types one kind of cache entry may hold, and the plans that store them.

    ``custom``: plans for types that are not records (a graph, a lazily loaded mapping);
    ``fields``: plans replacing the one a record field's hint would give.
    """

    def __init__(self, records: Iterable[type], *, custom: Mapping[object, Plan] | None = None,
                 fields: Mapping[tuple[type, str], Plan] | None = None, checked: bool = True) -> None:
        self.types: tuple[type, ...] = tuple(records)
        self.index = {t: i for i, t in enumerate(self.types)}
        self.custom = dict(custom or {})
        self.fields = dict(fields or {})
        self.checked = checked  # check the wire type of every field (off: arity and shapes only)
        self._plans: dict[object, Plan | None] = {}
        for t in self.types:
            if dataclasses.is_dataclass(t) and not all(f.init for f in dataclasses.fields(t)):
                raise TypeError(f"{t.__name__}: every field must be a constructor argument")
        self._unpack_opts = {"use_list": False, "raw": False, "strict_map_key": False, "ext_hook": self._ext}

    # -- bytes

    def pack(self, value: object) -> bytes:
        """msgpack bytes of an already-encoded value; Mismatch when it holds unstorable values."""
        try:
            return msgpack.packb(value, use_bin_type=True)
        except (TypeError, ValueError, OverflowError) as exc:
            raise Mismatch(str(exc)) from exc

    def decode_as(self, plan: Plan, payload: bytes, kind: type[T]) -> T | None:
        """The ``kind`` record a cache payload holds, or None: any failure to decode is a miss."""
        try:
            got = plan.dec(self.unpack(payload))
        except Exception:  # noqa: BLE001 - any failure is a miss
            return None
        return got if isinstance(got, kind) else None

    def encode_or_none(self, plan: Plan, value: object) -> bytes | None:
        """The payload storing ``value``, or None when it holds unstorable values (a cache that
        cannot be written only costs time)."""
        try:
            return self.pack(plan.enc(value))
        except (Mismatch, TypeError, AttributeError):
            return None

    def unpack(self, data: bytes, list_hook: Conv | None = None) -> object:
        """``list_hook``: called by the decoder on each array (a tuple) once its items are
        decoded, innermost first; what it returns takes the array's place."""
        opts = self._unpack_opts if list_hook is None else {**self._unpack_opts, "list_hook": list_hook}
        try:
            return msgpack.unpackb(data, **opts)
        except CodecError:
            raise
        except Exception as exc:  # noqa: BLE001 - any decoder failure is a bad entry
            raise CodecError(f"{exc.__class__.__name__}: {exc}") from exc

    def dumps(self, value: object, hint: object) -> bytes:
        plan = self.plan(hint)
        return self.pack(value if plan is None else plan.enc(value))

    def loads(self, data: bytes, hint: object) -> object:
        plan = self.plan(hint)
        raw = self.unpack(data)
        if plan is None:
            return raw
        try:
            return plan.dec(raw)
        except CodecError:
            raise
        except Exception as exc:  # noqa: BLE001 - a shape the plan does not expect is a bad entry
            raise CodecError(f"{exc.__class__.__name__}: {exc}") from exc

    # -- tagged layout

    def tagged(self, obj: object) -> object:
        """``obj`` with records, lists, sets and big integers as extension values."""
        t = type(obj)
        if t in _PLAIN:
            if t is int and not (_INT_MIN <= obj <= _INT_MAX):  # type: ignore[operator]
                return msgpack.ExtType(_X_BIGINT, str(obj).encode())
            return obj
        if t is tuple:
            return tuple(map(self.tagged, obj))  # type: ignore[call-overload]
        if t is list:
            return msgpack.ExtType(_X_LIST, self.pack(tuple(map(self.tagged, obj))))  # type: ignore[call-overload]
        if t is dict:
            return {self.tagged(k): self.tagged(v) for k, v in obj.items()}  # type: ignore[attr-defined]
        if t is set or t is frozenset:
            code = _X_SET if t is set else _X_FROZENSET
            return msgpack.ExtType(code, self.pack(tuple(map(self.tagged, obj))))  # type: ignore[call-overload]
        idx = self.index.get(t)
        if idx is not None and isinstance(obj, enum.Enum):
            return msgpack.ExtType(_X_ENUM, self.pack((idx, self.tagged(obj.value))))
        if idx is not None and dataclasses.is_dataclass(obj):
            vals = tuple(self.tagged(getattr(obj, f.name)) for f in dataclasses.fields(obj))
            return msgpack.ExtType(_X_RECORD, self.pack((idx, *vals)))
        raise Mismatch(f"{t.__name__} is not storable")

    def any_value(self, obj: object) -> object:
        """Encode a value whose type no hint fixes: as it is when it holds no list (the
        common case, checked in C by its repr), else by the tagged walk."""
        t = type(obj)
        if t is list or (t is tuple and "[" in repr(obj)) or (t is int and not _INT_MIN <= obj <= _INT_MAX):  # type: ignore[operator]
            return self.tagged(obj)
        return obj  # anything else msgpack cannot store fails the whole encode (Mismatch)

    def _ext(self, code: int, data: bytes) -> object:
        if code == _X_BIGINT:
            return int(data.decode("ascii"))
        vals = msgpack.unpackb(data, **self._unpack_opts)
        if type(vals) is not tuple:
            raise CodecError("bad extension value")
        if code == _X_LIST:
            return list(vals)
        if code == _X_SET:
            return set(vals)
        if code == _X_FROZENSET:
            return frozenset(vals)
        if code in (_X_RECORD, _X_ENUM) and vals and type(vals[0]) is int and 0 <= vals[0] < len(self.types):
            cls = self.types[vals[0]]
            if code == _X_ENUM and issubclass(cls, enum.Enum) and len(vals) == 2:
                return cls(vals[1])
            if code == _X_RECORD and dataclasses.is_dataclass(cls):
                if len(vals) - 1 != len(dataclasses.fields(cls)):
                    raise CodecError(f"bad {cls.__name__} record")
                return cls(*vals[1:])
        raise CodecError(f"unknown extension value {code}")

    # -- planned layout

    def plan(self, hint: object) -> Plan | None:
        """How to store a value of type ``hint``; None: as it is (a plain value)."""
        try:
            return self._plans[hint]
        except KeyError:
            pass
        except TypeError:  # an unhashable hint
            return self._make(hint, set())
        got = self._make(hint, set())
        self._plans[hint] = got
        return got

    def _make(self, hint: object, building: set[type]) -> Plan | None:
        if hint in self.custom:
            return self.custom[hint]  # type: ignore[index]
        if hint in _PLAIN_HINTS:
            return None
        if hint is object or hint is typing.Any:
            return Plan(self.any_value, _identity, (object,), _identity)
        if hint is Path:
            return Plan(_path_str, Path, (str,), lambda col: list(map(Path, col)))  # type: ignore[call-overload]
        if isinstance(hint, type) and hint in self.index:
            if issubclass(hint, enum.Enum):
                members = {m.value: m for m in hint}  # a lookup, not a call per value
                get_member = members.__getitem__
                return Plan(operator.attrgetter("value"), get_member, (str, int),
                            lambda col: list(map(get_member, col)))  # type: ignore[call-overload]
            return self._record(hint, building)
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (types.UnionType, typing.Union):
            return self._optional(hint, args, building)
        if origin in (list, set, frozenset) or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
            return self._sequence(origin, args[0] if args else object, building)
        if origin is tuple:
            return self._fixed(args, building)
        if origin is dict:
            return self._dict(args, building)
        if origin is typing.Literal:
            return None
        raise TypeError(f"no storage plan for {hint!r}")

    def _sub(self, hint: object, building: set[type]) -> Plan | None:
        if hint in building:
            raise TypeError(f"recursive type {hint!r}")
        return self._make(hint, building)

    def _wire_of(self, hint: object, plan: Plan | None) -> tuple[type, ...]:
        return plan.wire if plan is not None else _PLAIN_HINTS.get(hint, (object,))

    def _record(self, cls: type, building: set[type]) -> Plan:
        building.add(cls)
        try:
            hints = typing.get_type_hints(cls)
            names = tuple(f.name for f in dataclasses.fields(cls))
            plans = [self.fields[(cls, n)] if (cls, n) in self.fields else self._sub(hints[n], building)
                     for n in names]
        finally:
            building.discard(cls)
        n = len(names)
        checked = self.checked
        wires = tuple(self._wire_of(hints[nm], p) if checked else (object,) for nm, p in zip(names, plans, strict=True))
        get: Conv = operator.attrgetter(*names) if n > 1 else (lambda o: (getattr(o, names[0]),))
        nested = [(i, p.enc) for i, p in enumerate(plans) if p is not None]
        nested_many = [(i, _many(p)) for i, p in enumerate(plans) if p is not None]
        name = cls.__name__

        def enc(obj: object) -> object:
            if type(obj) is not cls:
                raise Mismatch(name)
            if not nested:
                return get(obj)
            vals = list(get(obj))
            for i, e in nested:
                vals[i] = e(vals[i])
            return tuple(vals)

        def many(seq: object) -> list:
            """Records from a tuple of field arrays: every check and constructor call runs in
            C, and each nested field is decoded once per column, not once per record."""
            if type(seq) is not tuple:
                raise CodecError(f"bad {name} records")
            if not seq:
                return []
            if not (set(map(type, seq)) <= {tuple} and set(map(len, seq)) <= {n}) or (
                    checked and not all(map(isinstance, chain.from_iterable(seq), cycle(wires)))):
                raise CodecError(f"bad {name} records")
            if not nested_many:
                return list(starmap(cls, seq))
            cols: list = list(zip(*seq, strict=True))
            for i, m in nested_many:
                cols[i] = m(cols[i])
            return list(starmap(cls, zip(*cols, strict=True)))

        def dec(vals: object) -> object:
            return many((vals,))[0]

        return Plan(enc, dec, (tuple,), many)

    def _optional(self, hint: object, args: tuple, building: set[type]) -> Plan | None:
        rest = [a for a in args if a is not _NONE]
        plans = [self._sub(a, building) for a in rest]
        if len(rest) != len(args) - 1 or len(rest) != 1:
            if all(p is None and a in _PLAIN_HINTS for p, a in zip(plans, rest, strict=True)):
                return Plan(_identity, _identity, tuple(t for a in args for t in _PLAIN_HINTS[a]))
            raise TypeError(f"no storage plan for the union {hint!r}")
        inner = plans[0]
        if inner is None:
            wire = (*_PLAIN_HINTS.get(rest[0], (object,)), _NONE)
            return None if wire == (object, _NONE) else Plan(_identity, _identity, wire, _identity)
        ie, idc, imany = inner.enc, inner.dec, _many(inner)

        def many(col: object) -> object:
            present = list(compress(range(len(col)), map(operator.is_not, col, repeat(None))))  # type: ignore[arg-type]
            if not present:
                return col
            out = list(col)  # type: ignore[call-overload]
            for j, x in zip(present, imany(tuple(map(col.__getitem__, present))), strict=True):  # type: ignore[attr-defined]
                out[j] = x
            return out

        return Plan(lambda v: None if v is None else ie(v), lambda v: None if v is None else idc(v),
                    (*inner.wire, _NONE), many)

    def _sequence(self, container: type, elem_hint: object, building: set[type]) -> Plan:
        elem = self._sub(elem_hint, building)
        checked = self.checked
        wire = self._wire_of(elem_hint, elem)
        emany = _many(elem)
        name = container.__name__

        def enc(seq: object) -> object:
            if type(seq) is not container:
                raise Mismatch(name)
            if elem is None:
                return seq if container is tuple else tuple(seq)  # type: ignore[call-overload]
            return tuple(map(elem.enc, seq))  # type: ignore[call-overload]

        def dec(seq: object) -> object:
            if type(seq) is not tuple or (checked and not all(map(isinstance, seq, repeat(wire)))):
                raise CodecError(f"bad {name}")
            if elem is None:
                return seq if container is tuple else container(seq)
            return container(emany(seq))

        def many(col: object) -> object:
            """Sequences from a tuple of arrays: their elements decoded as one column."""
            if type(col) is not tuple or not set(map(type, col)) <= {tuple}:
                raise CodecError(f"bad {name}s")
            flat = tuple(chain.from_iterable(col))
            if checked and not all(map(isinstance, flat, repeat(wire))):
                raise CodecError(f"bad {name}s")
            if elem is None:
                return col if container is tuple else list(map(container, col))
            items = iter(emany(flat))
            return [container(islice(items, k)) for k in map(len, col)]

        return Plan(enc, dec, (tuple,), many)

    def _fixed(self, args: tuple, building: set[type]) -> Plan:
        parts = [self._sub(a, building) for a in args]
        wires = tuple(self._wire_of(a, p) for a, p in zip(args, parts, strict=True))
        encs = [p.enc if p else None for p in parts]
        decs = [p.dec if p else None for p in parts]
        size = len(args)

        def enc_fixed(v: object) -> object:
            if type(v) is not tuple or len(v) != size:
                raise Mismatch("tuple")
            return tuple([c(x) if c else x for c, x in zip(encs, v, strict=True)])

        def dec_fixed(v: object) -> object:
            _check(v, size, wires, "tuple")
            return tuple([c(x) if c else x for c, x in zip(decs, v, strict=True)])  # type: ignore[call-overload]

        return Plan(enc_fixed, dec_fixed, (tuple,))

    def _dict(self, args: tuple, building: set[type]) -> Plan:
        key_hint, val_hint = args if args else (object, object)
        kp, vp = self._sub(key_hint, building), self._sub(val_hint, building)
        kwire, vwire = self._wire_of(key_hint, kp), self._wire_of(val_hint, vp)
        ke = kp.enc if kp else _identity
        kd = kp.dec if kp else _identity
        ve = vp.enc if vp else _identity
        vd = vp.dec if vp else _identity
        vmany = _many(vp)
        checked = self.checked

        def enc_dict(v: object) -> object:
            if not isinstance(v, dict):  # a defaultdict is stored as a dict
                raise Mismatch("dict")
            return {ke(k): ve(x) for k, x in v.items()}

        def dec_dict(v: object) -> object:
            if type(v) is not dict:
                raise CodecError("bad dict")
            if checked and not (all(map(isinstance, v, repeat(kwire)))
                                and all(map(isinstance, v.values(), repeat(vwire)))):
                raise CodecError("bad dict entry")
            if kp is None and vp is None:
                return v
            if kp is None:  # the values decoded as one column
                return dict(zip(v, vmany(tuple(v.values())), strict=True))
            return {kd(k): vd(x) for k, x in v.items()}

        return Plan(enc_dict, dec_dict, (dict,))


def _identity(v: object) -> object:
    return v


def _path_str(v: object) -> str:
    if not isinstance(v, Path):
        raise Mismatch("Path")
    return str(v)
