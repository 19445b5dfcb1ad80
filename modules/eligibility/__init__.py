"""Lesson 08, eligibility: permission, freshness and evidence states before anything is ranked.

The public API of this lesson: everything mechanism.py exports. The gate itself (permission,
freshness per field, scope) is the catalogue's policy, read it in modules/catalogue/policy.py:
lesson 07's fusion already runs after it, so it lives with the catalogue world that both
lessons share. mechanism.py holds this lesson's evidence checks, packet and decision;
trace.py prints the lesson.
"""

from modules.eligibility.mechanism import *  # noqa: F401,F403
from modules.eligibility.mechanism import __all__  # noqa: F401
