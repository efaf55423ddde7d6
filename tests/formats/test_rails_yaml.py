"""Rails i18n YAML: rails-i18n's en.yml read and written into Polish and Japanese, every scalar style
written with awkward texts, plural forms removed and inserted in place; checked with PyYAML and
translate-toolkit's Ruby YAML reader."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml as pyyaml
from hypothesis import given, settings
from hypothesis import strategies as st
from translate.storage import yaml as tt_yaml

from interchange.formats import FormatError, format_for
from interchange.formats.rails_yaml import FORMAT
from langfacts import plurals

DATA = Path(__file__).parent / "data"
RAILS = (DATA / "rails-i18n-en.yml").read_bytes()


def _targets(language: str) -> dict[str, object]:
    targets: dict[str, object] = {}
    for entry in FORMAT.read(RAILS).entries:
        if entry.plural:
            targets[entry.key] = {c: f"{c}: {entry.source}" for c in plurals.categories(language)}
        else:
            targets[entry.key] = f"[{language}] {entry.source}"
    return targets


def test_registry_reads_yml_and_yaml_of_a_locale() -> None:
    assert format_for("config/locales/en.yml", RAILS) is FORMAT
    assert format_for("en.yaml", RAILS) is FORMAT
    assert format_for("pt-BR.yml", b'# Brazilian\n"pt-BR":\n  hello: "Ol\xc3\xa1"\n') is FORMAT
    assert format_for("en.yml", b"\xef\xbb\xbf# CRLF\r\n\r\nen: # English\r\n  a: b\r\n") is FORMAT
    assert format_for("docker-compose.yml", b"services:\n  web:\n    image: x\n") is None
    assert format_for("ci.yml", b"name: CI\non: push\n") is None


def test_read_entries_plurals_and_codes() -> None:
    resource = FORMAT.read(RAILS)
    entries = {e.key: e for e in resource.entries}
    assert resource.source_language == "en"
    assert entries["date.day_names.0"].source == "Sunday"
    assert "date.abbr_month_names.0" not in entries  # a null item
    assert not any(k.startswith("date.order") for k in entries)  # symbols
    assert "number.currency.format.precision" not in entries and "number.format.significant" not in entries
    assert "number.human.decimal_units.units.unit" not in entries  # an empty string
    hours = entries["datetime.distance_in_words.about_x_hours"]
    assert hours.plural == {"one": "about 1 hour", "other": "about %{count} hours"}
    assert hours.source == "about %{count} hours"
    assert hours.codes == ("%{count}",)
    assert entries["errors.format"].codes == ("%{attribute}", "%{message}")
    # one/many without other is no plural: two strings
    assert entries["errors.messages.restrict_dependent_destroy.many"].plural is None
    assert entries["number.human.storage_units.units.byte"].plural == {"one": "Byte", "other": "Bytes"}


@pytest.mark.parametrize("language", ["pl", "ja"])
def test_write_parses_with_target_categories_and_same_keys(language: str) -> None:
    out = FORMAT.write(RAILS, _targets(language), target_language=language)
    written, original = pyyaml.safe_load(out), pyyaml.safe_load(RAILS)
    assert list(written) == [language]
    tree, before = written[language], original["en"]
    hours = tree["datetime"]["distance_in_words"]["about_x_hours"]
    assert list(hours) == list(plurals.categories(language))
    assert hours["other"] == "other: about %{count} hours"
    assert tree["date"]["order"] == before["date"]["order"] == [":year", ":month", ":day"]
    assert tree["number"]["currency"]["format"]["precision"] == 2
    assert tree["date"]["abbr_month_names"][0] is None
    assert tree["errors"]["format"] == f"[{language}] %{{attribute}} %{{message}}"
    assert list(tree) == list(before) and list(tree["errors"]["messages"]) == list(before["errors"]["messages"])
    toolkit = tt_yaml.RubyYAMLFile()
    toolkit.parse(out)
    ids = {u.getid() for u in toolkit.units}
    assert "date->day_names->[0]" in ids


def test_untouched_lines_identical() -> None:
    assert FORMAT.write(RAILS, {}, target_language="en") == RAILS
    out = FORMAT.write(RAILS, {"helpers.select.prompt": "Wybierz"}, target_language="pl").decode()
    changed = [(a, b) for a, b in zip(RAILS.decode().splitlines(), out.splitlines(), strict=True) if a != b]
    assert changed == [("en:", "pl:"), ("      prompt: Please select", "      prompt: Wybierz")]


def test_comments_quoting_and_indentation_kept() -> None:
    data = (
        b"# Polish strings for the shop\n"
        b"en:\n"
        b"    # the cart page\n"
        b"    cart:\n"
        b"        title: 'Your cart'  # short\n"
        b'        items:\n            one: "%{count} item"\n            other: "%{count} items"\n'
        b"        note: |\n            Free shipping\n            over %{amount}.\n"
    )
    out = FORMAT.write(
        data,
        {
            "cart.title": "Twój koszyk",
            "cart.items": {
                "one": "%{count} produkt",
                "few": "%{count} produkty",
                "many": "%{count} produktów",
                "other": "%{count} produktu",
            },
            "cart.note": "Darmowa dostawa\npowyżej %{amount}.\n",
        },
        target_language="pl",
    ).decode()
    assert out == (
        "# Polish strings for the shop\n"
        "pl:\n"
        "    # the cart page\n"
        "    cart:\n"
        "        title: 'Twój koszyk'  # short\n"  # the spaces before a comment are kept
        '        items:\n            one: "%{count} produkt"\n            few: "%{count} produkty"\n'
        '            many: "%{count} produktów"\n            other: "%{count} produktu"\n'
        "        note: |\n            Darmowa dostawa\n            powyżej %{amount}.\n"
    )


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b"en:\n  a: b\n   c: d\n", "Line 3, column"),
        (b'en:\n  a: "unclosed\n', "Line 3"),
        (b"en:\n  a: b\nfr:\n  a: c\n", "one top-level key"),
        (b"- a\n- b\n", "one top-level key"),
        (b"en:\n  a: 1\n  b: :sym\n", "no string to translate"),
        (b"# nothing yet\n", "no string to translate"),
        (b"web:\n  a: b\n", "'web' is not a locale"),
    ],
)
def test_malformed_files_say_where(data: bytes, where: str) -> None:
    with pytest.raises(FormatError, match=where):
        FORMAT.read(data)


def test_aliases_are_followed_once() -> None:
    laughs = "en:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for level in "bcdefgh":
        previous = chr(ord(level) - 1)
        laughs += f"  {level}: &{level} [{', '.join(['*' + previous] * 9)}]\n"
    start = time.perf_counter()
    entries = FORMAT.read(laughs.encode()).entries
    assert time.perf_counter() - start < 2
    assert [e.key for e in entries] == [f"a.{i}" for i in range(9)]


# -- the writer edits the text in place: every style, every awkward text, read back by PyYAML -----------

STYLES = (
    "en:\n"
    "  plain: Hello there  # a comment beside the value\n"
    "  single: 'Single'\n"
    '  double: "Double \\u00e9"\n'
    "  literal: |\n    First line\n    second line\n\n  # a comment after a block\n"
    "  literal_strip: |-\n    No newline\n"
    "  folded: >\n    Folded\n    text\n"
    "  anchored: &anchored !!str Anchored\n"
    "  alias: *anchored\n"
    "  multi_plain: first\n    continued\n"
    '  multi_double: "first\n    continued"\n'
    "  flow: [Sun, 'Mon', \"Tue\"]\n"
    "  flow_map: {a: Aa, b: 'Bb'}  # a comment beside a flow mapping\n"
    "  multi_flow: [\n    One,\n    Two\n  ]\n"
    "  list:\n  - Item\n  - 'Quoted item'\n"
    "  count: 3\n"
    "  sym: :year\n"
)
TEXTS = [
    "Zwykły tekst",
    "PL: Sun",
    "a # b",
    "%{count} plików",
    'It\'s "quoted" \\ back',
    "emoji 🎉 and ü",
    "line one\nline two",
    "ends with a break\n",
    "  leading space",
    "trailing space ",
    "yes",
    "1,000",
    ":symbol",
    "",
    "tab\there",
    "- dash",
    "[bracket], {brace}",
    "a\u2028b\x85c\ufeffd\x07",
    "@at `tick` |pipe >gt &amp *star !bang ? q",
    "longer " * 60,
]


def _set(tree: Any, key: str, value: object) -> None:
    *parents, last = key.split(".")
    for part in parents:
        tree = tree[int(part)] if isinstance(tree, list) else tree[part]
    if isinstance(tree, list):
        tree[int(last)] = value
    else:
        tree[last] = value


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["no-bom", "bom"])
@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_every_style_takes_every_text_and_reads_back_as_written(text: str, bom: bytes, newline: str) -> None:
    data = bom + STYLES.replace("\n", newline).encode()
    entries = FORMAT.read(data).entries
    keys = [e.key for e in entries]
    assert "alias" not in keys and "count" not in keys and "sym" not in keys
    targets = {key: f"{text}{number}" if number % 3 == 0 else text for number, key in enumerate(keys)}
    out = FORMAT.write(data, targets, target_language="pl")
    assert out.startswith(bom) and out.count(b"\n") == out.count(newline.encode())
    expected = pyyaml.safe_load(data)
    expected["pl"] = expected.pop("en")
    for key, value in targets.items():
        _set(expected["pl"], key, value)
    expected["pl"]["alias"] = targets["anchored"]
    assert pyyaml.safe_load(out) == expected
    texts = {k: v for k, v in targets.items() if v.strip() and not v.startswith(":")}  # `:symbol` reads as data
    if texts:
        assert {e.key: e.source for e in FORMAT.read(out).entries} == texts
    for kept in (b"# a comment beside the value", b"# a comment after a block", b"&anchored !!str", b"count: 3"):
        assert kept in out


def test_only_the_strings_change_and_their_surroundings_stay() -> None:
    targets = {
        "plain": "Cześć",
        "single": "Pojedynczy",
        "literal": "Pierwsza\ndruga\n",
        "literal_strip": "Bez końca",
        "folded": "Złożony\n",
        "flow.1": "Pon",
        "flow_map.b": "Bb: ok",
        "multi_plain": "jeden",
        "list.0": "Pozycja",
    }
    out = FORMAT.write(STYLES.encode(), targets, target_language="pl").decode()
    assert out == (
        "pl:\n"
        "  plain: Cześć  # a comment beside the value\n"
        "  single: 'Pojedynczy'\n"
        '  double: "Double \\u00e9"\n'
        "  literal: |\n    Pierwsza\n    druga\n\n  # a comment after a block\n"
        "  literal_strip: |-\n    Bez końca\n"
        "  folded: >\n    Złożony\n"
        "  anchored: &anchored !!str Anchored\n"
        "  alias: *anchored\n"
        "  multi_plain: jeden\n"
        '  multi_double: "first\n    continued"\n'
        "  flow: [Sun, 'Pon', \"Tue\"]\n"
        "  flow_map: {a: Aa, b: 'Bb: ok'}  # a comment beside a flow mapping\n"
        "  multi_flow: [\n    One,\n    Two\n  ]\n"
        "  list:\n  - Pozycja\n  - 'Quoted item'\n"
        "  count: 3\n"
        "  sym: :year\n"
    )


def test_a_block_takes_a_longer_text_or_is_quoted_where_it_cannot_hold_it() -> None:
    data = b"en:\n  note: |  # kept\n    Short\n  next: Next\n"
    longer = "A much longer first line\n\n  an indented line\nand a last one\n"
    out = FORMAT.write(data, {"note": longer}, target_language="en")
    assert out == (
        b"en:\n  note: |  # kept\n    A much longer first line\n\n      an indented line\n    and a last one\n"
        b"  next: Next\n"
    )
    assert pyyaml.safe_load(out)["en"]["note"] == longer
    for text in (" starts with a space", "two breaks\n\n", "bell\x07"):
        out = FORMAT.write(data, {"note": text}, target_language="en")
        assert pyyaml.safe_load(out)["en"] == {"note": text, "next": "Next"}


@pytest.mark.parametrize(
    ("data", "language", "expected"),
    [
        (
            b"en:\n  files:\n    one: '%{count} file'  # singular\n    # the plural\n    other: '%{count} files'\n",
            "ja",
            b"ja:\n  files:\n    other: '%{count} other'\n",
        ),
        (
            b"en:\n  files:\n    other: '%{count} files'\n    one: '%{count} file'\n  after: x\n",
            "ja",
            b"ja:\n  files:\n    other: '%{count} other'\n  after: x\n",
        ),
        (
            b'en:\n  files:\n    "one": "%{count} file"\n    "other": "%{count} files"\n',
            "ar",
            b'ar:\n  files:\n    "zero": "zero"\n    "one": "one"\n    "two": "two"\n'
            b'    "few": "few"\n    "many": "many"\n    "other": "%{count} other"\n',
        ),
        (
            b"en:\n  files: &f {one: File, other: '%{count} files'}\n  again: *f\n",
            "pl",
            b"pl:\n  files: &f {one: one, few: 'few', many: 'many', other: '%{count} other'}\n  again: *f\n",
        ),
        (
            b"en:\n  list:\n  - one: File\n    other: Files\n",
            "ja",
            b"ja:\n  list:\n  - other: other\n",
        ),
        (
            b"en:\r\n  files:\r\n    one: |\r\n      File\r\n    other: |\r\n      Files\r\n",
            "pl",
            b"pl:\r\n  files:\r\n    one: |\r\n      one\r\n    few: |\r\n      few\r\n    many: |\r\n      many\r\n"
            b"    other: |\r\n      other\r\n",
        ),
    ],
    ids=["ja drops one", "ja drops a last one", "ar quoted keys", "pl flow anchored", "ja in a list", "pl blocks crlf"],
)
def test_plural_forms_removed_and_inserted_in_place(data: bytes, language: str, expected: bytes) -> None:
    entry = FORMAT.read(data).entries[0]
    end = "\n" if b"|" in data else ""
    count = "%{count} " if "%" in entry.source else ""
    forms = {c: f"{count if c == 'other' else ''}{c}{end}" for c in plurals.categories(language)}
    out = FORMAT.write(data, {entry.key: forms}, target_language=language)
    assert out == expected
    assert FORMAT.read(out).entries[0].plural == forms


def test_the_locale_key_keeps_its_quotes_and_is_quoted_where_yaml_would_misread_it() -> None:
    assert FORMAT.write(b'"en":\n  a: b\n', {}, target_language="pt-BR") == b'"pt-BR":\n  a: b\n'
    assert FORMAT.write(b"en:\n  a: b\n", {}, target_language="no") == b"'no':\n  a: b\n"


def test_a_key_twice_in_one_mapping_is_refused() -> None:
    with pytest.raises(FormatError, match="Lines 2 and 3: the key `a` twice"):
        FORMAT.read(b"en:\n  a: x\n  a: y\n")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_in_any_style_reads_back_as_written(text: str) -> None:
    data = STYLES.encode()
    keys = [e.key for e in FORMAT.read(data).entries]
    out = FORMAT.write(data, dict.fromkeys(keys, text), target_language="pl")
    tree = pyyaml.safe_load(out)["pl"]
    for key in keys:
        value: Any = tree
        for part in key.split("."):
            value = value[int(part)] if isinstance(value, list) else value[part]
        assert value == text, key
