"""How the web UI's files are answered: cache headers, and the gzip copy to clients that accept it.

- The bundle's content-hashed files (`assets/…`, handlers/webbundle.py) are
  `Cache-Control: public, max-age=31536000, immutable`: a new build has new names, so a browser never
  needs to ask again for a name it has.
- Everything else (the page, and every file when the sources are served) is `no-cache`: the browser
  revalidates it on each load (its ETag answers `304` when nothing changed), so a new build is seen at
  once.
- A file with a gzip copy beside it (`app-<hash>.js.gz`, written by scripts/build_web.py) is sent as
  that copy, `Content-Encoding: gzip`, when the request's `Accept-Encoding` allows gzip; either way the
  answer says `Vary: Accept-Encoding`. The sources have no copies and are sent as they are.

CloudFront does the same for the deployed UI (template.yaml): the cache headers are the S3 objects'
(set by `make web-upload`), and CloudFront compresses.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, PathLike, StaticFiles
from starlette.types import Scope

from .webbundle import ASSETS

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_MEDIA_TYPES = {".map": "application/json"}
"""Types `mimetypes` does not know, for the gzip copies (whose own name says only gzip)."""


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an `Accept-Encoding` value allows gzip (RFC 9110 §12.5.3: `gzip;q=0` refuses it)."""
    for item in accept_encoding.lower().split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip() in ("gzip", "x-gzip", "*"):
            quality = params.strip().removeprefix("q=").strip() if params.strip().startswith("q=") else "1"
            try:
                return float(quality) > 0
            except ValueError:
                return False
    return False


class WebFiles(StaticFiles):
    """The UI's folder (`web/dist/` or `web/`), `index.html` at `/`, with the cache and encoding above."""

    def __init__(self, *, directory: Path, bundled: bool) -> None:
        super().__init__(directory=directory, html=True)
        self.root = directory.resolve()
        self.bundled = bundled

    def cache_control(self, full_path: Path) -> str:
        """Immutable for the bundle's hashed files, revalidated for the rest."""
        relative = full_path.resolve().relative_to(self.root)
        return IMMUTABLE if self.bundled and relative.parts[:1] == (ASSETS,) else REVALIDATE

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        path = Path(full_path)
        headers = {"Cache-Control": self.cache_control(path)}
        gz = path.with_name(path.name + ".gz")
        response: Response
        if gz.is_file():
            headers["Vary"] = "Accept-Encoding"
        if gz.is_file() and accepts_gzip(Headers(scope=scope).get("accept-encoding", "")):
            media_type = mimetypes.guess_type(path.name)[0] or _MEDIA_TYPES.get(path.suffix, "application/octet-stream")
            response = FileResponse(
                gz, status_code=status_code, headers=headers, media_type=media_type, stat_result=gz.stat()
            )
            response.headers["Content-Encoding"] = "gzip"
        else:
            response = FileResponse(path, status_code=status_code, stat_result=stat_result, headers=headers)
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response
