"""Language facts shared by every layer: BCP 47 tags, language names, CLDR plural categories, locked codes.

A leaf package: it imports nothing of the project, so `agent_core` and `interchange` both use it.
`tags` parses and matches BCP 47 tags; `names` resolves what users write ("French", "français",
"Brazilian Portuguese", "pt_br") to a tag through babel's CLDR data; `plurals` holds CLDR's plural
categories of a language and gettext's `Plural-Forms` header; `codes` is the one table of the
placeholder and directive syntaxes that decide what a locked code is. Every function bounds its
input's length before any work and is linear in it.
"""

from .names import MAX_NAME, bcp47, primary_subtag, same_language
from .tags import MAX_TAG, normalize_tag

__all__ = ["MAX_NAME", "MAX_TAG", "bcp47", "normalize_tag", "primary_subtag", "same_language"]
