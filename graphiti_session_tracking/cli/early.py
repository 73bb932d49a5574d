"""A question's FalkorDB Lite server starts before the command's imports, not after them.

When the file's shared server is stopped, a `query` or `search` waits for it to load the whole
file (about 0.5 s at 5,000 sessions here), longer than all of the command's own work; and the
command only asked for it once click, the configuration and its own modules were imported (about
0.1 s). So these commands learn their database from the command line as their options will (`--db`,
`--backend`, `--config`, else the configuration file) and open it for reading on a thread first;
the backend then takes what was opened (`falkordblite.take_early`). Anything this cannot place
(help, `query` with no question, an option given twice, `--`, a configuration error, another
backend) and it does nothing: the command opens the file itself and says what is wrong, as before.
An option's value that looks like one of these options (`--text --db`) can make it open another
database for nothing; that file's server then stops after its idle period.
"""

from __future__ import annotations

from pathlib import Path

_READERS = frozenset({"query", "search"})
_OPTIONS = frozenset({"--db", "--backend", "--config"})
_STOP = frozenset({"-h", "--help", "--"})


def options(argv: list[str]) -> dict[str, str] | None:
    """The database options of a reading command's arguments, or None when this is not one or
    the arguments are not plain enough to read without click."""
    if not argv or argv[0] not in _READERS:
        return None
    if argv[0] == "query" and (len(argv) < 2 or argv[1].startswith("-")):
        return None  # no question asked yet (`query` alone lists them)
    found: dict[str, str] = {}
    rest = iter(argv[1:])
    for arg in rest:
        if arg in _STOP:
            return None
        name, equals, value = arg.partition("=")
        if name not in _OPTIONS:
            continue
        if not equals:
            following = next(rest, None)
            if following is None:
                return None
            value = following
        if name in found or not value:
            return None
        found[name] = value
    return found


def open_graph_early(argv: list[str]) -> None:
    """Start opening the command's FalkorDB Lite file for reading, if it is a reading command's."""
    found = options(argv)
    if found is None:
        return
    from graphiti_session_tracking.config import BACKENDS, ConfigError, load_config

    backend = found.get("--backend")
    if backend is not None and backend not in BACKENDS:
        return
    try:
        config = load_config(Path(found["--config"]) if "--config" in found else None)
        graph = config.graph_for(backend)  # type: ignore[arg-type]  # checked against BACKENDS
    except (ConfigError, OSError, ValueError):
        return
    if graph.backend != "falkordblite":
        return
    from graphiti_session_tracking.graph.falkordblite import open_early

    open_early(Path(found.get("--db") or graph.db_path))
