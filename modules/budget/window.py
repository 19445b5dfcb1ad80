"""Lesson 02's window arithmetic, kept small so that lesson 10 can check its requests
against a window without compiling the rest of lesson 02 (modules/budget/mechanism.py re-exports
all of it).

window = base_input + history + tools + evidence + output_reserve + margin, every term in
one declared unit. The evidence budget is what remains; a request fits when its whole
final input, recounted after assembly, plus the reserved output is at most the window.
"""

from __future__ import annotations

from modules.common.checks import whole_number

__all__ = ["evidence_budget", "request_fits", "WORKED", "SYSTEM_PROMPT"]


def evidence_budget(window: int, base_input: int, history: int, tools: int, output_reserve: int,
                    margin: int) -> int:
    """Solve window = base_input + history + tools + evidence + output_reserve + margin for evidence.

    All terms share one declared unit. base_input: system text, question and message
    wrapping; history: earlier turns; tools: tool schemas; output_reserve: room kept for
    the answer; margin: slack for counting error. History and tools are terms even when
    they are 0. A negative remainder is an error, never a 0.
    """
    terms = dict(base_input=base_input, history=history, tools=tools, output_reserve=output_reserve,
                 margin=margin)
    remainder = whole_number(window, "window", minimum=1)
    for name, value in terms.items():
        remainder -= whole_number(value, name)
    if remainder < 0:
        shown = " - ".join(f"{name} {value}" for name, value in terms.items())
        raise ValueError(f"evidence budget is negative: window {window} - {shown} = {remainder}; "
                         f"the fixed terms already exceed the window, so shrink one or use a larger window")
    return remainder


def request_fits(final_input: int, output_reserve: int, window: int) -> bool:
    """A request fits when its whole final input plus the reserved output is at most the window."""
    return (whole_number(final_input, "final_input") + whole_number(output_reserve, "output_reserve")
            <= whole_number(window, "window", minimum=1))


# The worked example, in lab tokens. 1,024 and 128 are the lessons' test settings, not any
# model's capacity: a 1,024 window, 124 of base input, 128 reserved for the answer.
WORKED = dict(window=1024, base_input=124, history=0, tools=0, output_reserve=128, margin=0)

# The system text the lab's requests start with (lesson 02's sweep, lesson 10's requests).
SYSTEM_PROMPT = ("Answer from the evidence below only. Quote the passage ids you use. "
                 "If the evidence does not answer the question, say so.")
