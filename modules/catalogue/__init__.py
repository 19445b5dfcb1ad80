"""The parts catalogue world (lessons 07, 08, 09, 12, 13): its one fixture lives here."""

from modules.catalogue.fixture import *  # noqa: F401,F403
from modules.catalogue.fixture import __all__  # noqa: F401
