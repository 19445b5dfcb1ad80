"""Lesson 05, order: position is a hypothesis to measure.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.order.mechanism import *  # noqa: F401,F403
from modules.order.mechanism import __all__  # noqa: F401
