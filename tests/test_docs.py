"""The README and docs/ make promises; these tests hold them without reading their wording.

They check what a reader would act on: every link leads to a file, every lesson the README
lists is the course's lesson of that number, and every command the README shows is one the
lab has. The figures each lesson teaches are checked against its own trace by the lesson's
tests, never against prose.
"""

from __future__ import annotations

import re

import pytest

from helpers import ROOT, methods

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(page):
    text = page.read_text(encoding="utf-8")
    targets = [t for t in LINK.findall(text) if "://" not in t]
    missing = sorted({t for t in targets if not (page.parent / t).exists()})
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_the_readme_lists_the_course_lessons_in_order():
    from labtools import manifest
    rows = re.findall(r"^\| (\d\d) \| `([a-z]+)` \|", (ROOT / "README.md").read_text(encoding="utf-8"), re.M)
    course = [(f"{n:02d}", entry["name"]) for n, entry in enumerate(manifest.lessons(), 1)]
    assert rows == course


def shown_commands() -> list[list[str]]:
    """The `python3 -B methods.py ...` lines of the README's shell blocks, as argument lists."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    found = []
    for block in blocks:
        for line in block.splitlines():
            command = line.split("#", 1)[0].split()
            if command[:3] == ["python3", "-B", "methods.py"]:
                found.append(command[3:])
    return found


def test_every_command_the_readme_shows_exists():
    listing = methods().stdout.decode()
    commands = shown_commands()
    assert len(commands) >= 6
    for arguments in commands:
        word = arguments[0]
        assert re.search(rf"^\s+(\d\d )?{word}\s", listing, re.M), f"the README shows `{word}`, which is not a command"
        if word == "dev":   # named in `dev --help` (never run: `dev test` would build .venv)
            assert re.search(rf"\b{arguments[1]}\b", methods("dev", "--help").stdout.decode()), arguments


@pytest.mark.parametrize("arguments", [["context", "--plain"], ["audit", "--plain"]], ids=" ".join)
def test_the_readme_examples_that_only_print_run(arguments):
    assert methods(*arguments).stdout.strip()
