"""WebVTT `.vtt` subtitles: `subtitles.WebVttFormat`, a module of its own so the registry finds it by extension."""

from __future__ import annotations

from .subtitles import WEBVTT as FORMAT

__all__ = ["FORMAT"]
