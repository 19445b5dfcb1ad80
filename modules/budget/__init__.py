"""Lesson 02, budget: keep the units explicit.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.budget.mechanism import *  # noqa: F401,F403
from modules.budget.mechanism import __all__  # noqa: F401
