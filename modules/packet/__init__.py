"""Lesson 06, packet: a sealed, sourced, safely wrapped evidence packet.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.packet.mechanism import *  # noqa: F401,F403
from modules.packet.mechanism import __all__  # noqa: F401
