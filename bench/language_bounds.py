"""Hostile language inputs: what a PO header or a language name costs to read, at n and 4n.

    .venv/bin/python bench/language_bounds.py [--timeout 60]

Each case runs in a fresh interpreter (no cache of an earlier case helps) and reports its seconds and
the process's peak memory, or "killed" past `--timeout`:

- `plural-forms`: a PO file whose `Plural-Forms` is `nplurals=2; plural=n`, a run of n spaces and a
  stray character (about n + 60 bytes);
- `nplurals`: a PO file of about 150 bytes whose header says `nplurals=n`;
- `language-team`: a PO file whose `Language-Team` is a language name of n characters;
- `job-language`: `bcp47` of a name of n characters, as a job's target language is read.

A PO file refused with a format error (a 422 through HTTP) counts as read: its time is what the
refusal costs. Run it from a checkout to measure that checkout (it imports `langfacts` when there is
one, else `interchange.languages`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

_CASE = r"""
import resource, sys, time
kind, n = sys.argv[1], int(sys.argv[2])
from interchange.formats.po import FORMAT
from interchange.formats.base import FormatError
try:
    from langfacts import bcp47
except ImportError:
    from interchange.languages import bcp47
head = 'msgid ""\nmsgstr ""\n"Language: pl\\n"\n'
tail = '\nmsgid "a"\nmsgid_plural "as"\nmsgstr[0] "b"\nmsgstr[1] "bs"\n'
if kind == "plural-forms":
    data = (head + '"Plural-Forms: nplurals=2; plural=n' + " " * n + 'x\\n"' + tail).encode()
elif kind == "nplurals":
    data = (head + f'"Plural-Forms: nplurals={n}; plural=n;\\n"' + tail).encode()
elif kind == "language-team":
    data = ('msgid ""\nmsgstr ""\n"Language-Team: ' + ("Brazilian " * n)[:n] + ' <a@b.c>\\n"' + tail).encode()
else:
    data = None
start = time.perf_counter()
outcome = "-"
if data is None:
    outcome = str(bcp47(("Brazilian " * n)[:n]))
else:
    try:
        FORMAT.read(data)
        outcome = "read"
    except FormatError:
        outcome = "refused"
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(f"{time.perf_counter() - start:.3f} {peak} {outcome}")
"""
_SIZES = {
    "plural-forms": (500, 2000),
    "nplurals": (2_500_000, 10_000_000),
    "language-team": (12_000, 48_000),
    "job-language": (12_000, 48_000),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    for kind, sizes in _SIZES.items():
        for n in sizes:
            started = time.perf_counter()
            try:
                run = subprocess.run(
                    [sys.executable, "-c", _CASE, kind, str(n)],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=True,
                )
                seconds, peak, outcome = run.stdout.split()
                print(f"{kind:14} n={n:>9,}: {seconds:>8} s, peak {peak:>4} MB, {outcome}")
            except subprocess.TimeoutExpired:
                print(f"{kind:14} n={n:>9,}: killed after {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
