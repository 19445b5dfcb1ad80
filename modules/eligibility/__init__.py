"""Lesson 08, eligibility: permission, freshness and evidence states before anything is ranked.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.eligibility.mechanism import *  # noqa: F401,F403
from modules.eligibility.mechanism import __all__  # noqa: F401
