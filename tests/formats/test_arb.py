"""Flutter ARB: the Flutter Gallery's messages read with their metadata and written into Polish and
Japanese; checked with `json` and translate-toolkit's ARB reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from translate.storage import jsonl10n

from interchange.formats import FormatError, format_for, icu
from interchange.formats.arb import FORMAT
from langfacts import plurals

DATA = Path(__file__).parent / "data"
GALLERY = (DATA / "flutter-gallery-en.arb").read_bytes()
PLURAL_KEY = "rallyAlertsMessageUnassignedTransactions"


def _targets(language: str) -> dict[str, object]:
    targets: dict[str, object] = {}
    for entry in FORMAT.read(GALLERY).entries:
        if entry.plural:
            targets[entry.key] = {c: f"{c}: {entry.source}" for c in plurals.categories(language)}
        else:
            targets[entry.key] = f"[{language}] {entry.source}"
    return targets


def test_registry_reads_arb_by_extension() -> None:
    assert format_for("lib/l10n/intl_en.arb", GALLERY) is FORMAT


def test_read_messages_notes_codes_and_plural() -> None:
    resource = FORMAT.read(GALLERY)
    entries = {e.key: e for e in resource.entries}
    assert resource.source_language is None  # the file has no @@locale
    assert "@@context" not in entries and not any(k.startswith("@") for k in entries)
    assert entries["githubRepo"].note == "Represents a link to a GitHub repository.\n{repoName}: e.g. Flutter Gallery"
    assert entries["githubRepo"].codes == ("{repoName}",)
    assert entries["deselect"].note == "Deselect a (selectable) item"
    assert entries["rallyFinanceLeft"].source == " LEFT"
    plural = entries[PLURAL_KEY]
    assert plural.plural_argument == "count"
    assert plural.plural == {
        "other": "Increase your potential tax deduction! Assign categories to {count} unassigned transactions."
    }
    assert plural.codes == ("{count}",)
    exact = entries[f"{PLURAL_KEY}[=1]"]
    assert exact.source == "Increase your potential tax deduction! Assign categories to 1 unassigned transaction."
    assert exact.note is not None and exact.note.startswith("count =1\nAlert message shown")


@pytest.mark.parametrize("language", ["pl", "ja"])
def test_write_parses_keeps_metadata_and_sets_locale(language: str) -> None:
    out = FORMAT.write(GALLERY, _targets(language), target_language=language)
    written, original = json.loads(out), json.loads(GALLERY)
    assert list(written) == ["@@locale", *original]
    assert written["@@locale"] == language
    for key, value in original.items():
        if key.startswith("@"):
            assert written[key] == value  # metadata untouched
        elif key != PLURAL_KEY:
            assert written[key] == f"[{language}] {value}"
    choice = icu.choice_of(written[PLURAL_KEY])
    assert choice is not None and choice.argument == "count"
    assert [s for s, _ in choice.cases] == ["=1", *plurals.categories(language)]
    toolkit = jsonl10n.ARBJsonFile()
    toolkit.parse(out)
    units = {u.getid(): u for u in toolkit.units}
    assert units["githubRepo"].source == f"[{language}] {{repoName}} GitHub repository"
    assert "Represents a link to a GitHub repository." in units["githubRepo"].getnotes()
    assert FORMAT.read(out).source_language == language


def test_untouched_bytes_identical_and_locale_replaced_in_place() -> None:
    assert FORMAT.write(GALLERY, {}, target_language="pl") == GALLERY.replace(
        b'{\n  "@@context"', b'{\n  "@@locale": "pl",\n  "@@context"'
    )
    data = b'{\n    "@@locale": "en",\n    "hello": "Hello",\n    "@hello": {"description": "A greeting"}\n}\n'
    out = FORMAT.write(data, {"hello": "Dzie\u0144 dobry"}, target_language="pt-BR")
    expected = data.replace(b'"en"', b'"pt_BR"').replace(b'"Hello"', '"Dzień dobry"'.encode())
    assert out == expected
    assert FORMAT.read(data).source_language == "en"


def test_select_message_one_entry_per_case() -> None:
    data = b'{"@@locale": "en", "pronoun": "{gender, select, male{he} female{she} other{they}}"}'
    entries = {e.key: e.source for e in FORMAT.read(data).entries}
    assert entries == {"pronoun[male]": "he", "pronoun[female]": "she", "pronoun[other]": "they"}
    out = json.loads(FORMAT.write(data, {"pronoun[female]": "ona"}, target_language="pl"))
    assert out["pronoun"] == "{gender, select, male {he} female {ona} other {they}}"


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b'{\n  "a": "b",\n  "@a": {"description": "x"\n}', "line 4, column 2"),
        (b'{"a": 3}', "'a'.*not a string"),
        (b'["a"]', "root is not"),
        (b'{"@@locale": "en"}', "no string to translate"),
    ],
)
def test_malformed_files_say_where(data: bytes, where: str) -> None:
    with pytest.raises(FormatError, match=where):
        FORMAT.read(data)
