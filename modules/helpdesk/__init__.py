"""The help-desk world shared by lessons 01, 04 and 10 (and by 02, 03 and 06 where they show
one of its ids): one home for every help-desk record, so an id has one text everywhere."""

from modules.helpdesk.passages import *  # noqa: F401,F403
from modules.helpdesk.passages import __all__  # noqa: F401
