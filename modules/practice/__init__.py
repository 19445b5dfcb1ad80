"""Lesson 11, practice: the capstone. Eight candidates, one packet, every decision explained.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.practice.mechanism import *  # noqa: F401,F403
from modules.practice.mechanism import __all__  # noqa: F401
