"""Values as plain data, for the sandbox's pipe (see sandboxed.py and remote.py).

A value crosses between the trusted grader and the sandboxed learner process as JSON made of
tagged lists and dicts, never as pickle: what arrives is rebuilt from data alone, so no method
the learner wrote can run on the trusted side (a learner's __eq__ cannot decide a comparison).

    None, bool, int, float (finite), str    themselves
    {"f": "nan"|"inf"|"-inf"}                a float that JSON cannot write
    {"L": [...]}, {"T": [...]}               list, tuple
    {"S": [...]}, {"Z": [...]}               set, frozenset
    {"D": [[key, value], ...]}               dict, in its order
    {"Q": [numerator, denominator]}          fractions.Fraction
    {"G": [start, stop, step]}               range
    {"B": "hex"}                             bytes
    {"I": [...]}                             an iterator, read to its end when sent
    {"R": "modules.x:Name", "f": {...}}      a dataclass of the lab modules, by its declared fields
    {"N": "modules.x:Name", "v": [...]}      a namedtuple of the lab modules, by its fields
    {"A": "modules.x:Name", "s": {...}}      another class of the lab modules, by its attributes
    {"M": "modules.x:name"}                  a module-level function of the lab modules, by name
    {"C": id, "name": str|null}              a callable of the sender, called back through the pipe
    {"H": id}                                the receiver's own callable, handed back
    {"O": "TypeName", "r": "repr"}           anything else: an opaque object, equal only to itself
    {"P": n}                                 the n-th record the receiver sent in this call, itself
    {"P": n, "v": list|dict|set}             the n-th list, dict or set it sent, itself, holding v

Records (R, N, A) and lists, dicts and sets are numbered in the order they are met, on both
sides, so a function that returns one of the very objects it was given returns it as itself
({"P": n}; a list, dict or set with its contents now, which the receiver puts into its own
object through `adopt`): a grader that checks `got[0] is given[0]`, or that the view it got
shares no list with the record it gave, sees the truth.

`decode` is strict: an unknown tag, a class outside modules/, a missing or extra field, or a
nesting deeper than DEPTH raises WireError, which the trusted side reports as the learner's
failure. Only `modules.*` classes are ever rebuilt, without running their __init__.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import re
from fractions import Fraction

DEPTH = 200
# Items of one set or dict (or keys) that may share a hash: Python builds a set in one C call
# an alarm cannot interrupt, in time quadratic in the collisions (60,000 colliding ints took
# 289 s), so a set or dict whose items collide more than this is refused before it is built.
COLLISIONS = 64
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class WireError(ValueError):
    """A value that cannot cross (or came back malformed)."""


class Opaque:
    """An object of the learner's own class, known on the trusted side only by name and repr."""

    __slots__ = ("type_name", "text")

    def __init__(self, type_name: str, text: str):
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other) -> bool:
        return self is other

    __hash__ = object.__hash__


def code_objects(code) -> dict:
    """Every code object compiling a file made (the module's, each function's, nested ones),
    by id: a function of that file runs one of these very objects (both ends check a task's
    function against them)."""
    found, stack = {}, [code]
    while stack:
        item = stack.pop()
        if id(item) not in found:
            found[id(item)] = item
            stack += [const for const in item.co_consts if isinstance(const, type(code))]
    return found


class Handles:
    """The callables one side has handed to the other, by number: the same object always gets
    the same number, and {"C": number, "name": ...} names it on the wire."""

    def __init__(self):
        self.objects: dict[int, object] = {}
        self._numbers: dict[int, int] = {}

    def ref(self, obj) -> dict:
        key = id(obj)
        if key not in self._numbers:
            self._numbers[key] = len(self.objects) + 1
            self.objects[self._numbers[key]] = obj
        name = getattr(obj, "__name__", None)
        return {"C": self._numbers[key], "name": name if isinstance(name, str) else None}


_opaque_types: dict[str, type] = {}


def _opaque(type_name: str, text: str) -> Opaque:
    name = type_name if _NAME.fullmatch(type_name or "") else "LearnerObject"
    kind = _opaque_types.get(name)
    if kind is None:
        kind = _opaque_types[name] = type(name, (Opaque,), {"__slots__": ()})
    return kind(type_name, text)


def _lab_class(obj) -> str | None:
    """'modules.x:Name' when type(obj) is a class defined at the top of a lab module, else None."""
    kind = type(obj)
    module = getattr(kind, "__module__", "") or ""
    if not (module == "modules" or module.startswith("modules.")):
        return None
    qualname = getattr(kind, "__qualname__", "")
    if not _NAME.fullmatch(qualname):
        return None
    return f"{module}:{qualname}"


def lab_function(obj) -> str | None:
    """'modules.x:name' when obj is a module-level function of a lab module (the same object)."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or not _NAME.fullmatch(name):
        return None
    if not (module == "modules" or module.startswith("modules.")):
        return None
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return f"{module}:{name}" if found is obj else None


def _resolve(reference: str, want_class: bool):
    if not isinstance(reference, str) or ":" not in reference:
        raise WireError(f"not a lab name: {reference!r}")
    module, _, name = reference.partition(":")
    if not (module == "modules" or module.startswith("modules.")) or not _NAME.fullmatch(name) \
            or not all(_NAME.fullmatch(part) for part in module.split(".")):
        raise WireError(f"not a lab name: {reference!r}")
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        raise WireError(f"no such lab name: {reference}") from None
    if want_class != isinstance(found, type):
        raise WireError(f"{reference} is not a {'class' if want_class else 'function'}")
    return found


_CONTAINERS = {list: "L", tuple: "T", set: "S", frozenset: "Z"}
_MUTABLE = (list, dict, set)  # numbered in a call's table, as records are
_SCALARS = {int, str, bool, type(None)}


def _flat(items) -> bool:
    """Only str, int, bool, None and finite floats inside (as JSON writes them, one to one)."""
    kinds = {type(item) for item in items}
    if kinds <= _SCALARS:
        return True
    return kinds <= _SCALARS | {float} and all(math.isfinite(item) for item in items if type(item) is float)


def _few_collisions(items) -> None:
    """WireError when more than COLLISIONS of `items` share one hash (one pass, linear time)."""
    if len(items) <= COLLISIONS:
        return
    counts: dict = {}
    for item in items:
        try:
            key = hash(item)
        except TypeError as error:  # an unhashable item in a set
            raise WireError(str(error)) from None
        counts[key] = counts.get(key, 0) + 1
        if counts[key] > COLLISIONS:
            raise WireError(f"a set or dict of {len(items):,} items, more than {COLLISIONS} of them with one "
                            f"hash: it would take the grader minutes to build")


def encode(value, callable_ref, depth: int = 0, table: list | None = None, known: dict | None = None,
           inside=None):
    """`value` as plain data. `callable_ref(fn)` turns a callable that is not a lab function
    into {"C": id, "name": ...} (it registers it for calls back). Records met are appended to
    `table`; one found in `known` (id -> number) is sent as {"P": number} (`inside`: the object
    whose contents are being sent with its number, not itself again)."""
    kind = type(value)
    if known and value is not inside and id(value) in known and known[id(value)][1] is value:
        if kind in _MUTABLE:  # itself, and what it holds now (the learner's code may have changed it)
            return {"P": known[id(value)][0], "v": encode(value, callable_ref, depth, table, known, inside=value)}
        return {"P": known[id(value)][0]}
    if table is not None and (kind in _MUTABLE or _lab_class(value) is not None and not callable(value)):
        table.append(value)
    if depth > DEPTH:
        raise WireError("a value nested too deeply to send")
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value if math.isfinite(value) else {"f": repr(value)}
    if kind in _CONTAINERS and _flat(value):  # the common case, fast: a list of ids or numbers
        return {_CONTAINERS[kind]: list(value)}
    if kind is list:
        return {"L": [encode(item, callable_ref, depth + 1, table, known) for item in value]}
    if kind is tuple:
        return {"T": [encode(item, callable_ref, depth + 1, table, known) for item in value]}
    if kind is set:
        return {"S": [encode(item, callable_ref, depth + 1, table, known) for item in value]}
    if kind is frozenset:
        return {"Z": [encode(item, callable_ref, depth + 1, table, known) for item in value]}
    if kind is dict:
        return {"D": [[encode(k, callable_ref, depth + 1, table, known), encode(v, callable_ref, depth + 1, table, known)]
                      for k, v in value.items()]}
    if kind is Fraction:
        return {"Q": [value.numerator, value.denominator]}
    if kind is range:  # a grader may pass one as "any sequence"; it crosses as itself, never as a list
        return {"G": [value.start, value.stop, value.step]}
    if kind is bytes:
        return {"B": value.hex()}
    if isinstance(value, Opaque):
        return {"O": value.type_name, "r": value.text}
    where = _lab_class(value)
    if where is not None:
        if dataclasses.is_dataclass(value):
            return {"R": where, "f": {f.name: encode(getattr(value, f.name), callable_ref, depth + 1, table, known)
                                      for f in dataclasses.fields(value)}}
        if isinstance(value, tuple) and hasattr(kind, "_fields"):
            return {"N": where, "v": [encode(item, callable_ref, depth + 1, table, known) for item in value]}
        if not isinstance(value, type) and not callable(value):
            return {"A": where, "s": {name: encode(item, callable_ref, depth + 1, table, known)
                                      for name, item in _attributes(value).items()}}
    if callable(value):
        named = lab_function(value)
        if named is not None:
            return {"M": named}
        return callable_ref(value)
    if hasattr(value, "__next__") and hasattr(value, "__iter__"):
        return {"I": [encode(item, callable_ref, depth + 1, table, known) for item in value]}
    try:
        text = repr(value)
    except Exception as error:  # a learner's __repr__ that fails
        text = f"<{kind.__name__}: repr failed: {type(error).__name__}>"
    return {"O": str(getattr(kind, "__name__", "object"))[:80], "r": str(text)[:400]}


def _attributes(value) -> dict:
    found = {}
    for klass in type(value).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if isinstance(name, str) and hasattr(value, name) and name not in found:
                found[name] = getattr(value, name)
    found.update(getattr(value, "__dict__", {}))
    return found


def decode(data, callable_of, depth: int = 0, own_of=None, table: list | None = None, sent: list | None = None,
           adopt=None):
    """Rebuild a value from plain data. `callable_of(id, name)` makes the local stand-in for
    a callable of the other side; `own_of(id)` finds a callable of ours handed back. Records,
    lists, dicts and sets rebuilt are appended to `table`; {"P": n} is `sent[n]`, an object we
    sent, and with "v" `adopt(sent[n], v rebuilt)` first puts the contents it has now into it."""
    if depth > DEPTH:
        raise WireError("a value nested too deeply")
    kind = type(data)
    if data is None or kind in (bool, int, str, float):
        return data
    if kind is not dict or len(data) not in (1, 2):
        raise WireError(f"malformed value: {type(data).__name__}")
    (tag, body), *rest = data.items()
    again = lambda item: decode(item, callable_of, depth + 1, own_of, table, sent, adopt)  # noqa: E731
    if tag == "P" and (not rest or rest[0][0] == "v" and adopt is not None):
        if type(body) is not int or sent is None or not 0 <= body < len(sent):
            raise WireError("a reference to a record that was never sent")
        if rest:
            now = decode(rest[0][1], callable_of, depth, own_of, None, sent, adopt)
            if type(now) is not type(sent[body]) or type(now) not in _MUTABLE:
                raise WireError("a reference whose contents are of another type")
            adopt(sent[body], now)
        return sent[body]
    slot = len(table) if table is not None and tag in ("L", "S", "D") else None
    if slot is not None:  # numbered before what it holds, as encode() meets it
        table.append(None)
    if tag in ("L", "T", "S", "Z", "I") and not rest:
        if type(body) is not list:
            raise WireError(f"malformed {tag}")
        items = body if {type(item) for item in body} <= _SCALARS | {float} else [again(item) for item in body]
        if tag in ("S", "Z"):
            _few_collisions(items)
        try:
            made = {"L": list, "T": tuple, "S": set, "Z": frozenset, "I": iter}[tag](items)
        except TypeError as error:  # an unhashable item in a set
            raise WireError(str(error)) from None
        if slot is not None:
            table[slot] = made
        return made
    if tag == "D" and not rest:
        if type(body) is not list or not all(type(pair) is list and len(pair) == 2 for pair in body):
            raise WireError("malformed dict")
        pairs = [(again(k), again(v)) for k, v in body]
        _few_collisions([key for key, _value in pairs])
        try:
            made = dict(pairs)
        except TypeError as error:
            raise WireError(str(error)) from None
        if slot is not None:
            table[slot] = made
        return made
    if tag == "f" and not rest and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "Q" and not rest:
        if type(body) is not list or len(body) != 2 or not all(type(n) is int for n in body) or body[1] <= 0:
            raise WireError("malformed Fraction")
        return Fraction(body[0], body[1])
    if tag == "G" and not rest:
        if type(body) is not list or len(body) != 3 or not all(type(n) is int for n in body) or body[2] == 0:
            raise WireError("malformed range")
        return range(*body)
    if tag == "B" and not rest and type(body) is str:
        try:
            return bytes.fromhex(body)
        except ValueError:
            raise WireError("malformed bytes") from None
    if tag == "M" and not rest:
        return _resolve(body, want_class=False)
    if tag == "C" and rest and rest[0][0] == "name":
        name = rest[0][1]
        if type(body) is not int or not (name is None or type(name) is str):
            raise WireError("malformed callable")
        return callable_of(body, name)
    if tag == "H" and not rest and type(body) is int and own_of is not None:
        return own_of(body)
    if tag == "O" and rest and rest[0][0] == "r" and type(body) is str and type(rest[0][1]) is str:
        return _opaque(body[:80], rest[0][1][:400])
    if tag == "R" and rest and rest[0][0] == "f":
        cls = _resolve(body, want_class=True)
        fields = rest[0][1]
        if not dataclasses.is_dataclass(cls) or type(fields) is not dict:
            raise WireError(f"{body} is not a lab record")
        declared = [f.name for f in dataclasses.fields(cls)]
        if sorted(fields) != sorted(declared):
            raise WireError(f"{body} must have exactly the fields {declared}")
        record = object.__new__(cls)
        if table is not None:
            table.append(record)
        for name in declared:
            object.__setattr__(record, name, again(fields[name]))
        return record
    if tag == "N" and rest and rest[0][0] == "v":
        cls = _resolve(body, want_class=True)
        values = rest[0][1]
        if not (issubclass(cls, tuple) and hasattr(cls, "_fields")) or type(values) is not list \
                or len(values) != len(cls._fields):
            raise WireError(f"{body} needs {len(getattr(cls, '_fields', ()))} fields")
        slot = len(table) if table is not None else None
        if table is not None:
            table.append(None)
        made = tuple.__new__(cls, [again(item) for item in values])
        if table is not None:
            table[slot] = made
        return made
    if tag == "A" and rest and rest[0][0] == "s":
        cls = _resolve(body, want_class=True)
        attributes = rest[0][1]
        if type(attributes) is not dict or dataclasses.is_dataclass(cls) or issubclass(cls, (tuple, BaseException)):
            raise WireError(f"malformed {body}")
        obj = object.__new__(cls)
        if table is not None:
            table.append(obj)
        slots = {name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())}
        for name, item in attributes.items():
            if type(name) is not str or not _NAME.fullmatch(name) or name.startswith("__"):
                raise WireError(f"malformed attribute of {body}: {name!r}")
            if slots and name not in slots and not hasattr(obj, "__dict__"):
                raise WireError(f"{body} has no attribute {name}")
            object.__setattr__(obj, name, again(item))
        return obj
    raise WireError(f"unknown value tag {tag!r}")


# ------------------------------------------------------------------ exceptions

def encode_error(error: BaseException) -> dict:
    """An exception as data: the built-in classes it derives from, a lab class if it is one, its message."""
    kind = type(error)
    builtins_ = [klass.__name__ for klass in kind.__mro__ if klass.__module__ == "builtins"]
    try:
        message = str(error)
    except Exception:
        message = f"<{kind.__name__}: str() failed>"
    record = {"type": str(getattr(kind, "__name__", "Exception"))[:80], "builtins": builtins_,
              "message": message[:4000]}
    where = _lab_class(error)
    if where is not None:
        record["lab"] = where
    if isinstance(error, SystemExit):
        code = error.code
        record["code"] = code if code is None or type(code) in (int, str) else repr(code)
    return record


def decode_error(record) -> BaseException:
    """The exception to raise on the trusted side: the lab's own class when it is one, else the
    first built-in class it derives from (Exception at least), with the message."""
    import builtins
    if type(record) is not dict:
        raise WireError("malformed error")
    message = record.get("message")
    message = message if type(message) is str else ""
    if isinstance(record.get("lab"), str):
        try:
            cls = _resolve(record["lab"], want_class=True)
        except WireError:
            cls = None
        if cls is not None and issubclass(cls, Exception):
            error = cls.__new__(cls)
            Exception.__init__(error, message)
            return error
    for name in record.get("builtins") or ():
        cls = getattr(builtins, name, None) if type(name) is str else None
        if isinstance(cls, type) and issubclass(cls, BaseException) and cls not in (KeyboardInterrupt,
                                                                                   GeneratorExit):
            if issubclass(cls, SystemExit):
                code = record.get("code")
                return SystemExit(code if code is None or type(code) in (int, str) else str(code))
            try:
                return cls(message)
            except TypeError:
                continue
    return Exception(message)
