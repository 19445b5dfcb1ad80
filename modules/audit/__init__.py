"""Audit a retrieval run: where does the evidence a run retrieved go missing before the packet?

The public API: everything mechanism.py (the steps, one query), sent.py (a system's sent
packets) and report.py (the whole run) export. trace.py prints the audit.
"""

from modules.audit.mechanism import *  # noqa: F401,F403
from modules.audit.report import *  # noqa: F401,F403
from modules.audit.sent import *  # noqa: F401,F403
from modules.audit import mechanism as _mechanism, report as _report, sent as _sent

__all__ = _mechanism.__all__ + _report.__all__ + _sent.__all__
