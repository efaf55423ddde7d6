"""The job estimate's structure per format family (documents, app strings, subtitles): what each part
of a segment costs and where it is paid, not the fitted figures (docs/benchmarks.md has those)."""

from __future__ import annotations

import pytest

from agent_core.estimate import (
    LABEL_TOKENS_PER_PIECE,
    MARK_TOKENS,
    OUTPUT_TOKENS_PER_CALL,
    RETRIED,
    Asked,
    estimate_job,
    pieces,
    text_tokens,
)

SENTENCE = "Open the settings panel and press save to keep your changes."


def test_text_is_counted_by_its_pieces_and_cjk_by_its_characters() -> None:
    assert pieces("Open the settings_panel, 1234 times.") == 10  # Open the settings _ panel , 123 4 times .
    assert text_tokens("设置") > text_tokens("se") and text_tokens("") == 0


def test_a_document_pays_a_call_per_stretch_of_text_whatever_its_segments() -> None:
    whole = estimate_job([Asked(f"{SENTENCE} " * 10)])
    split = estimate_job([Asked(f"{SENTENCE} ")] * 10)
    assert split.model_requests == whole.model_requests
    assert split.output_tokens == whole.output_tokens  # the same text, the same calls
    # nine more id marks on the screen, shown again with the units proposed again
    assert split.input_tokens - whole.input_tokens == pytest.approx(9 * MARK_TOKENS * (1 + RETRIED), abs=1)


def test_an_app_string_is_a_call_of_its_own_and_its_context_line_is_shown_once() -> None:
    short = estimate_job([Asked(SENTENCE, f"key: k{i}", f"k{i}") for i in range(10)])
    longer = estimate_job(
        [Asked(SENTENCE, f"key: k{i} | note: shown on the settings page", f"k{i}") for i in range(10)]
    )
    extra = pieces(" | note: shown on the settings page")
    assert longer.output_tokens == short.output_tokens  # the model does not write the context line
    assert longer.input_tokens - short.input_tokens == pytest.approx(
        10 * extra * LABEL_TOKENS_PER_PIECE * (1 + RETRIED), abs=1
    )
    prose = estimate_job([Asked(SENTENCE)] * 10)
    calls = 10 - 10 * len(SENTENCE) // 100  # ten strings; the same text as a document is about six calls
    assert short.output_tokens > prose.output_tokens + calls * OUTPUT_TOKENS_PER_CALL


def test_a_subtitle_cue_split_at_sentences_is_one_call() -> None:
    cue = "key: 12 | note: 00:01:02,000 --> 00:01:04,500"
    other = "key: 13 | note: 00:01:05,000 --> 00:01:07,500"  # as many pieces
    one_cue = estimate_job([Asked("Where were you?", cue, "12"), Asked("I waited all night.", cue, "12")])
    two_cues = estimate_job([Asked("Where were you?", cue, "12"), Asked("I waited all night.", other, "13")])
    assert pieces(cue) == pieces(other)
    assert two_cues.output_tokens - one_cue.output_tokens == round((1 + RETRIED) * OUTPUT_TOKENS_PER_CALL)
    assert two_cues.input_tokens > one_cue.input_tokens  # a context line more on the screen


def test_the_estimate_is_linear_in_the_job() -> None:
    strings = [Asked(f"{SENTENCE} ({i})", f"key: settings.item_{i}", f"settings.item_{i}") for i in range(2_000)]
    half, whole = estimate_job(strings[:1_000]), estimate_job(strings)
    assert 1.9 < whole.input_tokens / half.input_tokens < 2.1
    assert 1.9 < whole.output_tokens / half.output_tokens < 2.1
