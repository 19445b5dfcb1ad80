"""Tamper warning: the graders as shipped, by SHA-256, so a learner knows whether
a green `check` is the course's green or their own edited grader's."""

from __future__ import annotations

import hashlib

from labtools import course

MANIFEST = course.GRADERS / "SHA256SUMS"


def current() -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(course.GRADERS.glob("*.py"))}


def manifest_text() -> str:
    return "".join(f"{digest}  {name}\n" for name, digest in current().items())


def shipped() -> dict[str, str]:
    try:
        lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines if line.strip())}


def changed() -> list[str]:
    """Grader files that differ from the manifest, or are missing from it, sorted."""
    now, then = current(), shipped()
    return sorted(name for name in set(now) | set(then) if now.get(name) != then.get(name))


def warnings() -> list[str]:
    names = changed()
    if not names:
        return []
    return ["", "Warning: these grading files differ from the ones the course shipped: " + ", ".join(names),
            "  A pass here may not be a pass with the course's graders. "
            "(git checkout tests/graders restores them.)"]
