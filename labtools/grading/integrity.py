"""Tamper warning: the grading harness as shipped, by SHA-256, so a learner (or an instructor)
knows whether a green `check` is the course's green or an edited grader's.

The manifest, tests/graders/SHA256SUMS, lists every file whose edit could change a grade:
the graders (tests/graders/*.py), this package (labtools/grading/*.py: the harness, the
worker, and what turns results into records and gradebooks), every file under modules/ (the
lab modules the graders import and compute expected values with, in whatever folders they
live), the hints the graders read (exercises/hints/*.md) and course.json. `refresh()` (called by `dev sync`) rewrites it, but
never silently over an edit that is not committed: a manifest must not bless a change
nobody can see in the history.
"""

from __future__ import annotations

import hashlib

from labtools import course, files
from labtools.grading.snapshot import snapshot_files

ROOT = course.ROOT
GRADERS = course.GRADERS
MANIFEST = course.GRADERS / "SHA256SUMS"


def grade_inputs() -> dict[str, object]:
    """What a grade reads, by path in the project: every file under modules/ (bytecode caches
    aside), this package, the graders, the hints the graders read and course.json."""
    return snapshot_files(ROOT, graders=GRADERS)


def harness() -> dict[str, object]:
    """Every harness file by the name the manifest gives it (its path in the project)."""
    return grade_inputs()


def current() -> dict[str, str]:
    """SHA-256 of every harness file as it is now, by name."""
    return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in sorted(harness().items())}


def manifest_text() -> str:
    return "".join(f"{digest}  {name}\n" for name, digest in current().items())


def manifest_sha256() -> str:
    """One digest for the whole harness as it is now (the gradebook records it)."""
    return hashlib.sha256(manifest_text().encode("utf-8")).hexdigest()


def shipped() -> dict[str, str]:
    """The manifest's digests by name (empty when there is no manifest)."""
    try:
        lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines if "  " in line)}


def differences() -> list[dict]:
    """One record per harness file that differs from the manifest: its name and both
    digests (None where the file is absent on that side), sorted by name."""
    now, then = current(), shipped()
    return [{"file": name, "shipped": then.get(name), "now": now.get(name)}
            for name in sorted(set(now) | set(then)) if now.get(name) != then.get(name)]


def changed() -> list[str]:
    """Harness files that differ from the manifest, or are missing from it, sorted."""
    return [row["file"] for row in differences()]


def _committed(name: str) -> str | None:
    return course.committed_text(ROOT / name)


def uncommitted(names: list[str]) -> list[str]:
    """Those of `names` whose content is not the last commit's (new, edited or deleted files;
    outside git, every file, since nothing can be told)."""
    found = []
    every = harness()
    for name in names:
        path = every.get(name)
        now = path.read_text(encoding="utf-8", errors="surrogateescape") if path is not None else None
        if now != _committed(name):
            found.append(name)
    return found


def refresh(force: bool = False) -> list[str]:
    """Rewrite the manifest if it is stale; return what was done, one line each. Refuses (and
    says how to go on) when a changed harness file is not committed, unless `force`."""
    text = manifest_text()
    if MANIFEST.is_file() and MANIFEST.read_text(encoding="utf-8") == text:
        return []
    pending = uncommitted(changed())
    if pending and not force:
        return [f"kept {course.shown(MANIFEST)}: {', '.join(pending)} "
                f"{'differs' if len(pending) == 1 else 'differ'} from the last commit, and a manifest written now "
                f"would hide that edit from the tamper warning. Commit the edit, then run dev sync again "
                f"(or rerun with --force to record it anyway)"]
    files.replace_text(MANIFEST, text)  # atomic: a reader never sees half a manifest
    lines = [f"wrote {course.shown(MANIFEST)}"]
    if pending:
        lines.append(f"  (it records uncommitted edits of {', '.join(pending)}, because of --force)")
    return lines


def warnings() -> list[str]:
    """Lines for `check` to print when the harness is not the shipped one (else none)."""
    rows = differences()
    if not rows:
        return []
    if not MANIFEST.is_file():
        return ["", f"Warning: {course.shown(MANIFEST)} is missing, so these grading files cannot be "
                    f"compared with the ones the course shipped."]
    width = max(len(row["file"]) for row in rows)
    lines = ["", "Warning: these grading files differ from the ones the course shipped "
                 "(SHA-256, first 12 digits), so a pass here may not be a pass with the course's graders:"]
    shown_rows = rows if len(rows) <= 20 else rows[:19]
    for row in shown_rows:
        then = f"shipped {row['shipped'][:12]}" if row["shipped"] else "not shipped"
        now = f"now {row['now'][:12]}" if row["now"] else "now missing"
        lines.append(f"  {row['file']:<{width}}  {then:<20}  {now}")
    if len(shown_rows) < len(rows):
        lines.append(f"  ... and {len(rows) - len(shown_rows)} more (check --json lists every one in graders_changed)")
    lines.append("  See what changed: git diff -- tests/graders labtools modules exercises/hints")
    lines.append("  Restore them:     git checkout -- tests/graders labtools modules exercises/hints")
    lines.append("  (Maintainers: commit a harness change made on purpose, then `python3 -B methods.py dev sync` "
                 "records it.)")
    return lines
