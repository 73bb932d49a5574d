"""Files and folders private to the user (0600 / 0700): what we keep names the user's projects
and sessions. Standard library only, so the embedded server's keeper starts fast."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Any, Literal

GRAPHITI_HOME = Path(os.environ.get("GRAPHITI_HOME", str(Path.home() / ".graphiti")))


def private_folder(path: Path) -> Path:
    """Create `path` and any missing parents readable by the user only (0700): what we keep
    there names the user's projects and sessions. Existing folders are left as they are."""
    missing = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    return path


_OPEN_FLAGS = {
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "r+": os.O_RDWR | os.O_CREAT,
}


def open_private(path: Path | str, mode: Literal["w", "a", "r+", "wb", "ab"] = "w") -> IO[Any]:
    """Open `path` for writing, created readable by the user only (0600) whatever the umask: what
    we write names the user's projects and sessions. A file of ours that an earlier version left
    readable by others is made private (best effort: it may be another user's)."""
    fd = os.open(path, _OPEN_FLAGS[mode.replace("b", "")], 0o600)
    try:
        if os.fstat(fd).st_mode & 0o077:
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o600)
        return os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_private(path: Path, data: str | bytes, *, keep_mode: bool = False, fsync: bool = False) -> None:
    """Write `path` whole or not at all (a 0600 temporary file beside it, then a rename), so it is
    private from its first byte. `keep_mode`: a file that exists keeps its mode (a file the user
    named, such as a project's settings.json); a new one is 0600 all the same."""
    import shutil  # here: every command imports this module, few write a file
    import tempfile

    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        if keep_mode and path.exists():
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
