"""`methods.py setup`: the lab's modules compiled once, used by lesson commands, never stale.

Each test works on a copy of the lab (methods.py, modules/, labtools/, exercises/), so the
checkout's own caches are never touched.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TAG = sys.implementation.cache_tag


def _lab_copy(tmp_path: Path) -> Path:
    lab = tmp_path / "lab"
    lab.mkdir()
    shutil.copy2(ROOT / "methods.py", lab / "methods.py")
    shutil.copy2(ROOT / "course.json", lab / "course.json")
    for folder in ("modules", "labtools", "exercises"):
        shutil.copytree(ROOT / folder, lab / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return lab


def _run(lab: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONDONTWRITEBYTECODE", "NO_COLOR")}
    return subprocess.run([sys.executable, "-B", *args], cwd=lab, capture_output=True, text=True, env=env,
                          timeout=120)


def _sources(lab: Path, folder: str) -> list[Path]:
    return sorted(path for path in (lab / folder).rglob("*.py") if "__pycache__" not in path.parts)


def _cached(source: Path) -> Path:
    return source.parent / "__pycache__" / f"{source.stem}.{TAG}.pyc"


def test_setup_compiles_every_module_with_checked_hashes_and_nothing_else(tmp_path):
    lab = _lab_copy(tmp_path)
    done = _run(lab, "methods.py", "setup")
    assert done.returncode == 0, done.stderr
    sources = _sources(lab, "modules") + _sources(lab, "labtools")
    assert f"Compiled {len(sources)} files" in done.stdout
    assert max(map(len, done.stdout.splitlines())) <= 80, done.stdout
    assert "\n    python3 -B methods.py setup\n" in done.stdout  # the command on a line of its own
    for source in sources:
        header = _cached(source).read_bytes()[:8]
        # PEP 552: flags 0b11 = hash-based and checked against the source on every import
        assert int.from_bytes(header[4:8], "little") == 0b11, f"{source} is not checked-hash bytecode"
    assert not list((lab / "exercises").rglob("__pycache__")), "setup must never compile a learner's files"
    assert not (lab / "__pycache__").exists()


def test_a_lesson_runs_from_the_cache_and_prints_the_same_bytes(tmp_path):
    lab = _lab_copy(tmp_path)
    before = _run(lab, "methods.py", "channels", "--plain")
    assert _run(lab, "methods.py", "setup").returncode == 0
    after = _run(lab, "-v", "methods.py", "channels", "--plain")
    assert after.stdout == before.stdout == (ROOT / "tests" / "golden" / "channels.txt").read_text(encoding="utf-8")
    for module in ("channels/mechanism", "channels/trace", "hybrid/mechanism", "eligibility/mechanism"):
        assert f"code object from '{_cached(lab / 'modules' / f'{module}.py')}'" in after.stderr, module


def test_an_edited_module_is_never_run_from_stale_bytecode(tmp_path):
    lab = _lab_copy(tmp_path)
    assert _run(lab, "methods.py", "setup").returncode == 0
    trace = lab / "modules" / "context" / "trace.py"
    text, stat = trace.read_text(encoding="utf-8"), trace.stat()
    assert "BUDGET" not in _run(lab, "methods.py", "context", "--plain").stdout
    # Same size and the same modification time: only the source hash can tell the difference.
    assert text.count('["budget", ') == 1
    trace.write_text(text.replace('["budget", ', '["BUDGET", '), encoding="utf-8")
    os.utime(trace, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert trace.stat().st_size == stat.st_size
    shown = _run(lab, "methods.py", "context", "--plain").stdout
    assert "BUDGET" in shown


def test_a_module_that_does_not_compile_is_named_and_the_rest_still_compile(tmp_path):
    lab = _lab_copy(tmp_path)
    (lab / "modules" / "zz_broken.py").write_text("def broken(:\n", encoding="utf-8")
    done = _run(lab, "methods.py", "setup")
    assert done.returncode == 1
    assert "modules/zz_broken.py: does not compile (SyntaxError" in done.stderr
    assert "Traceback" not in done.stderr
    assert _cached(lab / "modules" / "context" / "mechanism.py").is_file()


def test_setup_takes_no_arguments(tmp_path):
    done = _run(_lab_copy(tmp_path), "methods.py", "setup", "context")
    assert done.returncode == 2 and "unrecognized arguments: context" in done.stderr


def test_the_benchmark_times_each_lesson_in_a_cold_copy_and_after_setup(monkeypatch):
    from devtools import bench
    monkeypatch.setattr(bench, "_built_lessons", lambda: ["context", "grounding"])
    monkeypatch.setattr(bench, "FRAMEWORKS", ())
    before = sorted(ROOT.rglob("__pycache__"))
    rows = bench.startup(1)
    assert [row["command"] for row in rows][:3] == ["floor", "context", "grounding"]
    assert rows[1]["target"] == rows[2]["target"] == {"setup": 4.0, "cold": 5.0}
    for row in rows[1:]:
        assert all(row[key] > 0 for key in ("cold", "setup", "cold_no_site", "setup_no_site"))
    assert sorted(ROOT.rglob("__pycache__")) == before, "the benchmark works on copies, never the checkout"



def test_the_stub_header_fits_80_columns():
    from labtools import stubgen
    from labtools.registry import LESSONS
    for lesson in LESSONS:
        header = stubgen.header(lesson)
        assert all(len(line) <= 80 for line in header) and header[0].startswith("# TODO")
        assert f"python3 -B methods.py check {lesson}" in header[-1]
