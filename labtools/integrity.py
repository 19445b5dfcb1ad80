"""Tamper warning: the graders as shipped, by SHA-256, so a learner knows whether
a green `check` is the course's green or their own edited grader's."""

from __future__ import annotations

import hashlib

from labtools import course

GRADERS = course.GRADERS
MANIFEST = course.GRADERS / "SHA256SUMS"


def current() -> dict[str, str]:
    """SHA-256 of every grading file as it is now, by file name."""
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(GRADERS.glob("*.py"))}


def manifest_text() -> str:
    return "".join(f"{digest}  {name}\n" for name, digest in current().items())


def shipped() -> dict[str, str]:
    """The manifest's digests by file name (empty when there is no manifest)."""
    try:
        lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines if line.strip())}


def differences() -> list[dict]:
    """One record per grading file that differs from the manifest: its name and both
    digests (None where the file is absent on that side), sorted by name."""
    now, then = current(), shipped()
    return [{"file": name, "shipped": then.get(name), "now": now.get(name)}
            for name in sorted(set(now) | set(then)) if now.get(name) != then.get(name)]


def changed() -> list[str]:
    """Grader files that differ from the manifest, or are missing from it, sorted."""
    return [row["file"] for row in differences()]


def warnings() -> list[str]:
    """Lines for `check` to print when the graders are not the shipped ones (else none)."""
    rows = differences()
    if not rows:
        return []
    if not MANIFEST.is_file():
        return ["", f"Warning: {course.shown(MANIFEST)} is missing, so these grading files cannot be "
                    f"compared with the ones the course shipped."]
    width = max(len(row["file"]) for row in rows)
    lines = ["", "Warning: these grading files differ from the ones the course shipped "
                 "(SHA-256, first 12 digits), so a pass here may not be a pass with the course's graders:"]
    for row in rows:
        then = f"shipped {row['shipped'][:12]}" if row["shipped"] else "not shipped"
        now = f"now {row['now'][:12]}" if row["now"] else "now missing"
        lines.append(f"  {row['file']:<{width}}  {then:<20}  {now}")
    lines.append("  See what changed: git diff tests/graders   Restore them: git checkout -- tests/graders")
    lines.append("  (Maintainers: after changing a grader on purpose, `python3 -B methods.py dev sync` "
                 "refreshes the list.)")
    return lines
