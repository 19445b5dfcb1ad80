"""Build the lesson notebooks from diffable sources and execute them.

Source: notebooks/src/NN_NAME.py, cells separated by `# %%` lines; a
`# %% [markdown]` cell is Markdown written as `# `-prefixed comment lines.
Output: notebooks/NN_NAME.ipynb, executed, with volatile metadata removed
(timings, kernel versions) and stable cell ids, so a rebuild of an unchanged
lesson gives the same bytes and a stale notebook shows up as a diff. Charts are
SVG with fixed ids and no date (labtools/charts.py), so that diff covers them too.
A build also rewrites the README's chart (docs/k_sweep.svg) when its bytes change.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from labtools import course

SOURCES = course.ROOT / "notebooks" / "src"
OUTPUT = course.ROOT / "notebooks"
KERNEL_SECONDS = 120


def sources(names: list[str] | None = None) -> list[Path]:
    found = sorted(SOURCES.glob("[0-9][0-9]_*.py"))
    if names:
        wanted = set(names)
        unknown = sorted(wanted - {p.stem for p in found})
        if unknown:
            raise ValueError(f"no notebook source for {', '.join(unknown)} in notebooks/src")
        found = [p for p in found if p.stem in wanted]
    return found


def cells(text: str) -> list[tuple[str, str]]:
    """Split a `# %%` script into (kind, source) pairs."""
    parts: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("# %%"):
            parts.append(("markdown" if "[markdown]" in line else "code", []))
        elif parts:
            parts[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"text before the first '# %%' line: {line!r}")
    out = []
    for kind, lines in parts:
        if kind == "markdown":
            lines = [l[2:] if l.startswith("# ") else l.lstrip("#") for l in lines]
        body = "\n".join(lines).strip("\n")
        if body:
            out.append((kind, body))
    return out


def notebook(path: Path):
    import nbformat
    from nbformat import v4

    nb = v4.new_notebook()
    for index, (kind, body) in enumerate(cells(path.read_text(encoding="utf-8")), start=1):
        make = v4.new_markdown_cell if kind == "markdown" else v4.new_code_cell
        nb.cells.append(make(body, id=f"{path.stem}-{index:02d}"))
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    nbformat.validate(nb)
    return nb


def _clean(nb) -> None:
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    for cell in nb.cells:
        cell.metadata = {}
        merged = []
        for output in cell.get("outputs", []):
            output.pop("transient", None)
            if "metadata" in output:
                output["metadata"] = {}
            # A busy kernel flushes one print in several messages: join them, so the saved
            # notebook does not depend on the machine's load.
            if (merged and output.get("output_type") == "stream" == merged[-1].get("output_type")
                    and output.get("name") == merged[-1].get("name")):
                merged[-1]["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


async def _execute(nb, sockets: str) -> None:
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient

    # Unix sockets in a folder of this run's own, not TCP ports: a port is found free, then
    # bound by the kernel a moment later, and kernels started at once (these, another
    # process's) can take the same one ("Address already in use").
    manager = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=sockets)
    client = NotebookClient(nb, km=manager, timeout=KERNEL_SECONDS, kernel_name="python3", record_timing=False,
                            shutdown_kernel="immediate", resources={"metadata": {"path": str(OUTPUT)}})
    await client.async_execute()


def executed_texts(paths: list[Path]) -> dict[Path, str]:
    """Execute every notebook concurrently; return the exact text each .ipynb should hold."""
    import nbformat

    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    os.environ.setdefault("PYTHONHASHSEED", "0")
    books = [notebook(p) for p in paths]

    async def run_all(folder: str):
        await asyncio.gather(*(_execute(nb, os.path.join(folder, f"k{index}"))
                               for index, nb in enumerate(books)))

    with tempfile.TemporaryDirectory(prefix="lab-kernels-") as folder:
        asyncio.run(run_all(folder))
    texts = {}
    for path, nb in zip(paths, books):
        _clean(nb)
        nbformat.validate(nb)
        texts[OUTPUT / f"{path.stem}.ipynb"] = nbformat.writes(nb, version=4) + "\n"
    return texts


def build(names: list[str] | None = None) -> list[Path]:
    from labtools import charts

    written = []
    for path, text in executed_texts(sources(names)).items():
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written + charts.write_readme_charts(course.ROOT)
