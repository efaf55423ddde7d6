"""Interchange with CAT tools: XLIFF 2.0/1.2 exports and sources, TMX, glossary CSV/TBX.

Pure functions over frozen dataclasses (`model.py`): no HTTP, storage or agent. XML goes through
lxml with entities, DTDs and the network off (`_xml.py`). Placeholders for inline codes: `codes.py`;
states: `states.py`; how an XLIFF source becomes the file's text and comes back: `layout.py`;
placeholders written as an export format's inline elements: `inline_out.py`; CSV: `csv_cells.py`;
how much one document may hold: `limits.py`. Every parser and writer is linear in its input.
"""

from .codes import placeholder_mismatches
from .codes import problems as placeholder_problems
from .csv_cells import read_csv, write_csv
from .errors import InterchangeError, NotWellFormed, PlaceholderError, TooLarge, UnsupportedFormat
from .export_xliff import export_xliff2, export_xliff12
from .fill import FilledXliff, fill_xliff
from .glossary import export_glossary_csv, export_tbx, parse_glossary_csv, parse_tbx
from .layout import SegmentSpan, SegmentTargets, WrittenUnit, XliffText, segment_targets, span_of, translatable_text
from .limits import MAX_CSV_FIELD, MAX_CSV_ROWS, MAX_SEGMENTS, MAX_XML_ELEMENTS
from .model import (
    STATUSES,
    WRITTEN,
    BilingualExport,
    BilingualSegment,
    Exported,
    GlossaryTerm,
    InlineCode,
    Note,
    Status,
    TmPair,
    XliffDocument,
    XliffSegment,
)
from .tmx import export_tmx, parse_tmx
from .xliff_source import parse_xliff

__all__ = [
    "MAX_CSV_FIELD",
    "MAX_CSV_ROWS",
    "MAX_SEGMENTS",
    "MAX_XML_ELEMENTS",
    "STATUSES",
    "WRITTEN",
    "BilingualExport",
    "BilingualSegment",
    "Exported",
    "FilledXliff",
    "GlossaryTerm",
    "InlineCode",
    "InterchangeError",
    "NotWellFormed",
    "Note",
    "PlaceholderError",
    "SegmentSpan",
    "SegmentTargets",
    "Status",
    "TmPair",
    "TooLarge",
    "UnsupportedFormat",
    "WrittenUnit",
    "XliffDocument",
    "XliffSegment",
    "XliffText",
    "export_glossary_csv",
    "export_tbx",
    "export_tmx",
    "export_xliff2",
    "export_xliff12",
    "fill_xliff",
    "parse_glossary_csv",
    "parse_tbx",
    "parse_tmx",
    "parse_xliff",
    "placeholder_mismatches",
    "placeholder_problems",
    "read_csv",
    "segment_targets",
    "span_of",
    "translatable_text",
    "write_csv",
]
