"""`methods.py audit` against what a user's code or files can do to it (issue 39): a tokenizer that
exits, crashes, prints or hangs, and a run one query deep by hundreds of thousands of lines."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import ROOT
from modules.audit import run_audit
from test_audit import folder, passage

FINE = "a passage the tokenizer counts"
FATAL = "the passage that upsets the tokenizer"


def audit_with(tmp_path, body: str, *extra: str) -> subprocess.CompletedProcess:
    data = folder(tmp_path / "data", [passage("a", FINE), passage("b", FATAL)], {"q": ["a", "b"]}, {"q": ["a", "b"]})
    (tmp_path / "usertok.py").write_text(body)
    return subprocess.run([sys.executable, "-B", str(ROOT / "methods.py"), "audit", str(data), "--tokenizer",
                           "usertok:count", *extra], cwd=tmp_path, capture_output=True, timeout=120)


@pytest.mark.parametrize("body, found", [
    ("import os\ndef count(text):\n    os._exit(0)\n", "ended its process (exit code 0) on the text 'a passage"),
    ("import os\ndef count(text):\n    if 'upsets' in text:\n        os.kill(os.getpid(), 9)\n    return 1\n",
     "crashed (killed by signal 9, SIGKILL) on the text 'the passage that upsets"),
    ("def count(text):\n    if 'upsets' in text:\n        raise KeyError('no')\n    return 1\n",
     "failed on the text 'the passage that upsets the tokenizer': KeyError: 'no'"),
    ("def count(text):\n    return 'many'\n", "expected a count or a list of tokens, found str for the text 'a pass"),
    ("import os\nos._exit(3)\n", "ended its process (exit code 3) while importing usertok"),
])
def test_a_tokenizer_that_exits_crashes_or_fails_is_one_clean_line(tmp_path, body, found):
    done = audit_with(tmp_path, body, "--json")
    assert done.returncode == 2 and done.stdout == b"", done.stderr
    line = done.stderr.decode()
    assert line.count("\n") == 1 and line.startswith("methods.py audit: error: --tokenizer usertok:count: ")
    assert found in line and "Traceback" not in line, line


def test_a_tokenizer_printing_on_its_standard_output_leaves_the_json_whole(tmp_path):
    # print() and a write to file descriptor 1 (as C code writes) both go to standard error.
    body = ("import os\nprint('loading')\nos.write(1, b'raw noise\\n')\n"
            "def count(text):\n    print('counting', text)\n    os.write(1, b'more noise\\n')\n"
            "    return len(text.split())\n")
    done = audit_with(tmp_path, body, "--json", "--budget", "6")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["settings"]["unit"] == "usertok:count"
    assert [b["coverage"] for b in record["budgets"]] == [0.5]    # 5 words fit in 6, then 6 more do not
    assert b"loading" in done.stderr and b"raw noise" in done.stderr and b"more noise" in done.stderr


def test_a_tokenizer_that_hangs_is_stopped_at_the_deadline_and_the_text_named(tmp_path, monkeypatch):
    from modules.audit import tokenizer_process
    monkeypatch.setattr(tokenizer_process, "DEADLINE", 1.0)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "slowtok.py").write_text("import time\ndef count(text):\n    if 'upsets' in text:\n"
                                         "        time.sleep(60)\n    return 1\n")
    data = folder(tmp_path / "data", [passage("a", FINE), passage("b", FATAL)], {"q": ["a", "b"]}, {"q": ["a", "b"]})
    with pytest.raises(ValueError, match="--tokenizer slowtok:count: gave no answer within 1 s on the text "
                                         "'the passage that upsets"):
        run_audit(str(data), tokenizer="slowtok:count")
