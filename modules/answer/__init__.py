"""Lesson 10, answer: an honest, inspectable answer stage.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.answer.mechanism import *  # noqa: F401,F403
from modules.answer.mechanism import __all__  # noqa: F401
