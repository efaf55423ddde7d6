"""The Lambda package as `sam build` makes it: its size unzipped, and whether it works.

    PYENV_VERSION=3.13.0 .venv/bin/python bench/package.py [--dir DIR] [--providers openai]
        [--platforms "manylinux2014_x86_64 manylinux_2_28_x86_64"] [--python python3.13] [--top 20]

Without `--dir` it runs `make build-AgentFunction` into a temporary folder (PyPI must be reachable)
with the given PROVIDERS and PLATFORMS (the Makefile's defaults: bedrock, arm64 as the function
runs). Then it prints the unzipped size (`du -sb`, target at most 120 MB; Lambda's limit is 250 MB)
and the largest top-level entries. When the package's platform is this machine's, it also runs the
package with the build's Python, from the package folder alone: imports `handlers.api`, answers
`GET /api/health` through the Lambda handler (the event from tests/events.py), reads what the
pruning keeps (CLDR plural categories and language names of several locales, botocore's DynamoDB
client, chrF/TER, language detection, the DOCX reader), and checks that what is pruned is gone.
The cold start of the same package: `bench/cold_start.py --package DIR --python python3.13`.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MB = 120

SMOKE = r"""
import json, os, sys
os.environ.update(STORAGE_BACKEND="sqlite", SQLITE_PATH=":memory:", AGENT_MODEL="pseudo",
                  POWERTOOLS_LOG_LEVEL="WARNING", AWS_DEFAULT_REGION="us-east-1")
import handlers.api as api
assert api.__file__.startswith(os.getcwd()), api.__file__
from tests.events import FakeLambdaContext, http_event

health = api.handler(http_event("GET", "/api/health"), FakeLambdaContext())
assert health["statusCode"] == 200, health

from babel import Locale, localedata
from langfacts.plurals import categories, gettext_forms
plurals = {tag: categories(tag) for tag in ("fr", "ar", "pt-BR", "ru", "sr-Latn", "ja", "cy")}
assert plurals["ar"] == ("zero", "one", "two", "few", "many", "other"), plurals
assert gettext_forms("ru").nplurals == 3
names = {tag: Locale.parse(tag).english_name for tag in ("pt_BR", "zh_Hant_TW", "fr_CA", "sr_Latn")}
assert names["pt_BR"] == "Portuguese (Brazil)", names
native = localedata.load("fr_CA", merge_inherited=False).get("languages", {})
assert Locale("de").languages["de"] == "Deutsch" and Locale("fr").character_order == "left-to-right"

import botocore.session
botocore.session.get_session().create_client("dynamodb", region_name="us-east-1")
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.ter import TER
assert CHRF().sentence_score("Hallo Welt", ["Hallo Welt"]).score == 100.0
assert TER().sentence_score("Hallo Welt", ["Hallo Welt"]).score == 0.0
from service.language_detection import detect_language
assert detect_language("Der schnelle braune Fuchs springt über den faulen Hund, und alle sehen zu.") == "de"
import interchange.formats.docx, interchange.formats.rails_yaml, lxml.etree, rapidfuzz, pysbd, markdown_it
from yaml import CSafeLoader  # Rails YAML is read with libyaml: the wheel must carry it

gone = [m for m in ("anthropic", "tiktoken", "regex", "textual", "numpy") if __import__("importlib").util.find_spec(m)]
print(json.dumps({"health": health["statusCode"], "plurals": plurals, "names": names, "present": gone}))
"""


def build(providers: str, platforms: str | None) -> Path:
    """`make build-AgentFunction` into a new temporary folder; that folder."""
    target = Path(tempfile.mkdtemp(prefix="lambda-package-"))
    command = ["make", "-s", "build-AgentFunction", f"ARTIFACTS_DIR={target}", f"PROVIDERS={providers}"]
    if platforms:
        command.append(f"PLATFORMS={platforms}")
    subprocess.run(command, cwd=ROOT, check=True)
    return target


def size(path: Path) -> int:
    """Bytes of every file under `path` (what `du -sb` counts, less the folders' own blocks)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


def runs_here(package: Path) -> bool:
    """The package's compiled extensions are for this machine."""
    return any(package.glob(f"pydantic_core/*{platform.machine()}*.so"))


def main() -> None:
    """Build (or take) the package; measure; smoke-test it."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, help="a package built already (else one is built)")
    parser.add_argument("--providers", default="bedrock", help="the Makefile's PROVIDERS")
    parser.add_argument("--platforms", help="the Makefile's PLATFORMS (default: the function's, arm64)")
    parser.add_argument("--python", default="python3.13", help="the package's Python, for the smoke test")
    parser.add_argument("--top", type=int, default=20, help="how many of the largest entries to list")
    args = parser.parse_args()
    package = args.dir or build(args.providers, args.platforms)

    du = subprocess.run(["du", "-sb", str(package)], capture_output=True, text=True, check=True)
    total = int(du.stdout.split()[0])  # files and folders, as `du -sb` counts them
    verdict = "within" if total <= TARGET_MB * 1e6 else "OVER"
    print(f"{package}: du -sb {total:,} bytes = {total / 1e6:.1f} MB unzipped ({verdict} the {TARGET_MB} MB target)")
    entries = sorted(((size(p) if p.is_dir() else p.stat().st_size, p.name) for p in package.iterdir()), reverse=True)
    for bytes_, name in entries[: args.top]:
        print(f"  {name:<40}{bytes_ / 1e6:8.1f} MB")
    if not runs_here(package):
        print(f"the package is not for this machine ({platform.machine()}): no smoke test")
        return
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        [args.python, "-I", "-S", "-c", f"import sys; sys.path[:0] = ['.']; sys.path.append({str(ROOT)!r})\n{SMOKE}"],
        cwd=package,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"the package failed its smoke test:\n{done.stderr[-3000:]}")
    print("smoke test: handler imported, /api/health 200, CLDR, botocore, chrF/TER, DOCX read from the package")
    print(done.stdout.strip())


if __name__ == "__main__":
    main()
