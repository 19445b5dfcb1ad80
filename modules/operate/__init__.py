"""Lesson 14, operate: signals, the layered evaluation and the context contract review.

The public API: the frozen cases and ownership (mechanism.py), the signals and the layer an
anomaly names (signals.py), the faithfulness checks (faithfulness.py). The other parts are
modules of their own: the layered evaluation report (evaluation.py), the contract review
(review.py), the completion artifacts (artifacts.py), the counterfactuals and failure patterns
(counterfactuals.py); trace.py runs them all and view.py prints them.
"""

from modules.operate.mechanism import *  # noqa: F401,F403
from modules.operate.mechanism import __all__ as _mechanism
from modules.operate.signals import *  # noqa: F401,F403
from modules.operate.signals import __all__ as _signals
from modules.operate.faithfulness import *  # noqa: F401,F403
from modules.operate.faithfulness import __all__ as _faithfulness

__all__ = list(_mechanism) + list(_signals) + list(_faithfulness)
