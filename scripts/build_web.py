"""Build the web UI's bundle, `web/dist/`, when it is missing or stale (`--force`: always).

    python scripts/build_web.py            # build unless web/dist/ is current; prints what it did
    python scripts/build_web.py --check    # exit 1 when web/dist/ is missing or stale, build nothing

esbuild (pinned in package.json and package-lock.json; `npm ci` installs it when node_modules lacks
that version) bundles and minifies `web/js/app.js` and every module it imports, and `web/styles.css`,
into `web/dist/assets/` under content-hashed names (`app-<hash>.js`, `styles-<hash>.css`, with linked
source maps). `web/dist/index.html` is `web/index.html` with its stylesheet and module script pointed
at them, nothing else changed: its inline script stays byte for byte (the Content-Security-Policy
allows it by its SHA-256, handlers/security.py and template.yaml). Each text file gets a gzip copy
(`.gz`) for the local server to send to clients that accept it. `manifest.json` records the sources'
digest (handlers/webbundle.py), which is how the server and this script tell a current bundle.

The bundle is built in a folder of its own and moved into place whole, so the server never sees half
of one. Standard library only, besides node and npm.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from handlers.webbundle import ASSETS, DIST, MANIFEST, WEB_ROOT, built_digest, source_digest  # noqa: E402

ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
ENTRIES = {"script": WEB_ROOT / "js" / "app.js", "styles": WEB_ROOT / "styles.css"}
TAGS = {
    "styles": '<link rel="stylesheet" href="styles.css">',
    "script": '<script type="module" src="js/app.js"></script>',
}
"""The tags of web/index.html that load the sources; each is replaced by one loading the bundle's file."""
COMPRESSED = (".html", ".js", ".css", ".map", ".txt")
LICENSE = WEB_ROOT / "vendor" / "diff" / "LICENSE"
_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)[^>]*>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)


class BuildError(RuntimeError):
    """The bundle cannot be built; the message says why and what to do."""


def pinned_esbuild() -> str:
    """The esbuild version package-lock.json pins."""
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    version: str = lock["packages"]["node_modules/esbuild"]["version"]
    return version


def installed_esbuild() -> str | None:
    """The version of node_modules' esbuild, None when there is none that runs."""
    if not ESBUILD.exists():
        return None
    result = subprocess.run([str(ESBUILD), "--version"], capture_output=True, text=True, check=False)
    return result.stdout.strip() if result.returncode == 0 else None


def ensure_esbuild() -> None:
    """`npm ci` from the lock file unless node_modules has the pinned esbuild already."""
    if installed_esbuild() == pinned_esbuild():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError("building the web UI needs node and npm (node 18 or later): install them, then run again.")
    print(f"== npm ci (esbuild {pinned_esbuild()})", flush=True)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ROOT, check=True)
    if installed_esbuild() != pinned_esbuild():
        raise BuildError(f"npm ci did not install esbuild {pinned_esbuild()} into node_modules/.")


def run_esbuild(out: Path) -> dict[str, str]:
    """Bundle the entries into `out/assets`; returns each entry's output file name."""
    banner = "/*! Includes jsdiff, BSD-3-Clause: " + " ".join(LICENSE.read_text(encoding="utf-8").split()) + " */"
    meta = out / "meta.json"
    subprocess.run(
        [
            str(ESBUILD),
            *(str(p.relative_to(ROOT)) for p in ENTRIES.values()),
            "--bundle",
            "--minify",
            "--format=esm",
            "--target=es2022",
            "--sourcemap=linked",
            "--entry-names=[name]-[hash]",
            f"--banner:js={banner}",
            f"--outdir={out / ASSETS}",
            f"--metafile={meta}",
            "--log-level=warning",
        ],
        cwd=ROOT,
        check=True,
    )
    outputs = json.loads(meta.read_text(encoding="utf-8"))["outputs"]
    meta.unlink()
    names: dict[str, str] = {}
    for kind, entry in ENTRIES.items():
        source = entry.relative_to(ROOT).as_posix()
        found = [Path(o).name for o, info in outputs.items() if info.get("entryPoint") == source]
        if len(found) != 1:
            raise BuildError(f"esbuild wrote {len(found)} outputs for {source}, expected one.")
        names[kind] = found[0]
    return names


def built_index(html: str, names: dict[str, str]) -> str:
    """web/index.html loading the bundle's files; its inline scripts unchanged."""
    built = html
    for kind, tag in TAGS.items():
        if built.count(tag) != 1:
            raise BuildError(f"web/index.html must contain {tag!r} exactly once (it has it {built.count(tag)} times).")
        old = "styles.css" if kind == "styles" else "js/app.js"
        built = built.replace(tag, tag.replace(f'"{old}"', f'"{ASSETS}/{names[kind]}"'))
    if _INLINE_SCRIPT.findall(built) != _INLINE_SCRIPT.findall(html):
        raise BuildError("the built index.html's inline scripts differ from web/index.html's.")
    return built


def compress(folder: Path) -> None:
    """A gzip copy (level 9, no timestamp: the same bytes for the same file) beside each text file."""
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in COMPRESSED:
            data = gzip.compress(path.read_bytes(), compresslevel=9, mtime=0)
            path.with_name(path.name + ".gz").write_bytes(data)


def build() -> Path:
    """Build the bundle into a fresh folder and move it to web/dist/; returns web/dist/."""
    ensure_esbuild()
    digest = source_digest()  # before reading the sources: an edit made during the build makes it stale
    out = Path(tempfile.mkdtemp(prefix=".dist-", dir=WEB_ROOT))
    try:
        names = run_esbuild(out)
        html = (WEB_ROOT / "index.html").read_text(encoding="utf-8")
        (out / "index.html").write_text(built_index(html, names), encoding="utf-8")
        compress(out)
        files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
        manifest = {"source": digest, "esbuild": pinned_esbuild(), "index": "index.html", **names, "files": files}
        (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        out.chmod(0o755)
        old = WEB_ROOT / f".dist-old-{os.getpid()}"
        if DIST.exists():
            DIST.rename(old)
        out.rename(DIST)
    finally:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(WEB_ROOT / f".dist-old-{os.getpid()}", ignore_errors=True)
    return DIST


def summary(dist: Path) -> str:
    """One line a file: its size and its gzip copy's."""
    lines = []
    for path in sorted(dist.rglob("*")):
        gz = path.with_name(path.name + ".gz")
        if path.is_file() and gz.exists() and path.suffix != ".map":
            rel = path.relative_to(dist).as_posix()
            lines.append(f"  {rel:<40} {path.stat().st_size / 1000:7.1f} KB, gzip {gz.stat().st_size / 1000:6.1f} KB")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--force", action="store_true", help="build even when web/dist/ is current")
    parser.add_argument("--check", action="store_true", help="only say whether web/dist/ is current (exit 1 if not)")
    args = parser.parse_args(argv)
    current = built_digest() == source_digest()
    if args.check:
        print("web/dist/ is current" if current else "web/dist/ is missing or stale: run python scripts/build_web.py")
        return 0 if current else 1
    if current and not args.force:
        print("web/dist/ is current")
        return 0
    try:
        dist = build()
    except (BuildError, subprocess.CalledProcessError) as exc:
        print(f"build_web: {exc}", file=sys.stderr)
        return 1
    print(f"built web/dist/ (esbuild {pinned_esbuild()}):\n{summary(dist)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
