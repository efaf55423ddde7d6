"""The package's errors: every parser raises `InterchangeError` (a ValueError) with a message a person can act on.

InterchangeError
├── NotWellFormed      the text is not XML (or uses a DTD/entity we refuse)
├── UnsupportedFormat  XML, but not the format expected (no XLIFF 1.2/2.0 root, no TMX, no TBX, bad CSV header)
├── PlaceholderError   a translated text's placeholders cannot be put back (unknown, repeated, misnested)
└── TooLarge           more elements, segments or rows than one request can handle (the limit is in the message)
"""

from __future__ import annotations


class InterchangeError(ValueError):
    """An interchange document could not be read or written."""


class NotWellFormed(InterchangeError):
    """The text is not well-formed XML, or declares a DTD or entities."""


class UnsupportedFormat(InterchangeError):
    """The document is XML but not in the expected format or version."""


class PlaceholderError(InterchangeError):
    """A translated text's placeholders do not match the segment's inline codes."""


class TooLarge(InterchangeError):
    """The document holds more than a limit allows (`limits.py`); nothing of it is read."""
