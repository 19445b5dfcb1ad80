"""Lesson 04, versions: surface ambiguity instead of guessing freshness.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.versions.mechanism import *  # noqa: F401,F403
from modules.versions.mechanism import __all__  # noqa: F401
