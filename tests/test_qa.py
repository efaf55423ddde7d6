"""QA on proposals and on the human's text: glossary outside code, format checks, Markdown structure parity."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.memory import GlossaryEntry
from agent_core.pseudo_text import pseudo_translate, split_units
from agent_core.qa import QaWarning, proposal_checks, proposal_warnings, structure_warnings, text_warnings

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT / "shared")
APP = [GlossaryEntry(source="app", target="application"), GlossaryEntry(source="command", target="commande")]


def codes(warnings: tuple[QaWarning, ...]) -> list[str]:
    return [w.code for w in warnings]


@pytest.mark.parametrize(
    "source",
    [
        "Decorate it with `@app.command()`.",
        "Decorate it with @app.command() first.",
        "```console\n$ typer main.py run --help\nUsage: app command [OPTIONS]\n```",
        "Example:\n\n    $ app command --help\n",
        "See https://example.com/app/command for it.",
        "Open docs/app/command.md now.",
    ],
)
def test_the_glossary_check_skips_code_urls_paths_and_handles(source: str) -> None:
    assert proposal_checks(source, pseudo_translate(source), glossary=APP) == ()


def test_the_glossary_check_still_reads_the_prose_around_code() -> None:
    source = "The app runs `app.run()`."
    (warning,) = proposal_checks(source, "L'appli exécute `app.run()`.", glossary=APP)
    assert warning == QaWarning("glossary", "Glossary: «app» should be translated as «application».")
    assert proposal_checks(source, "L'application exécute `app.run()`.", glossary=APP) == ()


def test_proposal_warnings_keeps_its_messages() -> None:
    source = "Run `make` at https://example.com/a, 5 times, {name}."
    assert proposal_warnings(source, "Lancez.") == (
        "Missing URL: «https://example.com/a».",
        "Missing inline code: «`make`».",
        "Missing placeholder: «{name}».",
        "Missing number: «5».",
    )
    assert codes(proposal_checks(source, "Lancez.")) == [
        "missing_url",
        "missing_code",
        "missing_placeholder",
        "missing_number",
    ]


@pytest.mark.parametrize(
    ("source", "final", "expected"),
    [
        ("* one\n* two\n* three", "* un\n* deux trois", ["list_items"]),
        ("1. one\n2. two", "1. un\n2. deux", []),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "| a | b |\n|---|---|\n| 1 2 |", ["table_cells"]),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "| a | b |\n|---|---|", ["missing_number", "table_cells"]),
        ("## Fixed", "### Corrigé", ["heading_level"]),
        ("## Fixed", "Corrigé", ["heading_level"]),
        ("Run:\n\n```\nls\n```", "Lancez :\n\n    ls", ["code_fences"]),
        ("See [the docs](docs/ssl.md).", "Voir [la doc](docs/tls.md).", ["links"]),
        ("See [the docs](docs/ssl.md).", "Voir la doc.", ["links"]),
        ("See [the docs](https://a.org/x).", "Voir [la doc](https://a.org/y).", ["missing_url"]),
        ("See [the docs](https://a.org/x).", "Voir [la doc](https://a.org/x).", []),
        ("Keep `verify=False` here.", "Gardez verify=False ici.", ["missing_code"]),
        ("## Fixed\n", "## Corrigé", []),
    ],
)
def test_text_warnings_on_the_humans_text(source: str, final: str, expected: list[str]) -> None:
    assert codes(text_warnings(source, final)) == expected


def test_structure_messages_say_what_differs() -> None:
    (items,) = structure_warnings("* a\n* b\n* c", "* a\n* b")
    assert items.message == "List items: 3 in the source, 2 here."
    (cells,) = structure_warnings("| a | b |\n|---|---|\n| 1 | 2 |", "| a | b |\n|---|---|\n| 1 2 |")
    assert cells.message == "Table row 2: 2 cells in the source, 1 here."
    (heading,) = structure_warnings("## Fixed", "### Corrigé")
    assert heading.message == "Headings: level 2 in the source, level 3 here."


def test_the_human_text_is_checked_against_the_glossary_too() -> None:
    warnings = text_warnings("Install the app.", "Installez l'appli.", APP)
    assert codes(warnings) == ["glossary"]


def test_pseudo_translations_of_the_corpus_pass_every_check() -> None:
    paths = [SHARED / "corpus" / "httpx-CHANGELOG.md", *sorted((SHARED / "seeds").glob("*.txt"))]
    paths = [p for p in paths if p.is_file()]
    if not paths:
        pytest.skip("the shared corpus is absent")
    units = [u for p in paths for u in split_units(p.read_text("utf-8"))]
    assert len(units) > 300
    failing = [(u, w) for u in units if (w := text_warnings(u, pseudo_translate(u)))]
    assert failing == []


KEEP = [GlossaryEntry(source="Clippy", target="clippy")]


@pytest.mark.parametrize("proposal", ["Clippy vous aide.", "Les astuces de Clippys.", "L'aide de CLIPPY's."])
def test_a_keep_term_kept_draws_no_warning(proposal: str) -> None:
    assert proposal_checks("Clippy helps you.", proposal, glossary=KEEP) == ()


def test_a_keep_term_changed_says_keep_it() -> None:
    checks = proposal_checks("Clippy helps you.", "Le trombone vous aide.", glossary=KEEP)
    assert checks == (QaWarning("glossary_keep", "Glossary: keep «Clippy» as it is."),)
    assert proposal_checks("Nothing to keep here.", "Rien ici.", glossary=KEEP) == ()
