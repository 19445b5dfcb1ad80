"""Named, versioned stages, and the run record that keeps what each stage produced.

The parts catalogue has one pipeline. Lesson 07 builds its first half (query contract,
channels, the eligibility gate, rank fusion), lesson 08 adds the evidence checks, the
packet and the decision, lesson 09 the answer and the trace of the whole run; later lessons
add channels, sources and simulated failures. None of them copies a stage: they build a
new Pipeline from an existing one.

Every record here is an immutable named tuple (cheap to define on each run of a lesson
command), validated on construction.

    Stage(name, version, layer, run, kind="step", after_halt=False)
        run(so_far) -> output. `so_far` is the Run up to this stage: read the inputs with
        so_far.inputs["query"], an earlier stage's output with so_far.output("contract"),
        every channel's output with so_far.of_kind("channel").
        layer: where lesson 09's walk looks for it (input, source, retrieval, ...).
        kind "channel": a proposer of candidates; the gate and fusion read every channel
        stage, so adding or removing one needs no other change. Channels propose side by
        side: a channel sees the run as the last stage that is not a channel left it, never
        another channel's output, so runs sharing a `reuse` dict share it even when another
        channel was removed.
        after_halt: runs even after a stage halted the run (the decision does).
    Halt(reason, detail)
        a stage that returns a Halt stops the run: later stages are skipped (listed in
        Run.skipped) unless they run after_halt. A prohibited query halts before retrieval.
    Pipeline(name, stages)
        .run(inputs, observe=None, reuse=None) -> Run; observe(stage, output) is called after
        each stage that ran; runs sharing a `reuse` dict share the stages they have in common
        .replace(name, stage), .insert(stage, after=... | before=...), .without(*names),
        .until(name), .extend(*stages, name=...): each returns a new Pipeline
        .versions(): {stage name: version}, the components a fingerprint records
    Run: .output(name), .of_kind(kind), .halt, .halted_by, .skipped, .records, .versions
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["Stage", "Halt", "Pipeline", "Run", "StageRecord"]

_MISSING = object()

StageRecord = namedtuple("StageRecord", "name version layer kind output")
Halt = namedtuple("Halt", "reason detail")   # reason: a safe code; detail: what the decision will need


def _name(value, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{what} must be a non-empty str, got {type(value).__name__} {value!r}")
    return value


class Stage(namedtuple("Stage", "name version layer run kind after_halt", defaults=("step", False))):
    """One named, versioned step of a pipeline (an immutable record, validated on construction)."""

    __slots__ = ()

    def __new__(cls, name, version, layer, run, kind="step", after_halt=False):
        for field, value in (("name", name), ("version", version), ("layer", layer), ("kind", kind)):
            _name(value, f"Stage.{field}")
        if not callable(run):
            raise TypeError(f"Stage.run must be callable, got {type(run).__name__} {run!r}")
        if not isinstance(after_halt, bool):
            raise TypeError(f"Stage.after_halt must be a bool, got {after_halt!r}")
        return super().__new__(cls, name, version, layer, run, kind, after_halt)

    @classmethod
    def _make(cls, iterable):
        return cls(*iterable)


class Run(namedtuple("Run", "pipeline inputs records halted_by skipped positions",
                     defaults=((), None, (), None))):
    """What one pipeline run produced: every stage's output, in stage order. positions:
    {stage name: its index in records}, kept by Pipeline.run so that output() is one lookup
    (stages read earlier outputs hundreds of times a lesson); without it, or when it does not
    match the records (a Run made by hand or _replace'd), the records are searched."""

    __slots__ = ()

    def output(self, name: str, default=_MISSING):
        """The output of stage `name`; `default` (if given) when it did not run."""
        records = self.records
        at = None if self.positions is None else self.positions.get(name)
        if at is None or at >= len(records) or records[at].name != name:
            at = next((n for n, record in enumerate(records) if record.name == name), None)
        if at is not None:
            return records[at].output
        if default is _MISSING:
            ran = [r.name for r in self.records]
            raise KeyError(f"stage {name!r} has no output in this run (ran: {ran}; skipped: {list(self.skipped)})")
        return default

    def of_kind(self, kind: str) -> tuple:
        """The outputs of every stage of that kind that ran, in stage order."""
        return tuple([record.output for record in self.records if record.kind == kind])

    @property
    def halt(self):
        return None if self.halted_by is None else self.output(self.halted_by)

    @property
    def versions(self) -> dict:
        return {record.name: record.version for record in self.records}


class Pipeline(namedtuple("Pipeline", "name stages")):
    """An ordered tuple of stages with distinct names."""

    __slots__ = ()

    def __new__(cls, name, stages):
        _name(name, "Pipeline.name")
        if not isinstance(stages, tuple):
            raise TypeError(f"Pipeline.stages must be a tuple of Stage, got {type(stages).__name__}")
        seen = set()
        for index, stage in enumerate(stages):
            if not isinstance(stage, Stage):
                raise TypeError(f"Pipeline.stages[{index}] must be a Stage, got {type(stage).__name__} {stage!r}")
            if stage.name in seen:
                raise ValueError(f"Pipeline.stages has two stages named {stage.name!r}")
            seen.add(stage.name)
        return super().__new__(cls, name, stages)

    @classmethod
    def _make(cls, iterable):
        return cls(*iterable)

    def names(self) -> tuple:
        return tuple([stage.name for stage in self.stages])

    def stage(self, name: str) -> Stage:
        return self.stages[self._index(name)]

    def _index(self, name: str) -> int:
        names = self.names()
        if name not in names:
            raise ValueError(f"pipeline {self.name!r} has no stage {name!r}; its stages: {list(names)}")
        return names.index(name)

    def versions(self) -> dict:
        return {stage.name: stage.version for stage in self.stages}

    def _with(self, stages, name=None) -> "Pipeline":
        return Pipeline(self.name if name is None else name, tuple(stages))

    def replace(self, name: str, stage: Stage, *, as_name: str | None = None) -> "Pipeline":
        at = self._index(name)
        return self._with(self.stages[:at] + (stage,) + self.stages[at + 1:], as_name)

    def insert(self, stage: Stage, *, after: str | None = None, before: str | None = None,
               as_name: str | None = None) -> "Pipeline":
        if (after is None) == (before is None):
            raise ValueError("insert needs exactly one of after= or before=")
        at = self._index(after) + 1 if after is not None else self._index(before)
        return self._with(self.stages[:at] + (stage,) + self.stages[at:], as_name)

    def without(self, *names: str, as_name: str | None = None) -> "Pipeline":
        for name in names:
            self._index(name)
        return self._with((s for s in self.stages if s.name not in names), as_name)

    def until(self, name: str, *, as_name: str | None = None) -> "Pipeline":
        return self._with(self.stages[:self._index(name) + 1], as_name)

    def extend(self, *stages: Stage, name: str | None = None) -> "Pipeline":
        return self._with(self.stages + stages, name)

    def run(self, inputs: dict, observe=None, reuse: dict | None = None) -> Run:
        """Run every stage in order; a Halt skips the rest except stages that run after_halt.

        reuse: a dict shared by runs that may share work (one query through many variants of a
        pipeline). A stage met again with the very same inputs dict after the very same earlier
        outputs (the same objects) gives what it gave instead of running again: stages are pure,
        so the run is the one the pipeline would make. The dict is a tree of run prefixes, each
        node (output, records, skipped, halted_by, parent, positions) keyed by (id of its
        parent, stage); every node keeps its parent (the root its inputs) alive, so no id is
        reused meanwhile. A channel's output is also kept by the node it saw (see Stage), for
        the runs that reach that node by another path of channels."""
        if not isinstance(inputs, dict):
            raise TypeError(f"inputs must be a dict of name -> value, got {type(inputs).__name__} {inputs!r}")
        tree = {} if reuse is None else reuse   # a run of its own still walks a (fresh) tree
        node = tree.setdefault(("inputs", id(inputs)), (None, (), (), None, inputs, {}))
        before_channels = node   # what a channel sees: the node the last other stage made
        for stage in self.stages:
            key = (id(node), stage)
            step = tree.get(key)
            if step is None:
                _output, records, skipped, halted_by, _parent, positions = node
                if halted_by is not None and not stage.after_halt:
                    step = (_MISSING, records, skipped + (stage.name,), halted_by, node, positions)
                else:
                    if stage.kind == "channel":
                        output = self._propose(stage, before_channels, inputs, tree)
                    else:
                        output = stage.run(Run(self.name, inputs, records, halted_by, skipped, positions))
                    record = StageRecord(stage.name, stage.version, stage.layer, stage.kind, output)
                    stopped = stage.name if halted_by is None and isinstance(output, Halt) else halted_by
                    step = (output, records + (record,), skipped, stopped, node,
                            {**positions, stage.name: len(records)})
                tree[key] = step
            node = step
            if stage.kind != "channel":
                before_channels = node
            if observe is not None and step[0] is not _MISSING:
                observe(stage, step[0])
        _output, records, skipped, halted_by, _parent, positions = node
        return Run(self.name, inputs, records, halted_by, skipped, positions)

    def _propose(self, stage: Stage, before_channels: tuple, inputs: dict, tree: dict):
        """A channel's output. It sees the run as it stood before the channels, so runs that
        share that node share the output, whichever other channels ran or were removed."""
        key = ("channel", id(before_channels), stage)
        if key not in tree:   # the entry keeps the node alive, so its id is not reused
            _output, records, skipped, halted_by, _parent, positions = before_channels
            tree[key] = (before_channels, stage.run(Run(self.name, inputs, records, halted_by, skipped, positions)))
        return tree[key][1]
