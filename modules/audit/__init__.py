"""Audit a retrieval run: where does the evidence a run retrieved go missing before the packet?

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for
how it works; trace.py prints the lesson.
"""

from modules.audit.mechanism import *  # noqa: F401,F403
from modules.audit.mechanism import __all__  # noqa: F401
