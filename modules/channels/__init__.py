"""Lesson 12, channels: every channel can fail, and each failure has its own fallback.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.channels.mechanism import *  # noqa: F401,F403
from modules.channels.mechanism import __all__  # noqa: F401
