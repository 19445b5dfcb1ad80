"""The parts catalogue world (lessons 07, 08, 09, 12, 13): its one fixture lives here
(fixture.py, re-exported below), with the world's assisted-use policy and gate (policy.py,
lesson 08's subject, which lesson 07 already runs) and its synthetic photos (images.py)."""

from modules.catalogue.fixture import *  # noqa: F401,F403
from modules.catalogue.fixture import __all__  # noqa: F401
