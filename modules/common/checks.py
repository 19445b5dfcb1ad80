"""Input checks and encodings the lessons share, so every mechanism refuses bad input in
the same words and hashes the same bytes.

A message names the field and the value, and nothing is coerced: a str is not a
sequence of passages, one record is not a list of them,
True is not the number 1, and "1_000" is not a budget.
"""

from __future__ import annotations


def sequence_of(items: object, kind: type | None, name: str, what: str | None = None) -> tuple:
    """`items` as a tuple, after checking that it is an ordered sequence whose every item is
    a `kind` (any item when kind is None: the caller checks them). Sets and dict views are
    refused: their order depends on the hash seed. `what` names the items in the message
    (default: the kind's name)."""
    refused = (str, bytes, set, frozenset, dict) + (() if kind is None else (kind,))
    if (isinstance(items, refused) or not hasattr(items, "__iter__")
            or type(items).__name__ in ("dict_keys", "dict_values", "dict_items")):
        raise TypeError(f"{name} must be a sequence of {what or kind.__name__}, got {type(items).__name__} "
                        f"{stable_repr(items)}")
    found = tuple(items)
    if kind is not None:
        for index, item in enumerate(found):
            if not isinstance(item, kind):
                raise TypeError(f"{name}[{index}] must be a {kind.__name__}, got {type(item).__name__} {item!r}")
    return found


def stable_repr(value: object) -> str:
    """repr(value), except that a set or frozenset lists its items sorted by their repr: a set's
    own order follows the hash seed, and a message must read the same on every run."""
    if isinstance(value, (set, frozenset)) and value:
        items = ", ".join(sorted(repr(item) for item in value))
        return f"{{{items}}}" if type(value) is set else f"{type(value).__name__}({{{items}}})"
    return repr(value)


def short(value: object, limit: int = 40) -> str:
    """repr(value) (a set's items sorted), cut to `limit` characters, so an error never echoes a
    5,000-digit number."""
    text = stable_repr(value)
    return text if len(text) <= limit else f"{text[:limit - 12]}...({len(text)} chars)"


def whole_number(value: object, name: str, minimum: int | None = 0, maximum: int | None = None) -> int:
    """`value` if it is an int (never a bool, float or str) within [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {short(value)}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {short(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {short(value)}")
    return value


def parse_whole_number(text: object, name: str, minimum: int | None = 0, maximum: int | None = None) -> int:
    """A command-line number: ASCII digits only (int() would also take '1_000', ' 5 ' and
    other scripts' digits), with an optional leading minus when `minimum` allows it."""
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str of digits, got {type(text).__name__} {short(text)}")
    body = text[1:] if text.startswith("-") else text
    if not body or not body.isascii() or not body.isdigit() or len(body) > 40:
        raise ValueError(f"{name} must be a whole number written in ASCII digits, got {short(text)}")
    return whole_number(int(text), name, minimum, maximum)


def text_of(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {short(value)}")
    return value


def nfc(value: object, name: str = "text") -> str:
    """`value` in Unicode normal form C, so two spellings of one text compare equal. ASCII
    text is its own NFC form: only other text loads unicodedata."""
    text = text_of(value, name)
    if text.isascii():
        return text
    import unicodedata
    return unicodedata.normalize("NFC", text)


def canonical_json(value: object) -> str:
    """One canonical JSON text for hashing: sorted keys, no spaces, ASCII escapes.

    Only JSON's own types are accepted (dict with str keys, list, tuple, str, int, float,
    bool, None); anything else, a NaN or a structure nested deeper than 100 levels raises
    an error naming where it sits, instead of json's bare TypeError or RecursionError.
    """
    _check_json(value, "value", 0)
    import json
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


_MAX_DEPTH = 100


def _check_json(value: object, where: str, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise ValueError(f"{where} is nested more than {_MAX_DEPTH} levels deep")
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{where} must be a finite number, got {value!r}")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{where} has a key that is not a str: {type(key).__name__} {short(key)}")
            _check_json(item, f"{where}[{key!r}]", depth + 1)
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_json(item, f"{where}[{index}]", depth + 1)
        return
    raise TypeError(f"{where} must be a JSON value (dict, list, str, number, bool or None), "
                    f"got {type(value).__name__} {short(value)}")


def sha256_hex(text: str) -> str:
    """hashlib.sha256 of the text's UTF-8 bytes, as hex."""
    import hashlib
    return hashlib.sha256(text_of(text, "text").encode("utf-8")).hexdigest()
