"""What one graded lesson may use (time per task, memory, prints kept), and the --seconds and
--memory options `check` and `grade` share."""

from __future__ import annotations

from dataclasses import dataclass

TASK_SECONDS = 3.0     # per task, for its tests together (and for importing the file)
MEMORY_MB = 2048       # address space of the process running the learner's code
OUTPUT_CHARS = 2000    # of the learner's prints kept per test
MAX_SOURCE_BYTES = 1 << 20  # a lesson file larger than this is refused by name, unread


@dataclass(frozen=True)
class Limits:
    """What one graded lesson may use: seconds per task, megabytes of memory, characters of prints kept."""

    seconds: float = TASK_SECONDS
    memory_mb: int = MEMORY_MB
    output_chars: int = OUTPUT_CHARS

    def __post_init__(self):
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float)) or not 0.1 <= self.seconds <= 600:
            raise ValueError(f"seconds must be a number from 0.1 to 600, got {self.seconds!r}")
        if isinstance(self.memory_mb, bool) or not isinstance(self.memory_mb, int) or not 64 <= self.memory_mb <= 1 << 20:
            raise ValueError(f"memory_mb must be a whole number from 64 to 1048576, got {self.memory_mb!r}")
        if isinstance(self.output_chars, bool) or not isinstance(self.output_chars, int) or self.output_chars < 0:
            raise ValueError(f"output_chars must be a whole number >= 0, got {self.output_chars!r}")



def _seconds(text: str) -> float:
    import argparse
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0.1 <= value <= 600:
        raise argparse.ArgumentTypeError(f"expected between 0.1 and 600 seconds, got {text!r}")
    return value


def _megabytes(text: str) -> int:
    import argparse
    if not text.isascii() or not text.isdigit() or not 64 <= int(text) <= 1 << 20:
        raise argparse.ArgumentTypeError(f"expected a whole number of megabytes from 64 to 1048576, got {text!r}")
    return int(text)


def add_limit_options(parser) -> None:
    """--seconds and --memory, shared by `check` and `grade`."""
    parser.add_argument("--seconds", type=_seconds, default=TASK_SECONDS, metavar="S",
                        help=f"time limit per task, for its tests together (default {TASK_SECONDS:g})")
    parser.add_argument("--memory", type=_megabytes, default=MEMORY_MB, metavar="MB",
                        help=f"memory limit of the process running the graded code (default {MEMORY_MB})")


def limits_from(parser, args) -> Limits:
    return Limits(seconds=args.seconds, memory_mb=args.memory)
