"""Stage ``scenario``: grow a list of world ideas from seed names (self-instruct), without repeats.

Reads the seed file (``--input``: JSONL rows ``{"name", "description"}``) and writes
``gen_scenario.jsonl``: the seeds, each classified by the LLM (``categories``,
``suitability_score`` / ``_level`` / ``_reasoning``, ``simulatable_features``,
``non_simulatable_features``), then ``target_count`` generated scenarios ``{"name",
"description", "categories", "source": "generated"}``. Unlike AWM (awm.md 8, item 20) the seed
file is never written to, ``target_count`` counts only new scenarios, and generated scenarios
carry categories, so the category cap applies to them.

Each round sends ``parallel_requests`` generation requests, each with few-shot examples (highly
suitable seeds), a rotating focus on a few categories and the names already taken. Candidates are
then filtered:

1. an exact repeat of a kept name (normalized) is dropped;
2. a candidate whose embedding has cosine similarity above ``similarity_threshold`` with a kept
   scenario (or one accepted earlier in the round) is a near duplicate;
3. above ``borderline_threshold`` it is dropped when one of its categories is at
   ``max_per_category``; its first category must be under the cap in any case.

A round that keeps nothing counts as a stall; after three, the similarity threshold rises by
0.05 (up to 0.95). The file is rewritten atomically after every round, so a rerun resumes.

Example:
    >>> cands = parse_candidates('[{"name": "PetStay", "description": "Book pet boarding.", '
    ...                          '"categories": ["travel"]}, {"name": ""}]')
    >>> [c["name"] for c in cands]
    ['PetStay']
"""

from __future__ import annotations

import logging
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from awm_gym.worlds import normalize_scenario_name

from .context import RunContext, StageReport
from .embeddings import make_embedder
from .errors import GenerationError, SynthConfigError
from .jsonl_io import read_jsonl, write_jsonl
from .parsing import parse_json_answer
from .repair import RepairJob, StageCounter, run_with_repair
from .stage import Stage

logger = logging.getLogger(__name__)

__all__ = ["run_stage", "parse_candidates", "parse_classification", "CATEGORIES", "STAGE",
           "SPEC"]

STAGE = "scenario"
CATEGORIES = (
    "e_commerce", "social_media", "productivity", "finance", "travel", "health", "education",
    "entertainment", "media_streaming", "food_and_dining", "real_estate", "transportation",
    "customer_support", "developer_tools", "communication", "gaming", "government",
    "logistics", "hr_and_recruiting", "marketing", "events", "home_services", "fitness", "news",
)
_STALL_ROUNDS = 3
_FEW_SHOT = 4

_CLASSIFY_SYSTEM = ("You judge which web applications can be simulated convincingly by a "
                    "database and an API.")
_CLASSIFY_PROMPT = """\
Application: {name}
Description: {description}

Categories to choose from: {categories}

How well can this application be simulated by a SQLite database plus a REST API that an AI
agent operates for a signed-in user? High when its core features are records that users create,
read, update and delete (orders, posts, bookings, tickets); low when they depend on processing
media, real-time physical devices or moving real money.

Reply with a JSON object only:
{{"categories": ["<1 to 3 of the categories, best first>"], "suitability_score": <1-10>, "suitability_level": "high" | "medium" | "low", "suitability_reasoning": "...", "simulatable_features": ["..."], "non_simulatable_features": ["..."]}}"""

_GENERATE_SYSTEM = ("You invent diverse, realistic web applications that serve as simulated "
                    "environments where AI agents learn to use APIs.")
_GENERATE_PROMPT = """\
Examples of the kind of application wanted:
{examples}

{focus}Names already taken (do not repeat or paraphrase them): {taken}

Invent {n} new applications, different from the examples, from the taken names and from each
other. Each must work through records that a signed-in user creates, reads, updates and deletes.
Give each a short brand-like name, a description of 150 to 300 words (what users do, the main
records and their fields, the rules that apply), and 1 to 3 categories, best first, from:
{categories}

Reply with a JSON array only:
[{{"name": "...", "description": "...", "categories": ["..."]}}]"""


def parse_classification(answer: str) -> dict[str, Any]:
    """The classification fields of an answer.

    Raises:
        GenerationError: bad JSON, unknown categories, or a missing or mistyped field.
    """
    value = parse_json_answer(answer, dict)
    cats = value.get("categories")
    if not isinstance(cats, list) or not cats or not all(c in CATEGORIES for c in cats):
        raise GenerationError(f"categories must be 1 to 3 of: {', '.join(CATEGORIES)}; got "
                              f"{cats!r}.")
    level = value.get("suitability_level")
    if level not in ("high", "medium", "low"):
        raise GenerationError(f"suitability_level must be high, medium or low; got {level!r}.")
    score = value.get("suitability_score")
    if not isinstance(score, int) or not 1 <= score <= 10:
        raise GenerationError(f"suitability_score must be an integer 1-10; got {score!r}.")
    return {"categories": cats[:3], "suitability_score": score, "suitability_level": level,
            "suitability_reasoning": str(value.get("suitability_reasoning", "")),
            "simulatable_features": [str(f) for f in value.get("simulatable_features") or []],
            "non_simulatable_features": [str(f) for f in
                                         value.get("non_simulatable_features") or []]}


def parse_candidates(answer: str) -> list[dict[str, Any]]:
    """The well-formed scenarios of a generation answer (malformed entries are skipped).

    Raises:
        GenerationError: bad JSON, or not one usable scenario (the problems are listed).
    """
    value = parse_json_answer(answer, list)
    out, problems = [], []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            problems.append(f"item {i} is not an object")
            continue
        name, desc = item.get("name"), item.get("description")
        cats = item.get("categories")
        if not isinstance(name, str) or not name.strip() or not normalize_scenario_name(name):
            problems.append(f"item {i} has no name")
        elif not isinstance(desc, str) or not desc.strip():
            problems.append(f"{name!r} has no description")
        elif not isinstance(cats, list) or not cats or not all(c in CATEGORIES for c in cats):
            problems.append(f"{name!r}: categories must come from the list given")
        else:
            out.append({"name": name.strip(), "description": " ".join(desc.split()),
                        "categories": cats[:3], "source": "generated"})
    if not out:
        raise GenerationError("No usable scenario in the answer: " + "; ".join(problems[:10]))
    return out


def _read_seeds(path: str | None) -> list[dict[str, Any]]:
    if path is None:
        return []
    if not os.path.isfile(path):
        raise SynthConfigError(f"--input {path}: no such file; give a JSONL file of seed "
                               "scenarios (rows with name and description).")
    seeds = []
    for i, row in enumerate(read_jsonl(path), start=1):
        if not isinstance(row.get("name"), str) or not isinstance(row.get("description"), str):
            raise SynthConfigError(f"{path}: row {i} needs string 'name' and 'description' "
                                   "fields.")
        seeds.append(row)
    return seeds


@dataclass
class _Pool:
    """The kept scenarios, their embeddings and per-category counts."""

    rows: list[dict[str, Any]]
    vectors: np.ndarray | None = None
    counts: Counter = field(default_factory=Counter)

    @staticmethod
    def text(row: dict[str, Any]) -> str:
        return (f"{row['name']}: {row.get('description', '')[:500]} Categories: "
                f"{', '.join(row.get('categories') or [])}")

    def names(self) -> set[str]:
        return {normalize_scenario_name(r["name"]) for r in self.rows}


def _dedup(pool: _Pool, candidates: list[dict[str, Any]], embedder: Any, threshold: float,
           borderline: float, cap: int, stats: Counter, room: int) -> list[dict[str, Any]]:
    names = pool.names()
    fresh = []
    for cand in candidates:
        key = normalize_scenario_name(cand["name"])
        if key in names:
            stats["exact_duplicates"] += 1
            continue
        names.add(key)
        fresh.append(cand)
    if not fresh:
        return []
    if pool.vectors is None:
        pool.vectors = embedder.embed([_Pool.text(r) for r in pool.rows]) if pool.rows else None
    new_vectors = embedder.embed([_Pool.text(c) for c in fresh])
    kept = []
    for cand, vec in zip(fresh, new_vectors, strict=True):
        if len(kept) >= room:
            break
        sims = pool.vectors @ vec if pool.vectors is not None and len(pool.vectors) else \
            np.zeros(0)
        top = float(sims.max()) if sims.size else 0.0
        cats = cand["categories"]
        if top > threshold:
            stats["near_duplicates"] += 1
        elif pool.counts[cats[0]] >= cap or (top > borderline and
                                             any(pool.counts[c] >= cap for c in cats)):
            stats["category_capped"] += 1
        else:
            kept.append(cand)
            pool.rows.append(cand)
            pool.counts.update(cats)
            pool.vectors = vec[None, :] if pool.vectors is None else np.vstack([pool.vectors,
                                                                                vec])
    return kept


def run_stage(run: RunContext) -> StageReport:
    """Classify new seeds, then generate scenarios until ``target_count`` new ones are kept."""
    cfg = run.config
    path = run.path("gen_scenario.jsonl")
    existing = read_jsonl(path)
    seeds = _read_seeds(cfg.input)
    if not seeds and not existing:
        raise SynthConfigError("The scenario stage needs seed scenarios: pass --input "
                               "seeds.jsonl (rows with name and description).")
    known = {normalize_scenario_name(r["name"]) for r in existing if isinstance(r.get("name"),
                                                                                 str)}
    new_seeds = [s for s in seeds if normalize_scenario_name(s["name"]) not in known]
    counter = run.counter(STAGE, len(new_seeds) + max(0, cfg.target_count - sum(
        r.get("source") == "generated" for r in existing)))
    jobs = [RepairJob(normalize_scenario_name(s["name"]), (
        {"role": "system", "content": _CLASSIFY_SYSTEM},
        {"role": "user", "content": _CLASSIFY_PROMPT.format(
            name=s["name"], description=s["description"], categories=", ".join(CATEGORIES))}), s)
        for s in new_seeds]
    classified = []
    for outcome in run_with_repair(run.llm, f"{STAGE}-classify", jobs,
                                   lambda job, text: parse_classification(text),
                                   max_retry=cfg.max_retry):
        run.record(f"{STAGE}-classify", outcome)
        classified.append({**outcome.context, **(outcome.value or {"categories": []}),
                           "source": "seed"})
        counter.count(outcome)
    rows = [r for r in existing if r.get("source") != "generated"] + classified + \
        [r for r in existing if r.get("source") == "generated"]
    write_jsonl(path, rows)
    pool = _Pool(list(rows))
    for r in rows:
        pool.counts.update(r.get("categories") or [])
    stats: Counter = Counter()
    _generate(run, pool, path, counter, stats)
    notes = tuple(f"{k.replace('_', ' ')} {v}" for k, v in sorted(stats.items()))
    return run.report(STAGE, counter, len(seeds) - len(new_seeds), notes)


def _generate(run: RunContext, pool: _Pool, path: str, counter: StageCounter,
              stats: Counter) -> None:
    cfg = run.config
    rng = random.Random(cfg.seed)
    embedder = None
    threshold, stalls = cfg.similarity_threshold, 0
    shots = [r for r in pool.rows if r.get("suitability_level") == "high"] or pool.rows
    for round_idx in range(cfg.max_rounds):
        generated = sum(r.get("source") == "generated" for r in pool.rows)
        room = cfg.target_count - generated
        if room <= 0:
            return
        jobs = []
        for k in range(cfg.parallel_requests):
            examples = rng.sample(shots, min(_FEW_SHOT, len(shots)))
            focus = rng.sample(CATEGORIES, 3)
            taken = [r["name"] for r in pool.rows][-40:]
            jobs.append(RepairJob(f"round{round_idx}-{k}", (
                {"role": "system", "content": _GENERATE_SYSTEM},
                {"role": "user", "content": _GENERATE_PROMPT.format(
                    examples="\n".join(f"- {e['name']}: {e.get('description', '')[:500]}"
                                       for e in examples),
                    focus=f"Focus on these categories: {', '.join(focus)}.\n\n"
                    if k % 10 < 7 else "",
                    taken=", ".join(taken), n=cfg.scenarios_per_request,
                    categories=", ".join(CATEGORIES))})))
        outcomes = run_with_repair(run.llm, STAGE, jobs, lambda job, text: parse_candidates(text),
                                   max_retry=cfg.max_retry)
        candidates = [c for o in outcomes if o.is_ok for c in o.value]
        for o in outcomes:
            run.record(STAGE, o)
        if embedder is None:
            embedder = make_embedder(cfg.embeddings, run.llm)
        kept = _dedup(pool, candidates, embedder, threshold, cfg.borderline_threshold,
                      cfg.max_per_category, stats, room)
        for _ in kept:
            counter.ok += 1
            if counter.bar is not None:
                counter.bar.update(1)
        write_jsonl(path, pool.rows)
        logger.info("scenario round %d: %d candidates, %d kept", round_idx, len(candidates),
                    len(kept))
        stalls = 0 if kept else stalls + 1
        if stalls >= _STALL_ROUNDS and threshold < 0.95:
            threshold, stalls = min(0.95, threshold + 0.05), 0
            logger.warning("scenario: %d rounds without a new scenario; similarity threshold "
                           "raised to %.2f", _STALL_ROUNDS, threshold)
    stats["rounds_exhausted"] += 1


SPEC = Stage(STAGE, (), ("gen_scenario.jsonl",), run_stage)
"""Its seeds come from ``--input`` (or the gen_scenario.jsonl it grows), not from a stage file."""
