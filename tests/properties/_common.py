"""What the lessons' property tests share: hypothesis settings and the rule for bad input."""

from __future__ import annotations

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, settings, strategies as st  # noqa: E402

FAST = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])

# Anything a caller might hand over by mistake.
ANYTHING = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10**30, max_value=10**30),
                     st.floats(allow_nan=True), st.text(max_size=8), st.binary(max_size=4),
                     st.lists(st.integers(), max_size=3), st.sets(st.text(max_size=3), max_size=3),
                     st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.tuples(st.text(max_size=3)))


def refused(call, *names: str):
    """Call; if it raises, the error must be a ValueError or TypeError naming one of `names`.
    Returns (True, None) when it raised, else (False, result)."""
    try:
        return False, call()
    except (ValueError, TypeError) as error:
        message = str(error)
        assert any(name in message for name in names), f"{type(error).__name__} does not name {names}: {message}"
        assert len(message) < 400, f"message too long ({len(message)} chars): a value was echoed whole"
        return True, None
