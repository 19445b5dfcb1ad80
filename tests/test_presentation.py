"""Readable in class: plain output within 88 columns, tables that say what their columns
mean, rich output that never crops what a lesson teaches, notebooks with short text lines
and charts whose bytes do not change between builds."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest

from helpers import ROOT, built_lessons, methods

WIDTH = 88
LESSONS = built_lessons()


def _widest(text: str) -> tuple[int, str]:
    lines = text.splitlines() or [""]
    line = max(lines, key=len)
    return len(line), line


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_fits_88_columns(lesson):
    width, line = _widest(methods(lesson, "--plain").stdout.decode("utf-8"))
    assert width <= WIDTH, f"methods.py {lesson} --plain prints a line of {width} columns:\n{line}"


WORKFLOW_CALLS = [(), ("help",), ("check", "context"), ("check",), ("hint", "context", "--level", "3"),
                  ("check", "--target", "solutions")]


@pytest.mark.parametrize("args", WORKFLOW_CALLS, ids=" ".join)
def test_a_workflow_command_fits_88_columns(args, tmp_path):
    done = methods(*args, check=False, env={"NO_COLOR": "1", "COLUMNS": "88"})
    for stream in (done.stdout, done.stderr):
        width, line = _widest(stream.decode("utf-8"))
        assert width <= WIDTH, f"methods.py {' '.join(args)} prints a line of {width} columns:\n{line}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_table_has_a_legend(lesson):
    from labtools.registry import lesson_module
    module = lesson_module(lesson)
    for block in module.view(module.trace()):
        spec = block.get("table") or block.get("chart")
        if spec is not None:
            assert spec.get("legend"), f"{lesson}: table {spec.get('title')!r} has no legend saying what " \
                                       f"its columns mean"


def test_a_table_too_wide_is_stacked_row_by_row():
    from labtools.render import plain_table
    long = "a passage " * 20
    text = plain_table({"title": "T", "legend": "id: the passage; text: its words", "columns": ["id", "text"],
                        "rows": [["p1", long.strip()], ["p2", "short"]]})
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert "  id: p1" in text and "text: short" in text and "row 2 of 2" in text
    # every word of the long cell survives the wrap, in order
    body = " ".join(line.split(": ", 1)[-1].strip() for line in text.splitlines()
                    if line.startswith(("text:", "      ")))
    assert long.split() == body.split()[:len(long.split())]


def test_a_narrow_table_is_not_stacked():
    from labtools.render import plain_table
    text = plain_table({"title": "T", "columns": ["id", "n"], "rows": [["p1", 3]]})
    assert text.splitlines() == ["T", "id  n", "--  -", "p1  3"]


def test_blocks_are_picked_by_key():
    from labtools.render import block, blocks_between
    view = [{"key": "a", "text": "x"}, {"key": "b", "text": "y"}, {"text": "z"}, {"key": "c", "text": "w"}]
    assert block(view, "b")["text"] == "y"
    assert [b["text"] for b in blocks_between(view, "b", "c")] == ["y", "z", "w"]
    with pytest.raises(KeyError, match="'nope'"):
        block(view, "nope")


def test_notebook_tables_are_escaped_html():
    from labtools.display import blocks_html
    out = blocks_html({"table": {"title": "<b>t</b>", "legend": "a & b", "columns": ["id", "n"],
                                 "rows": [["</table><script>", 3]]}})
    assert "<script>" not in out and "&lt;/table&gt;&lt;script&gt;" in out and "a &amp; b" in out
    assert max(len(line) for line in out.splitlines()) < 100


def _outputs(nb: dict):
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            yield output


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_text_output_lines_are_short(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for output in _outputs(nb):
        texts = [output.get("text", "")]
        texts.append(output.get("data", {}).get("text/plain", ""))
        for text in texts:
            text = "".join(text) if isinstance(text, list) else text
            for line in text.splitlines():
                assert len(line) <= 100, f"{path.name}: an output line of {len(line)} characters:\n{line}"


def test_at_least_four_notebooks_carry_charts():
    with_charts = []
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        if any("image/svg+xml" in o.get("data", {}) for o in _outputs(nb)):
            with_charts.append(path.stem)
    assert len(with_charts) >= 4, f"notebooks with charts: {with_charts}"
    wanted = {"02_budget", "03_dedupe", "05_order", "07_hybrid"}  # the four the issue names
    assert wanted <= set(with_charts), f"no chart in {sorted(wanted - set(with_charts))}"


def test_a_chart_has_the_same_bytes_under_any_hash_seed():
    pytest.importorskip("matplotlib")
    import subprocess
    probe = ("import sys; sys.path.insert(0, '.')\nfrom labtools import charts\n"
             "fig, ax = charts.figure()\nax.plot([1, 2, 3], [0.5, 0.7, 0.6], marker='o', label='recall')\n"
             "ax.legend(); ax.set_title('k sweep')\nsys.stdout.write(charts.svg(fig))\n")
    outs = {subprocess.run([sys.executable, "-B", "-c", probe], cwd=ROOT, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONHASHSEED=seed), check=True).stdout for seed in ("0", "7")}
    assert len(outs) == 1
    svg = outs.pop()
    assert "<svg" in svg and "dc:date" not in svg.lower() and "Matplotlib v" not in svg


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("lesson", [name for name in ("eligibility", "grounding", "hybrid") if name in LESSONS])
def test_rich_at_80_columns_never_crops_a_reason_code_or_id(lesson):
    pytest.importorskip("rich")
    from test_lessons import _on_a_terminal
    plain = methods(lesson, "--plain").stdout.decode("utf-8")
    codes = sorted(set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b|\bPW-[LQ]\d{3}\b", plain)))
    assert codes, f"{lesson} shows no reason codes or ids to check"
    pretty = _on_a_terminal(lesson, env={"COLUMNS": "80"})
    pretty = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", pretty)
    assert "\u2026" not in pretty, f"{lesson}: rich cropped a value with an ellipsis at 80 columns"
    missing = [code for code in codes if code not in pretty]
    assert not missing, f"{lesson}: at 80 columns these appear cut or missing: {missing[:8]}"


# ------------------------------------------------------------------ notebooks: HTML tables

PLAIN_TABLE_RULE = re.compile(r"^ *-+(  +-+)+ *$|^-- row \d+ of \d+ -+$")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_tables_are_html_not_printed_text(path):
    # render.plain_table draws a rule of dashes under its header, or stacks rows under
    # "-- row N of M"; a notebook shows its tables with labtools.display.show instead.
    nb = json.loads(path.read_text(encoding="utf-8"))
    for output in _outputs(nb):
        text = output.get("text", "")
        text = "".join(text) if isinstance(text, list) else text
        ruled = [line for line in text.splitlines() if PLAIN_TABLE_RULE.match(line)]
        assert not ruled, f"{path.name} prints a plain-text table (rule {ruled[0]!r}); show it with " \
                          f"labtools.display.show"


def test_html_aligns_numbers_formatted_as_text_and_keeps_bars_monospaced():
    from labtools.display import blocks_html
    out = blocks_html({"table": {"title": "T", "columns": ["k", "average", "share", "bar", "id"],
                                 "rows": [[1, "56.2", "0/10", "###..|...", "q01"],
                                          [2, "1,076.0", "3/10", "#####|!!.", "q02"]]}})
    cells = [line for line in out.splitlines() if line.startswith("<td")]
    assert cells[:5] == ['<td style="text-align:right">1</td>', '<td style="text-align:right">56.2</td>',
                         '<td style="text-align:right">0/10</td>', "<td><code>###..|...</code></td>",
                         "<td>q01</td>"]
    assert '<td style="text-align:right">1,076.0</td>' in cells
    with pytest.raises(ValueError, match="a row has 1 cells for 5 columns"):
        blocks_html({"table": {"title": "T", "columns": ["k", "a", "b", "c", "d"], "rows": [[1]]}})


def test_html_text_blocks_keep_their_lists_and_quotes():
    from labtools.display import blocks_html
    out = blocks_html({"text": "Steps:\n1. first <one>\n2. second\n- a & b\n  \"quoted\"\nlast"})
    assert out.splitlines() == ["<p>Steps:</p>", '<ol start="1">', "<li>first &lt;one&gt;</li>",
                                "<li>second</li>", "</ol>", "<ul>", "<li>a &amp; b</li>", "</ul>",
                                "<blockquote>&quot;quoted&quot;</blockquote>", "<p>last</p>"]


def test_show_prints_plain_text_outside_a_notebook(capsys):
    from labtools import display
    from labtools.render import render_plain
    spec = {"key": "t", "table": {"title": "T", "legend": "n: a count", "columns": ["id", "n"],
                                  "rows": [["p1", 3]]}}
    display.show(spec)
    assert capsys.readouterr().out == render_plain([spec])


# ------------------------------------------------------------------ notebooks: charts

def _chart_outputs(nb: dict):
    """(svg output, the output after it) for every chart in a notebook."""
    for cell in nb["cells"]:
        outputs = cell.get("outputs", [])
        for index, output in enumerate(outputs):
            if "image/svg+xml" in output.get("data", {}):
                yield output, outputs[index + 1] if index + 1 < len(outputs) else None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_chart_has_a_caption(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for chart, after in _chart_outputs(nb):
        caption = "".join((after or {}).get("data", {}).get("text/markdown", ""))
        assert caption.startswith("*") and len(caption.split()) >= 8, \
            f"{path.name}: a chart without a caption saying what to see (got {caption!r})"
        svg = "".join(chart["data"]["image/svg+xml"])
        assert "dc:date" not in svg.lower() and "Matplotlib v" not in svg, f"{path.name}: a chart with a date"


def _lines(ax) -> dict:
    return {line.get_label(): [float(y) for y in line.get_ydata()] for line in ax.lines
            if not line.get_label().startswith("_")}


def _bars(ax) -> dict:
    return {container.get_label(): [round(bar.get_height(), 6) for bar in container]
            for container in ax.containers}


def test_lesson_05_charts_draw_the_trace_record():
    pytest.importorskip("matplotlib")
    from labtools import charts
    from modules.order import trace as order_trace
    record = order_trace.trace()   # the k sweep and the layouts are in the default trace
    fig = charts.k_sweep(record)
    drawn = _lines(fig.axes[0])
    for field, label in charts.K_SWEEP_SERIES:
        assert drawn[label] == [row[field] for row in record["k_sweep"]], field
    assert [float(x) for x in fig.axes[0].lines[0].get_xdata()] == [row["k"] for row in record["k_sweep"]]
    charts.svg(fig)  # closes it

    fig = charts.layouts(record)
    drawn, rows, second = _lines(fig.axes[0]), record["layouts"], record["second_run"]
    for layout in ("head", "middle", "tail"):
        assert drawn[f"{layout} (seed {rows[0]['seed']})"] == [row[layout] for row in rows]
        assert drawn[f"{layout} (seed {second['seed']})"] == [second[layout]]
    charts.svg(fig)

    fig = charts.share_of_change(record)
    drawn = _bars(fig.axes[0])
    for field, label, _colour in charts.CHANGE_SERIES:
        assert drawn[label] == [round(row[field], 6) for row in record["layouts"]], field
    charts.svg(fig)


def test_lesson_02_chart_draws_the_trace_record():
    pytest.importorskip("matplotlib")
    from labtools import charts
    from modules.budget import mechanism as budget
    from modules.budget import trace as budget_trace
    record = budget_trace.trace()
    fig = charts.prompt_vs_window(record)
    drawn, rows = _lines(fig.axes[0]), record["sweep"]["rows"]
    assert drawn["largest prompt of the requests"] == [row["largest"] for row in rows]
    assert drawn["average prompt"] == [row["average"] for row in rows]
    window = [line for line in fig.axes[0].lines if line.get_label().startswith("_")]
    assert [float(y) for y in window[0].get_ydata()] == [record["sweep"]["window"]] * 2
    charts.svg(fig)


def test_lesson_03_chart_draws_the_trace_record():
    pytest.importorskip("matplotlib")
    from labtools import charts
    from modules.dedupe import mechanism as dedupe
    from modules.dedupe import trace as dedupe_trace
    crowd = dedupe_trace.trace()["crowding"]
    chars = {c["id"]: c["chars"] for c in crowd["candidates"]}
    fig = charts.crowding({"crowding": crowd})
    ax = fig.axes[0]
    # one bar per chunk of each packet, as wide as its characters, in packet order
    expected = [(y, chars[cid]) for y, row in enumerate(crowd["rows"]) for cid in row["ids"]]
    assert [(round(bar.get_y() + bar.get_height() / 2), bar.get_width()) for bar in ax.patches] == expected
    labels = [text.get_text() for text in ax.texts]
    assert [cid for row in crowd["rows"] for cid in row["ids"]] == [t for t in labels if t in chars]
    assert [t.get_text() for t in ax.get_yticklabels()] == [row["label"] for row in crowd["rows"]]
    charts.svg(fig)


def test_lesson_07_chart_draws_the_trace_record():
    pytest.importorskip("matplotlib")
    from labtools import charts
    from modules.hybrid import trace as hybrid_lesson
    record = hybrid_lesson.trace()
    study = record["raw_versus_rank"]
    fig = charts.rank_changes(record)
    summed, fused = fig.axes
    pairs = [tuple(float(y) for y in line.get_ydata()) for line in summed.lines]
    assert pairs == [(row["position_plain"], row["position_scaled"]) for row in study["rows"]]
    assert sum(before != after for before, after in pairs) == study["moved_by_rescaling"]
    assert [tuple(float(y) for y in line.get_ydata()) for line in fused.lines] == \
        [(row["position_rrf"], row["position_rrf"]) for row in study["rows"]]
    charts.svg(fig)
    with pytest.raises(ValueError, match="changed the RRF order"):
        charts.rank_changes(dict(record, raw_versus_rank=dict(study, rrf_changed_by_rescaling=True)))


def test_audit_chart_draws_the_trace_record():
    pytest.importorskip("matplotlib")
    from labtools import charts
    from modules.audit.trace import trace
    record = trace()
    fig = charts.recall_coverage(record)
    drawn = list(_bars(fig.axes[0]).values())
    assert drawn == [[row["recall_at_k"] for row in record["budgets"]],
                     [row["coverage"] for row in record["budgets"]]]
    charts.svg(fig)


def test_readme_chart_is_current():
    pytest.importorskip("matplotlib")
    from labtools import charts
    for relative, text in charts.readme_charts().items():
        path = ROOT / relative
        assert path.is_file(), f"{relative} is missing: run `python3 -B methods.py dev notebooks`"
        assert path.read_text(encoding="utf-8") == text, \
            f"{relative} is stale: run `python3 -B methods.py dev notebooks` and commit it"


def test_a_chart_outside_a_notebook_prints_its_caption(capsys):
    pytest.importorskip("matplotlib")
    from labtools import charts
    fig, ax = charts.figure()
    ax.plot([1, 2], [0.5, 0.6])
    charts.show(fig, "what to see")
    assert capsys.readouterr().out == "[chart] what to see\n"
