"""Settings the session changed in configuration files, read from the edits themselves (no LLM).

Each successful Edit/MultiEdit/Write of a config file is turned into "before" and "after" text,
both parsed into flat `setting → value` maps by the file's format, and compared. The whole file is
used when the transcript holds it (Claude Code's `toolUseResult.originalFile`, or the file as a
command showed it whole: `cat`, `sed -n '1,Np'`), so a TOML key gets its `[section]` and a YAML
key its parents; otherwise only the edited fragment is compared.

Choices: Makefile and Justfile are not settings files (their lines are recipes, not key → value)
and are left to `files_modified`; an ignore file's patterns are its settings, each pattern a few
edits added or removed one row (a created or rewritten list is left to `files_modified`: no one
row a reader would write says it); a removed setting is reported with
new value "(removed)"; a setting changed several times is one record (first old value, last new
value), and dropped when it ends where it started. Values stay text, cut to VALUE_LIMIT.

One module per step: `edits` (the session's edits of each file, their texts before and after,
and the reason the assistant gave), `shown` (a file's whole text as a command printed it),
`formats` (which files are configuration, and their parser), the parsers by format (`keyvalue`:
TOML, INI, .env; `yaml_json`; `manifests`: requirements, ignore files, Dockerfile, Maven/MSBuild) on `settings`
(the flat map they share), `diff` (what changed), and `installs` (dependencies a package
manager's command added or removed, no file tool involved).
"""

from .diff import REMOVED, diff_settings
from .edits import extract_config_changes
from .formats import config_parser
from .keyvalue import parse_ini, parse_toml
from .manifests import parse_ignore
from .yaml_json import parse_json, parse_yaml

__all__ = [
    "REMOVED",
    "config_parser",
    "diff_settings",
    "extract_config_changes",
    "parse_ignore",
    "parse_ini",
    "parse_json",
    "parse_toml",
    "parse_yaml",
]
