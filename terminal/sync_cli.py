"""The `sync` command's arguments and its run: the config read, `--frozen` offline, else one sync run."""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .sync_config import CONFIG_NAME, ConfigError, SyncConfig, load_config

if TYPE_CHECKING:
    from .sync_api import SyncApi


def add_sync_parser(commands: Any, where: argparse.ArgumentParser) -> None:
    """Register `sync` among the subcommands (`where`: the --api, --token, --db and --log options)."""
    sync = commands.add_parser(
        "sync",
        parents=[where],
        help=f"keep the repository's translations in step with its sources ({CONFIG_NAME}; docs/sync.md)",
    )
    sync.add_argument(
        "--frozen",
        action="store_true",
        help="for CI: exit 1 when a target is missing or stale against the lockfile; no request, no write",
    )
    sync.add_argument("--root", type=Path, help="the repository (default: the git top level of the current folder)")


def sync_command(args: argparse.Namespace) -> int:
    """`sync`: 0 when done (or, with --frozen, up to date), 1 when not, 2 when it could not run."""
    # Imported here, so that the other commands' start pays for no format module.
    from interchange.formats import FormatError

    from .api import ApiError
    from .local import connect
    from .sync import run_frozen
    from .sync_api import SyncApi
    from .sync_lock import LockError

    root = args.root or _top_level(Path.cwd())
    try:
        config = load_config(root)
        if args.frozen:
            return run_frozen(root, config, print)
        db = args.db or (Path(os.environ["SQLITE_PATH"]) if os.environ.get("SQLITE_PATH") else None)
        client = SyncApi.over(connect(args.api or config.api, args.token, db, args.log))
        return asyncio.run(_run(root, config, client))
    except (ConfigError, LockError) as exc:
        print(f"translation-agent sync: {exc}", file=sys.stderr)
        return 2
    except (ApiError, FormatError, OSError, UnicodeDecodeError) as exc:
        print(f"translation-agent sync: {exc}", file=sys.stderr)
        return 1


async def _run(root: Path, config: SyncConfig, client: SyncApi) -> int:
    from .sync import run_sync

    try:
        return await run_sync(root, config, client, print)
    finally:
        await client.aclose()


def _top_level(folder: Path) -> Path:
    """The git repository's top folder holding `folder`, else `folder` itself."""
    done = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else folder
