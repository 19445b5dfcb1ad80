"""The learner's side of `grade --sandbox`: runs inside bubblewrap and answers the trusted grader.

    bwrap ... python3 -I -S -B /lab/labtools/grading/sandboxed.py

It sees the lab modules (/lab/modules, read-only), this file and wire.py, and a scratch
folder (its working directory); never solutions/, the graders or any key. The trusted
process (remote.py, class Remote) sends one JSON request per line on stdin;
each answer is one JSON line on the stdout it had at start (the learner's prints go
elsewhere). Requests:

    {"op": "load", "lesson", "path", "source"}    run a lesson file's text: {"module": id}
    {"op": "get", "module", "name"}               a value of it, as wire data (+ "file")
    {"op": "set", "module", "name", "value"}      assign one
    {"op": "call", "fn", "args", "kwargs"}        call a callable handed out before
    {"op": "patch", "module", "values"}           set attributes of a lab module: {"token"}
    {"op": "unpatch", "token"}                    put them back

A call may ask the trusted side to call one of its callables back ({"cb": id, ...}, answered
with {"ok": value} or {"raise": error}). Nothing here is trusted: the trusted side decodes
every answer strictly and decides every comparison itself.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import sys
import traceback
import types

LAB = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if LAB not in sys.path:  # /lab: the lab modules, and this package's wire.py
    sys.path.insert(0, LAB)
sys.dont_write_bytecode = True

from labtools.grading import wire as _wire  # noqa: E402

OUTPUT_CHARS = 2000
_real_exit = os._exit


class _Sink(io.StringIO):
    def __init__(self, limit: int = OUTPUT_CHARS):
        super().__init__()
        self.limit = limit

    def write(self, text) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = self.limit - self.tell()
        if room > 0:
            super().write(text[:room])
        return len(text)


class Channel:
    def __init__(self):
        self.input = os.fdopen(os.dup(0), "rb")
        self.output = os.dup(1)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        sys.stdin = open(os.devnull, encoding="utf-8")
        sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
        self.exported = _wire.Handles()  # the learner's callables handed to the trusted side
        self.modules: dict[int, types.ModuleType] = {}
        self.codes: dict[int, dict] = {}  # module number -> every code object compiling its file made
        self.patches: dict[int, tuple] = {}

    def send(self, message: dict) -> None:
        data = json.dumps(message, ensure_ascii=True, allow_nan=False).encode("ascii") + b"\n"
        view = memoryview(data)
        while view:
            view = view[os.write(self.output, view):]

    def receive(self) -> dict:
        line = self.input.readline()
        if not line:
            _real_exit(0)
        return json.loads(line)

    # values
    def encode(self, value, known=None):
        return _wire.encode(value, self.exported.ref, known=known)

    def decode(self, data, table=None):
        return _wire.decode(data, self.callback, own_of=self.exported.objects.__getitem__, table=table)

    def callback(self, number: int, name):
        channel = self

        def call(*args, **kwargs):
            channel.send({"cb": number, "args": [channel.encode(a) for a in args],
                          "kwargs": {k: channel.encode(v) for k, v in kwargs.items()}})
            reply = channel.receive()
            if "raise" in reply:
                raise _wire.decode_error(reply["raise"])
            return channel.decode(reply.get("ok"))
        if name is None:
            return _Unnamed(call)
        call.__name__ = call.__qualname__ = name
        return call

    # requests
    def handle(self, request: dict) -> dict:
        op = request.get("op")
        if op == "load":
            return self.load(request)
        if op == "get":
            module = self.modules[request["module"]]
            if not hasattr(module, request["name"]):
                return {"missing": True}
            value = getattr(module, request["name"])
            answer = {"ok": self.encode(value)}
            code = getattr(value, "__code__", None)
            if code is not None:
                answer["file"] = str(code.co_filename)
            codes = self.codes.get(request["module"], {})
            answer["plain"] = type(value) is types.FunctionType and codes.get(id(code)) is code
            return answer
        if op == "set":
            setattr(self.modules[request["module"]], request["name"], self.decode(request["value"]))
            return {"ok": None}
        if op == "patch":
            module = importlib.import_module(request["module"])
            values = {name: self.decode(value) for name, value in request["values"].items()}
            saved = {name: getattr(module, name) for name in values}
            for name, value in values.items():
                setattr(module, name, value)
            token = len(self.patches) + 1
            self.patches[token] = (module, saved)
            return {"token": token}
        if op == "unpatch":
            module, saved = self.patches.pop(request["token"])
            for name, value in saved.items():
                setattr(module, name, value)
            return {"ok": None}
        if op == "call":
            fn = self.exported.objects[request["fn"]]
            received: list = []
            args = [self.decode(a, received) for a in request["args"]]
            kwargs = {k: self.decode(v, received) for k, v in request["kwargs"].items()}
            known = {id(obj): (number, obj) for number, obj in enumerate(received)}
            sink = _Sink()
            before = {index: type(a)(a) for index, a in enumerate(args) if type(a) in (list, dict, set)}
            try:
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    result = fn(*args, **kwargs)
            except BaseException as error:  # the learner's error, sent as data
                return {"raise": _wire.encode_error(error), "out": sink.getvalue()}
            answer = {"ok": self.encode(result, known), "out": sink.getvalue()}
            mutable = [index for index, copy in before.items() if not _same(args[index], copy)]
            if mutable:
                answer["after"] = {str(index): self.encode(args[index], known) for index in mutable}
            return answer
        return {"bad": f"unknown request {op!r}"}

    def load(self, request: dict) -> dict:
        path, source = request["path"], request["source"]
        name = f"lab_target_{request['lesson']}_{len(self.modules)}"
        try:
            code = compile(source, path, "exec", dont_inherit=True)
        except SyntaxError as error:
            return {"fail": "syntax", "msg": str(error.msg), "lineno": error.lineno, "offset": error.offset,
                    "text": error.text}
        except ValueError as error:
            return {"fail": "syntax", "msg": str(error), "lineno": None, "offset": None, "text": None}
        module = types.ModuleType(name)
        module.__file__ = path
        import linecache
        linecache.cache[path] = (len(source), None, source.splitlines(True), path)
        sys.modules[name] = module
        sink = _Sink()
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                exec(code, module.__dict__)
        except BaseException as error:
            lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == path]
            return {"fail": "exit" if isinstance(error, SystemExit) else "import", "error": _wire.encode_error(error),
                    "line": lines[-1] if lines else None, "out": sink.getvalue()}
        finally:
            sys.modules.pop(name, None)
        number = len(self.modules) + 1
        self.modules[number] = module
        self.codes[number] = _wire.code_objects(code)
        return {"module": number, "out": sink.getvalue()}


def _same(now, before) -> bool:
    """Whether a list, dict or set the call was given is as it was (item by item, by identity
    first: cheap for a long list of ids)."""
    if len(now) != len(before):
        return False
    if isinstance(now, list):
        return all(a is b or a == b for a, b in zip(now, before))
    try:
        return now == before
    except Exception:
        return False


class _Unnamed:
    """A callable of the trusted side that has no __name__ (a functools.partial, say)."""

    def __init__(self, call):
        self._call = call

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)


def _limit(argv: list) -> None:
    """Memory, file size and core dumps, soft and hard (the learner's code cannot raise them)."""
    import resource
    memory = int(argv[argv.index("--memory-mb") + 1]) if "--memory-mb" in argv else 2048
    for name, value in (("RLIMIT_AS", memory << 20), ("RLIMIT_FSIZE", 64 << 20), ("RLIMIT_CORE", 0)):
        which = getattr(resource, name, None)
        if which is not None:
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                pass
    import signal
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def main() -> None:
    _limit(sys.argv[1:])
    channel = Channel()

    def _exit(code=0):  # os._exit from the learner's code is reported as an exit, not a silent end
        raise SystemExit(code)
    real_exit = _real_exit
    os._exit = _exit
    channel.send({"ready": True})
    while True:
        line = channel.input.readline()
        if not line:
            real_exit(0)
        try:
            request = json.loads(line)
            answer = channel.handle(request)
        except BaseException as error:  # a request this side could not serve
            answer = {"bad": f"{type(error).__name__}: {error}"[:2000]}
        try:
            channel.send(answer)
        except (TypeError, ValueError) as error:
            channel.send({"bad": f"the answer could not be sent: {error}"[:2000]})


if __name__ == "__main__":
    main()
