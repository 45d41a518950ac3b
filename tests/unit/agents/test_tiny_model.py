"""The tiny model's tokenizer is trained on the text a run may see: never a held-out task."""

from __future__ import annotations

import json

import pytest

import awm_gym
from agents.tiny_model import TinyModelConfig, build_tiny_model, tokenizer_corpus
from awm_gym.worlds.splits import Subset, split_worlds


def _train_tasks(split):
    return [(w, i) for w, idx in split.tasks(Subset.TRAIN).items() for i in idx]


def _held_out(split, world_set):
    """(task text, solution call JSON strings) of every held-out task."""
    out = []
    for subset in (Subset.VAL_TASKS, Subset.VAL_WORLDS):
        for world, indices in split.tasks(subset).items():
            w = world_set[world]
            for i in indices:
                sol = w.solutions[i]
                calls = [] if sol is None else [
                    json.dumps({"name": c.tool, "arguments": dict(c.arguments)})
                    for c in sol.calls]
                out.append((world, i, w.tasks[i], calls))
    return out


def test_corpus_of_the_train_subset_holds_no_held_out_task_or_world():
    world_set = awm_gym.get_world_set(None)
    split = split_worlds(world_set, 0.2, 0.2, 0)
    corpus = tokenizer_corpus(TinyModelConfig.small(), _train_tasks(split))
    joined = "\n".join(corpus)
    held = _held_out(split, world_set)
    assert held
    for world, i, task, _ in held:
        assert task not in joined, (world, i)
    # a held-out world's tool spec is not there either; a training world's is
    for world in split.val_worlds:
        assert json.dumps(world_set[world].api_spec, ensure_ascii=False) not in corpus
    train_world = next(iter(split.tasks(Subset.TRAIN)))
    assert json.dumps(world_set[train_world].api_spec, ensure_ascii=False) in corpus
    for world, i in _train_tasks(split):
        assert world_set[world].tasks[i] in corpus


def test_corpus_without_a_split_holds_every_task():
    world_set = awm_gym.get_world_set(None)
    joined = "\n".join(tokenizer_corpus(TinyModelConfig.small()))
    assert all(task in joined for w in world_set for task in w.tasks)


def test_the_built_model_records_its_train_tasks_and_rebuilds_for_others(tmp_path):
    pytest.importorskip("transformers")
    cfg = TinyModelConfig.small()
    out = build_tiny_model(tmp_path / "m", cfg, train_tasks=[("spotify", 0), ("spotify", 1)])
    manifest = json.loads((out / "tiny_model.json").read_text())
    assert manifest["train_tasks"] == [["spotify", 0], ["spotify", 1]]
    stamp = (out / "tiny_model.json").stat().st_mtime_ns
    build_tiny_model(out, cfg, train_tasks=[("spotify", 1), ("spotify", 0)])  # same set: reused
    assert (out / "tiny_model.json").stat().st_mtime_ns == stamp
    build_tiny_model(out, cfg, train_tasks=[("spotify", 2)])
    assert json.loads((out / "tiny_model.json").read_text())["train_tasks"] == [["spotify", 2]]
