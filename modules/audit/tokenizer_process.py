"""`--tokenizer MODULE:FUNCTION` in a process of its own, so that nothing it does reaches the report.

The user's module is imported and called in a child Python (the same interpreter and the same
sys.path as the audit's), which talks over its standard input and output, one JSON line each
way:

    audit -> child   {"path": [...], "spec": "MODULE:FUNCTION"}     once, first
    child -> audit   {"ready": true} | {"import_error": "..."} | {"other_error": "..."}
                     | {"not_callable": "TYPE"}
    audit -> child   {"texts": [...]}                               a batch of texts
    child -> audit   {"counts": [...]} | {"failed": I, "error": "TYPE: MESSAGE"}
                     | {"wrong": I, "found": "TYPE"}                 I: the text at fault

The child moves its own standard output to standard error before it imports the module, so a
tokenizer that prints cannot corrupt the protocol, the report or --json. An exit, a crash (a
signal), an import error, an exception or a value that is not a count each become one
ValueError naming the tokenizer and the text, which `methods.py audit` prints as one line
(exit 2). A child that gives no answer within DEADLINE seconds is stopped and reported; the
texts of that batch are then counted one at a time, so the message names the text it hangs on.

Run as a script, this file is the child: it imports only the standard library before the
user's module, and nothing of the lab.
"""

from __future__ import annotations

import json
import os
import sys

DEADLINE = 30.0         # seconds one batch may take before the tokenizer is reported as hanging
BATCH_TEXTS = 256       # texts sent at once: one round trip each, not one per text
BATCH_CHARS = 1 << 20   # ... and at most about this many characters


def count_all(counter, texts) -> list[int]:
    """The count of each text: a child-process Tokenizer counts them in batches, a plain counter
    (the lab's units) one by one."""
    many = getattr(counter, "count_all", None)
    return many(texts) if many is not None else [counter(text) for text in texts]


class Tokenizer:
    """A counter str -> int that runs `spec` (MODULE:FUNCTION) in a child process. Use it in a
    `with` block (or call close()): the child is stopped at the end."""

    def __init__(self, spec: str, deadline: float | None = None) -> None:
        module, _, function = spec.partition(":")
        if not module or not function:
            raise ValueError(f"--tokenizer: expected MODULE:FUNCTION, found {spec!r}")
        self.spec = self.__name__ = spec
        self.module = module
        self.deadline = DEADLINE if deadline is None else deadline
        self.process = None
        self._start()

    def _start(self) -> None:
        import queue
        import subprocess
        import threading
        path = list(sys.path)
        if os.getcwd() not in path:     # the module may sit in the folder the audit runs from
            path.insert(0, os.getcwd())
        self.process = subprocess.Popen([sys.executable, "-B", os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=None)
        # A thread reads the answers, so that waiting for one can time out on every system.
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=_read_answers, args=(self.process.stdout, self.answers), daemon=True).start()
        try:
            answer = self._ask({"path": path, "spec": self.spec})
        except _Lost as lost:
            self._fail(f"{lost} while importing {self.module}")
        if "import_error" in answer:
            self._fail(f"expected an importable callable, found {answer['import_error']}")
        if "other_error" in answer:     # a SyntaxError, or anything its import raises or exits with
            self._fail(f"importing {self.module} failed: {answer['other_error']}")
        if "not_callable" in answer:
            self._fail(f"expected a callable, found {answer['not_callable']}")

    def __call__(self, text: str) -> int:
        return self.count_all([text])[0]

    def count_all(self, texts) -> list[int]:
        counts, batch, size = [], [], 0
        for text in texts:
            if batch and (len(batch) == BATCH_TEXTS or size + len(text) > BATCH_CHARS):
                counts += self._batch(batch)
                batch, size = [], 0
            batch.append(text)
            size += len(text)
        return counts + (self._batch(batch) if batch else [])

    def _batch(self, texts: list) -> list[int]:
        from modules.common.checks import short
        try:
            answer = self._ask({"texts": texts})
        except _Lost as lost:
            if len(texts) == 1:
                self._fail(f"{lost} on the text {short(texts[0], 72)}")
            self.close()
            self._start()       # a new child counts them one at a time: the text at fault is named
            return [self._batch([text])[0] for text in texts]
        if "failed" in answer:
            self._fail(f"failed on the text {short(texts[answer['failed']], 72)}: {answer['error']}")
        if "wrong" in answer:
            self._fail(f"expected a count or a list of tokens, found {answer['found']} for the text "
                       f"{short(texts[answer['wrong']], 72)}")
        return answer["counts"]

    def _ask(self, request: dict) -> dict:
        """Send one request and wait for its answer, at most `deadline` seconds; _Lost says why
        none came."""
        import queue
        try:
            self.process.stdin.write(json.dumps(request).encode("ascii") + b"\n")
            self.process.stdin.flush()
        except OSError:     # it ended before reading it all: its exit says how
            pass
        try:
            answer = self.answers.get(timeout=self.deadline)
        except queue.Empty:
            raise _Lost(f"gave no answer within {self.deadline:g} s") from None
        if answer is None:
            raise _Lost(_ended(self.process))
        return answer

    def _fail(self, problem: str):
        self.close()
        raise ValueError(f"--tokenizer {self.spec}: {problem}")

    def close(self) -> None:
        """Stop the child. Its output is left to the reading thread, which ends at its end."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        try:
            self.process.stdin.close()
        except OSError:
            pass

    def __enter__(self) -> "Tokenizer":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


class _Lost(Exception):
    """No answer came: the child hung past the deadline, exited or crashed (the message says which)."""


def _read_answers(stream, answers) -> None:
    try:
        for line in stream:
            answers.put(json.loads(line))
    except (OSError, ValueError):   # a closed pipe, or a line the child did not write: the end
        pass
    answers.put(None)               # the child ended: its exit code says how


def _ended(process) -> str:
    import signal
    import subprocess
    try:
        code = process.wait(timeout=5)
    except subprocess.TimeoutExpired:   # its output closed but still running: stop it
        process.kill()
        code = process.wait()
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "an unknown signal"
        return f"crashed (killed by signal {-code}, {name})"
    return f"ended its process (exit code {code})"


# ---------------------------------------------------------------- the child


def _child() -> None:
    # The protocol keeps the real standard output; the module's prints (Python's and C's) go to
    # standard error, and it reads nothing meant for us.
    answers = os.fdopen(os.dup(1), "w", encoding="ascii")
    requests = os.fdopen(os.dup(0), "rb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with open(os.devnull, "rb") as nothing:
        os.dup2(nothing.fileno(), 0)

    def answer(message: dict) -> None:
        answers.write(json.dumps(message) + "\n")
        answers.flush()

    first = json.loads(requests.readline())
    sys.path[:] = first["path"]
    module_name, _, function_name = first["spec"].partition(":")
    try:
        import importlib
        function = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as error:
        return answer({"import_error": str(error)})
    except (Exception, SystemExit) as error:    # noqa: BLE001 - whatever its import raises or exits with
        return answer({"other_error": f"{type(error).__name__}: {error}"})
    if not callable(function):
        return answer({"not_callable": type(function).__name__})
    answer({"ready": True})
    for line in requests:
        counts = []
        for index, text in enumerate(json.loads(line)["texts"]):
            try:
                found = function(text)
            except (Exception, SystemExit) as error:    # noqa: BLE001 - reported with the text
                answer({"failed": index, "error": f"{type(error).__name__}: {error}"})
                break
            if isinstance(found, int) and not isinstance(found, bool) and found >= 0:
                counts.append(found)
            elif isinstance(found, (list, tuple)):
                counts.append(len(found))
            else:
                answer({"wrong": index, "found": type(found).__name__})
                break
        else:
            answer({"counts": counts})


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C stops the audit, which stops this process
    _child()
