"""DOCX limits: what refusing a decompression bomb costs, next to reading and exporting real documents.

    .venv/bin/python bench/docx_limits.py [--cases bomb-read,bomb-export,...] [--paragraphs 2000]

The inputs are built here (`tests/formats/docx_documents.py`):

- `bomb`: the smallest Word package whose body is a paragraph of text then 20 MB of empty
  paragraphs `<w:p/>`, deflated: a 31 KB upload; `bomb90`: 60 MB of them, a 90 KB upload;
- `report`: a normal report of `--paragraphs` paragraphs (headings, bold and italic runs, a
  hyperlink in each paragraph, a table every 50 paragraphs, a header and a footer);
- `large`: the same report of 20,000 paragraphs (about 480,000 XML elements and 2,000,000
  characters: near the element limit and the most text a file may hold).

Each case runs in a fresh interpreter that imports the format, reads the file, then does the one
thing measured:

- `read`: `DOCX.read` (what an upload pays before anything is stored);
- `export`: `DOCX.read` then `DOCX.write` with every entry translated (what `format=original` pays).

It prints the outcome (the number of entries, or the error's first words), the seconds (wall clock,
and the CPU time of the process: on a shared machine the second is the steadier figure), and the peak
resident memory the case added to the interpreter: on Linux the peak is reset (`/proc/self/clear_refs`)
once the format is imported and the file read, and `VmHWM` after the case less `VmRSS` before it is
the figure; elsewhere `ru_maxrss` after less before. Figures depend on the machine: compare cases.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.formats.docx_documents import bomb, long_report  # noqa: E402

_CASE = """
import json, re, resource, sys, time
from interchange.formats import FormatError, format_named
DOCX = format_named("docx")
data = open(sys.argv[1], "rb").read()

def status(field):
    return int(re.search(field + r":\\s+(\\d+)", open("/proc/self/status").read()).group(1))

try:
    open("/proc/self/clear_refs", "w").write("5")  # the peak starts again from what is resident now
    floor, peak_of = status("VmRSS"), lambda: status("VmHWM")
except OSError:  # not Linux: the process's peak so far
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_of = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t, cpu = time.perf_counter(), time.process_time()
try:
    entries = DOCX.read(data).entries
    if sys.argv[2] == "export":
        targets = {e.key: e.source.upper() for e in entries}
        DOCX.write(data, targets, target_language="de")
    outcome = f"{len(entries)} entries"
except FormatError as exc:
    outcome = f"refused: {str(exc)[:70]}"
except Exception as exc:
    outcome = f"500: {type(exc).__name__}: {str(exc)[:60]}"
seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
peak = peak_of()
print(json.dumps({"outcome": outcome, "seconds": seconds, "cpu": cpu, "peak_mb": (peak - floor) / 1024}))
"""


def run_case(path: Path, op: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _CASE, str(path), op], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        crashed = f"crashed ({done.returncode}): {done.stderr.strip()[-80:]}"
        return {"outcome": crashed, "seconds": 0.0, "cpu": 0.0, "peak_mb": 0.0}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def unpacked(data: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return sum(info.file_size for info in archive.infolist())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paragraphs", type=int, default=2000, help="paragraphs of the normal report")
    parser.add_argument(
        "--cases", default="bomb-read,bomb-export,bomb90-read,report-read,report-export,large-read,large-export"
    )
    args = parser.parse_args()
    builders: dict[str, Callable[[], bytes]] = {
        "bomb": lambda: bomb(20),
        "bomb90": lambda: bomb(60),
        "report": lambda: long_report(args.paragraphs),
        "large": lambda: long_report(20_000),
    }
    inputs: dict[str, bytes] = {}
    print("| case | upload bytes | unpacked bytes | outcome | seconds | CPU seconds | peak RSS added, MB |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as folder:
        for case in args.cases.split(","):
            name, op = case.split("-")
            if name not in inputs:
                inputs[name] = builders[name]()
            path = Path(folder) / f"{name}.docx"
            path.write_bytes(inputs[name])
            result = run_case(path, op)
            print(
                f"| {case} | {len(inputs[name]):,} | {unpacked(inputs[name]):,} | {result['outcome']} "
                f"| {float(str(result['seconds'])):.2f} | {float(str(result['cpu'])):.2f} "
                f"| {float(str(result['peak_mb'])):.0f} |"
            )


if __name__ == "__main__":
    main()
