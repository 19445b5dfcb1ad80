"""Lesson 01, context: retrieval succeeded, the packet failed.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.context.mechanism import *  # noqa: F401,F403
from modules.context.mechanism import __all__  # noqa: F401
