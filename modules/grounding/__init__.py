"""Lesson 09, grounding: traces that explain every inclusion and exclusion.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.grounding.mechanism import *  # noqa: F401,F403
from modules.grounding.mechanism import __all__  # noqa: F401
