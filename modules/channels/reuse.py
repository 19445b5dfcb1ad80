"""Opt-in stage reuse for lesson 12's many runs: the same pipeline, remembered.

Lesson 12 sends every query through the extended pipeline, then through a variant without
each channel and a variant with each simulated failure: the stages before the change are
the same in every variant, and so are the channels the change does not touch. `reusing`
returns the same pipeline whose stages remember what they gave, so a stage met again with
the very same inputs dict after the very same earlier stages gives its remembered output
instead of running again. Stages are pure, so the run is the one Pipeline.run makes without
it (tests/test_channels.py checks record for record). The plain run
(modules/common/pipeline.py) knows nothing of this: it is a wrapper beside it.

    memory = {}
    run = reusing(CHANNELS, memory).run(inputs)   # runs sharing `memory` share their stages
"""

from __future__ import annotations

from dataclasses import replace

from modules.common.pipeline import Pipeline, Stage

__all__ = ["reusing"]


def reusing(pipeline: Pipeline, memory: dict) -> Pipeline:
    """`pipeline` with every stage's output remembered in `memory` (a dict the caller keeps).

    What a stage sees is fixed by the stages before it (a channel: the stages before the
    channels, see modules/common/pipeline.py) and by the inputs; so an output is remembered
    under (the inputs' id, those earlier stages, the stage)."""
    if not isinstance(memory, dict):
        raise TypeError(f"memory must be a dict, got {type(memory).__name__}")
    stages, seen, before_channels = [], (), ()
    for stage in pipeline.stages:
        sees = before_channels if stage.kind == "channel" else seen
        stages.append(replace(stage, run=_remembered(stage, sees, memory)))
        seen += (stage,)
        if stage.kind != "channel":
            before_channels = seen
    return Pipeline(pipeline.name, tuple(stages))


def _remembered(stage: Stage, earlier: tuple, memory: dict):
    def run(so_far):
        key = (id(so_far.inputs), earlier, stage)
        if key not in memory:   # the entry keeps the inputs alive, so their id is not reused meanwhile
            memory[key] = (so_far.inputs, stage.run(so_far))
        return memory[key][1]
    return run
