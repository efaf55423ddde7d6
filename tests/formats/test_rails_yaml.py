"""Rails i18n YAML: rails-i18n's en.yml read and written into Polish and Japanese; checked with PyYAML,
ruamel.yaml and translate-toolkit's Ruby YAML reader."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml as pyyaml
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
        "        title: 'Twój koszyk' # short\n"  # the comment keeps its column where it can
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
