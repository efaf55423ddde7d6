"""Sync's offline parts: the config, the repository's files by key, reduced uploads, the plan, the
lockfile and `--frozen` (which makes no request and writes nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from terminal.cli import main
from terminal.sync_config import ConfigError, android_qualifier, parse_config
from terminal.sync_files import reduce, source_strings, target_strings, text_hash, tmx, write_target
from terminal.sync_lock import FileLock, Lock, LockError, StringLock, load_lock
from terminal.sync_plan import frozen_report, plan_all

ANDROID = b"""<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- Launcher name -->
    <string name="app_name">Notes</string>
    <string name="greeting">Hello, %1$s!</string>
    <plurals name="notes">
        <item quantity="one">%d note</item>
        <item quantity="other">%d notes</item>
    </plurals>
    <string-array name="sizes">
        <item>Small</item>
        <item>Large</item>
    </string-array>
</resources>
"""
JSON = (
    b'{"title": "Welcome", "menu": {"open": "Open", "close": "Close"},'
    b' "n_one": "{{count}} item", "n_other": "{{count}} items"}'
)
PO = b"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#. On the start screen
msgid "Open a document"
msgstr ""

msgctxt "menu"
msgid "Open"
msgstr ""
"""
YAML = b"""en:
  greeting: "Hello, %{name}"
  notes:
    one: "%{count} note"
    other: "%{count} notes"
  answer: "yes"
"""
MARKDOWN = b"""# Title

First paragraph.

```sh
code --kept
```

Second paragraph.
"""


def config(**extra: object) -> dict[str, object]:
    return {
        "source": "en",
        "languages": ["fr", "no"],
        "files": [{"source": "a/*.json", "target": "{lang}/*.json"}],
    } | extra


def test_config_patterns_and_languages(tmp_path: Path) -> None:
    for name in ("docs/en/a.md", "docs/en/deep/er/b.md", "docs/fr/a.md", "res/values/strings.xml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    parsed = parse_config(
        {
            "source": "en",
            "languages": ["fr", "pt-BR"],
            "files": [
                {"source": "docs/{lang}/**/*.md", "target": "docs/{lang}/**/*.md"},
                {"source": "res/values/strings.xml", "target": "res/values-{android_lang}/strings.xml"},
            ],
        }
    )
    pairs = {(p.source, p.target) for p in parsed.pairs(tmp_path)}
    assert pairs == {
        ("docs/en/a.md", "docs/fr/a.md"),
        ("docs/en/a.md", "docs/pt-BR/a.md"),
        ("docs/en/deep/er/b.md", "docs/fr/deep/er/b.md"),
        ("docs/en/deep/er/b.md", "docs/pt-BR/deep/er/b.md"),
        ("res/values/strings.xml", "res/values-fr/strings.xml"),
        ("res/values/strings.xml", "res/values-pt-rBR/strings.xml"),
    }
    assert [android_qualifier(t) for t in ("fr", "pt-BR", "es-419", "zh-Hans-CN")] == [
        "fr",
        "pt-rBR",
        "es-r419",
        "b+zh+Hans+CN",
    ]
    assert parse_config(config()).languages == ("fr", "no")  # TOML strings: Norwegian is not false


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": "blue"}, "Unknown key 'colour'"),
        ({"languages": ["fr", "fr"]}, "twice"),
        ({"languages": ["en"]}, "the source language"),
        ({"source": "english!"}, "BCP 47"),
        ({"files": []}, "at least one group"),
        ({"files": [{"source": "a/*.json", "target": "b/{lang}.json"}]}, "wildcards"),
        ({"files": [{"source": "a/*.json", "target": "b/*.json"}]}, "{lang}"),
        ({"files": [{"source": "../a/*.json", "target": "{lang}/*.json"}]}, "inside the repository"),
        ({"files": [{"source": "a/*.json", "target": "{lang}/*.json", "other": 1}]}, "Unknown key 'other'"),
    ],
)
def test_config_errors_name_what_to_change(change: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("{", r"\{").replace("}", r"\}")):
        parse_config(config(**change))


@pytest.mark.parametrize(
    ("name", "data", "keys"),
    [
        ("strings.xml", ANDROID, {"greeting", "notes"}),
        ("strings.xml", ANDROID, {"sizes[1]"}),
        ("common.json", JSON, {"menu.close", "n"}),
        ("messages.pot", PO, {"menu | Open"}),
        ("en.yml", YAML, {"notes", "answer"}),
        ("guide.md", MARKDOWN, None),
    ],
)
def test_a_reduced_upload_holds_the_strings_asked_in_its_own_format(
    name: str, data: bytes, keys: set[str] | None
) -> None:
    strings = source_strings(name, data)
    wanted = keys if keys is not None else {list(strings)[-1]}
    reduced = reduce(name, data, wanted)
    assert reduced is not None
    got = source_strings(name, reduced)
    arrays = {k for k in got if k.startswith("sizes[")} if "sizes[1]" in wanted else set()
    assert set(got) == wanted | arrays
    assert all(got[k] == strings[k] for k in got)


def test_a_format_that_cannot_be_reduced_is_uploaded_whole() -> None:
    data = b'"a" = "A";\n"b" = "B";\n'
    assert source_strings("Localizable.strings", data) == {"a": "A", "b": "B"}
    assert reduce("Localizable.strings", data, {"a"}) is None


def test_targets_are_written_as_the_format_writes_them_and_read_back_by_key() -> None:
    written = write_target("strings.xml", ANDROID, {"greeting": "Bonjour, %1$s !"}, "fr")
    assert b"<!-- Launcher name -->" in written and b"Bonjour, %1$s !" in written
    assert target_strings("strings.xml", written, [])["greeting"] == "Bonjour, %1$s !"
    po = write_target("messages.pot", PO, {"Open a document": "Ouvrir un document"}, "fr")
    assert target_strings("fr.po", po, []) == {"Open a document": "Ouvrir un document"}  # empty msgstr: none
    keys = list(source_strings("guide.md", MARKDOWN))
    md = write_target("guide.md", MARKDOWN, {keys[1]: "Premier paragraphe."}, "fr")
    assert md == MARKDOWN.replace(b"First paragraph.", b"Premier paragraphe.")
    assert target_strings("guide.md", md, keys)[keys[1]] == "Premier paragraphe."


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "en").mkdir()
    (tmp_path / "en/app.json").write_bytes(JSON)
    (tmp_path / "translation-agent.toml").write_text(
        'source = "en"\nlanguages = ["fr"]\n[[files]]\nsource = "en/*.json"\ntarget = "{lang}/*.json"\n'
    )
    return tmp_path


def test_the_plan_classes_each_string_against_the_lock(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    strings = source_strings("app.json", JSON)
    (root / "fr").mkdir()
    target = {"title": "Bienvenue", "menu": {"open": "Ouvrir !", "close": "Close"}}
    (root / "fr/app.json").write_text(json.dumps(target))
    lock = Lock(
        files={
            "fr/app.json": FileLock(
                source="en/app.json",
                language="fr",
                strings={
                    "title": StringLock(text_hash(strings["title"]), text_hash("Bienvenue"), "person:ana"),
                    "menu.open": StringLock(text_hash(strings["menu.open"]), text_hash("Ouvrir"), "person:ana"),
                    "n": StringLock(text_hash("old"), None, "person:ana"),
                    "gone": StringLock(text_hash("Gone"), text_hash("Parti"), "import"),
                },
            )
        }
    )
    cfg = parse_config(
        {"source": "en", "languages": ["fr"], "files": [{"source": "en/*.json", "target": "{lang}/*.json"}]}
    )
    (plan,), orphans = plan_all(root, cfg, lock)
    assert (plan.unchanged, plan.edited, plan.new, plan.changed, plan.removed) == (
        ["title"],
        ["menu.open"],
        ["menu.close"],  # its target is the source's own text: not a translation
        ["n"],
        ["gone"],
    )
    assert plan.to_translate == ["menu.close", "n"] and orphans == []
    report = "\n".join(frozen_report([plan], orphans))
    assert "edited in the target" in report and "removed from the source" in report


def test_frozen_fails_offline_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _repo(tmp_path)
    before = sorted(p.name for p in root.rglob("*"))
    assert main(["sync", "--frozen", "--root", str(root), "--api", "http://127.0.0.1:9"]) == 1
    assert "fr/app.json: the target file is missing" in capsys.readouterr().out
    assert sorted(p.name for p in root.rglob("*")) == before
    (root / "translation-agent.toml").write_text('source = "en"\nlanguages = "fr"\n')
    assert main(["sync", "--frozen", "--root", str(root)]) == 2
    assert "languages must list" in capsys.readouterr().err


def test_the_lockfile_round_trips_and_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    lock = Lock(
        files={"fr/a.json": FileLock("en/a.json", "fr", {"k": StringLock("s", None, None, pending=True)})},
        sessions={"fr": "s_1"},
    )
    path = tmp_path / "translation-agent.lock"
    path.write_text(lock.dumps())
    assert load_lock(path).dumps() == lock.dumps()
    assert load_lock(tmp_path / "none.lock").files == {}
    path.write_text("{")
    with pytest.raises(LockError, match="not valid JSON"):
        load_lock(path)
    path.write_text(json.dumps({"version": 9}))
    with pytest.raises(LockError, match="version 9"):
        load_lock(path)
    path.write_text(json.dumps({"version": 1, "files": {"x": {}}}))
    with pytest.raises(LockError, match="restore it from git"):
        load_lock(path)


def test_tmx_escapes_text() -> None:
    document = tmx([("fr", "Fish & <chips>", "Poisson & « frites »")], "en")
    assert "Fish &amp; &lt;chips&gt;" in document and 'srclang="en"' in document and 'xml:lang="fr"' in document


def test_a_markdown_target_whose_blocks_no_longer_pair_is_a_problem_not_a_guess(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "fr").mkdir()
    (tmp_path / "en/guide.md").write_bytes(MARKDOWN)
    (tmp_path / "fr/guide.md").write_bytes(MARKDOWN + b"\nAn extra paragraph someone added.\n")
    keys = list(source_strings("guide.md", MARKDOWN))
    lock = Lock(
        files={
            "fr/guide.md": FileLock(
                "en/guide.md", "fr", {k: StringLock(text_hash(k), None, None, pending=True) for k in keys}
            )
        }
    )
    cfg = parse_config({"source": "en", "languages": ["fr"], "files": [{"source": "en/*.md", "target": "{lang}/*.md"}]})
    (plan,), _ = plan_all(tmp_path, cfg, lock)
    assert plan.problem is not None and "4 text blocks where its source had 3" in plan.problem
    assert frozen_report([plan], []) == [f"fr/guide.md: {plan.problem}"]
