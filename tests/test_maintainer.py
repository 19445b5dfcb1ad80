"""The maintainer check, lesson by lesson, the stub generator's own contract, `dev sync`'s
care with edited files, strict `dev` arguments, and the shape of the import graph."""

import ast
import json
import re
import subprocess
import sys

import pytest

from helpers import ROOT
from labtools import course, stubgen
from devtools import dev


@pytest.mark.parametrize("lesson", course.lessons())
def test_maintainer_check(lesson):
    found = dev.problems(lesson)
    assert not found, "\n".join(found)


def test_no_hash_manifest_is_kept_in_the_repository():
    # What check compares the grading files against is derived (labtools/grading/integrity.py:
    # the commit in a clone, a manifest written by the release and zip builders elsewhere), so
    # a lesson edit commits no hash file.
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        pytest.skip("not a git checkout")
    assert [name for name in done.stdout.splitlines() if name.rpartition("/")[2] == "SHA256SUMS"] == []


def test_a_wrong_answer_that_passes_is_reported(monkeypatch):
    # A "wrong answer" that changes nothing must be flagged as uncaught.
    harmless = {"name": "renamed local", "task": 3, "replace": [("packet, skipped, used = [], [], 0",
                                                                 "packet, skipped, used = list(), [], 0")]}
    monkeypatch.setattr(dev, "_load_catalogue", lambda lesson: [harmless])
    found = dev.problems("context")
    assert any("'renamed local' (task 3) passes every grader test" in line for line in found), found


def test_hash_seeds_of_a_wrong_answer_are_checked(monkeypatch):
    # A caught wrong answer with malformed hash_seeds is reported, naming the field and value.
    caught = {"name": "half the budget", "task": 3, "hash_seeds": ["7"],
              "replace": [("packet, skipped, used = [], [], 0", "packet, skipped, used = [], [], 0\n"
                                                                  "    max_quote_chars //= 2")]}
    monkeypatch.setattr(dev, "_load_catalogue", lambda lesson: [caught])
    found = dev.problems("context")
    assert any("hash_seeds must be a list of whole numbers" in line and "['7']" in line for line in found), found


def test_stub_generator_replaces_answers_and_keeps_the_rest():
    solution = ('"""Doc."""\n\ndef f(x):\n    """Task 1."""\n    # BEGIN SOLUTION\n    return x + 1\n'
                '    # END SOLUTION\n\n# BEGIN SOLUTION\nQUIZ = "b"\n# END SOLUTION\n')
    stub = stubgen.make_stub(solution, "demo")
    assert stub.splitlines()[0].startswith("# TODO:") and "check demo" in stub.splitlines()[0]
    assert stub.splitlines()[1] == '"""Doc."""'  # the docstring's promise: a one-line TODO heads the file
    assert '    raise NotImplementedError("f: write your answer here' in stub
    assert 'QUIZ = None  # TODO: your answer' in stub
    assert "return x + 1" not in stub and '"b"' not in stub and '"""Task 1."""' in stub
    assert stubgen.signatures(stub) == stubgen.signatures(solution)


@pytest.mark.parametrize("text, words", [
    ("def f():\n    # BEGIN SOLUTION\n    pass\n", "never closed"),
    ("# END SOLUTION\n", "without a matching"),
    ("def f():\n    pass\n", "no answer region"),
    ("# BEGIN SOLUTION\nprint(1)\n# END SOLUTION\n", "only `NAME = value`"),
])
def test_stub_generator_rejects_bad_markers(text, words):
    with pytest.raises(ValueError, match=words):
        stubgen.make_stub(text, "demo")


@pytest.fixture
def sync_scratch(tmp_path, monkeypatch):
    """exercises/, .backups/, the lock and the grader manifest in a temporary folder."""
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    monkeypatch.setattr(course, "EXERCISES", exercises)
    monkeypatch.setattr(course, "BACKUPS", tmp_path / "backups")
    monkeypatch.setattr(course, "LOCK", tmp_path / "lab.lock")
    return exercises


def test_sync_keeps_a_learners_edits_unless_forced(sync_scratch, tmp_path, monkeypatch):
    edited = sync_scratch / "context.py"
    edited.write_text("# my work\n", encoding="utf-8")
    monkeypatch.setattr(course, "committed_text", lambda path: "something else")
    lines = dev.sync(lessons=["context"])
    assert edited.read_text(encoding="utf-8") == "# my work\n" and any("kept" in l for l in lines)
    lines = dev.sync(force=True, lessons=["context"])
    backups = list((tmp_path / "backups").iterdir())
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == "# my work\n"
    assert edited.read_text(encoding="utf-8") == dev.generated_stub("context")


def test_sync_keeps_committed_edits(sync_scratch, monkeypatch):
    # A learner who commits their work has an exercise file equal to HEAD's: still their work.
    edited = sync_scratch / "context.py"
    edited.write_text("# my committed work\n", encoding="utf-8")
    real = course.committed_text
    monkeypatch.setattr(course, "committed_text",
                        lambda path: "# my committed work\n" if path.parent == sync_scratch else real(path))
    lines = dev.sync(lessons=["context"])
    assert edited.read_text(encoding="utf-8") == "# my committed work\n"
    assert any(line.startswith("kept exercises") or line.startswith(f"kept {edited}") for line in lines), lines


def test_sync_replaces_an_older_generated_stub_without_a_backup(sync_scratch, monkeypatch):
    solution = (course.SOLUTIONS / "context.py").read_text(encoding="utf-8")
    older = solution.replace("Lesson 01 exercises", "Lesson 01 exercises (last year's wording)", 1)
    assert older != solution
    monkeypatch.setattr(course, "committed_text", lambda path: older if path.name == "context.py"
                        and path.parent == course.SOLUTIONS else None)
    path = sync_scratch / "context.py"
    path.write_text(stubgen.make_stub(older, "context"), encoding="utf-8")
    assert dev.sync(lessons=["context"])[0] == f"wrote {course.shown(path)}"
    assert path.read_text(encoding="utf-8") == dev.generated_stub("context") and not course.BACKUPS.exists()


def test_sync_never_writes_through_a_symbolic_link(sync_scratch, tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text("# not the lab's file\n", encoding="utf-8")
    link = sync_scratch / "context.py"
    link.symlink_to(outside)
    for force in (False, True):
        lines = dev.sync(force=force, lessons=["context"])
        assert any("symbolic link" in line and line.startswith("kept") for line in lines), lines
        assert link.is_symlink() and outside.read_text(encoding="utf-8") == "# not the lab's file\n"


def test_sync_handles_an_exercise_that_is_not_utf8(sync_scratch):
    path = sync_scratch / "context.py"
    work = b"# caf\xe9\n"
    path.write_bytes(work)
    lines = dev.sync(lessons=["context"])
    assert path.read_bytes() == work and any("not UTF-8" in line for line in lines), lines
    lines = dev.sync(force=True, lessons=["context"])
    [copy] = course.BACKUPS.iterdir()
    assert copy.read_bytes() == work and path.read_text(encoding="utf-8") == dev.generated_stub("context")


def test_dev_sync_exits_1_when_it_keeps_a_file(sync_scratch, monkeypatch, capsys):
    (sync_scratch / "context.py").write_text("# mine\n", encoding="utf-8")
    monkeypatch.setattr(course, "lessons", lambda: ["context"])
    assert dev.main(["sync"]) == 1 and "kept" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["sync", "--froce"], "unrecognized arguments: --froce"),
    (["check", "--froce"], "unrecognized arguments: --froce"),
    (["golden", "nolesson"], "there is no golden output 'nolesson'"),
    (["golden", "nolesson"], "audit"),   # the audit has a golden output too: `dev golden audit`
    (["check", "nolesson"], "there is no lesson 'nolesson'"),
    (["notebooks", "nope"], "there is no notebook 'nope'"),
    (["mutants", "nolesson"], "no graded exercises for 'nolesson'"),
    (["probe", "--trials", "1_0"], "ASCII digits"),
    (["bench", "--startup", "nolesson"], "--startup: no command 'nolesson' (known: context, "),
    (["bench", "--startup"], "expected at least one argument"),
    (["nosuch"], "invalid choice"),
    ([], "required"),
])
def test_dev_arguments_are_strict(argv, words, capsys):
    with pytest.raises(SystemExit) as stop:
        dev.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and words in err and "Traceback" not in err, err


# ------------------------------------------------------------------ structure

def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict:
    """Module -> the lab modules it imports (anywhere in it, at the top or inside a function)."""
    sources = {_module_name(p): p for top in ("labtools", "devtools", "modules") for p in sorted((ROOT / top).rglob("*.py"))}
    sources["methods"] = ROOT / "methods.py"
    graph = {}
    for name, path in sources.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
        graph[name] = sorted(target for target in found if target in sources and target != name)
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected groups of more than one module (Tarjan), each as a sorted list."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def test_the_import_graph_has_no_cycle():
    # A lesson's trace module imports its mechanism, never the reverse (labtools.registry.
    # lesson_module finds it); render never imports the terminal renderer, nor dev the bench.
    assert cycles(import_graph()) == []


def test_the_product_never_imports_the_maintainer_tools():
    # devtools/ is left out of a student release and of the Gradescope zip: nothing a learner
    # or an instructor runs (labtools/, modules/, methods.py) may need it.
    graph = import_graph()
    needs = {name: [target for target in targets if target.split(".")[0] == "devtools"]
             for name, targets in graph.items() if name.split(".")[0] != "devtools"}
    assert {name: targets for name, targets in needs.items() if targets} == {}


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert cycles({"a": ["b"], "b": []}) == []


# "About 400 lines": a mechanism reads in one sitting. The slack covers a module whose
# last hundred lines are its fixture (order.py); a module that outgrows it splits off its
# trace, view or experiments, as the lessons do.
MODULE_LINES = 425


def test_every_module_reads_in_one_sitting():
    long = {str(path.relative_to(ROOT)): count for path in sorted((ROOT / "modules").rglob("*.py"))
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert not long, f"over {MODULE_LINES} lines (split off the trace, view or experiments): {long}"

def test_nothing_imports_methods():
    graph = import_graph()
    assert [name for name, targets in graph.items() if "methods" in targets] == []
    # and `check` runs methods.py once, as __main__, never again as `methods`
    probe = ("import runpy, sys, io, contextlib\n"
             f"sys.argv = ['methods.py', 'check', 'context', '--target', {str(ROOT / 'solutions')!r}]\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n        runpy.run_path('methods.py', run_name='__main__')\n"
             "    except SystemExit as stop:\n        assert stop.code == 0, stop.code\n"
             "assert 'methods' not in sys.modules, 'methods.py was imported a second time'\n")
    done = subprocess.run([sys.executable, "-B", "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("argv", [["context", "--plain"], ["order", "--seed", "5"], ["practice", "--json"]])
def test_a_lesson_command_loads_no_workflow_code(argv):
    probe = ("import runpy, sys, io, contextlib\n"
             f"sys.argv = ['methods.py'] + {argv!r}\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n        runpy.run_path('methods.py', run_name='__main__')\n"
             "    except SystemExit:\n        pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('labtools')))\n")
    done = subprocess.run([sys.executable, "-B", "-c", probe], cwd=ROOT, capture_output=True, text=True)
    loaded = set(ast.literal_eval(done.stdout.strip().splitlines()[-1]))
    assert loaded <= {"labtools", "labtools.registry", "labtools.manifest", "labtools.main", "labtools.render"}, loaded


def test_lesson_numbers_come_from_the_registry_order():
    from labtools.registry import COURSE, LESSONS
    assert [number for number, _about, _options in LESSONS.values()] == [
        f"{n:02d}" for n in range(1, len(COURSE) + 1)]
    import methods
    assert methods.LESSONS is LESSONS  # one registry, re-exported for the tests and notebooks
    for source in sorted((ROOT / "notebooks" / "src").glob("*.py")):
        number, _, name = source.stem.partition("_")
        if name not in LESSONS:  # a notebook of a workflow command (15_audit), numbered after the lessons
            from labtools.registry import WORKFLOW
            assert name in WORKFLOW and int(number) > len(COURSE), f"{source.name}: no lesson or command {name!r}"
            continue
        assert LESSONS[name][0] == number, f"{source.name}: lesson {name} is number {LESSONS[name][0]}"


def test_a_new_lesson_is_a_manifest_entry_and_its_starter_files(tmp_path):
    # Follows the README's "Where to change what" in a scratch copy of the lab (the files git
    # tracks, plus this checkout's uncommitted ones): `dev new`, then the generated steps.
    import shutil
    import subprocess
    lab = tmp_path / "lab"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split("\n")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not name.endswith(".ipynb"):
            (lab / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, lab / name)
    before = {p.relative_to(lab).as_posix() for p in lab.rglob("*") if p.is_file()}

    def run(*argv):
        return subprocess.run([sys.executable, "-B", "methods.py", *argv], cwd=lab, capture_output=True,
                              text=True, timeout=300)

    made = run("dev", "new", "toy", "--title", "a toy lesson that tests the tooling")
    assert made.returncode == 0, made.stderr
    number = f"{len(json.loads((lab / 'course.json').read_text())['lessons']):02d}"
    written = {p.relative_to(lab).as_posix() for p in lab.rglob("*") if p.is_file()} - before
    hand_written = {"modules/toy/mechanism.py", "modules/toy/trace.py", "solutions/toy.py",
                    "tests/graders/grade_toy.py", "tests/wrong_answers/toy.py", "exercises/hints/toy.md",
                    f"notebooks/src/{number}_toy.py"}
    assert written == hand_written | {"modules/toy/__init__.py"}
    # The scratch copy has no git history, so sync records the new grader with --force.
    assert run("dev", "sync", "--force").returncode == 0
    assert run("dev", "golden", "toy").returncode == 0
    assert (lab / "exercises" / "toy.py").is_file() and (lab / "tests" / "golden" / "toy.txt").is_file()
    assert f"{number} toy" in run().stdout
    shown = run("toy", "--plain")
    assert shown.returncode == 0 and shown.stdout == (lab / "tests" / "golden" / "toy.txt").read_text()
    checked = run("check", "toy")
    assert checked.returncode == 1 and "0/2 tasks" in checked.stdout
    assert "hint 1/2" in run("hint", "toy").stdout
    assert run("check", "toy", "--target", "solutions").returncode == 0
    proved = run("dev", "check", "toy")
    assert proved.returncode == 0 and "all good" in proved.stdout, proved.stdout
    again = run("dev", "new", "toy", "--title", "twice")
    assert again.returncode == 2 and "already has a lesson 'toy'" in again.stderr


def test_the_manifest_names_its_problems(tmp_path):
    from labtools import manifest
    good = manifest.load()
    assert [entry["name"] for entry in good["lessons"]][:2] == ["context", "budget"]
    bad = json.loads(json.dumps(good))
    bad["lessons"][0]["tasks"][1]["number"] = 7
    with pytest.raises(ValueError, match=r"lesson 'context'.tasks\[1\].number: .*expected 2, got 7"):
        manifest.check(bad)
    bad = json.loads(json.dumps(good))
    bad["lessons"][1]["world"] = "moon"
    with pytest.raises(ValueError, match="lesson 'budget'.world: must be one of"):
        manifest.check(bad)
    broken = tmp_path / "course.json"
    broken.write_text('{"lessons": [}', encoding="utf-8")
    with pytest.raises(ValueError, match="course.json, line 1: not valid JSON"):
        manifest.load(str(broken))


def test_the_manifest_and_the_course_files_agree():
    # Every solution, grader, hints file and notebook source belongs to a lesson of course.json,
    # and every lesson with tasks has them (dev check reports the same lines).
    assert dev.course_problems() == []


def test_quiz_keys_are_spread_over_the_letters():
    # A learner who always answers "b" must not pass most quizzes: every letter is some quiz's
    # key, and no letter is the key of more than 40% of them.
    from labtools import manifest
    keys = []
    for entry in manifest.lessons():
        quizzes = [name for _number, name, kind, _title in manifest.tasks(entry["name"]) if kind == "quiz"]
        if quizzes:
            tree = ast.parse((ROOT / "solutions" / f"{entry['name']}.py").read_text(encoding="utf-8"))
            values = {node.targets[0].id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                      and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Constant)}
            keys += [values[name] for name in quizzes]
    counts = {letter: keys.count(letter) for letter in "abcd"}
    assert len(keys) >= 10 and set(keys) == set("abcd"), counts
    assert max(counts.values()) <= 0.4 * len(keys), counts


def test_grading_lives_in_one_package():
    # tests/graders holds the graders and their pytest hook only; the harness, its worker, the
    # sandbox and every export are labtools/grading/ (one home for a maintainer to read).
    graders = sorted(path.name for path in (ROOT / "tests" / "graders").glob("*.py"))
    assert [name for name in graders if not name.startswith("grade_") and name != "conftest.py"] == []
    package = {path.name for path in (ROOT / "labtools" / "grading").glob("*.py")}
    assert {"harness.py", "worker.py", "sandboxed.py", "wire.py", "pool.py", "gradebook.py", "gradescope.py",
            "integrity.py"} <= package
    assert not [name for name in package - {"__init__.py"} if (ROOT / "labtools" / name).exists()]


def quiz_options(lesson: str, name: str) -> dict:
    """{letter: option text} of quiz `name` as the learner's exercise file states it."""
    text = (ROOT / "exercises" / f"{lesson}.py").read_text(encoding="utf-8")
    blocks = [b for b in re.split(r"^# Task \d+ \(quiz\)\.", text, flags=re.M)[1:]
              if f"# Set {name} to one letter." in b]
    assert len(blocks) == 1, f"exercises/{lesson}.py: {len(blocks)} quiz blocks for {name}"
    body = " ".join(line.lstrip("#").strip() for line in blocks[0].split(f"# Set {name} to one letter.")[0].split("\n"))
    _premise, *parts = re.split(r'\s"([a-d])"\s', " " + body)
    return {parts[i]: parts[i + 1].strip() for i in range(0, len(parts), 2)}


def test_no_quiz_can_be_guessed_by_the_length_of_its_options():
    # Issue 36: options alike in length, and the key the longest option in at most a third of
    # the quizzes (a learner who picks the longest must do no better than chance allows).
    from labtools import manifest
    keyed_longest, quizzes = [], 0
    for entry in manifest.lessons():
        solution = (ROOT / "solutions" / f"{entry['name']}.py").read_text(encoding="utf-8")
        for _number, name, kind, _title in manifest.tasks(entry["name"]):
            if kind != "quiz":
                continue
            options = quiz_options(entry["name"], name)
            assert sorted(options) == list("abcd"), (entry["name"], name, sorted(options))
            lengths = {letter: len(text) for letter, text in options.items()}
            assert max(lengths.values()) <= 1.3 * min(lengths.values()), (entry["name"], name, lengths)
            key = re.search(rf'^{name} = "([a-d])"$', solution, re.M).group(1)
            quizzes += 1
            if lengths[key] == max(lengths.values()):
                keyed_longest.append(name)
    assert quizzes >= 10 and len(keyed_longest) * 3 <= quizzes, keyed_longest
