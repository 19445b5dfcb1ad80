"""Lesson 12's view: the trace record of modules/channels/trace.py as printable blocks, each
table with its legend. Kept apart so that each file reads in one sitting; its blocks read only
the record and the lesson's declared constants. modules/channels/experiments.py arranges them
with the experiments' blocks."""

from __future__ import annotations

from modules.channels.failures import CHANNEL_BUDGET_MS
from modules.catalogue import QUERIES
from modules.common.tables import table_block


def opening_blocks(record: dict) -> list:
    d = record["declared"]
    return [
        {"key": "heading", "heading": "Lesson 12 - channels: every channel can fail; each failure has a "
                                      "fallback"},
        {"key": "opening", "text": (
            "What this lesson shows: an approximate image index evaluated twice (against exact search, then "
            "for relevance), the image channel's real share of queries, each channel removed (predicted, then "
            "measured), ten failures with their fallbacks and eight empty causes, ranking metrics that never "
            "become one figure, and a rebuild anomaly named by its layer.")},
        {"key": "pipeline", "text": (
            "The catalogue pipeline of lessons 07-09, extended, not copied: "
            + " > ".join(p["stage"] for p in record["pipeline"])
            + f". New: image ({d['image_version']} photos, an approximate index) and fallback. Channels answer "
              f"within {CHANNEL_BUDGET_MS} ms of simulated time.")},
    ]


def image_blocks(record: dict) -> list:
    im = record["images"]
    share = im["share"]
    return [
        {"key": "images-heading", "heading": "The image channel"},
        {"key": "images-share", "text": (
            f"Of this lesson's {share['queries']} queries, {share['usable']} carry a usable photo, "
            f"{share['unusable']} an unusable one and {share['none']} none; of the catalogue's own "
            f"{len(QUERIES)} queries, {share['catalogue_with_photo']}. Any benefit of the channel is measured on "
            f"the queries that carry a photo, never claimed for the rest.")},
        {"key": "images-listings", "text": (
            f"{im['indexed']} of {im['listings']} listings have a usable photo. Rejected, never scored: "
            + "; ".join(f"{r['listing']} ({r['reason']})" for r in im["rejected"]) + ".")},
    ]


def failure_blocks(record: dict) -> list:
    f = record["failures"]
    slow = f["slow"]
    return [
        {"key": "failures-heading", "heading": "Ten failure stages, each a replaced stage of this pipeline"},
        {"key": "failures-slow", "text": (
            f"A slow channel never holds the task open when a fallback is allowed. Channels have a "
            f"{f['budget_ms']} ms budget (simulated; nothing sleeps). The lexical channel at {f['slow_ms']} ms: "
            f"with a fallback allowed the task finishes at {slow['allowed']['elapsed_ms']} ms, state "
            f"{slow['allowed']['state']}; when the run permits no fallback it "
            f"waits: {slow['not_allowed']['elapsed_ms']} ms, state {slow['not_allowed']['state']}. Either way the "
            f"trace names the slow channel.")},
    ]
