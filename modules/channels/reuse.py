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

from modules.common.pipeline import Pipeline, Stage

__all__ = ["reusing"]


def reusing(pipeline: Pipeline, memory: dict) -> Pipeline:
    """`pipeline` with every stage's output remembered in `memory` (a dict the caller keeps).

    What a stage sees is fixed by the inputs and by the stages before it (for a channel, the
    stages before the channels: see modules/common/pipeline.py), so an output is remembered
    under the identity of the inputs dict, of those earlier stages and of the stage itself."""
    if not isinstance(memory, dict):
        raise TypeError(f"memory must be a dict, got {type(memory).__name__}")
    key = ("pipeline", id(pipeline))
    if key not in memory:   # one wrapped pipeline per pipeline (the entry keeps it alive)
        memory[key] = (pipeline, _wrapped(pipeline, memory))
    return memory[key][1]


def _wrapped(pipeline: Pipeline, memory: dict) -> Pipeline:
    stages, seen, before_channels = [], (), ()
    for stage in pipeline.stages:
        sees = before_channels if stage.kind == "channel" else seen
        stages.append(Stage(stage.name, stage.version, stage.layer, _remembered(stage, sees, memory), stage.kind,
                            stage.after_halt))
        seen += (stage,)
        if stage.kind != "channel":
            before_channels = seen
    return Pipeline(pipeline.name, tuple(stages))


def _remembered(stage: Stage, earlier: tuple, memory: dict):
    stages = tuple(id(s) for s in earlier + (stage,))

    def run(so_far):
        key = (id(so_far.inputs), stages)
        if key not in memory:   # the entry keeps the inputs and the stages alive: no id is reused meanwhile
            memory[key] = (so_far.inputs, earlier, stage, stage.run(so_far))
        return memory[key][-1]
    return run
