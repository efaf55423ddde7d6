"""Print pip requirement lines from pyproject.toml: the core dependencies and the named extras.

    python scripts/requirements.py server bedrock --except langdetect sacrebleu
    python scripts/requirements.py server bedrock --only langdetect sacrebleu

pyproject.toml is the one list of dependencies; the Makefile builds the Lambda package from it with
this script (pip cannot install a project's extras for another platform without building the
project). An extra that names the project itself (`translation-agent[server]`) is expanded.
`--except` leaves packages out, `--only` keeps only those (by name, case and `-`/`_` ignored).
Standard library only: it runs with the build's Python before anything is installed.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")


def canonical(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(extras: list[str], project: dict[str, object]) -> list[str]:
    """The core dependencies and those of `extras`, in order, each once; unknown extras are an error."""
    name = canonical(str(project["name"]))
    optional: dict[str, list[str]] = project.get("optional-dependencies", {})  # type: ignore[assignment]
    found: list[str] = []
    seen_extras: set[str] = set()

    def add(lines: list[str]) -> None:
        for line in lines:
            match = _NAME.match(line)
            if match and canonical(match.group(1)) == name:
                expand([e.strip() for e in (match.group(2) or "").split(",") if e.strip()])
            elif line not in found:
                found.append(line)

    def expand(wanted: list[str]) -> None:
        for extra in wanted:
            if extra not in optional:
                raise SystemExit(f"pyproject.toml has no extra {extra!r} (it has: {', '.join(sorted(optional))})")
            if extra not in seen_extras:
                seen_extras.add(extra)
                add(optional[extra])

    add(list(project.get("dependencies", [])))  # type: ignore[call-overload]
    expand(extras)
    return found


def main() -> None:
    """Parse the arguments; print the lines."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("extras", nargs="*", help="extras of pyproject.toml, besides the core dependencies")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--except", dest="without", nargs="+", default=[], metavar="NAME", help="leave these out")
    chosen.add_argument("--only", nargs="+", default=[], metavar="NAME", help="keep only these")
    args = parser.parse_args()
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    without = {canonical(n) for n in args.without}
    only = {canonical(n) for n in args.only}
    for line in requirements([e for part in args.extras for e in part.split(",") if e], project):
        match = _NAME.match(line)
        key = canonical(match.group(1)) if match else line
        if key in without or (only and key not in only):
            continue
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
