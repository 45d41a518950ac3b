"""Each action is parsed once, also when its world's code is not loaded yet (a warm start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

_RUN = """
import json, gymnasium as gym, awm_gym
import awm_gym.envs.runtime as runtime
calls = []
parse = runtime.parse_action
runtime.parse_action = lambda *a, **k: calls.append(a[0]) or parse(*a, **k)
envs = gym.make_vec("AWM/spotify-v0", num_envs=3)
envs.reset(seed=0)
loaded = envs.runtime.prepared("spotify").is_host_loaded
tool = sorted(envs.runtime.tool_names("spotify"))[0]
call = '<tool_call>{"name": "%s", "arguments": {}}</tool_call>' % tool
listing = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'
calls.clear()
obs, rewards, *_ = envs.step([listing, call, "done"])
print(json.dumps({"loaded_before": loaded, "parsed": calls, "obs": list(obs),
                  "rewards": [float(r) for r in rewards],
                  "loaded_after": envs.runtime.prepared("spotify").is_host_loaded}))
"""


def test_an_action_of_a_world_loaded_at_its_first_call_is_parsed_once(tmp_path: Path) -> None:
    env = dict(os.environ, AWM_GYM_CACHE=str(tmp_path), PYTHONPATH=str(REPO))
    cold, warm = [json.loads(subprocess.run([sys.executable, "-c", _RUN], env=env, check=True,
                                            capture_output=True, text=True, timeout=300)
                             .stdout.splitlines()[-1]) for _ in range(2)]
    assert cold["loaded_before"] and not warm["loaded_before"]  # warm: code runs at the call
    assert warm["loaded_after"]
    assert len(warm["parsed"]) == len(cold["parsed"]) == 3  # one parse per action
    assert warm["obs"] == cold["obs"] and warm["rewards"] == cold["rewards"]
