"""CSV in and out, safe for spreadsheets and for the `csv` module's limits.

Writing (`write_csv`): a cell that a spreadsheet would run as a formula (it begins with `=`, `+`,
`-`, `@`, a tab or a CR, as OWASP's "CSV Injection" lists) gets a single quote in front, and so does
a cell that already begins with quotes before one of those (`'=x` → `''=x`), so that reading
(`read_csv`) can take exactly one quote off every cell that begins with quotes and then one of
those characters, and a round trip gives back every cell as it was.

Reading: every `csv.Error` (a field over MAX_CSV_FIELD characters, a quote left open, ...) is an
UnsupportedFormat naming the line; more than MAX_CSV_ROWS rows is TooLarge; a byte-order mark is
dropped; a NUL is read as any character.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence

from .errors import TooLarge, UnsupportedFormat
from .limits import MAX_CSV_FIELD, MAX_CSV_ROWS

_FORMULA = re.compile(r"'*[=+\-@\t\r]")
_QUOTED_FORMULA = re.compile(r"'+[=+\-@\t\r]")


def neutral(cell: str) -> str:
    """The cell as written: `'` in front when it (after any quotes) begins like a formula."""
    return "'" + cell if _FORMULA.match(cell) else cell


def restored(cell: str) -> str:
    """The cell as it was before `neutral`: one leading quote fewer when quotes precede a formula start."""
    return cell[1:] if _QUOTED_FORMULA.match(cell) else cell


def write_csv(rows: Iterable[Sequence[str]]) -> str:
    """RFC 4180 CSV (`\\r\\n` line ends, quotes where needed) of the rows, every cell `neutral`."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerows([neutral(cell) for cell in row] for row in rows)
    return out.getvalue()


def read_csv(text: str) -> list[list[str]]:
    """The rows of a CSV text, every cell `restored`; UnsupportedFormat or TooLarge when it cannot be read."""
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    try:  # the field limit is the module's (process-wide) default, MAX_CSV_FIELD: not changed here
        for row in reader:
            if len(rows) >= MAX_CSV_ROWS:
                raise TooLarge(f"The CSV has more than {MAX_CSV_ROWS} rows, the most one import reads; split it.")
            rows.append([restored(cell) for cell in row])
    except csv.Error as exc:
        raise UnsupportedFormat(
            f"The CSV cannot be read at line {reader.line_num}: {exc} "
            f"(a field holds at most {MAX_CSV_FIELD} characters)."
        ) from exc
    return rows
