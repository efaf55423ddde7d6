"""How much one document may hold: what one request (a Lambda invocation) can read or write in time.

Each parser refuses a bigger document with TooLarge before anything is made of it. The work per
element, segment and row is linear, so these bound the time of an upload, an import and an export.
"""

from __future__ import annotations

MAX_XML_ELEMENTS = 400_000
"""The most elements an XML document (XLIFF, TMX, TBX) may have."""
MAX_SEGMENTS = 50_000
"""The most segments an XLIFF document may have (a `<trans-unit>`, a `<mrk mtype="seg">`, a `<segment>`)."""
MAX_CSV_ROWS = 100_000
"""The most rows a CSV glossary may have."""
MAX_CSV_FIELD = 131_072
"""The longest CSV field, in characters (the `csv` module's default field limit)."""
