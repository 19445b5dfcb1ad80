"""`methods.py setup`: compile the lab's own code once, as installing a package would.

Python runs a module from its cached bytecode (`__pycache__/NAME.cpython-3XX.pyc`) when the
cache matches the source, and otherwise compiles the source first. `python3 -B` reads that
cache but never writes it, so in a fresh clone every lesson command compiles its modules
again: about 1,000 lines for lesson 01, 2,000 to 4,000 for the catalogue lessons 07-13,
10 to 40 ms a run. The floor the lessons are measured against does not pay this: the
standard library was compiled when Python was installed, as pip compiles every package it
installs. `setup` does the same for the lab, once:

- only modules/ and labtools/ (the lessons, their mechanisms, the renderer and the
  workflow); never exercises/, solutions/, tests/ or a submission, and grading reads no
  bytecode at all (labtools/grading/);
- checked-hash bytecode: Python uses a cached file only while the hash of the current
  source matches the one it was compiled from, so an edited module is compiled afresh,
  never run stale (only slower, until `setup` runs again);
- Python's own compiler (py_compile) writes each file atomically; the folders are ignored
  by git; and running `setup` again is always safe (after a Python upgrade, say).
"""

from __future__ import annotations

import argparse
import os
import py_compile
import sys

from labtools.registry import ROOT, RUN

FOLDERS = ("modules", "labtools")


def compile_lab(root: str = ROOT) -> tuple[int, list[str]]:
    """Compile every .py file under root/modules and root/labtools into checked-hash bytecode.
    Returns (files compiled, problems); a problem names the file or folder and what went wrong."""
    compiled, problems = 0, []
    for folder in FOLDERS:
        for directory, subfolders, names in os.walk(os.path.join(root, folder)):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in sorted(names):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(directory, name)
                shown = os.path.relpath(path, root)
                try:
                    py_compile.compile(path, doraise=True,
                                       invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
                except py_compile.PyCompileError as error:
                    problems.append(f"{shown}: does not compile ({error.exc_type_name}: {error.exc_value})")
                except OSError as error:
                    problems.append(f"{shown}: cannot write its bytecode ({error.strerror or error})")
                else:
                    compiled += 1
    return compiled, problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="methods.py setup",
        description="Once after cloning (and after changing Python): compile the lab's own modules, "
                    "as installing a package does, so every lesson starts fast. Writes only git-ignored "
                    "__pycache__ folders in modules/ and labtools/.")
    parser.parse_args(argv)
    compiled, problems = compile_lab()
    version = ".".join(str(part) for part in sys.version_info[:2])
    if problems:
        sys.stderr.write("setup could not compile everything (the lessons still run, compiling from source):\n")
        sys.stderr.write("".join(f"  {problem}\n" for problem in problems))
        return 1
    print(f"Compiled {compiled} files of modules/ and labtools/ for Python {version}: lessons now\n"
          f"start from bytecode. After changing Python, run setup again:\n"
          f"    {RUN} setup\n"
          f"(until then, an edited module is simply compiled afresh).")
    return 0


__all__ = ["compile_lab", "main"]
