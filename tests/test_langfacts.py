"""The language-facts leaf: BCP 47 tags, gettext's Plural-Forms header, the table of locked codes;
bounded before any work and linear in their input (work at n and 4n compared, never timed alone)."""

from __future__ import annotations

import timeit
from collections.abc import Callable

import pytest

from langfacts import bcp47, normalize_tag, plurals
from langfacts.codes import PATTERNS, PROSE, code_changes, find_codes


def _ratio(make: Callable[[int], Callable[[], object]], n: int, rounds: int = 15) -> float:
    """How much more the work costs at 4n than at n (linear: about 4; quadratic: 16): the fastest of
    `rounds` runs of each, taken in turns so other processes on the machine weigh on both alike, with
    the garbage collector paused (timeit's way)."""
    small, large = make(n), make(4 * n)
    small(), large()  # warm every cache both use
    fastest = [float("inf"), float("inf")]
    for _ in range(rounds):
        fastest = [
            min(fastest[0], *timeit.repeat(small, number=1, repeat=1)),
            min(fastest[1], *timeit.repeat(large, number=1, repeat=1)),
        ]
    return fastest[1] / max(fastest[0], 1e-6)


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("EN", "en"),
        ("zh_hant_tw", "zh-Hant-TW"),
        ("es-419", "es-419"),
        ("sl-rozaj-biske", "sl-rozaj-biske"),
        ("de-CH-1996", "de-CH-1996"),
        ("en-US-u-ca-gregory", "en-US-u-ca-gregory"),
        ("en-x-custom", "en-x-custom"),
        ("zh-yue-HK", "zh-yue-HK"),
        ("french", None),  # a name, not a tag of a 2- or 3-letter language
        ("en-", None),
        ("en--US", None),
        ("en-u", None),
        ("e1", None),
        ("en-" + "a" * 200, None),
    ],
)
def test_normalize_tag(text: str, tag: str | None) -> None:
    assert normalize_tag(text) == tag


@pytest.mark.parametrize("language", ["fr", "pl", "ar", "ru", "ja", "cy", "ga", "lt", "sl"])
def test_plural_forms_reads_what_gettext_writes(language: str) -> None:
    forms = plurals.gettext_forms(language)
    assert plurals.plural_forms(forms.header) == (forms.nplurals, forms.expression)
    spaced = f"  nplurals = {forms.nplurals} ;\tplural = {forms.expression}  "
    assert plurals.plural_forms(spaced) == (forms.nplurals, forms.expression)


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("nplurals=7; plural=n;", "nplurals=7"),
        ("nplurals=0; plural=0;", "nplurals=0"),
        ("nplurals=" + "9" * 5000 + "; plural=n;", "longer than 500"),
        ("nplurals=99999; plural=n;", "nplurals=99999"),
        ("nplurals=two; plural=n;", "nplurals=two"),
        ("nplurals=2;", "needs nplurals=N; plural=EXPRESSION"),
        ("plural=n;", "needs nplurals=N; plural=EXPRESSION"),
        ("nplurals=2; plural=n; stray", "stray"),
        ("nplurals=2; plural=n" + " " * 2000 + "x", "longer than"),
    ],
)
def test_plural_forms_refuses_what_it_cannot_bound(header: str, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        plurals.plural_forms(header)
    assert words in str(caught.value)


def test_index_categories_refuses_a_count_no_language_has() -> None:
    with pytest.raises(ValueError, match="nplurals"):
        plurals.index_categories("n", 10**7, "pl")
    assert plurals.index_categories("(n != 1)", 2, "en") == ("one", "other")


def test_a_language_too_long_to_be_a_tag_is_read_as_english_and_not_kept() -> None:
    long = "pl" + "-x" * 30_000
    assert plurals.categories(long) == plurals.categories("en")
    assert plurals.gettext_forms(long) == plurals.gettext_forms("en")
    held = plurals._categories.cache_info().currsize, plurals._gettext_forms.cache_info().currsize
    plurals.categories(long + "-y")
    assert (plurals._categories.cache_info().currsize, plurals._gettext_forms.cache_info().currsize) == held


def test_plural_forms_is_linear_in_the_header() -> None:
    def make(n: int) -> Callable[[], object]:
        header = "nplurals=3; plural=" + "(n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2)" + " " * n
        return lambda: [plurals.plural_forms(header) for _ in range(300)]

    assert _ratio(make, 100) < 10


def test_a_hostile_header_costs_what_a_short_one_does() -> None:
    def make(n: int) -> Callable[[], object]:
        header = "nplurals=2; plural=n" + " " * n + "x"

        def work() -> None:
            for _ in range(300):
                with pytest.raises(ValueError):
                    plurals.plural_forms(header)

        return work

    assert _ratio(make, 20_000) < 10


def test_language_names_are_bounded_and_linear() -> None:
    bcp47("Brazilian Portuguese")  # babel's English names, read once per process

    def make(n: int) -> Callable[[], object]:
        names = [f"{i} " + ("Brazilian " * n)[:n] for i in range(200)]  # distinct: no cache helps
        return lambda: [bcp47(name) for name in names]

    assert _ratio(make, 12_000) < 10  # past the bound: refused after a length check
    assert _ratio(make, 20) < 10  # within it: a lookup


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("%Y-%m-%d", ("%Y", "%m", "%d")),
        ("%b %-d, %Y at %l:%M %P", ("%b", "%-d", "%Y", "%l", "%M", "%P")),
        ("%u %n", ("%u", "%n")),
        ("%n%", ("%n",)),
        ("%A, %e de %B", ("%A", "%e", "%B")),
        ("%H:%M:%S %:z", ("%H", "%M", "%S", "%:z")),
        ("%Y年%m月%d日", ("%Y", "%m", "%d")),
    ],
)
def test_strftime_and_number_directives_are_codes(text: str, codes: tuple[str, ...]) -> None:
    assert find_codes(text, ("printf", "strftime")) == codes


@pytest.mark.parametrize(
    "prose",
    [
        "50 % off",
        "100%",
        "100% of users",
        "Save 50%off today",
        "Set %PATH% first",
        "50%-75% of the time",
        "A 100%% literal",
        "Growth of 20%YoY",
    ],
)
def test_a_percent_sign_in_prose_is_no_code(prose: str) -> None:
    assert find_codes(prose, PROSE) == ()


def test_printf_keeps_its_forms() -> None:
    text = "%1$@ sent %2$d files (%.1f%%), %-5s|%05d|%'d|%lld|%zu"
    assert find_codes(text, ("printf",)) == ("%1$@", "%2$d", "%.1f", "%-5s", "%05d", "%'d", "%lld", "%zu")


def test_an_altered_directive_is_named() -> None:
    codes = find_codes("Due %b %-d, %Y", ("printf", "strftime"))
    assert code_changes(codes, "Fällig am %-d. %b %Y") == ()
    changes = code_changes(codes, "Fällig am %d. %B %y")
    assert "%-d is missing" in changes and "%B is not in the source" in changes and "%Y is missing" in changes


@pytest.mark.parametrize(
    "hostile",
    [
        lambda n: "%" + "0" * n,
        lambda n: "%1$" + "'" * n,
        lambda n: "<a" + " " * n,
        lambda n: "{{" + " " * n + "a",
        lambda n: "{{a" + " " * n,
        lambda n: "{a" + " " * n + ",",
        lambda n: "{a, plural," + " " * n,
        lambda n: "%<a>" + "0" * n,
        lambda n: "%(a)" + " " * n,
    ],
)
def test_every_syntax_is_linear_on_hostile_text(hostile: Callable[[int], str]) -> None:
    def make(n: int) -> Callable[[], object]:
        text = hostile(n) * 3
        return lambda: [find_codes(text, tuple(PATTERNS)) for _ in range(20)]

    assert _ratio(make, 1_000) < 10  # texts of a few KB: both sizes fit the processor's caches alike


@pytest.mark.slow
def test_the_target_a_task_names_is_found_in_linear_time() -> None:
    from agent_core.languages import task_target

    assert task_target("Translate guide.md into Portuguese (Brazil) please.") == "portuguese (brazil)"

    def make(n: int) -> Callable[[], object]:
        task = ("Translate it into a" + " " * n + "x. ") * 3  # a backtracking pattern paid n² per "into"
        return lambda: [task_target(task) for _ in range(20)]

    assert _ratio(make, 1_000) < 10
