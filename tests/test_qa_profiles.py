"""QA profiles: each check on its own (and on hostile input), the built-in profiles, parsing a profile."""

from __future__ import annotations

import pytest

from agent_core.qa_checks import ProfileFinding, QaHints, cue_seconds, profile_checks, unwrapped
from agent_core.qa_profiles import BUILT_IN, CHECKS, QaProfile, default_profile_name, parse_profile, profile_for
from langfacts.identify import identify
from langfacts.punctuation import end_mark, quote_marks, same_end


def only(check: str, level: str = "warning", **limits: object) -> QaProfile:
    """A profile that runs `check` alone."""
    return parse_profile({"checks": {c: (level if c == check else "off") for c in CHECKS}, **limits})


def found(check: str, source: str, text: str, hints: QaHints | None = None, **limits: object) -> list[str]:
    return [f.message for f in profile_checks(source, text, only(check, **limits), hints)]


# -- max_length ---------------------------------------------------------------------------------------


def test_max_length_takes_the_files_limit_then_the_key_rule_then_the_profiles() -> None:
    rules = {"maxLength": 30, "maxLengthByKey": {"button_": 10, "button_long_": 20}}
    assert found("max_length", "Save", "Enregistrer", QaHints(key="button_save"), **rules) == [
        "Too long: 11 characters, at most 10."
    ]
    assert found("max_length", "Save", "Enregistrer", QaHints(key="button_long_save"), **rules) == []
    assert found("max_length", "Save", "x" * 31, QaHints(key="title"), **rules) == [
        "Too long: 31 characters, at most 30."
    ]
    stated = QaHints(key="button_save", max_length=5)
    assert found("max_length", "Save", "Sauver", stated, **rules) == ["Too long: 6 characters, at most 5."]
    assert found("max_length", "Save", "x" * 10_000, QaHints()) == []  # no limit anywhere: nothing to say


# -- subtitles ----------------------------------------------------------------------------------------


def test_line_length_counts_the_shown_characters_of_each_line() -> None:
    line = "x" * 42
    assert found("line_length", "Hi", f"<i>{line}</i>\n{{\\an8}}{line}") == []
    assert found("line_length", "Hi", f"{line}\n{line}y") == ["Line 2: 43 characters, at most 42 a line."]
    assert found("line_length", "Hi", "y" * 38, charsPerLine=37) == ["Line 1: 38 characters, at most 37 a line."]


def test_reading_speed_is_the_shown_characters_over_the_cues_duration() -> None:
    seconds = cue_seconds("00:00:01,000 --> 00:00:03,000")
    assert seconds == 2.0
    assert found("reading_speed", "Hi", "<i>" + "x" * 34 + "</i>", QaHints(seconds=seconds)) == []
    assert found("reading_speed", "Hi", "x" * 35, QaHints(seconds=seconds)) == [
        "Reading speed: 17.5 characters a second over the cue's 2 s, at most 17."
    ]
    assert found("reading_speed", "Hi", "x" * 350, QaHints()) == []  # no timing: not a cue


@pytest.mark.parametrize(
    ("note", "seconds"),
    [
        ("00:01.000 --> 00:04.500", 3.5),
        ("01:00:00.000 --> 01:00:01.250 line:0", 1.25),
        ("00:00:05,000 --> 00:00:04,000", None),  # backwards
        ("The button's label", None),
        (None, None),
        ("9" * 10_000 + " --> " + "9" * 10_000, None),
    ],
)
def test_cue_seconds_reads_a_timing_and_nothing_else(note: str | None, seconds: float | None) -> None:
    assert cue_seconds(note) == seconds


# -- edges ----------------------------------------------------------------------------------------------


def test_edge_whitespace_compares_both_ends_with_the_source() -> None:
    assert found("edge_whitespace", "Name: ", "Nom : ") == []
    assert found("edge_whitespace", "Name: ", "Nom :") == ["Trailing whitespace: none here, «␠» in the source."]
    assert found("edge_whitespace", "Name", "\u00a0Nom\n") == [
        "Leading whitespace: «⍽» here, none in the source.",
        "Trailing whitespace: «↵» here, none in the source.",
    ]
    assert found("edge_whitespace", "   ", "   ") == []


def test_double_space_counts_runs_inside_the_text_only() -> None:
    assert found("double_space", "A b.", "A  b.") == ["Double space: 1 here, 0 in the source (first at character 2)."]
    assert found("double_space", "A  b.", "A  b.") == []  # the source has it too
    assert found("double_space", "A b.", "  A b.  ") == []  # edges are edge_whitespace's
    assert found("double_space", "A\n\nb", "A\n\nb") == []


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("Done.", "Fertig."),
        ("Done.", "完成。"),
        ("Why?", "Pourquoi ?"),
        ("Why?", "¿Por qué?"),
        ("Why?", "لماذا؟"),
        ("Why?", "Γιατί;"),
        ("Wait...", "Attendez…"),
        ('He said "go."', "Il a dit « va. »"),
        ("(see below)", "(voir ci-dessous)"),
        ("Save", "Enregistrer"),
    ],
)
def test_end_punctuation_accepts_each_languages_spelling(source: str, text: str) -> None:
    assert found("end_punctuation", source, text) == []


def test_end_punctuation_flags_another_class() -> None:
    assert found("end_punctuation", "Done.", "Fertig!") == [
        "Ends with an exclamation mark; the source with a full stop."
    ]
    assert found("end_punctuation", "Save", "Enregistrer.") == [
        "Ends with a full stop; the source with no punctuation."
    ]
    assert found("end_punctuation", "Why?", "Pourquoi") == [
        "Ends with no punctuation; the source with a question mark."
    ]


# -- numbers, brackets, quotes ----------------------------------------------------------------------


def test_numbers_flags_a_number_the_source_does_not_have() -> None:
    assert found("numbers", "Delete 3 files", "Supprimer 4 fichiers") == ["Number not in the source: «4»."]
    assert found("numbers", "1,000 files", "1 000 fichiers") == []
    assert found("numbers", "3 files", "٣ ملفات") == []  # Arabic-Indic digits are the same number
    assert found("numbers", "Use %1$s", "Utilisez %1$s") == []  # a placeholder holds no number
    assert found("numbers", "Files", "Fichiers") == []


def test_brackets_are_counted_by_kind_and_order() -> None:
    assert found("brackets", "Save (now)", "Enregistrer（maintenant）") == []
    assert found("brackets", "Save (now)", "Enregistrer maintenant") == [
        "Brackets: 0 opening and 0 closing round here, 1 opening and 1 closing in the source."
    ]
    assert found("brackets", "a (b) c (d)", "a )b( c (d)") == ["Brackets: a round bracket closes before it opens."]


def test_quotes_are_counted_in_any_style() -> None:
    assert found("quotes", 'Click "Save"', "Cliquez sur « Enregistrer »") == []
    assert found("quotes", 'Click "Save"', "Klicken Sie auf „Speichern“") == []
    assert found("quotes", 'Click "Save"', "Cliquez sur Enregistrer") == ["Quotation marks: 0 here, 2 in the source."]
    assert found("quotes", "Don't", "N'oubliez pas") == []  # apostrophes are no quotes


# -- source language ----------------------------------------------------------------------------------


ENGLISH = "Open the settings and choose the language you want to use for the whole application."


def test_source_language_flags_text_left_in_the_source_language() -> None:
    hints = QaHints(source_language="en", target_language="fr-FR", identify=identify)
    assert found("source_language", ENGLISH, ENGLISH, hints) == [
        "Reads as the source's language (en), not fr: left untranslated?"
    ]
    french = "Ouvrez les paramètres et choisissez la langue que vous voulez utiliser pour toute l'application."
    assert found("source_language", ENGLISH, french, hints) == []
    told = QaHints(target_language="fr", identify=identify)  # the source's language told from the source
    assert found("source_language", ENGLISH, ENGLISH, told) == [
        "Reads as the source's language (en), not fr: left untranslated?"
    ]


def test_source_language_says_nothing_it_cannot_tell() -> None:
    hints = QaHints(source_language="en", target_language="fr", identify=identify)
    assert found("source_language", "Save", "Save", hints) == []  # too short to tell
    assert found("source_language", ENGLISH, "`x = 1` https://example.com/a/b/c {name}", hints) == []
    assert found("source_language", ENGLISH, ENGLISH, QaHints(source_language="en", target_language="en-GB")) == []
    assert found("source_language", ENGLISH, ENGLISH, QaHints(source_language="en", identify=identify)) == []


# -- profiles -----------------------------------------------------------------------------------------


def test_each_file_kind_has_its_built_in_profile() -> None:
    assert default_profile_name("res/values/strings.xml") == "strings"
    assert default_profile_name("locales/fr.po") == "strings"
    assert default_profile_name("messages.xlf") == "strings"
    assert default_profile_name("guide.md") == "documents"
    assert default_profile_name("page.HTML") == "documents"
    assert default_profile_name("report.docx") == "documents"
    assert default_profile_name("pasted text") == "documents"
    assert default_profile_name("film.srt") == "subtitles"
    assert default_profile_name("film.vtt") == "subtitles"
    chosen = parse_profile("documents")
    assert profile_for("film.srt", chosen) is chosen
    assert profile_for("film.srt").name == "subtitles"
    assert BUILT_IN["subtitles"].level("line_length") == "error"
    assert BUILT_IN["strings"].level("line_length") == "off"


def test_a_profile_object_changes_its_base() -> None:
    profile = parse_profile(
        {"base": "subtitles", "name": "TV", "checks": {"line_length": "warning"}, "charsPerLine": 37}
    )
    assert (profile.name, profile.base, profile.level("line_length"), profile.chars_per_line) == (
        "TV",
        "subtitles",
        "warning",
        37,
    )
    assert profile.level("reading_speed") == "warning"
    assert parse_profile(profile.as_json()) == profile


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("film", "Unknown QA profile 'film'"),
        (42, "a name (strings, documents, subtitles) or an object"),
        ({"base": "film"}, "base is one of"),
        ({"checks": {"spelling": "error"}}, "Unknown QA check 'spelling'"),
        ({"checks": {"quotes": "fatal"}}, "off, warning or error"),
        ({"checks": ["quotes"]}, '"checks" is an object'),
        ({"maxLength": 0}, "maxLength is a whole number"),
        ({"maxLength": True}, "maxLength is a whole number"),
        ({"maxLength": "20"}, "maxLength is a whole number"),
        ({"charsPerSecond": float("nan")}, "charsPerSecond is a number"),
        ({"maxLengthByKey": {"": 3}}, "key prefix"),
        ({"maxLengthByKey": {f"k{n}": 3 for n in range(101)}}, "at most 100"),
        ({"colour": "red"}, "no field colour"),
        ({"name": ""}, "name is 1 to"),
    ],
)
def test_a_bad_profile_is_refused_in_words(value: object, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_profile(value)


# -- hostile input -------------------------------------------------------------------------------------


HOSTILE = [
    "",
    " ",
    "\n" * 5_000,
    "(" * 5_000,
    ")" * 5_000,
    " ." * 5_000,
    "<" * 5_000,
    "<i" * 2_500,
    "{\\" * 2_500,
    "1," * 2_500,
    "\u200b\u00a0\u3000" * 1_500,
    "«»„“" * 1_200,
    "🙂" * 5_000,
    "a" + "  " * 2_500 + "b",
    "x" * 5_000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_every_check_answers_hostile_text(text: str) -> None:
    everything = parse_profile({"checks": dict.fromkeys(CHECKS, "error"), "maxLength": 10})
    hints = QaHints(key="k" * 200, seconds=0.001, source_language="en", target_language="fr", identify=identify)
    for source, target in ((text, text), ("Save.", text), (text, "Enregistrer.")):
        findings = profile_checks(source, target, everything, hints)
        assert all(isinstance(f, ProfileFinding) and f.level == "error" for f in findings)
        assert all(len(f.message) < 400 for f in findings)


def test_punctuation_helpers_on_edges() -> None:
    assert end_mark("") is None and end_mark(")" * 10_000) is None
    assert end_mark('Done.")') == "full stop"
    assert same_end("question mark", "semicolon") and not same_end("full stop", None)
    assert quote_marks("«a» „b“ 「c」") == 6


def test_the_language_is_told_only_of_a_text_that_shares_the_sources_words() -> None:
    asked: list[str] = []

    def spy(text: str) -> str | None:
        asked.append(text)
        return identify(text)

    hints = QaHints(source_language="en", target_language="fr", identify=spy)
    french = "Ouvrez les paramètres et choisissez la langue que vous voulez utiliser pour toute l'application."
    assert found("source_language", ENGLISH, french, hints) == [] and asked == []
    half = "Open the settings and choose the language: ouvrez les paramètres, choisissez la langue voulue."
    assert found("source_language", ENGLISH, half, hints) == [] and asked == [half]  # told, and not English
    assert found("source_language", ENGLISH, ENGLISH.upper(), hints) == [
        "Reads as the source's language (en), not fr: left untranslated?"
    ]


def test_a_pseudo_table_row_is_judged_by_what_its_cells_wrap() -> None:
    source = "| setting | meaning |\n| --- | --- |\n| `colour` | whether output is coloured |"
    pseudo = "| [šéţţíñĝ] | [ḿéáñíñĝ] |\n| --- | --- |\n| `colour` | [ŵĥéţĥéŕ óúţṕúţ íš çóĺóúŕéď ~~~~~~] |"
    assert "[" not in unwrapped(source, pseudo) and "]" not in unwrapped(source, pseudo)
    real = "| réglage | [sens] |\n| --- | --- |"  # a cell with letters and no envelope: not pseudo's
    assert unwrapped(source, real) == real
