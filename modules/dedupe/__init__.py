"""Lesson 03, dedupe: remove redundancy without merging identities carelessly.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.dedupe.mechanism import *  # noqa: F401,F403
from modules.dedupe.mechanism import __all__  # noqa: F401
