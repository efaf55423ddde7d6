"""Xcode String Catalogs: read a real catalog and plural/substitution/device strings; write Polish and Japanese."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from interchange.formats import FormatError, format_for
from interchange.formats._xcstrings_write import dump
from interchange.formats.base import Entry, Target
from interchange.formats.xcstrings import FORMAT
from langfacts.codes import code_changes
from langfacts.plurals import categories

DATA = Path(__file__).parent / "data"
REAL = (DATA / "xcstrings_duckduckgo_AIChat.xcstrings").read_bytes()
TRICKY = 'It\'s "quoted" / \\ back'

VARIED = {
    "sourceLanguage": "en",
    "strings": {
        "": {},
        "%lld photos": {
            "comment": "Album subtitle",
            "localizations": {
                "en": {
                    "variations": {
                        "plural": {
                            "one": {"stringUnit": {"state": "translated", "value": "%lld photo"}},
                            "other": {"stringUnit": {"state": "translated", "value": "%lld photos"}},
                        }
                    }
                }
            },
        },
        "Delete": {},
        "Old label": {"extractionState": "stale"},
        "Tap here": {
            "localizations": {
                "en": {
                    "variations": {
                        "device": {
                            "mac": {"stringUnit": {"state": "translated", "value": "Click here"}},
                            "other": {"stringUnit": {"state": "translated", "value": "Tap here"}},
                        }
                    }
                }
            }
        },
        "ate %@ %lld": {
            "localizations": {
                "en": {
                    "stringUnit": {"state": "translated", "value": "%@ ate %#@appleCount@ today!"},
                    "substitutions": {
                        "appleCount": {
                            "argNum": 2,
                            "formatSpecifier": "lld",
                            "variations": {
                                "plural": {
                                    "one": {"stringUnit": {"state": "translated", "value": "one apple"}},
                                    "other": {"stringUnit": {"state": "translated", "value": "%arg apples"}},
                                }
                            },
                        }
                    },
                }
            }
        },
        "followers %lld": {
            "localizations": {
                "en": {
                    "stringUnit": {"state": "translated", "value": "%#@followers@"},
                    "substitutions": {
                        "followers": {
                            "formatSpecifier": "lld",
                            "variations": {
                                "plural": {
                                    "one": {"stringUnit": {"state": "translated", "value": "%arg follower"}},
                                    "other": {"stringUnit": {"state": "translated", "value": "%arg followers"}},
                                }
                            },
                        }
                    },
                }
            }
        },
    },
    "version": "1.0",
}
VARIED_BYTES = dump(VARIED, blank_empty=True).encode()


def _entries(data: bytes) -> dict[str, Entry]:
    return {e.key: e for e in FORMAT.read(data).entries}


def _translate(entry: Entry, language: str) -> Target:
    if entry.plural is None:
        return f"[{language}] {TRICKY} " + " ".join(entry.codes)
    codes = " ".join(c for c in dict.fromkeys(entry.codes) if c in entry.plural["other"])
    return {c: f"[{language}:{c}] {TRICKY} {codes}" for c in categories(language)}


def test_format_for_xcstrings() -> None:
    assert format_for("Localizable.xcstrings", REAL) is FORMAT


def test_dump_reproduces_xcode_style_byte_for_byte() -> None:
    assert dump(json.loads(REAL), blank_empty=False).encode() == REAL


def test_reads_real_catalog() -> None:
    resource = FORMAT.read(REAL)
    assert resource.source_language == "en"
    assert resource.target_language is None  # de, en-US and fr: no one target
    entries = {e.key: e for e in resource.entries}
    catalog = json.loads(REAL)["strings"]
    assert list(entries) == [k for k, v in catalog.items() if v.get("shouldTranslate") is not False]
    assert entries["aichat.download.complete"].source == "Download complete for %@"
    assert entries["aichat.download.complete"].codes == ("%@",)
    assert entries["aichat.download.complete"].note == "Download complete for duck.ai"
    assert all(e.target is None for e in entries.values())


def test_one_other_language_is_read_as_the_target() -> None:
    catalog = json.loads(REAL)
    for item in catalog["strings"].values():
        for language in ("de", "en-US"):
            item.get("localizations", {}).pop(language, None)
    resource = FORMAT.read(json.dumps(catalog).encode())
    assert resource.target_language == "fr"
    entries = {e.key: e for e in resource.entries}
    assert entries["aichat.download.show"].target == "Afficher"
    assert entries["duckai.contextual.ask.about.page"].target is None


def test_reads_plurals_substitutions_devices_and_bare_keys() -> None:
    entries = _entries(VARIED_BYTES)
    assert list(entries) == [
        "%lld photos",
        "Delete",
        "Tap here#mac",
        "Tap here#other",
        "ate %@ %lld",
        "ate %@ %lld/appleCount",
        "followers %lld/followers",
    ]
    assert entries["%lld photos"].plural == {"one": "%lld photo", "other": "%lld photos"}
    assert entries["%lld photos"].note == "Album subtitle"
    assert entries["Delete"].source == "Delete"  # no source localization: the key is the text
    assert entries["ate %@ %lld"].codes == ("%@", "%#@appleCount@")
    apples = entries["ate %@ %lld/appleCount"]
    assert apples.plural_argument == "appleCount"
    assert apples.codes == ("%arg",)
    assert entries["Tap here#mac"].source == "Click here"


@pytest.mark.parametrize("language", ["pl", "ja"])
@pytest.mark.parametrize("data", [REAL, VARIED_BYTES], ids=["duckduckgo", "varied"])
def test_writes_every_entry(data: bytes, language: str) -> None:
    entries = _entries(data)
    targets = {key: _translate(entry, language) for key, entry in entries.items()}
    out = FORMAT.write(data, targets, target_language=language)
    catalog, original = json.loads(out), json.loads(data)
    assert list(catalog["strings"]) == list(original["strings"])
    for key, item in original["strings"].items():
        written = catalog["strings"][key]
        assert written.get("comment") == item.get("comment")
        for other, node in item.get("localizations", {}).items():
            assert written["localizations"][other] == node
    again = {e.key: e for e in FORMAT.read(out).entries}
    assert again.keys() == entries.keys()
    for key, entry in entries.items():
        node = catalog["strings"][key.split("/")[0].split("#")[0]]["localizations"][language]
        target = targets[key]
        if isinstance(target, str):
            holder = node["variations"]["device"][key.split("#")[1]] if "#" in key else node
            unit = holder["stringUnit"]
            assert unit == {"state": "translated", "value": target}
            assert code_changes(entry.codes, target) == ()
        else:
            plural = (
                node["substitutions"][entry.plural_argument]["variations"]["plural"]
                if "/" in key
                else (node["variations"]["plural"])
            )
            assert sorted(plural) == sorted(categories(language))
            assert {c: v["stringUnit"]["value"] for c, v in plural.items()} == target
    # Xcode's layout: two-space indents, " : ", sorted new keys, a final newline.
    assert out.endswith(b"}\n") and b'"state" : "translated"' in out
    assert dump(catalog, blank_empty=data is VARIED_BYTES).encode() == out
    assert '\\"quoted\\" / \\\\ back' in out.decode()


def test_substitution_keeps_its_spec_and_a_token_only_value() -> None:
    out = FORMAT.write(
        VARIED_BYTES,
        {
            "followers %lld/followers": {
                "one": "%arg obserwujący",
                "few": "%arg obserwujących",
                "many": "x %arg",
                "other": "%arg",
            }
        },
        target_language="pl",
    )
    node = json.loads(out)["strings"]["followers %lld"]["localizations"]["pl"]
    assert node["stringUnit"]["value"] == "%#@followers@"
    assert node["substitutions"]["followers"]["formatSpecifier"] == "lld"
    assert list(node["substitutions"]["followers"]["variations"]["plural"]) == ["few", "many", "one", "other"]


def test_new_language_is_inserted_in_code_point_order() -> None:
    out = FORMAT.write(REAL, {"aichat.download.show": "Pokaż"}, target_language="en-GB").decode()
    languages = list(json.loads(out)["strings"]["aichat.download.show"]["localizations"])
    assert languages == ["de", "en", "en-GB", "en-US", "fr"]


def test_untouched_catalog_is_byte_for_byte() -> None:
    assert FORMAT.write(REAL, {}, target_language="pl") == REAL
    assert FORMAT.write(REAL, {"no such key": "x"}, target_language="pl") == REAL
    out = FORMAT.write(VARIED_BYTES, {"Delete": "Usuń"}, target_language="pl")
    # "Delete" was an empty object and is no more; the other empty objects keep the file's style.
    assert b'"" : {\n\n    }' in out
    assert out.count(b"{\n\n") == VARIED_BYTES.count(b"{\n\n") - 1


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{\n  "sourceLanguage" : "en",\n  "strings" : {\n    "a" : {,\n  }\n}\n', "Line 4, column 12"),
        ('{"strings" : {}}', "sourceLanguage"),
        ('{"sourceLanguage" : "en", "strings" : {"a" : {}, "a" : {}}}', "'a'"),
        ('{"sourceLanguage" : "en", "strings" : []}', "'strings'"),
        (
            '{"sourceLanguage":"en","strings":{"k":{"localizations":{"en":{"variations":{"plural":{"one":'
            '{"stringUnit":{"state":"new","value":"x"}}}}}}}}}',
            "String 'k'",
        ),
        (
            '{"sourceLanguage":"en","strings":{"k":{"localizations":{"en":{"stringUnit":'
            '{"state":"new","value":"%#@n@ x"}}}}}}',
            "%#@n@",
        ),
        ('{"sourceLanguage":"en","strings":{"k":{"shouldTranslate":false}}}', "no strings"),
    ],
)
def test_malformed_catalogs_say_where(text: str, where: str) -> None:
    with pytest.raises(FormatError, match=re.escape(where)):
        FORMAT.read(text.encode())


def test_more_strings_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("interchange.formats.xcstrings.MAX_SEGMENTS", 3)
    with pytest.raises(FormatError, match="more than 3 strings"):
        FORMAT.read(REAL)


def test_a_value_without_words_is_an_entry_unless_it_is_only_tokens() -> None:
    catalog = {
        "sourceLanguage": "en",
        "strings": {
            "sep": {"localizations": {"en": {"stringUnit": {"state": "new", "value": "%1$@ – %2$@"}}}},
            "blank": {"localizations": {"en": {"stringUnit": {"state": "new", "value": " "}}}},
        },
        "version": "1.0",
    }
    entries = _entries(json.dumps(catalog).encode())
    assert list(entries) == ["sep"]
    assert entries["sep"].codes == ("%1$@", "%2$@")
