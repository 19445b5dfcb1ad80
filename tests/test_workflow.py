"""check and hint, as a learner and an instructor use them."""

import json
import shutil

from helpers import ROOT, methods, tree_state


def test_check_on_fresh_stubs_names_the_first_task_and_next_step(tmp_path):
    from labtools import dev
    (tmp_path / "context.py").write_text(dev.generated_stub("context"), encoding="utf-8")
    done = methods("check", "context", "--target", str(tmp_path), check=False)
    text = done.stdout.decode()
    assert done.returncode == 1
    assert "0/4 tasks" in text and "task 1" in text and "packet_coverage is not written yet" in text
    assert "python3 -B methods.py hint context 1" in text


def test_check_solutions_passes_and_json_is_a_gradebook_record():
    done = methods("check", "--target", str(ROOT / "solutions"), "--json")
    record = json.loads(done.stdout)
    assert record["passed"] is True
    lesson = next(l for l in record["lessons"] if l["lesson"] == "context")
    assert [t["passed"] for t in lesson["tasks"]] == [True] * 4


def test_check_target_leaves_the_graded_folder_unchanged(tmp_path):
    shutil.copy(ROOT / "solutions" / "context.py", tmp_path / "context.py")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.rglob("*"))
    methods("check", "context", "--target", str(tmp_path), flags=())
    assert sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.rglob("*")) == before


def test_check_reports_a_syntax_error_plainly(tmp_path):
    (tmp_path / "context.py").write_text("def packet_coverage(:\n", encoding="utf-8")
    text = methods("check", "context", "--target", str(tmp_path), check=False).stdout.decode()
    assert "syntax error at line 1" in text


def test_hint_levels_advance_and_level_option_is_stateless(tmp_path):
    state = ROOT / ".hints-seen.json"
    saved = state.read_bytes() if state.exists() else None
    try:
        state.unlink(missing_ok=True)
        first = methods("hint", "context", "3").stdout.decode()
        second = methods("hint", "context", "3").stdout.decode()
        assert "hint 1/4" in first and "hint 2/4" not in first
        assert "hint 2/4" in second
        fixed = methods("hint", "context", "3", "--level", "1").stdout.decode()
        assert "hint 2/4" not in fixed
        bad = methods("hint", "context", "9", check=False)
        assert bad.returncode == 2 and b"has tasks 1, 2, 3, 4" in bad.stderr
    finally:
        state.unlink(missing_ok=True)
        if saved is not None:
            state.write_bytes(saved)
