"""Lesson 12's rows: how one run of the extended pipeline is shown, in the findings
(trace.py) and in the experiments (experiments.py) alike. Every listing whose permission
is not "allowed" is named by its opaque ref."""

from __future__ import annotations

from modules.catalogue import RESTRICTED_IDS, opaque_ref
from modules.catalogue.images import image_problem, query_image
from modules.common.runs import catalogue_row


def query_row(run) -> dict:
    """One catalogue query as this lesson shows it: the keys every catalogue lesson shows (the
    same run, so the same values), and the photo and the image channel's status."""
    image = run.output("image", None)
    return dict(catalogue_row(run), photo=photo_of(run.output("contract").query_id), image=image and image.status)


def name_of(listing_id: str) -> str:
    """The listing's id, or its opaque ref when its permission is not "allowed"."""
    return opaque_ref(listing_id) if listing_id in RESTRICTED_IDS else listing_id


def names_of(ids) -> list:
    return [name_of(i) for i in ids]


def photo_of(query_id: str) -> str:
    """"usable", "unusable" or "none": the photo the query carries."""
    image = query_image(query_id)
    if image is None:
        return "none"
    return "usable" if image_problem(*image) is None else "unusable"


def ranking_of(run) -> list:
    fusion = run.output("fusion", None)
    return [f.listing_id for f in fusion.candidates] if fusion else []


def packet_of(run) -> list:
    packet = run.output("packet", None)
    return list(packet.listings) if packet else []


def state_of(run) -> str:
    return run.output("fallback").state
