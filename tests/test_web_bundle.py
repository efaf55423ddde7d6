"""The web UI's bundle: what the server serves (`WEB_UI`), its cache headers and gzip, and the build.

Most tests need no node: they serve folders written here, or the sources. The slow one builds the
real bundle (scripts/build_web.py, esbuild from npm) and serves it.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from handlers import webbundle
from handlers.security import inline_script_hashes
from handlers.webbundle import WebConfigError, served_ui, source_digest
from handlers.webstatic import IMMUTABLE, REVALIDATE, WebFiles, accepts_gzip

ROOT = Path(__file__).resolve().parents[1]
APP_JS = b"export const x = 1;\n" * 200
INDEX = '<!doctype html><script>inline()</script><script type="module" src="assets/app-ABC.js"></script>'


def build_script() -> ModuleType:
    """scripts/build_web.py as a module."""
    spec = importlib.util.spec_from_file_location("build_web", ROOT / "scripts" / "build_web.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_bundle(folder: Path) -> Path:
    """A folder shaped like web/dist/: index.html and one hashed script, each with its gzip copy."""
    build = build_script()
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(INDEX, encoding="utf-8")
    (folder / "assets" / "app-ABC.js").write_bytes(APP_JS)
    build.compress(folder)
    return folder


def client(folder: Path, *, bundled: bool) -> TestClient:
    app = FastAPI()
    app.mount("/", WebFiles(directory=folder, bundled=bundled), name="web")
    return TestClient(app)


# -- serving ---------------------------------------------------------------------------------------


def test_hashed_files_are_immutable_and_the_page_is_revalidated(tmp_path: Path) -> None:
    web = client(fake_bundle(tmp_path), bundled=True)
    page = web.get("/")
    assert page.status_code == 200 and page.headers["cache-control"] == REVALIDATE
    script = web.get("/assets/app-ABC.js")
    assert script.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.content == APP_JS, "decoded, the very file"


def test_the_gzip_copy_goes_to_clients_that_accept_it_and_only_to_them(tmp_path: Path) -> None:
    web = client(fake_bundle(tmp_path), bundled=True)
    zipped = web.get("/assets/app-ABC.js", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.headers["vary"] == "Accept-Encoding"
    assert int(zipped.headers["content-length"]) == (tmp_path / "assets" / "app-ABC.js.gz").stat().st_size
    assert int(zipped.headers["content-length"]) < len(APP_JS) / 10
    for refused in ("identity", "gzip;q=0, identity", "br"):
        plain = web.get("/assets/app-ABC.js", headers={"Accept-Encoding": refused})
        assert "content-encoding" not in plain.headers, refused
        assert plain.headers["vary"] == "Accept-Encoding" and plain.content == APP_JS
    again = web.get("/assets/app-ABC.js", headers={"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == IMMUTABLE


def test_accept_encoding_is_read_with_its_weights() -> None:
    assert accepts_gzip("gzip") and accepts_gzip("br, GZIP;q=0.5") and accepts_gzip("*")
    assert not accepts_gzip("") and not accepts_gzip("gzip;q=0") and not accepts_gzip("deflate, br")
    assert not accepts_gzip("gzip;q=nonsense")


def test_the_sources_are_revalidated_and_never_immutable(tmp_path: Path) -> None:
    """Served unbundled, a module's name does not change when it does."""
    web = client(fake_bundle(tmp_path), bundled=False)
    assert web.get("/assets/app-ABC.js").headers["cache-control"] == REVALIDATE


# -- what is served ----------------------------------------------------------------------------------


@pytest.fixture
def dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """web/dist/ moved to a folder of this test's (the sources stay the project's)."""
    folder = tmp_path / "dist"
    monkeypatch.setattr(webbundle, "DIST", folder)
    return folder


def write_manifest(folder: Path, source: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(INDEX, encoding="utf-8")
    (folder / "manifest.json").write_text(json.dumps({"source": source}), encoding="utf-8")


def test_a_current_bundle_is_served_and_a_stale_one_is_not(dist: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_manifest(dist, source_digest())
    assert served_ui("auto") == served_ui("bundle") == webbundle.ServedUI(dist, bundled=True)
    write_manifest(dist, "0" * 64)
    fallback = served_ui("auto")
    assert fallback.root == webbundle.WEB_ROOT and not fallback.bundled and "stale" in fallback.note
    with pytest.raises(WebConfigError, match="stale"):
        served_ui("bundle")
    assert served_ui("source") == webbundle.ServedUI(webbundle.WEB_ROOT, bundled=False)
    monkeypatch.setenv("WEB_UI", "Source")
    assert served_ui().root == webbundle.WEB_ROOT


def test_a_missing_bundle_and_a_bad_mode_are_said_plainly(dist: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "missing" in served_ui("auto").note
    with pytest.raises(WebConfigError, match=r"missing.*scripts/build_web\.py"):
        served_ui("bundle")
    monkeypatch.setenv("WEB_UI", "dist")
    with pytest.raises(WebConfigError, match="WEB_UI must be one of auto, bundle, source"):
        served_ui()


def test_the_digest_follows_the_sources_and_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "js" / "app.js").write_text("a", encoding="utf-8")
    lock = tmp_path / "package-lock.json"
    lock.write_text("{}", encoding="utf-8")
    monkeypatch.setattr(webbundle, "ROOT", tmp_path)
    monkeypatch.setattr(webbundle, "WEB_ROOT", web)
    monkeypatch.setattr(webbundle, "BUILD_INPUTS", (lock,))
    first = source_digest()
    (web / "dist").mkdir()
    (web / "dist" / "index.html").write_text("built", encoding="utf-8")
    (web / ".dist-tmp").mkdir()
    (web / ".dist-tmp" / "x").write_text("half a build", encoding="utf-8")
    assert source_digest() == first, "build output is no source"
    (web / "js" / "app.js").write_text("b", encoding="utf-8")
    second = source_digest()
    assert second != first
    (web / "js" / "new.js").write_text("", encoding="utf-8")
    assert source_digest() != second
    (web / "js" / "new.js").unlink()
    lock.write_text('{"esbuild": "next"}', encoding="utf-8")
    assert source_digest() != second


# -- the build ----------------------------------------------------------------------------------------


def test_the_built_page_loads_the_hashed_files_and_keeps_its_inline_script() -> None:
    build = build_script()
    html = (ROOT / "web" / "index.html").read_text(encoding="utf-8")
    built = build.built_index(html, {"script": "app-H1.js", "styles": "styles-H2.css"})
    assert '<script type="module" src="assets/app-H1.js"></script>' in built
    assert '<link rel="stylesheet" href="assets/styles-H2.css">' in built
    assert "js/app.js" not in built and 'href="styles.css"' not in built
    assert inline_script_hashes(built) == inline_script_hashes(html)
    with pytest.raises(build.BuildError, match="exactly once"):
        build.built_index(html.replace('<link rel="stylesheet" href="styles.css">', ""), {})


@pytest.mark.slow
def test_the_real_bundle_is_a_few_small_files_served_with_their_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Built by esbuild from the sources (`npm ci` first when needed): one script, one stylesheet, one page."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    subprocess.run([sys.executable, "scripts/build_web.py"], cwd=ROOT, check=True, capture_output=True)
    monkeypatch.setenv("WEB_UI", "bundle")
    monkeypatch.setenv("STORAGE_BACKEND", "sqlite")
    monkeypatch.setenv("SQLITE_PATH", ":memory:")
    from handlers.app import create_app

    web = TestClient(create_app())
    page = web.get("/")
    assert page.headers["cache-control"] == REVALIDATE and page.headers["content-encoding"] == "gzip"
    files = re.findall(r'(?:src|href)="(assets/[^"]+)"', page.text)
    assert sorted(re.sub(r"-[A-Z0-9]{8}\.", "-<hash>.", f) for f in files) == [
        "assets/app-<hash>.js",
        "assets/styles-<hash>.css",
    ]
    sent = int(page.headers["content-length"])
    for name in files:
        response = web.get("/" + name)
        assert response.headers["cache-control"] == IMMUTABLE and response.headers["content-encoding"] == "gzip"
        sent += int(response.headers["content-length"])
    assert sent < 110_000, "the page and its files, compressed, within issue 45's 120 KB with the API's answers"
    script = web.get("/" + files[0] if files[0].endswith(".js") else "/" + files[1]).text
    assert not re.search(r"""\bfrom\s*["']\.""", script), "every module is inside the bundle"
    csp = page.headers["content-security-policy"]
    assert all(h in csp for h in inline_script_hashes(page.text))


def test_esbuild_is_pinned_and_every_setup_command_builds_the_bundle() -> None:
    """The README's start command and the test command (CI's) build web/dist/ when it is missing or stale."""
    declared = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["devDependencies"]["esbuild"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", declared), "an exact version, not a range"
    assert build_script().pinned_esbuild() == declared, "package-lock.json agrees with package.json"
    for script in ("scripts/serve", "scripts/test"):
        text = (ROOT / script).read_text(encoding="utf-8")
        assert "scripts/build_web.py" in text, script
    test = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert test.index("scripts/build_web.py") < test.index("-m pytest"), "built before the tests run"
