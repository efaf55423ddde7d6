"""service.language_detection: a document's language from its text, offline."""

from __future__ import annotations

import pytest

from service.language_detection import detect_language


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("Ceci est un document que nous devons traduire en anglais, avec soin et sans rien omettre.", "fr"),
        ("Dies ist ein Dokument, das wir sorgfältig ins Englische übersetzen müssen.", "de"),
        ("这是一个关于翻译的文档。我们需要把它翻译成英文，并保留所有的代码块和链接。", "zh-Hans"),
        ("日本語の文書です。これを英語に翻訳して、コードとリンクはそのまま残してください。", "ja"),
    ],
)
def test_prose_is_detected(text: str, tag: str) -> None:
    assert detect_language(text) == tag


def test_code_and_markup_do_not_decide() -> None:
    text = "```python\nprint('hello world, this is english code')\n```\n\nDas ist der Text, den wir übersetzen."
    assert detect_language(text * 2) == "de"


@pytest.mark.parametrize("text", ["", "Hallo", "```\nimport os\nos.exit(1)\n```", "{name} %s <b></b> 12345"])
def test_too_little_to_tell_is_none(text: str) -> None:
    assert detect_language(text) is None


def test_the_english_guide() -> None:
    with open("tests/data/guide.md", encoding="utf-8") as f:
        assert detect_language(f.read()) == "en"
