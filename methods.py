#!/usr/bin/env python3
"""Context Lab: select and assemble the context of a RAG answer without losing evidence.

    python3 -B methods.py                 list the lessons and the workflow commands
    python3 -B methods.py setup           once: compile the lab's modules so lessons start fast
    python3 -B methods.py context         print lesson 01's trace (any lesson name works)
    python3 -B methods.py check [LESSON]  grade your exercises
    python3 -B methods.py hint LESSON     the next hint for your first unfinished task

Standard library only. This file checks the Python version and hands the command to
labtools/main.py. A lesson command loads its own module, the earlier lessons' mechanisms
it builds on, and the renderer; never the workflow (labtools/cli.py and friends), which
only the workflow commands load. The lessons and commands are listed in
labtools/registry.py.
"""

# This file must parse under Python 3.6 (no walrus, match or `X | Y` outside functions), and
# nothing before the check may need more: an older interpreter gets the message below, not a
# SyntaxError or a wrong grade. The rest of the lab is imported only after it.
import sys

if sys.version_info < (3, 10):
    sys.stderr.write("Context Lab needs Python 3.10 or newer; this is Python %s (%s).\n"
                     "Run it with a newer interpreter, for example: %s\n"
                     % (".".join(str(part) for part in sys.version_info[:3]), sys.executable or "python",
                        " ".join(["python3.12", "-B", "methods.py"] + sys.argv[1:2])))
    sys.exit(1)

import os  # noqa: E402

ROOT = os.path.dirname(os.path.abspath(__file__))
if ROOT not in sys.path:  # also under `python3 -I`, which leaves the script's folder off sys.path
    sys.path.insert(0, ROOT)
if __name__ == "__main__" and sys.argv[1:2] in (["check"], ["grade"], ["watch"]):
    # Grading reads no bytecode: a learner's code graded earlier (as this user) could have left
    # a .pyc in labtools/__pycache__ that would otherwise run here, in the process that decides.
    import tempfile  # noqa: E402
    sys.dont_write_bytecode = True
    sys.pycache_prefix = os.path.join(tempfile.mkdtemp(prefix="lab-no-bytecode-"), "none")  # never created

from labtools.registry import LESSONS  # noqa: E402,F401 (the one registry, for tests and notebooks)


def main(argv=None) -> int:
    """Run one command; `argv` as after `methods.py` (default: the command line)."""
    from labtools.main import main as run
    return run(argv, doc=__doc__)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `methods.py context | head` is fine
        sys.stderr.close()
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)
