"""Synthetic image features for the parts catalogue (lesson 12's image channel, and any later
lesson that searches photos). Nothing here is a real photo or a real encoder: each "image" is
four hand-written numbers with a version label, as modules/catalogue/fixture.py writes its
text vectors.

Public names (stable: later lessons import them; add, never rename)

    IMAGE_VERSION        the encoder version the image index expects ("pw-img-1")
    IMAGE_DIMENSION      how many numbers an image feature of that version holds (4)
    LISTING_IMAGES       ((listing id, values, version), ...): the listings that have a photo
    IMAGE_QUERIES        tuple of catalogue Query objects, ids CH-Q001 ... CH-Q006: shopper
                         queries of this lesson, most of them sent with a photo
    QUERY_IMAGES         {query id: (values, version)}: the photo a query carries; the
                         catalogue's own queries PW-Q001 ... PW-Q009 carry none
    listing_image(id)    (values, version) of a listing's photo, or None when it has none
    query_image(id)      (values, version) of a query's photo, or None
    image_problem(values, version)   None when a feature can be searched, else why not
    synthetic_images(n, seed)        n seeded features around the family prototypes, for
                         measuring an index at sizes the fixture does not have

What the fixture contains on purpose
    PW-L011 (the only O-ring) has no photo; PW-L013's photo is blank (a zero vector);
    PW-L014's was encoded by the retired encoder "pw-img-0": none of the three can be
    found by image, and each says why.
    PW-L002 relists PW-L001 with a photo taken at another angle: the same part, a
    different vector, and (at the index's settings) a different inverted list.
    PW-L012 is the only gasket: a long-tail family with one listing. CH-Q002 sends a
    photo of a gasket and no words a lexical channel could use ("replacement for this
    part"), so the image is its only route to that listing.
    CH-Q004's photo is blank: the query carries an image it cannot use.
"""

from __future__ import annotations

from modules.catalogue import VECTOR_VERSION, Query
from modules.common.checks import short, whole_number
from modules.common.vectors import vector_problem

__all__ = ["IMAGE_VERSION", "IMAGE_DIMENSION", "LISTING_IMAGES", "IMAGE_QUERIES", "QUERY_IMAGES",
           "FAMILY_PROTOTYPES", "listing_image", "query_image", "image_problem", "synthetic_images"]

IMAGE_VERSION = "pw-img-1"
IMAGE_DIMENSION = 4
# (roundness, flatness, metal, rubber): what the fictional encoder is said to pick up.
LISTING_IMAGES = (
    ("PW-L001", (0.80, 0.30, 0.50, 0.20), IMAGE_VERSION),
    ("PW-L002", (0.69, 0.34, 0.58, 0.28), IMAGE_VERSION),   # PW-L001 relisted, photographed at an angle
    ("PW-L003", (0.78, 0.28, 0.55, 0.22), IMAGE_VERSION),
    ("PW-L004", (0.81, 0.29, 0.49, 0.21), IMAGE_VERSION),
    ("PW-L005", (0.66, 0.36, 0.66, 0.30), IMAGE_VERSION),
    ("PW-L006", (0.68, 0.32, 0.64, 0.32), IMAGE_VERSION),
    ("PW-L007", (0.69, 0.33, 0.62, 0.30), IMAGE_VERSION),
    ("PW-L008", (0.45, 0.42, 0.75, 0.15), IMAGE_VERSION),
    ("PW-L009", (0.60, 0.20, 0.30, 0.70), IMAGE_VERSION),
    ("PW-L010", (0.62, 0.22, 0.28, 0.68), IMAGE_VERSION),
    ("PW-L012", (0.20, 0.90, 0.10, 0.40), IMAGE_VERSION),
    ("PW-L013", (0.0, 0.0, 0.0, 0.0), IMAGE_VERSION),        # a blank photo
    ("PW-L014", (0.79, 0.31, 0.52, 0.20), "pw-img-0"),       # encoded by the retired encoder
    ("PW-L015", (0.30, 0.35, 0.85, 0.10), IMAGE_VERSION),
    ("PW-L016", (0.65, 0.35, 0.67, 0.31), IMAGE_VERSION),
)

IMAGE_QUERIES = (
    Query("CH-Q001", "mechanical seal 16 mm", (0.80, 0.30, 0.15), VECTOR_VERSION),
    Query("CH-Q002", "replacement for this part", (0.50, 0.50, 0.50), VECTOR_VERSION),
    Query("CH-Q003", "o-ring for this pump", (0.20, 0.55, 0.60), VECTOR_VERSION),
    Query("CH-Q004", "lip seal 0.625 inch", (0.30, 0.86, 0.20), VECTOR_VERSION),
    Query("CH-Q005", "nitrile lip seal", (0.26, 0.88, 0.16), VECTOR_VERSION),
    Query("CH-Q006", "pump seal 16", (0.75, 0.35, 0.20), VECTOR_VERSION),
)

QUERY_IMAGES = {
    "CH-Q001": ((0.74, 0.30, 0.53, 0.26), IMAGE_VERSION),   # a mechanical seal
    "CH-Q002": ((0.30, 0.70, 0.45, 0.25), IMAGE_VERSION),   # a gasket, photographed on a metal bench
    "CH-Q003": ((0.55, 0.30, 0.20, 0.75), IMAGE_VERSION),   # an O-ring
    "CH-Q004": ((0.0, 0.0, 0.0, 0.0), IMAGE_VERSION),       # blank: the camera failed
    "CH-Q005": ((0.58, 0.24, 0.32, 0.66), IMAGE_VERSION),   # a lip seal
    "CH-Q006": ((0.67, 0.33, 0.65, 0.31), IMAGE_VERSION),   # a mechanical seal, graphite faces
}

_LISTING = {listing_id: (values, version) for listing_id, values, version in LISTING_IMAGES}


def listing_image(listing_id: str):
    """The (values, version) of a listing's photo, or None when the listing has none."""
    if not isinstance(listing_id, str):
        raise TypeError(f"listing_id must be a str, got {type(listing_id).__name__} {short(listing_id)}")
    return _LISTING.get(listing_id)


def query_image(query_id: str):
    """The (values, version) of the photo a query carries, or None."""
    if not isinstance(query_id, str):
        raise TypeError(f"query_id must be a str, got {type(query_id).__name__} {short(query_id)}")
    return QUERY_IMAGES.get(query_id)


def image_problem(values, version):
    """None when the feature can be searched in a pw-img-1 index, else the reason it cannot
    (blank, malformed, another encoder version, another dimension): the same checks as the
    text vectors (modules/common/vectors.py), against this encoder."""
    problem = vector_problem(values, version, IMAGE_VERSION, IMAGE_DIMENSION)
    return None if problem is None else problem[1]


# ---------------------------------------------------------------- a larger, seeded catalogue

# Family prototypes and their share of a synthetic catalogue: a head family and a long tail.
FAMILY_PROTOTYPES = (
    ("mechanical-seal", (0.76, 0.31, 0.57, 0.25), 60),
    ("lip-seal", (0.60, 0.21, 0.29, 0.69), 15),
    ("o-ring", (0.55, 0.28, 0.18, 0.78), 10),
    ("bearing", (0.70, 0.12, 0.90, 0.05), 8),
    ("hose-fitting", (0.30, 0.35, 0.85, 0.10), 5),
    ("gasket", (0.20, 0.90, 0.10, 0.40), 2),
)


def synthetic_images(n: int, seed: int) -> tuple:
    """n seeded image features: ((id, family, values), ...), families drawn by their share,
    each value its prototype's plus a small seeded spread. For measuring an index as the
    catalogue grows; the lesson's own listings stay in LISTING_IMAGES."""
    import random
    whole_number(n, "n", minimum=1)
    whole_number(seed, "seed", minimum=0, maximum=2**32 - 1)
    rng = random.Random(seed)
    families = [family for family, _values, share in FAMILY_PROTOTYPES for _ in range(share)]
    prototype = {family: values for family, values, _share in FAMILY_PROTOTYPES}
    out = []
    for number in range(n):
        family = families[rng.randrange(len(families))]
        values = tuple(round(v + rng.uniform(-0.08, 0.08), 4) for v in prototype[family])
        out.append((f"SY-{number:06d}", family, values))
    return tuple(out)
