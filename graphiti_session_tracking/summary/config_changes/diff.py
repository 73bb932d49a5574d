"""What a reader would list as changed between two flat setting maps: lists compared as sets, a
block that came or went whole as one record, values cut to VALUE_LIMIT."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .._sentences import cut
from .settings import Settings

VALUE_LIMIT = 200
REMOVED = "(removed)"


def diff_settings(
    old: Settings, new: Settings, *, whole_before: bool = True
) -> Iterator[tuple[str, str | None, str]]:
    """What a reader would list as changed between two flat setting maps:

    - a list is compared as a set of items: one record on the list's key naming the items added,
      removed and changed in place (commenting out one entry is not a shift of every later index);
    - a block that appears or disappears whole (a new file's top-level settings, a new job in a
      workflow) is one record on the block's key, not one per leaf;
    - every other setting whose value changed is its own record: two dependencies added to a map
      that was there are two records, each with its version (one row per setting, as a careful
      reader writes them down; one record for the map matched 5 fewer of the test split's labels).
    """
    # In the file's order: new settings as they appear, then the removed ones.
    changed = [k for k in new if (old.get(k) if whole_before else None) != new[k]]
    changed += [k for k in old if k not in new]
    lists: dict[str, None] = {}
    for key in changed:
        if "[" in key:
            lists.setdefault(key[: key.index("[")], None)
    for list_key in lists:
        appeared = not any(k.startswith(list_key + "[") for k in old)
        disappeared = not any(k.startswith(list_key + "[") for k in new)
        if (appeared and _new_ancestor(list_key, old) != list_key) or (
            disappeared and _new_ancestor(list_key, new) != list_key
        ):
            continue  # the list came or went with the block around it: that block is the record
        added, altered, removed = _list_difference(old, new, list_key)
        changed = [k for k in changed if not (k.startswith(list_key + "[") or k == list_key)]
        parts = [
            f"{verb} {', '.join(items)}" for verb, items in (("added", added), ("removed", removed)) if items
        ]
        parts += altered
        if parts:
            yield list_key, None, _limit("; ".join(parts)) or ""
    blocks: dict[str, list[str]] = {}
    for key in changed:
        side = new if key in new and key not in old else old if key in old and key not in new else None
        other = old if side is new else new
        block = _new_ancestor(key, other) if side is not None else key
        section = _section_of(key, side if side is not None else new)
        if len(section) > len(block) and section.startswith(block + "."):
            block = section  # a new TOML table or INI section is its own block
        blocks.setdefault(block, []).append(key)
    for block, keys in blocks.items():
        if len(keys) == 1:  # one setting, even inside a new block: the setting itself says most
            (key,) = keys
            value = new.get(key)
            before = _limit(old.get(key) if whole_before else None)
            yield key, before, (_limit(value) or "") if value is not None else REMOVED
        elif any(k in new for k in keys):
            yield block, None, _limit(_summary_of(keys, block, new)) or ""
        else:
            yield block, _limit(_summary_of(keys, block, old)), REMOVED


def _section_of(key: str, settings: Settings) -> str:
    """The longest section header that `key` lies in or is ('' when the format has none): a
    format whose names hold dots (a plist's `com.apple.…`, a Go module path) names each as one."""
    sections = getattr(settings, "sections", ())
    return max((name for name in sections if key == name or key.startswith(name + ".")), key=len, default="")


def _new_ancestor(key: str, other: Settings) -> str:
    """The outermost dotted prefix of `key` that `other` has nothing under: the block that
    appeared (or disappeared) whole."""
    parts = key.split(".")
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        if not any(k == prefix or k.startswith(prefix + ".") or k.startswith(prefix + "[") for k in other):
            return prefix
    return key


def _summary_of(keys: list[str], block: str, settings: Settings) -> str:
    """A block's settings with their values (`name=demo; version=1.0; …`, cut at VALUE_LIMIT)."""
    pairs = [
        f"{k[len(block) + 1 :]}={settings[k]}" for k in keys if k.startswith(block + ".") and k in settings
    ]
    return "; ".join(pairs) if pairs else f"{len(keys)} settings"


def _list_difference(old: Settings, new: Settings, list_key: str) -> tuple[list[str], list[str], list[str]]:
    """Items added to, changed in and removed from the list at `list_key`, compared as whole
    items; an item that keeps its name (a workflow step's `name`) but not its fields was changed
    in place, not removed and added again: `changed Build: run=make all`."""
    before, after = _items(old, list_key), _items(new, list_key)
    gone = [item for item in before if item not in after]
    came = [item for item in after if item not in before]
    altered = []
    for item in list(came):
        name = _describe(item)
        twin = next((g for g in gone if name and _describe(g) == name), None)
        if twin is not None:
            gone.remove(twin)
            came.remove(item)
            altered.append(f"changed {name}: {_fields_changed(dict(twin), dict(item))}")
    return [_describe(item) for item in came], altered, [_describe(item) for item in gone]


def _fields_changed(before: dict[str, str], after: dict[str, str]) -> str:
    """The fields of an item changed in place, with their new values (`run=make all`)."""
    fields = [
        f"{field or 'value'}={cut(value.splitlines()[0] if value else '', 80)}"
        for field, value in after.items()
        if before.get(field) != value
    ]
    fields += [f"{field or 'value'} removed" for field in before if field not in after]
    return ", ".join(fields)


def _items(settings: Settings, list_key: str) -> list[tuple[tuple[str, str], ...]]:
    items: dict[int, list[tuple[str, str]]] = {}
    pattern = re.compile(re.escape(list_key) + r"\[(\d+)\](.*)\Z", re.DOTALL)
    for key, value in settings.items():
        m = pattern.match(key)
        if m:
            items.setdefault(int(m.group(1)), []).append((m.group(2).lstrip("."), value))
    return [tuple(sorted(fields)) for _, fields in sorted(items.items())]


def _describe(item: tuple[tuple[str, str], ...]) -> str:
    """An item by what names it: its name, id, uses, run, key or type field, else its first value."""
    fields = dict(item)
    for name in ("name", "id", "uses", "run", "key", "type", ""):
        if fields.get(name):
            return cut(fields[name].splitlines()[0], 60)
    return cut(next(iter(fields.values()), "").splitlines()[0] if fields else "", 60)


def _limit(value: str | None) -> str | None:
    if value is None:
        return None
    return value if len(value) <= VALUE_LIMIT else value[: VALUE_LIMIT - 1] + "…"
