"""Keep only the CLDR fields the service reads in an installed babel's locale data.

    python scripts/prune_babel.py PACKAGE_DIR languages territories scripts plural_form ...

babel ships one pickled dict per locale (`babel/locale-data/*.dat`, 32 MB): dates, time zones,
units, currencies, number formats. The service reads language, territory and script names and
plural rules. Every locale file is kept (so every locale still parses and `localedata.exists` is
unchanged) and rewritten with only the given keys; `global.dat` is left whole. Run it with the
package's own Python: the files are pickles babel loads with `pickle.load`.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path


def prune(package: Path, keep: set[str]) -> tuple[int, int]:
    """Rewrite every locale file under `package`/babel/locale-data with only `keep`; (bytes before, after)."""
    before = after = 0
    for path in sorted((package / "babel" / "locale-data").glob("*.dat")):
        before += path.stat().st_size
        with path.open("rb") as stream:
            data = pickle.load(stream)
        kept = {key: value for key, value in data.items() if key in keep}
        path.write_bytes(pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL))
        after += path.stat().st_size
    return before, after


def main() -> None:
    """Parse the arguments; prune; say what it saved."""
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    before, after = prune(Path(sys.argv[1]), set(sys.argv[2:]))
    if not before:
        raise SystemExit(f"no babel locale data under {sys.argv[1]}")
    print(f"babel locale data: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
