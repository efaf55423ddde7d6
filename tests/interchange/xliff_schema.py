"""The vendored OASIS XLIFF 2.0 core schema, its xml.xsd import resolved locally (no network)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from lxml import etree

DATA = Path(__file__).resolve().parent.parent / "data" / "xliff"


class _LocalXmlXsd(etree.Resolver):
    def resolve(self, system_url, public_id, context):  # type: ignore[no-untyped-def]
        if system_url.endswith("xml.xsd"):
            return self.resolve_filename(str(DATA / "xml.xsd"), context)
        return None


@cache
def xliff2_schema() -> etree.XMLSchema:
    parser = etree.XMLParser(no_network=True)
    parser.resolvers.add(_LocalXmlXsd())
    return etree.XMLSchema(etree.parse(str(DATA / "xliff_core_2.0.xsd"), parser))


def assert_valid_xliff2(text: str) -> None:
    schema = xliff2_schema()
    document = etree.fromstring(text.encode("utf-8"))
    if not schema.validate(document):
        raise AssertionError("\n".join(str(e) for e in schema.error_log))


def sample(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")
