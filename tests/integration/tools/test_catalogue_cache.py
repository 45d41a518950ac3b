"""Cached catalogues reproduce the built ones exactly, and a warm start imports no MCP code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import awm_gym
from awm_gym import EnvConfig
from awm_gym.envs import get_prepared_world
from awm_gym.tools.catalogue import Catalogue, CatalogueCache, build_catalogue, format_tools_text

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("world", awm_gym.get_world_set().names())
def test_a_catalogue_read_back_from_the_cache_is_the_one_built(world: str,
                                                               tmp_path: Path) -> None:
    host = get_prepared_world(awm_gym.get_world_set()[world], EnvConfig()).host
    tools, operation_map = build_catalogue(host.app)
    built = Catalogue.of_app(host.app)
    cache = CatalogueCache(tmp_path)
    cache.save("k", built)
    back = cache.load("k")
    assert back is not None
    assert back.text == built.text == format_tools_text(tools)
    assert [t.to_dict() for t in back.tools] == [t.to_dict() for t in tools]
    assert {n: dict(o) for n, o in back.operations.items()} == {
        t.name: {"path": operation_map[t.name]["path"],
                 "method": operation_map[t.name]["method"],
                 "parameters": [{"name": p.get("name"), "in": p.get("in")}
                                for p in operation_map[t.name].get("parameters") or ()]}
        for t in tools}
    for spec, cached in zip(tools, back.tools, strict=True):
        assert cached.validation_error({"__nope__": object()}) == spec.validation_error(
            {"__nope__": object()})


_WARM_START = """
import sys, json, gymnasium as gym, awm_gym
envs = gym.make_vec("AWM/spotify-v0", num_envs=3)
envs.reset(seed=0)
obs, *_ = envs.step(['<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'] * 3)
print(json.dumps({"text": obs[0], "mcp": [m for m in ("mcp", "fastapi_mcp", "fastapi")
                                          if m in sys.modules],
                  "host": envs.runtime.prepared("spotify").is_host_loaded}))
"""


def test_a_warm_start_lists_tools_without_mcp_code_or_executing_the_world(tmp_path: Path) -> None:
    env = dict(os.environ, AWM_GYM_CACHE=str(tmp_path), PYTHONPATH=str(REPO))
    runs = [json.loads(subprocess.run([sys.executable, "-c", _WARM_START], env=env, check=True,
                                      capture_output=True, text=True, timeout=300)
                       .stdout.splitlines()[-1]) for _ in range(2)]
    cold, warm = runs
    assert "fastapi_mcp" in cold["mcp"] and cold["host"]  # built: code executed, catalogue made
    assert warm["mcp"] == [] and warm["host"] is False
    assert warm["text"] == cold["text"]
    assert cold["text"].startswith("Available MCP Tools (")


def test_loading_a_cached_catalogue_decodes_only_its_text_and_names(tmp_path: Path) -> None:
    """The schemas are decoded when first read: a list_tools reply over 1,000 worlds must not
    pay for decoding every tool's schema (docs/benchmarks/scale.md, "Scale")."""
    built = Catalogue([], {}, "Available MCP Tools (0 tools):\n\u00e9")
    data = built.to_json()
    body_at = data.rindex(b"\n{")
    lazy = Catalogue.from_json(data[:body_at] + b"\n{not json, and never read by list_tools}")
    assert lazy.text == built.text and lazy.names == frozenset()
    with pytest.raises(ValueError):
        _ = lazy.tools
    for cut in (data[:body_at], data[:-3]):  # no body, a body cut short: refused at load
        with pytest.raises(ValueError, match="not followed by the body"):
            Catalogue.from_json(cut)
    assert CatalogueCache(tmp_path).load("missing") is None
