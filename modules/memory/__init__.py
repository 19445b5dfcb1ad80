"""Lesson 13, memory: retained context with obligations.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.memory.mechanism import *  # noqa: F401,F403
from modules.memory.mechanism import __all__  # noqa: F401
