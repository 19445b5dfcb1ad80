import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "tests", ROOT / "tests" / "graders"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

# Hypothesis keeps an example database; keep it out of the project so a test run leaves
# the checkout as it found it (the properties are derandomized, so nothing is lost).
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "context-lab-hypothesis"))
