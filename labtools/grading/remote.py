"""The sandbox, seen from the grader (grade --sandbox): the pipe to one sandboxed learner
process (sandboxed.py), and stand-ins for its module and functions. The grader calls them as
it would the learner's own; the arguments and results cross as plain data (wire.py) and are
compared here, on the trusted side."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from labtools.grading import harness, wire


class Remote:
    """The pipe to one sandboxed learner process (sandboxed.py).

    Every value crosses as wire.py data. The process is started on first use and again after
    it was killed (a time limit) or died; modules loaded in an earlier one are loaded again."""

    LINE_BYTES = 64 << 20   # an answer longer than this is the learner's failure
    STARTUP = 30.0          # seconds for the sandbox to start and say it is ready

    def __init__(self, command: list, cwd: str | None = None, backstop: float = 60.0):
        self.command, self.cwd, self.backstop = command, cwd, backstop
        self.process = None
        self.generation = 0
        self.buffer = b""
        self.callbacks = wire.Handles()  # the grader's callables the learner's code may call back
        self.patches: dict[int, list] = {}   # our token -> (module name, values) while active
        self.restarts = 0

    # the process
    def start(self) -> None:
        if self.generation:
            self.restarts += 1
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=self.cwd, start_new_session=True)
        self.generation += 1
        self.buffer = b""
        ready = self._read(time.monotonic() + self.STARTUP)
        if ready.get("ready") is not True:
            self.kill()
            raise harness.ChildDied("the sandbox did not start")
        for entry in list(self.patches.values()):  # a patch still active when it was restarted
            self._send({"op": "patch", "module": entry[0], "values": self._encode_values(entry[1])})
            entry[2] = self._answer(time.monotonic() + self.backstop).get("token")

    def kill(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            process.kill()
        except OSError:
            pass
        process.wait()
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def _send(self, message: dict) -> None:
        try:
            self.process.stdin.write(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            self.kill()
            raise harness.ChildDied("the sandboxed process ended") from None

    def _read(self, deadline: float) -> dict:
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise harness.ChildDied("the sandboxed process did not answer in time")
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            data = os.read(fd, 1 << 20)
            if not data:
                self.kill()
                raise harness.ChildDied("the sandboxed process ended")
            self.buffer += data
            if len(self.buffer) > self.LINE_BYTES:
                self.kill()
                raise harness.ChildDied(f"the sandboxed process sent an answer of more than "
                                        f"{self.LINE_BYTES:,} bytes")
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        if type(message) is not dict:
            self.kill()
            raise harness.ChildDied("the sandboxed process sent something that is not an answer")
        return message

    def _answer(self, deadline: float) -> dict:
        """Read until the answer, serving calls back to our callables on the way."""
        while True:
            message = self._read(deadline)
            if "cb" not in message:
                if "bad" in message:
                    raise harness.LabFailure(
                        f"the sandboxed process could not serve a request: {message['bad']}"[:2000])
                if message.get("out"):
                    text = message["out"] if isinstance(message["out"], str) else ""
                    sys.stdout.write(text[:harness.OUTPUT_CHARS])
                return message
            fn = self.callbacks.objects.get(message.get("cb"))
            try:
                if fn is None:
                    raise TypeError("no such callable")
                args = [self.decode(a) for a in message.get("args") or []]
                kwargs = {k: self.decode(v) for k, v in (message.get("kwargs") or {}).items()}
                answer = {"ok": self.encode(fn(*args, **kwargs))}
            except Exception as error:  # our callable raised: the learner's code sees the error
                answer = {"raise": wire.encode_error(error)}
            self._send(answer)

    def request(self, message: dict) -> dict:
        """Send one request (starting the process if needed) and return its answer."""
        if self.process is not None and self.process.poll() is not None:
            self.kill()
        if self.process is None:
            self.start()
        generation = self.generation
        try:
            self._send(message)
            return self._answer(time.monotonic() + self.backstop)
        except BaseException:  # a time limit (Overtime) mid-call: the process state is unknown
            if self.generation == generation and not isinstance(sys.exc_info()[1], harness.LabFailure):
                self.kill()
            raise

    def load_module(self, lesson: str, path: Path, text: str) -> "RemoteModule":
        """The learner's lesson file, run in the sandboxed process."""
        return RemoteModule(self, lesson, path, text)

    @staticmethod
    def is_plain(fn) -> bool:
        """Whether the sandboxed process said the function is a plain one its file's code made."""
        return isinstance(fn, RemoteFunction) and fn.plain

    @staticmethod
    def file_of(fn) -> str | None:
        """The file a function of the learner's was compiled from, as the sandboxed process said."""
        return fn.file if isinstance(fn, RemoteFunction) else None

    # values
    def callable_ref(self, fn) -> dict:
        if isinstance(fn, RemoteFunction):
            if fn.session is not self or fn.generation != self.generation:
                raise harness.LabFailure("a function of an earlier sandboxed process cannot be handed back")
            return {"H": fn.handle}
        return self.callbacks.ref(fn)

    def encode(self, value, table=None):
        return wire.encode(value, self.callable_ref, table=table)

    def decode(self, data, name: str = "", sent=None):
        generation = self.generation
        try:
            return wire.decode(data, lambda handle, shown: RemoteFunction(self, handle, shown, generation, None),
                               sent=sent, adopt=_mirror)
        except (wire.WireError, RecursionError) as error:
            raise harness.LabFailure(f"the value{' of ' + name if name else ''} that came back from the learner's "
                                     f"code cannot be read: {error}") from None

    def _encode_values(self, values: dict) -> dict:
        return {name: self.encode(value) for name, value in values.items()}

    def patch(self, module_name: str, values: dict) -> int:
        token = max(self.patches, default=0) + 1
        self.patches[token] = [module_name, dict(values), None]
        if self.process is not None:
            answer = self.request({"op": "patch", "module": module_name, "values": self._encode_values(values)})
            if token in self.patches:
                self.patches[token][2] = answer.get("token")
        return token

    def unpatch(self, token: int) -> None:
        _name, _values, theirs = self.patches.pop(token)
        if self.process is not None and theirs is not None:
            self.request({"op": "unpatch", "token": theirs})


class RemoteModule:
    """A learner's lesson file loaded in the sandboxed process."""

    def __init__(self, session: Remote, lesson: str, path: Path, text: str):
        object.__setattr__(self, "_state", {"session": session, "lesson": lesson, "path": path, "text": text,
                                            "number": None, "generation": None})
        object.__setattr__(self, "__file__", str(path))
        self._load()

    def _load(self) -> int:
        state = self._state
        session = state["session"]
        if state["number"] is not None and state["generation"] == session.generation and session.process:
            return state["number"]
        try:
            answer = session.request({"op": "load", "lesson": state["lesson"], "path": str(state["path"]),
                                      "source": state["text"]})
        except harness.ChildDied as died:
            raise harness.LoadFailure(f"{harness.shown_path(state['path'])}: the sandboxed process ended while "
                                      f"the file was imported ({died.code}): a lesson file should only define "
                                      f"functions and constants", "exit") from None
        failure = answer.get("fail")
        if failure is not None:
            path = state["path"]
            if failure == "syntax":
                error = SyntaxError(str(answer.get("msg")))
                error.lineno, error.offset, error.text = (answer.get("lineno"), answer.get("offset"),
                                                          answer.get("text"))
                if not isinstance(error.lineno, int):
                    raise harness.LoadFailure(f"{harness.shown_path(path)} cannot be compiled: {answer.get('msg')}",
                                              "syntax")
                raise harness.LoadFailure(harness.syntax_message(path, error), "syntax")
            line = answer.get("line") if isinstance(answer.get("line"), int) else None
            raise harness.import_failure(path, wire.decode_error(answer.get("error")), line)
        if type(answer.get("module")) is not int:
            raise harness.LabFailure("the sandboxed process did not load the file")
        state["number"], state["generation"] = answer["module"], session.generation
        return state["number"]

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        session = self._state["session"]
        number = self._load()
        cache = self._state.setdefault("functions", {})
        if cache.get(name) is not None and cache[name].generation == session.generation:
            return cache[name]  # a function of the file, asked for again by the next test
        answer = session.request({"op": "get", "module": number, "name": name})
        if answer.get("missing"):
            raise AttributeError(name)
        value = session.decode(answer.get("ok"), name)
        if isinstance(value, RemoteFunction):
            value.origin = (self, name)
            value.file = answer.get("file") if isinstance(answer.get("file"), str) else None
            value.plain = answer.get("plain") is True
            if value.name is None:
                value.name = name
            cache[name] = value
        return value

    def __setattr__(self, name: str, value) -> None:
        self._state.get("functions", {}).pop(name, None)
        session = self._state["session"]
        number = self._load()
        session.request({"op": "set", "module": number, "name": name, "value": session.encode(value)})


class RemoteFunction:
    """A callable of the learner's code, called in the sandboxed process with plain data."""

    def __init__(self, session: Remote, handle: int, name, generation: int, origin):
        self.session, self.handle, self.name, self.generation, self.origin = session, handle, name, generation, origin
        self.file, self.plain = None, False
        if isinstance(name, str):
            self.__name__ = name

    def __repr__(self) -> str:
        return f"<function {self.name}>"

    def _fresh_handle(self) -> int:
        if self.generation == self.session.generation and self.session.process is not None:
            return self.handle
        if self.origin is None:
            raise harness.ChildDied("the sandboxed process that made this function was restarted")
        module, name = self.origin
        again = getattr(module, name)
        if not isinstance(again, RemoteFunction):
            raise harness.LabFailure(f"{name} is no longer a function after the sandboxed process was restarted")
        self.handle, self.generation = again.handle, again.generation
        return self.handle

    def __call__(self, *args, **kwargs):
        session = self.session
        handle = self._fresh_handle()
        sent: list = []
        answer = session.request({"op": "call", "fn": handle, "args": [session.encode(a, sent) for a in args],
                                  "kwargs": {k: session.encode(v, sent) for k, v in kwargs.items()}})
        if "raise" in answer:
            raise wire.decode_error(answer["raise"])
        for index, data in (answer.get("after") or {}).items():
            if isinstance(index, str) and index.isdigit() and int(index) < len(args):
                _mirror(args[int(index)], session.decode(data, sent=sent))
        return session.decode(answer.get("ok"), f"{self.name}(...)", sent=sent)


# Every grader object _mirror changed, with its contents before: the grader's own objects
# include the lab modules' (a SUPERSEDES dict passed as it is), which outlive the job.
_mirrored: list = []


def _mirror(original, changed) -> None:
    """What the learner's code did to a list, dict or set it was given, done to the grader's own
    for the rest of the job (a grader may check that its argument was left alone), then undone
    by undo_mirrors()."""
    if type(original) is not type(changed) or original == changed:
        return
    if not any(entry[0] is original for entry in _mirrored):
        _mirrored.append((original, type(original)(original)))
    if isinstance(original, list):
        original[:] = changed
    elif isinstance(original, (dict, set)):
        original.clear()
        original.update(changed)


def undo_mirrors() -> None:
    """Put back every object a learner's call changed through _mirror: nothing one submission's
    code did to the grader's objects reaches the next job on this worker (its contents were
    replaced wholesale, so a shallow copy of them is what they were)."""
    while _mirrored:
        original, before = _mirrored.pop()
        if isinstance(original, list):
            original[:] = before
        else:
            original.clear()
            original.update(before)
