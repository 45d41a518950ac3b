"""Tasks to keep out of training and evaluation: the exclusion file ``awm check`` writes.

``awm check PATH --write-exclusions FILE`` records every task with an error or defect finding
(its world could not load, its verifier does not compile, it is complete on the initial state,
...), each with its reasons, and the content hash of the world set it checked. Every env takes
it as ``exclude=FILE`` (``gym.make_vec``, ``AWM/mix-v0``, ``World``, ``split_worlds``,
``awm train --rollout.exclude``, the TRL / verifiers bridges): an excluded task is never drawn,
pinning one with ``options["task_idx"]`` is refused, and a world whose every task is excluded is
left out of a mix. The env logs how many tasks it left out and keeps the count in
``env.excluded_tasks``.

**Staleness.** The file records the set's hash (:func:`~awm_gym.worlds.set_hash.world_set_hash`)
and one digest per checked world (its template, code, tasks, verifiers and reference
solutions). When the set's hash differs, each checked world's digest is compared: a world that
changed or is gone raises :class:`~awm_gym.errors.ExclusionsError` naming it (its findings may
no longer hold: check again); worlds the file never checked (added since, or left out with
``--world``) are only logged, since none of their tasks is excluded either way.

The JSON layout (``format`` ``awm-gym/exclusions/v1``; docs/worlds.md):

.. code-block:: json

    {"format": "awm-gym/exclusions/v1", "world_set": "triage", "world_set_hash": "sha256:...",
     "worlds": {"triage_lab": "sha256:..."},
     "excluded": [{"world": "triage_lab", "task_idx": 0,
                   "reasons": [{"severity": "defect", "kind": "complete_on_initial_state",
                                "message": "task 0: the verifier says complete ..."}]}]}

Example:
    >>> ex = Exclusions("sha256:x", {"spotify": "sha256:y"}, {("spotify", 3): ("defect: why",)})
    >>> ("spotify", 3) in ex, ex.count, ex.tasks_of("spotify")
    (True, 1, (3,))
    >>> Exclusions.from_dict(ex.to_dict()) == ex
    True
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm_gym.atomic_io import write_text_atomic
from awm_gym.errors import ExclusionsError
from awm_gym.worlds.set_hash import world_set_hash
from awm_gym.worlds.world_set import WorldSet, load_world_set

__all__ = ["EXCLUSIONS_FORMAT", "Exclusions", "ExclusionsError", "Reason", "load_exclusions",
           "remaining", "resolve_exclusions", "world_digest"]

logger = logging.getLogger(__name__)

EXCLUSIONS_FORMAT = "awm-gym/exclusions/v1"
"""The ``format`` field of an exclusion file; a new layout gets a new version."""

Reason = Mapping[str, str]
"""One reason a task is excluded: ``{"severity", "kind", "message"}`` (a finding)."""


def world_digest(world_set: WorldSet, name: str) -> str:
    """``sha256:<hex>`` over what a world's findings depend on: its template and code
    (``WorldDef.content_hash``), tasks, verifiers and reference solutions.

    Example:
        >>> from awm_gym.envs.registration import get_world_set
        >>> world_digest(get_world_set(None), "spotify").startswith("sha256:")
        True
    """
    wdef = world_set[name]
    h = hashlib.sha256(b"awm-gym/exclusions-world/v1\0")

    def put(text: str) -> None:
        data = text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big") + data)

    put(wdef.content_hash)
    for task in wdef.tasks:
        put(task)
    for verifiers in (wdef.code_verifiers, wdef.sql_verifiers):
        for v in verifiers:
            put("" if v is None else f"{v.mode}\0{v.code}")
    for s in wdef.solutions:
        put("" if s is None else json.dumps(
            [[c.tool, c.arguments] for c in s.calls] + [s.final_answer], sort_keys=True,
            ensure_ascii=False, default=str))
    return "sha256:" + h.hexdigest()


@dataclass(frozen=True)
class Exclusions:
    """The tasks an exclusion file keeps out, with their reasons.

    ``awm check --write-exclusions`` builds one from its findings
    (:func:`awm_gym.manager.check.exclusions_of`); :func:`load_exclusions` reads one.
    """

    world_set_hash: str
    """``sha256:<hex>`` of the world set that was checked (:func:`world_set_hash`)."""
    worlds: Mapping[str, str]
    """Every checked world -> its :func:`world_digest` when checked ("" when it could not be
    parsed then: it counts as changed once the set's hash differs)."""
    reasons: Mapping[tuple[str, int], tuple[Reason | str, ...]]
    """``(world, task_idx)`` -> why it is excluded (one entry per finding)."""
    world_set_name: str = ""
    """The set's directory name when checked (a hint for readers; the hashes decide)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "worlds", dict(sorted(self.worlds.items())))
        object.__setattr__(self, "reasons", {k: tuple(self.reasons[k])
                                             for k in sorted(self.reasons)})

    def __contains__(self, pair: object) -> bool:
        return pair in self.reasons

    @property
    def count(self) -> int:
        """How many tasks are excluded."""
        return len(self.reasons)

    def tasks_of(self, world: str) -> tuple[int, ...]:
        """The excluded task indices of ``world``, sorted."""
        return tuple(t for w, t in self.reasons if w == world)

    def __repr__(self) -> str:
        worlds = len({w for w, _ in self.reasons})
        return (f"Exclusions({self.count} tasks of {worlds} worlds, {len(self.worlds)} worlds "
                f"checked, set {self.world_set_hash[:15]}...)")

    # -- checking -------------------------------------------------------------------------
    def check(self, world_set: WorldSet) -> None:
        """Check that this file was written for ``world_set`` as it is now.

        Raises:
            ExclusionsError: the set's hash differs and a checked world changed or is gone
                (named, with the command that writes a fresh file).
        """
        if world_set_hash(world_set) == self.world_set_hash:
            return
        gone = [w for w in self.worlds if w not in world_set]
        changed = [w for w in self.worlds if w in world_set
                   and (not self.worlds[w] or world_digest(world_set, w) != self.worlds[w])]
        if gone or changed:
            what = "; ".join(p for p in (
                f"changed: {', '.join(map(repr, changed))}" if changed else "",
                f"gone: {', '.join(map(repr, gone))}" if gone else "") if p)
            raise ExclusionsError(
                f"these exclusions are stale for {world_set.root}: world(s) checked when the "
                f"file was written differ now ({what}), so their findings may no longer hold. "
                f"Run `awm check {world_set.root} --write-exclusions FILE` again.")
        unchecked = [w for w in world_set.names() if w not in self.worlds]
        logger.info("exclusions: %d world(s) of %s were not checked when the file was written "
                    "(e.g. %s); none of their tasks is excluded", len(unchecked),
                    world_set.root, ", ".join(unchecked[:3]))

    # -- JSON -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON form (module doc; docs/worlds.md, "Excluding bad tasks")."""
        return {"format": EXCLUSIONS_FORMAT, "world_set": self.world_set_name,
                "world_set_hash": self.world_set_hash, "count": self.count,
                "worlds": dict(self.worlds),
                "excluded": [{"world": w, "task_idx": t, "reasons": list(r)}
                             for (w, t), r in self.reasons.items()]}

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the file (atomically); returns its path."""
        path = Path(path)
        data = self.to_dict()
        excluded = data.pop("excluded")
        head = json.dumps(data, indent=2, ensure_ascii=False)[:-2]  # without the closing brace
        rows = ",\n".join("    " + json.dumps(e, ensure_ascii=False) for e in excluded)
        text = head + (',\n  "excluded": [\n' + rows + "\n  ]\n}\n" if rows
                       else ',\n  "excluded": []\n}\n')  # one task per line: diffs read well
        write_text_atomic(path, text)
        return path

    @classmethod
    def from_dict(cls, data: Any, source: str = "exclusions") -> Exclusions:
        """Rebuild from :meth:`to_dict` output.

        Raises:
            ExclusionsError: a field is missing or malformed (named as ``<source>: <field>``).
        """
        if not isinstance(data, dict):
            raise ExclusionsError(f"{source}: expected a JSON object, got "
                                  f"{type(data).__name__}.")
        if data.get("format") != EXCLUSIONS_FORMAT:
            raise ExclusionsError(f"{source}: field 'format' is {data.get('format')!r}, expected "
                                  f"{EXCLUSIONS_FORMAT!r}. Write one with `awm check PATH "
                                  "--write-exclusions FILE`.")
        digest, worlds, excluded = (data.get(k) for k in ("world_set_hash", "worlds", "excluded"))
        if not isinstance(digest, str) or not digest.startswith("sha256:"):
            raise ExclusionsError(f"{source}: field 'world_set_hash' is {digest!r}; expected "
                                  "'sha256:<hex>' as awm_gym.world_set_hash(path) gives.")
        if not isinstance(worlds, dict) or not all(isinstance(v, str) for v in worlds.values()):
            raise ExclusionsError(f"{source}: field 'worlds' is {worlds!r}; expected an object "
                                  "of world name -> 'sha256:<hex>'.")
        if not isinstance(excluded, list):
            raise ExclusionsError(f"{source}: field 'excluded' is {excluded!r}; expected a list "
                                  "of {world, task_idx, reasons}.")
        reasons: dict[tuple[str, int], tuple[Reason | str, ...]] = {}
        for k, item in enumerate(excluded):
            world = item.get("world") if isinstance(item, dict) else None
            t = item.get("task_idx") if isinstance(item, dict) else None
            if (not isinstance(world, str) or not isinstance(t, int) or isinstance(t, bool)
                    or t < 0):
                raise ExclusionsError(f"{source}: excluded[{k}] is {item!r}; expected "
                                      "{'world': name, 'task_idx': int >= 0, 'reasons': [...]}.")
            if world not in worlds:
                raise ExclusionsError(f"{source}: excluded[{k}] names world {world!r}, which is "
                                      "not in field 'worlds' (the checked worlds); add its "
                                      "digest or write the file again with `awm check`.")
            reasons[(world, t)] = tuple(item.get("reasons") or ())
        return cls(digest, worlds, reasons, world_set_name=str(data.get("world_set") or ""))


def load_exclusions(path: str | os.PathLike[str],
                    world_set: WorldSet | str | os.PathLike[str] | None = None) -> Exclusions:
    """Read an exclusion file; with ``world_set``, also check it is not stale
    (:meth:`Exclusions.check`).

    Raises:
        ExclusionsError: unreadable, not JSON, a malformed field, or stale for ``world_set``.
    """
    source = os.fspath(path)
    try:
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    except OSError as e:
        raise ExclusionsError(f"exclusion file {source}: cannot read it ({e.strerror or e}); "
                              "write one with `awm check PATH --write-exclusions FILE`.") from e
    except json.JSONDecodeError as e:
        raise ExclusionsError(f"exclusion file {source}: not valid JSON ({e.msg} at line "
                              f"{e.lineno}).") from e
    exclusions = Exclusions.from_dict(data, source)
    if world_set is not None:
        ws = world_set if isinstance(world_set, WorldSet) else load_world_set(world_set)
        try:
            exclusions.check(ws)
        except ExclusionsError as e:
            raise ExclusionsError(f"exclusion file {source}: {e}") from None
    return exclusions


def resolve_exclusions(exclude: Exclusions | str | os.PathLike[str] | None,
                       world_set: WorldSet) -> Exclusions | None:
    """An env's ``exclude=`` argument (an :class:`Exclusions`, a file path, or None) checked
    against ``world_set``."""
    if exclude is None:
        return None
    if isinstance(exclude, (str, os.PathLike)):
        return load_exclusions(exclude, world_set)
    if not isinstance(exclude, Exclusions):
        raise ExclusionsError(f"exclude={exclude!r}: give the path of an exclusion file (`awm "
                              "check PATH --write-exclusions FILE`) or an Exclusions object.")
    exclusions = exclude
    exclusions.check(world_set)
    return exclusions


def remaining(tasks: Mapping[str, Sequence[int]], exclusions: Exclusions
              ) -> tuple[dict[str, tuple[int, ...]], int]:
    """``tasks`` without the excluded ones, and how many were left out.

    Example:
        >>> ex = Exclusions("sha256:x", {"a": "sha256:y"}, {("a", 1): ()})
        >>> remaining({"a": (0, 1, 2), "b": (0,)}, ex)
        ({'a': (0, 2), 'b': (0,)}, 1)
    """
    out = {w: tuple(t for t in idx if (w, t) not in exclusions) for w, idx in tasks.items()}
    return out, sum(map(len, tasks.values())) - sum(map(len, out.values()))
