"""The terminal client `translation-agent`: reviews translations in a Textual app over the HTTP API."""
