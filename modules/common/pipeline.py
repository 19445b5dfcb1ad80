"""Named, versioned stages, and the run record that keeps what each stage produced.

The parts catalogue has one pipeline. Lesson 07 builds its first half (query contract,
channels, the eligibility gate, rank fusion), lesson 08 adds the evidence checks, the
packet and the decision, lesson 09 the answer and the trace of the whole run; later lessons
add channels, sources and simulated failures. None of them copies a stage: they build a
new Pipeline from an existing one.

    Stage(name, version, layer, run, kind="step", after_halt=False)
        run(so_far) -> output. `so_far` is the Run up to this stage: read the inputs with
        so_far.inputs["query"], an earlier stage's output with so_far.output("contract"),
        every channel's output with so_far.of_kind("channel").
        layer: where lesson 09's walk looks for it (input, source, retrieval, ...).
        kind "channel": a proposer of candidates; the gate and fusion read every channel
        stage, so adding or removing one needs no other change.
        after_halt: runs even after a stage halted the run (the decision does).
    Halt(reason, detail)
        a stage that returns a Halt stops the run: later stages are skipped (listed in
        Run.skipped) unless they run after_halt. A prohibited query halts before retrieval.
    Pipeline(name, stages)
        .run(inputs, observe=None) -> Run; observe(stage, output) is called after each
        stage that ran
        .replace(name, stage), .insert(stage, after=... | before=...), .without(*names),
        .until(name), .extend(*stages, name=...): each returns a new Pipeline
        .versions(): {stage name: version}, the components a fingerprint records
    Run: .output(name), .of_kind(kind), .halt, .halted_by, .skipped, .records, .versions

Channels propose side by side: a channel sees the run as the last stage that is not a
channel left it, never another channel's output. That is a rule of the catalogue's design,
not of speed: each channel is an independent proposer that the gate and fusion combine, so
removing one channel (lesson 12's removal experiments) changes only what that channel
proposed, and no channel can quietly depend on another's hits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Stage", "Halt", "Pipeline", "Run", "StageRecord"]

_MISSING = object()


def _name(value, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{what} must be a non-empty str, got {type(value).__name__} {value!r}")
    return value


@dataclass(frozen=True)
class Halt:
    """What a stage returns to stop the run. reason: a safe code; detail: what the decision will need."""
    reason: str
    detail: Any


@dataclass(frozen=True)
class StageRecord:
    """One stage that ran: its name, version, layer, kind and output."""
    name: str
    version: str
    layer: str
    kind: str
    output: Any


@dataclass(frozen=True)
class Stage:
    """One named, versioned step of a pipeline."""
    name: str
    version: str
    layer: str
    run: Callable
    kind: str = "step"
    after_halt: bool = False

    def __post_init__(self):
        for field, value in (("name", self.name), ("version", self.version), ("layer", self.layer),
                             ("kind", self.kind)):
            _name(value, f"Stage.{field}")
        if not callable(self.run):
            raise TypeError(f"Stage.run must be callable, got {type(self.run).__name__} {self.run!r}")
        if not isinstance(self.after_halt, bool):
            raise TypeError(f"Stage.after_halt must be a bool, got {self.after_halt!r}")


@dataclass(frozen=True)
class Run:
    """What one pipeline run produced: every stage's output, in stage order."""
    pipeline: str
    inputs: dict
    records: tuple = ()
    halted_by: str | None = None
    skipped: tuple = ()

    def output(self, name: str, default=_MISSING):
        """The output of stage `name`; `default` (if given) when it did not run."""
        for record in self.records:
            if record.name == name:
                return record.output
        if default is _MISSING:
            ran = [r.name for r in self.records]
            raise KeyError(f"stage {name!r} has no output in this run (ran: {ran}; skipped: {list(self.skipped)})")
        return default

    def of_kind(self, kind: str) -> tuple:
        """The outputs of every stage of that kind that ran, in stage order."""
        return tuple(record.output for record in self.records if record.kind == kind)

    @property
    def halt(self):
        return None if self.halted_by is None else self.output(self.halted_by)

    @property
    def versions(self) -> dict:
        return {record.name: record.version for record in self.records}


@dataclass(frozen=True)
class Pipeline:
    """An ordered tuple of stages with distinct names."""
    name: str
    stages: tuple

    def __post_init__(self):
        _name(self.name, "Pipeline.name")
        if not isinstance(self.stages, tuple):
            raise TypeError(f"Pipeline.stages must be a tuple of Stage, got {type(self.stages).__name__}")
        seen = set()
        for index, stage in enumerate(self.stages):
            if not isinstance(stage, Stage):
                raise TypeError(f"Pipeline.stages[{index}] must be a Stage, got {type(stage).__name__} {stage!r}")
            if stage.name in seen:
                raise ValueError(f"Pipeline.stages has two stages named {stage.name!r}")
            seen.add(stage.name)

    def names(self) -> tuple:
        return tuple(stage.name for stage in self.stages)

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

    def run(self, inputs: dict, observe=None) -> Run:
        """Run every stage in order; a Halt skips the rest except stages that run after_halt."""
        if not isinstance(inputs, dict):
            raise TypeError(f"inputs must be a dict of name -> value, got {type(inputs).__name__} {inputs!r}")
        run = Run(self.name, inputs)
        before_channels = run   # what a channel sees: the run as the last other stage left it
        for stage in self.stages:
            if run.halted_by is not None and not stage.after_halt:
                run = Run(self.name, inputs, run.records, run.halted_by, run.skipped + (stage.name,))
            else:
                output = stage.run(before_channels if stage.kind == "channel" else run)
                halted_by = stage.name if run.halted_by is None and isinstance(output, Halt) else run.halted_by
                record = StageRecord(stage.name, stage.version, stage.layer, stage.kind, output)
                run = Run(self.name, inputs, run.records + (record,), halted_by, run.skipped)
                if observe is not None:
                    observe(stage, output)
            if stage.kind != "channel":
                before_channels = run
        return run
