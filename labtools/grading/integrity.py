"""Tamper warning: the grading files as shipped, by SHA-256, so a learner (or an instructor)
knows whether a green `check` is the course's green or an edited grader's.

The grading files are every file whose edit could change a grade (snapshot.snapshot_files):
the graders (tests/graders/*.py), this package (labtools/grading/*.py: the harness, the
worker, and what turns results into records and gradebooks), every file under modules/ (the
lab modules the graders import and compute expected values with, in whatever folders they
live), the hints the graders read (exercises/hints/*.md) and course.json.

What they are compared against is derived, never kept by hand (a lesson edit touches no
hash file):

- a copy built for others (a student release, the Gradescope zip) carries
  labtools/grading/SHA256SUMS, written by write_manifest() from the very bytes it ships:
  any edit of a grading file shows, committed or not;
- a git checkout (a clone, a maintainer's branch) compares its working tree with the commit
  it has checked out: an uncommitted edit shows; a committed one is in the history;
- anywhere else (a copy with neither) nothing can be compared, and `check` says so.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from labtools import course, files
from labtools.grading.snapshot import is_grading_input, snapshot_files

ROOT = course.ROOT
GRADERS = course.GRADERS
MANIFEST_NAME = "labtools/grading/SHA256SUMS"  # in a built copy only; never in the repository
MANIFEST = ROOT / MANIFEST_NAME
# Where the grading files live, for git (a pathspec each).
PLACES = ("modules", "labtools/__init__.py", "labtools/grading", "tests/graders", "exercises/hints", "course.json")


def grade_inputs() -> dict[str, object]:
    """What a grade reads, by path in the project: every file under modules/ (bytecode caches
    aside), this package, the graders, the hints the graders read and course.json."""
    return snapshot_files(ROOT, graders=GRADERS)


def harness() -> dict[str, object]:
    """Every harness file by the name the manifest gives it (its path in the project)."""
    return grade_inputs()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def current() -> dict[str, str]:
    """SHA-256 of every harness file as it is now, by name."""
    return {name: _digest(path.read_bytes()) for name, path in sorted(harness().items())}


def manifest_text(digests: dict[str, str] | None = None) -> str:
    """`digests` (default: the harness as it is now) in sha256sum's format, sorted by name."""
    digests = current() if digests is None else digests
    return "".join(f"{digest}  {name}\n" for name, digest in sorted(digests.items()))


def manifest_sha256() -> str:
    """One digest for the whole harness as it is now (the gradebook records it)."""
    return _digest(manifest_text().encode("utf-8"))


# ------------------------------------------------------------------ a built copy

def manifest_for(shipped: dict[str, bytes]) -> str:
    """The manifest of a built copy: the SHA-256 of every grading file among `shipped`
    ({path in the copy: its bytes as shipped}); other files are left out."""
    return manifest_text({name: _digest(data) for name, data in shipped.items() if is_grading_input(name)})


def write_manifest(folder: Path, paths) -> Path:
    """Write FOLDER/labtools/grading/SHA256SUMS for a copy of the lab built into `folder`
    (a student release): `paths` are the files it ships, relative to `folder`; the grading
    files among them are hashed as they are there now. `check` and `grade` in that copy then
    compare against it. Returns the manifest's path."""
    folder = Path(folder)
    shipped = {Path(name).as_posix(): (folder / name).read_bytes() for name in paths
               if is_grading_input(Path(name).as_posix())}
    target = folder / MANIFEST_NAME
    files.replace_text(target, manifest_for(shipped))  # atomic: a reader never sees half a manifest
    return target


def _written() -> dict[str, str]:
    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines if "  " in line)}


# ------------------------------------------------------------------ a git checkout

def _git(*args: str) -> subprocess.CompletedProcess | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done if done.returncode == 0 else None


def _is_checkout() -> bool:
    """Whether ROOT is the top of a git work tree with a commit checked out."""
    top = _git("rev-parse", "--show-toplevel")
    if top is None or _git("rev-parse", "--verify", "--quiet", "HEAD^{commit}") is None:
        return False
    try:
        return Path(top.stdout.decode().strip()).resolve() == Path(ROOT).resolve()
    except (OSError, UnicodeDecodeError):
        return False


def _committed(now: dict[str, str]) -> dict[str, str] | None:
    """The grading files as the checked-out commit has them, by SHA-256 (None when git cannot
    tell): the files git sees unchanged keep today's digest, the changed ones are read from
    the commit."""
    listed = _git("ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *PLACES)
    changed = _git("diff", "--name-only", "-z", "--no-renames", "HEAD", "--", *PLACES)
    if listed is None or changed is None:
        return None
    names = {name for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if is_grading_input(name)}
    edited = {name for name in changed.stdout.decode("utf-8", "surrogateescape").split("\0") if name in names}
    digests = {name: now[name] for name in names - edited if name in now}
    for name in sorted(edited | (names - set(now))):
        blob = _git("show", f"HEAD:{name}")
        if blob is not None:
            digests[name] = _digest(blob.stdout)
    return digests


# ------------------------------------------------------------------ the comparison

def reference() -> str:
    """What the grading files are compared against here: "built" (this copy's manifest),
    "git" (the checked-out commit) or "none"."""
    if MANIFEST.is_file():
        return "built"
    return "git" if _is_checkout() else "none"


def shipped() -> dict[str, str] | None:
    """The grading files as shipped, by name and SHA-256; None where nothing can tell."""
    kind = reference()
    if kind == "built":
        try:
            return _written()
        except (OSError, UnicodeDecodeError):
            return None
    if kind == "git":
        return _committed(current())
    return None


def differences() -> list[dict]:
    """One record per harness file that differs from the shipped one: its name and both
    digests (None where the file is absent on that side), sorted by name. Empty where
    nothing can be compared (see warnings())."""
    then = shipped()
    now = current()
    if then is None:
        return []
    return [{"file": name, "shipped": then.get(name), "now": now.get(name)}
            for name in sorted(set(now) | set(then)) if now.get(name) != then.get(name)]


def changed() -> list[str]:
    """Harness files that differ from the shipped ones, or are not among them, sorted."""
    return [row["file"] for row in differences()]


def warnings() -> list[str]:
    """Lines for `check` to print when the harness is not the shipped one (else none)."""
    kind = reference()
    if kind == "none":
        return ["", f"Note: this copy of the lab is neither a git checkout nor a built release (no "
                    f"{MANIFEST_NAME}), so its grading files cannot be compared with the course's."]
    rows = differences()
    if not rows:
        return []
    width = max(len(row["file"]) for row in rows)
    against = "the last commit" if kind == "git" else "the ones the course shipped"
    lines = ["", f"Warning: these grading files differ from {against} "
                 "(SHA-256, first 12 digits), so a pass here may not be a pass with the course's graders:"]
    shown_rows = rows if len(rows) <= 20 else rows[:19]
    for row in shown_rows:
        then = f"shipped {row['shipped'][:12]}" if row["shipped"] else "not shipped"
        now = f"now {row['now'][:12]}" if row["now"] else "now missing"
        lines.append(f"  {row['file']:<{width}}  {then:<20}  {now}")
    if len(shown_rows) < len(rows):
        lines.append(f"  ... and {len(rows) - len(shown_rows)} more (check --json lists every one in graders_changed)")
    if kind == "git":
        lines.append("  See what changed: git diff -- tests/graders labtools modules exercises/hints")
        lines.append("  Restore them:     git checkout -- tests/graders labtools modules exercises/hints")
    else:
        lines.append("  Restore them from the course's release (these files are not yours to edit).")
    return lines
