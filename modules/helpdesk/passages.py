"""The help-desk world's records: one text, one source and one version label per id.

Lessons 01 context, 04 versions and 10 answer draw every passage from here, and lessons
02, 03 and 06 do too wherever they show one of these ids. A lesson that needs another
situation (a copy under another id, a draft carrying a wrong label) gives it another id;
it never gives a second text to an id listed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.common.checks import short

__all__ = ["Entry", "ENTRIES", "BY_ID", "entry"]


@dataclass(frozen=True)
class Entry:
    """One record of the help-desk collection. `version` is a label, never a number."""

    id: str
    source_id: str
    version: str
    title: str
    text: str

    def __post_init__(self) -> None:
        for name in ("id", "source_id", "version", "title", "text"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"Entry.{name} must be a non-empty str, got {short(value)}")


ENTRIES = (
    # The question of lessons 01 and 10: when does the desk open, where do books go when it is closed?
    Entry("returns-v1", "returns-policy", "1", "Returning books",
          "When the help desk is closed, return books to the drop box beside the north entrance of the library."),
    Entry("hours-v2", "help-desk-hours", "2", "Help desk hours",
          "The help desk opens at 8:30 on weekdays and at 10:00 on Saturdays; it is closed on Sundays."),
    # Replaced by hours-v2. Lesson 01 never retrieves it; lesson 04's collection left it
    # marked current; lesson 10's stale index still returns it.
    Entry("hours-v1", "help-desk-hours", "1", "Help desk hours",
          "The help desk opens at 9:00 on weekdays and at 11:00 on Saturdays; it is closed on Sundays."),
    Entry("returns-faq", "faq", "3", "FAQ: returns",
          "When the help desk is closed, return books to the drop box beside the north entrance of the library."),
    Entry("wifi-v1", "wifi-guide", "1", "Guest Wi-Fi", "Guest Wi-Fi needs no password."),
    Entry("printing-v1", "printing-prices", "1", "Printing", "Printing costs 10 cents a page."),
    Entry("printing-v2", "printing-prices", "2", "Printing", "Printing costs 15 cents a page."),
    Entry("parking-v1", "parking-rules", "1", "Visitor parking",
          "Visitor parking is free for the first two hours with a validated ticket from the help desk; "
          "after that the city rate applies, and overnight parking is not allowed in the library lot."),
    Entry("card-v1", "library-cards", "1", "Library cards", "Replacement library cards cost 2 euros."),
    Entry("staff-rota", "staff-rota", "7", "Desk rota", "Ana covers the help desk on Saturdays."),
    # Holds the words of the hours sub-question (help, desk, open) about another place.
    Entry("cafe-v1", "cafe-hours", "1", "Cafe hours", "The cafe beside the help desk opens at 7:45 on weekdays."),
    # Lesson 04's known limit: another source that disagrees, and a draft reusing label 2.
    Entry("leaflet-v1", "welcome-leaflet", "1", "Welcome leaflet", "Welcome! The help desk opens at 9:00 on weekdays."),
    Entry("hours-draft", "help-desk-hours", "2", "Help desk hours",
          "The help desk opens at 7:30 on weekdays and at 10:00 on Saturdays."),
    # Laptop loans (lesson 02): overnight, back by noon; lesson 02's FAQ says the same.
    Entry("laptop-loans", "laptop-loans", "4", "Laptop loans",
          "Loan laptops may be taken home overnight and must be back at the desk by noon. "
          "This does not apply to reference-room laptops, which must stay indoors."),
)

BY_ID = {e.id: e for e in ENTRIES}


def entry(entry_id: str) -> Entry:
    """The help-desk record with this id; an unknown id is an error, never an empty text."""
    if entry_id not in BY_ID:
        raise ValueError(f"no help-desk record with id {short(entry_id)}")
    return BY_ID[entry_id]
