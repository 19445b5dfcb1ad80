"""Lesson 07, hybrid: candidate channels and the query contract.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.hybrid.mechanism import *  # noqa: F401,F403
from modules.hybrid.mechanism import __all__  # noqa: F401
