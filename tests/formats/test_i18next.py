"""i18next JSON: real files (nested, flat with dotted keys, v4 plural suffixes, ICU values) read and
written into Polish and Japanese; checked with `json` and translate-toolkit's i18next v4 reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from translate.storage import jsonl10n

from interchange.formats import FormatError, format_for, format_named, icu
from interchange.formats.i18next import FORMAT
from interchange.formats.json_text import scan
from interchange.limits import MAX_SEGMENTS
from langfacts import plurals

DATA = Path(__file__).parent / "data"
PLURAL = (DATA / "i18next-parser-plural.json").read_bytes()
JITSI = (DATA / "jitsi-main.json").read_bytes()
ICU = (DATA / "react-i18next-icu.json").read_bytes()


def _targets(data: bytes, language: str) -> dict[str, object]:
    targets: dict[str, object] = {}
    for entry in FORMAT.read(data).entries:
        if entry.plural:
            targets[entry.key] = {c: f"{c}: {entry.source}" for c in plurals.categories(language)}
        else:
            targets[entry.key] = f"[{language}] {entry.source}"
    return targets


def _leaves(value: object, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], object]:
    if isinstance(value, dict):
        out: dict[tuple[str, ...], object] = {}
        for key, item in value.items():
            out.update(_leaves(item, (*path, key)))
        return out
    return {path: value}


@pytest.mark.parametrize("data", [PLURAL, JITSI, ICU])
def test_no_targets_writes_the_original_byte_for_byte(data: bytes) -> None:
    assert FORMAT.write(data, {}, target_language="pl") == data


def test_registry_accepts_string_objects_only() -> None:
    assert format_for("locales/en/translation.json", JITSI) is FORMAT
    assert format_named("json") is FORMAT
    assert format_for("package.json", b'{"name": "x", "version": 1, "private": true}') is None
    assert format_for("list.json", b'["a", "b"]') is None
    assert format_for("broken.json", b'{"a": "b",}') is FORMAT  # so its reader can say where
    assert format_for("intl_en.json", b'{"@@locale": "en", "a": "b"}') is None  # ARB content
    assert format_for("app.json", b'{"a": "b", "@a": {"description": "d"}}') is None
    assert format_for("Localizable.json", b'{"sourceLanguage": "en", "strings": {}}') is None


def test_plural_suffixes_make_one_entry() -> None:
    entries = {e.key: e for e in FORMAT.read(PLURAL).entries}
    assert list(entries) == ["first", "second", "unsorted"]
    assert entries["first"].plural == {c: f"first {c}" for c in ("zero", "one", "few", "many", "other")}
    assert entries["first"].source == "first other"
    assert entries["unsorted"].plural is None


@pytest.mark.parametrize("language", ["pl", "ja"])
def test_plural_written_with_exactly_the_target_categories(language: str) -> None:
    out = FORMAT.write(PLURAL, _targets(PLURAL, language), target_language=language)
    written = json.loads(out)
    wanted = plurals.categories(language)
    assert list(written) == [f"{b}_{c}" for b in ("first", "second") for c in wanted] + ["unsorted"]
    assert written["first_other"] == "other: first other"
    toolkit = jsonl10n.I18NextV4File()
    toolkit.settargetlanguage(language)
    toolkit.parse(out)
    units = {u.getid(): u for u in toolkit.units}
    assert set(units) == {".first", ".second", ".unsorted"}
    if language == "pl":
        # translate-toolkit reads gettext's three Polish forms; CLDR's fourth, `other`, is for fractions
        assert units[".first"].source.strings == [f"{c}: first other" for c in ("one", "few", "many")]
    # the file's layout: two-space members, one a line
    assert out.decode().splitlines()[1] == f'  "first_{wanted[0]}": "{wanted[0]}: first other",'


def test_nested_keys_codes_and_nesting() -> None:
    entries = {e.key: e for e in FORMAT.read(JITSI).entries}
    assert entries["chat.nickname.popover"].source == "Choose a nickname"
    assert entries["addPeople.telephone"].codes == ("{{number}}",)
    assert entries["dialog.lockRoom"].codes == ("$t(lockRoomPasswordUppercase)",)
    assert entries["dialog.reservationErrorMsg"].codes == ("{{code}}", "{{msg}}")
    assert (
        entries["dialog.remoteControlShareScreenWarning"].source
        == 'Note that if you press "Allow" you will share your screen!'
    )
    # v3's `_plural` suffix is no v4 plural: two plain strings
    assert entries["connectionindicator.localport_plural"].plural is None


@pytest.mark.parametrize("language", ["pl", "ja"])
def test_nested_write_keeps_structure_and_placeholders(language: str) -> None:
    targets = _targets(JITSI, language)
    out = FORMAT.write(JITSI, targets, target_language=language)
    before, after = _leaves(json.loads(JITSI)), _leaves(json.loads(out))
    assert list(after) == list(before)
    for path, value in after.items():
        assert value == f"[{language}] {before[path]}"
    assert FORMAT.read(out).entries[0].codes == FORMAT.read(JITSI).entries[0].codes


def test_only_targeted_lines_change() -> None:
    out = FORMAT.write(JITSI, {"chat.title": "Czat", "dialog.Ok": "Dobrze"}, target_language="pl")
    changed = [(a, b) for a, b in zip(JITSI.decode().splitlines(), out.decode().splitlines(), strict=True) if a != b]
    assert changed == [
        ('        "title": "Chat",', '        "title": "Czat",'),
        ('        "Ok": "OK",', '        "Ok": "Dobrze",'),
    ]


def test_icu_plural_select_and_flat_dotted_keys() -> None:
    entries = {e.key: e for e in FORMAT.read(ICU).entries}
    assert entries["description.part1"].codes == ("<1>", "</1>")
    icu_plural = entries["icu"]
    assert icu_plural.plural == {"other": "# persons"}
    assert icu_plural.plural_argument == "numPersons"
    assert entries["icu[=0]"].source == "no persons"
    assert entries["icu_and_trans"].plural == {"other": "We invited <0># persons</0>."}
    select_key = "{gender, select,  male {He avoids bugs.} female {She avoids bugs.} other {They avoid bugs.}}"
    assert entries[f"{select_key}[female]"].source == "She avoids bugs."
    assert entries[f"{select_key}[female]"].note == "gender = female"
    test_key = entries["testKey"]
    assert test_key.plural == {"one": " There is <1>#</1> item. ", "other": " There are <2>#</2> items. "}
    assert test_key.codes.count("#") == 2 and "<1>" in test_key.codes


@pytest.mark.parametrize("language", ["pl", "ja"])
def test_icu_written_with_target_categories(language: str) -> None:
    out = FORMAT.write(ICU, _targets(ICU, language), target_language=language)
    written = json.loads(out)
    assert list(written) == list(json.loads(ICU))
    assert written["description.part1"] == f"[{language}] To get started, edit <1>src/App.js</1> and save to reload."
    choice = icu.choice_of(written["icu"])
    assert choice is not None
    assert [s for s, _ in choice.cases] == ["=0", "=1", *plurals.categories(language)]
    assert dict(choice.cases)["=0"] == f"[{language}] no persons"
    select = icu.choice_of(written[next(k for k in written if k.startswith("{gender, select,  male {He"))])
    assert select is not None and dict(select.cases)["male"] == f"[{language}] He avoids bugs."
    again = {e.key: e for e in FORMAT.read(out).entries}
    assert set(again["testKey"].plural or {}) == set(plurals.categories(language))


def test_unicode_escapes_and_untouched_strings_kept() -> None:
    data = b'{\n  "a": "caf\\u00e9",\n  "b": "tea"\n}\n'
    out = FORMAT.write(data, {"b": "herbata z\u00f3\u0142ta"}, target_language="pl")
    assert out == b'{\n  "a": "caf\\u00e9",\n  "b": "herbata z\\u00f3\\u0142ta"\n}\n'
    raw = '{"a": "café", "b": "tea"}'.encode()
    assert FORMAT.write(raw, {"b": "żółw"}, target_language="pl") == '{"a": "café", "b": "żółw"}'.encode()


def test_flat_and_nested_keys_that_collide_are_refused() -> None:
    with pytest.raises(FormatError, match=r"'a\.b'"):
        FORMAT.read(b'{"a.b": "x", "a": {"b": "y"}}')


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b'{\n  "a": "b",\n}\n', "line 3, column 1"),
        (b'{\n  "a": "b"\n  "c": "d"\n}', "line 3, column 3"),
        (b'{"a": "b", "a": "c"}', "appears twice"),
        (b'{"a": "\\x"}', "line 1, column 7"),
        (b'{"a": "b"} trailing', "line 1, column 12"),
        (b'{"a": {"b": ' * 70 + b'"x"' + b"}" * 140, "nested deeper"),
        (b'{"a": "\xff"}', "Line 1"),
    ],
)
def test_malformed_files_say_where(data: bytes, where: str) -> None:
    with pytest.raises(FormatError, match=where):
        FORMAT.read(data)


@pytest.mark.parametrize("data", [b"{}", b'{"a": ""}', b'{"a": {"b": []}}'])
def test_nothing_to_translate(data: bytes) -> None:
    with pytest.raises(FormatError, match="no string to translate"):
        FORMAT.read(data)


def test_scanner_positions_match_json() -> None:
    scanned = scan(JITSI.decode())
    assert scanned.value == json.loads(JITSI)
    for slot in scanned.strings():
        assert json.loads(JITSI.decode()[slot.value_start : slot.end]) == slot.value


@pytest.mark.slow
def test_too_many_strings() -> None:
    data = ("{" + ",".join(f'"k{i}": "v"' for i in range(MAX_SEGMENTS + 1)) + "}").encode()
    with pytest.raises(FormatError, match=str(MAX_SEGMENTS)):
        FORMAT.read(data)
