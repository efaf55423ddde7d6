"""Packaging: pyproject.toml is the one list of dependencies; the Lambda is built from the `server`
extra and one provider's; what the Makefile prunes from babel's data is what the service never reads.

The Lambda package itself is built from PyPI (not offline), so its size, its handler and
`/api/health` are measured by `bench/package.py` (docs/benchmarks.md); these tests hold the parts
that can be checked here.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.test_import_graph import project_modules, project_packages

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from requirements import canonical, requirements  # noqa: E402  (scripts/ is not a package)

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SERVER = ("agent_core", "storage", "service", "handlers", "interchange")
"""The packages the Lambda ships (the Makefile copies them)."""


def names(extras: list[str]) -> set[str]:
    """The distributions the core dependencies and `extras` name, with the extras they ask for."""
    found = set()
    for line in requirements(extras, PROJECT):
        match = re.match(r"([A-Za-z0-9._-]+)(?:\[([^\]]*)\])?", line)
        assert match, line
        found.add(canonical(match.group(1)))
        found.update(f"{canonical(match.group(1))}[{e.strip()}]" for e in (match.group(2) or "").split(",") if e)
    return found


def test_there_is_one_list_of_dependencies() -> None:
    assert not (ROOT / "requirements.txt").exists()
    assert "requirements.txt" not in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_the_server_carries_no_terminal_and_no_provider_sdk_it_was_not_given() -> None:
    server = names(["server", "bedrock"])
    assert {"mangum", "boto3", "fastapi", "aws-lambda-powertools", "lxml", "pydantic-ai-slim[bedrock]"} <= server
    assert not {"textual", "uvicorn", "pydantic-ai-slim[openai]", "pydantic-ai-slim[anthropic]"} & server
    assert "textual" in names(["terminal"]) and "uvicorn" in names(["local"])


def test_each_provider_extra_is_pydantic_ais_own_at_the_core_pin() -> None:
    optional = PROJECT["optional-dependencies"]
    [core_pin] = [d for d in PROJECT["dependencies"] if d.startswith("pydantic-ai-slim")]
    for provider in ("openai", "anthropic", "bedrock"):
        assert optional[provider] == [core_pin.replace("pydantic-ai-slim", f"pydantic-ai-slim[{provider}]")]


def test_dev_brings_every_extra() -> None:
    every = set(PROJECT["optional-dependencies"]) - {"dev"}
    assert names(["dev"]) >= names(sorted(every))


@functools.cache
def _third_party_imports(packages: tuple[str, ...]) -> frozenset[str]:
    """Top-level modules outside the project and the standard library that `packages` import."""
    modules = project_modules()
    found: set[str] = set()
    for module, path in modules.items():
        if module.split(".")[0] not in packages:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module.split(".")[0])
    ours = set(project_packages()) | {"tests"}
    return frozenset(name for name in found if name not in ours and name not in sys.stdlib_module_names)


def _closure(distributions: set[str]) -> set[str]:
    """`distributions` and everything they require (as installed here), with the extras asked for."""
    seen: set[str] = set()
    todo = list(distributions)
    while todo:
        entry = todo.pop()
        if entry in seen:
            continue
        seen.add(entry)
        name, _, extra = entry.partition("[")
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for line in requires:
            marker = line.partition(";")[2]
            wanted = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
            if wanted and wanted.group(1) != extra.rstrip("]"):
                continue
            match = re.match(r"([A-Za-z0-9._-]+)(\[[^\]]*\])?", line)
            if match:
                required = canonical(match.group(1))
                todo.append(required)
                todo.extend(f"{required}[{e.strip()}]" for e in (match.group(2) or "")[1:-1].split(","))
    return {entry.partition("[")[0] for entry in seen}


@pytest.mark.parametrize(
    ("packages", "extras"),
    [(SERVER, ["server", "openai", "anthropic", "bedrock"]), (("terminal",), ["terminal", "local"])],
    ids=["server", "terminal"],
)
def test_every_library_the_code_imports_is_a_declared_dependency(packages: tuple[str, ...], extras: list[str]) -> None:
    """An import of a library that only a test tool brings in would work in the dev venv and fail in Lambda."""
    providers = importlib.metadata.packages_distributions()
    allowed = _closure(names(extras))
    missing = {}
    for module in _third_party_imports(packages):
        dists = {canonical(d) for d in providers.get(module, [])}
        if not dists & allowed:
            missing[module] = sorted(dists)
    assert missing == {}


def test_the_server_never_imports_the_terminals_libraries() -> None:
    assert not {"textual", "rich", "uvicorn", "platformdirs"} & _third_party_imports(SERVER)


def _make_variable(name: str) -> list[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{name}\s*:?=\s*(.+)$", makefile, re.MULTILINE)
    assert match, name
    return match.group(1).split()


_READ = """
import json, sys
from babel import Locale, localedata
from langfacts.plurals import categories, gettext_forms
from service.jobs import language_name
tags = sys.argv[1:]
known = [t.replace("-", "_") for t in tags if localedata.exists(t.replace("-", "_"))]
print(json.dumps({
    "plurals": {t: categories(t) for t in tags},
    "gettext": {t: gettext_forms(t).header for t in tags},
    "names": {t: language_name(t) for t in tags},
    "own": {i: localedata.load(i, merge_inherited=False).get("languages", {}).get(i.split("_")[0])
            for i in localedata.locale_identifiers()},
    "qualifiers": {t: [len(Locale.parse(t).territories), len(Locale.parse(t).scripts)] for t in known},
    "direction": {t: Locale.parse(t).text_direction for t in known},
}, sort_keys=True))
"""
TAGS = ["en", "fr", "fr-CA", "pt-BR", "ar", "ru", "sr-Latn", "zh-Hant-TW", "ja", "cy", "he", "ga", "sl", "xx"]


@pytest.mark.slow
def test_babels_pruned_locale_data_answers_what_the_service_reads_as_the_whole_data_does(tmp_path: Path) -> None:
    """The Makefile's BABEL_KEYS keep every CLDR field the service reads: plural categories, gettext
    forms, English and native language names, territory and script names, text direction."""
    import babel

    shutil.copytree(Path(babel.__file__).parent, tmp_path / "babel")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "prune_babel.py"), str(tmp_path), *_make_variable("BABEL_KEYS")],
        env={"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert "->" in done.stdout

    def read(path: str) -> object:
        out = subprocess.run(
            [sys.executable, "-c", _READ, *TAGS], env={"PYTHONPATH": path}, cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout)

    whole = read(str(ROOT))
    pruned = read(f"{tmp_path}:{ROOT}")
    assert pruned == whole
    assert sum(p.stat().st_size for p in (tmp_path / "babel" / "locale-data").glob("*.dat")) < 10e6
