"""Input checks the lessons share, so every mechanism refuses bad input in the same words.

A message names the field and the value, and nothing is coerced: a str is not a
sequence of passages, and one record (a named tuple is iterable) is not a list of them.
"""

from __future__ import annotations


def sequence_of(items: object, kind: type, name: str) -> tuple:
    """`items` as a tuple, after checking that it is a sequence whose every item is a `kind`."""
    if isinstance(items, (str, bytes, kind)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{name} must be a sequence of {kind.__name__}, got {type(items).__name__} {items!r}")
    found = tuple(items)
    for index, item in enumerate(found):
        if not isinstance(item, kind):
            raise TypeError(f"{name}[{index}] must be a {kind.__name__}, got {type(item).__name__} {item!r}")
    return found
