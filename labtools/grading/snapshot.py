"""The harness, read once: the lab modules, the graders, this package and the hints, held in
memory by path, so that nothing the graded code writes to disk afterwards changes what grades
it. `modules.*` is then imported from memory (a finder on sys.meta_path), the graders are
compiled from memory, the hints and course.json read from memory."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRADERS = ROOT / "tests" / "graders"
_grader_code: dict[tuple[Path, int, int], object] = {}

# Set by install_snapshot() (worker.py --serve, before any learner code runs): every file of the
# lab modules, the graders and the hints, by path relative to ROOT. From then on this process
# imports `modules.*`, execs graders and reads hints from memory: a file the graded code
# writes into the checkout (or into this copy of it) afterwards changes nothing it grades.
_snapshot: dict[str, bytes] | None = None


def is_grading_input(name: str) -> bool:
    """Whether the file at `name` (a path relative to the lab's root, with /) is one a grade
    reads: see snapshot_files()."""
    parts = name.split("/")
    if parts[0] == "modules":
        return len(parts) > 1 and "__pycache__" not in parts and not name.endswith((".pyc", ".pyo"))
    if len(parts) == 3 and parts[:2] in (["labtools", "grading"], ["tests", "graders"]):
        return name.endswith(".py")
    if len(parts) == 3 and parts[:2] == ["exercises", "hints"]:
        return name.endswith(".md")
    return name in ("labtools/__init__.py", "course.json")


def snapshot_files(root: Path = ROOT, graders: Path | None = None) -> dict[str, Path]:
    """The files a grade reads, by path relative to `root`: every file under modules/ (bytecode
    aside), this package (and labtools/__init__.py), the graders, the hints the graders read
    and course.json. The tamper warning covers exactly these (integrity.py). `graders`: where
    the graders are, when not in root/tests/graders (a copy, in a test)."""
    found = {}
    for path in sorted((root / "modules").rglob("*")):
        if path.is_file():
            found[path.relative_to(root).as_posix()] = path
    for pattern in ("labtools/__init__.py", "labtools/grading/*", "exercises/hints/*", "course.json"):
        for path in sorted(root.glob(pattern)):
            found[path.relative_to(root).as_posix()] = path
    for path in sorted((graders or root / "tests" / "graders").glob("*")):
        found[f"tests/graders/{path.name}"] = path
    return {name: path for name, path in sorted(found.items()) if is_grading_input(name) and path.is_file()}


class _SnapshotLoader:
    def __init__(self, relative: str, package: bool):
        self.relative, self.package = relative, package

    def create_module(self, spec):
        return None

    def get_source(self, fullname):
        data = _snapshot.get(self.relative)
        return importlib.util.decode_source(data) if data is not None else ""

    def exec_module(self, module):
        origin = str(ROOT / self.relative)
        exec(compile(self.get_source(module.__name__), origin, "exec", dont_inherit=True), module.__dict__)


class _SnapshotFinder:
    """Finds `modules` and `modules.*` in the snapshot only (never on disk)."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if _snapshot is None or not (fullname == "modules" or fullname.startswith("modules.")):
            return None
        relative = fullname.replace(".", "/")
        if f"{relative}/__init__.py" in _snapshot:
            spec = importlib.util.spec_from_loader(fullname, _SnapshotLoader(f"{relative}/__init__.py", True),
                                                   origin=str(ROOT / relative / "__init__.py"), is_package=True)
            spec.submodule_search_locations = [str(ROOT / relative)]
            spec.has_location = True
            return spec
        if f"{relative}.py" in _snapshot:
            spec = importlib.util.spec_from_loader(fullname, _SnapshotLoader(f"{relative}.py", False),
                                                   origin=str(ROOT / f"{relative}.py"))
            spec.has_location = True
            return spec
        if any(name.startswith(relative + "/") for name in _snapshot):
            spec = importlib.util.spec_from_loader(fullname, _SnapshotLoader("", True), is_package=True)
            spec.submodule_search_locations = [str(ROOT / relative)]
            return spec
        raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)


def install_snapshot(files: dict | None = None) -> None:
    """Take the harness into memory (`files`: {path relative to ROOT: text}, as grading.py read
    it; default: read it from ROOT now) and import the lab modules from there from now on."""
    global _snapshot
    if files is None:
        _snapshot = {name: path.read_bytes() for name, path in snapshot_files().items()}
    else:
        _snapshot = {str(name): str(text).encode("utf-8", "surrogateescape") for name, text in files.items()}
    if not any(isinstance(finder, _SnapshotFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SnapshotFinder())


def harness_bytes(path: Path) -> bytes:
    if _snapshot is not None:
        try:
            relative = Path(path).resolve().relative_to(ROOT).as_posix()
        except ValueError:
            relative = None
        if relative in _snapshot:
            return _snapshot[relative]
        if relative is not None:
            raise FileNotFoundError(str(path))
    return Path(path).read_bytes()


def grader_module(lesson: str):
    """A fresh grader module each call; its compiled code is reused while the file is unchanged
    (a batch grades hundreds of versions, and compiling the grader was half the cost of each)."""
    path = GRADERS / f"grade_{lesson}.py"
    spec = importlib.util.spec_from_file_location(f"grade_{lesson}", path)
    module = importlib.util.module_from_spec(spec)
    if _snapshot is not None:
        key = (path, -1, -1)
        if key not in _grader_code:
            _grader_code[key] = compile(harness_bytes(path), str(path), "exec", dont_inherit=True)
    else:
        stat = path.stat()
        key = (path, stat.st_mtime_ns, stat.st_size)
        if key not in _grader_code:
            _grader_code[key] = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    exec(_grader_code[key], module.__dict__)
    return module
