"""The TRL bridge with TRL's own code: its chat-template checks, its response parser, its trainer.

The default-suite test renders a world's tools with TRL's Qwen2.5 template, parses a model turn
with TRL's ``parse_response``, calls the parsed tool the way TRL's loop does (``method(**args)``)
and scores finished rollouts with ``awm_reward``: the reference answer 1.0, a wrong one 0.0, a
rollout cut off after a tool result 0.0 (truncated).

The opt-in test (``AWM_RUN_TRL=1``) runs ``examples/trl_grpo.py`` at toy size: the tiny local
model, warm-started on the reference solution, trains two GRPO steps with
``GRPOTrainer(environment_factory=...)`` on CPU, calling the world's tools through TRL's loop.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("trl", reason="the trl extra: pip install 'awm-gym[trl]'")
torch = pytest.importorskip("torch")

from trl.chat_template_utils import (  # noqa: E402
    add_response_schema,
    parse_response,
    qwen2_5_chat_template,
    supports_tool_calling,
)

from awm_gym.integrations.trl import (  # noqa: E402
    awm_reward,
    make_environment,
    reference_conversation,
    task_dataset,
    tool_methods,
)

TOOLS = ["search_artists", "list_artist_albums", "list_followed_artists"]
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "trl_grpo.py"


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from transformers import AutoTokenizer

    from agents.tiny_model import TinyModelConfig, build_tiny_model

    # the folder and config the agents tests use: built once per session
    path = build_tiny_model(tmp_path_factory.getbasetemp() / "agents_tiny_model",
                            TinyModelConfig.small())
    tok = AutoTokenizer.from_pretrained(str(path))
    tok.chat_template = qwen2_5_chat_template
    return add_response_schema(tok)


@pytest.fixture(scope="module")
def Env() -> Iterator[Any]:  # noqa: N802 - a class
    env_class = make_environment("AWM/spotify-v0", tool_names=TOOLS, max_episode_steps=4)
    yield env_class
    env_class.host.close()


def test_trl_renders_parses_and_scores_world_tools(tokenizer: Any, Env: Any) -> None:
    assert supports_tool_calling(tokenizer)
    env = Env()
    [row] = task_dataset(Env, task_indices=[0])
    task = env.reset(**row)
    prompt = row["prompt"][:-1] + [{"role": "user", "content": task}]
    text = tokenizer.apply_chat_template(prompt, tools=tool_methods(env), tokenize=False,
                                         add_generation_prompt=True)
    assert "Luna Vale" in text
    for name in TOOLS:  # each tool's schema, as transformers reads it from the method
        assert f'"name": "{name}"' in text
    assert '"artist_id": {"type": "integer", "description": "Artist ID"}' in text

    prefix = tokenizer.encode(text, add_special_tokens=False)  # TRL passes the prompt's ids
    reference = reference_conversation(Env, task_idx=0)
    completion: list[dict[str, Any]] = []
    for message in reference[2:]:
        if message["role"] == "tool":
            continue
        if message.get("tool_calls"):  # what the model would write, parsed by TRL
            call = message["tool_calls"][0]["function"]
            written = ('<tool_call>\n{"name": "' + call["name"] + '", "arguments": '
                       + json.dumps(call["arguments"]) + "}\n</tool_call><|im_end|>")
            parsed = parse_response(tokenizer, tokenizer.encode(written, add_special_tokens=False),
                                    prefix=prefix, tools=tool_methods(env))
            [tool_call] = parsed["tool_calls"]
            fn = tool_call["function"]
            result = getattr(env, fn["name"])(**fn["arguments"])  # as TRL's loop calls it
            completion += [parsed, {"role": "tool", "name": fn["name"], "content": result}]
        else:
            completion.append({"role": "assistant", "content": message["content"]})
    assert "Moonlit Letters" in completion[3]["content"]
    assert awm_reward(completions=[completion], environments=[env]) == [1.0]

    wrong, cut = Env(), Env()
    for e in (wrong, cut):
        e.reset(task_idx=2, seed=0)
    observation = cut.list_followed_artists()
    rewards = awm_reward(
        completions=[[{"role": "assistant", "content": "Luna Vale, 3 listeners."}],
                     [{"role": "assistant", "content": "", "tool_calls": [{"type": "function",
                       "function": {"name": "list_followed_artists", "arguments": {}}}]},
                      {"role": "tool", "name": "list_followed_artists", "content": observation}]],
        environments=[wrong, cut])
    assert rewards == [0.0, 0.0]
    assert cut._finish(None).label == "truncated"


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("AWM_RUN_TRL") != "1",
                    reason="opt-in: set AWM_RUN_TRL=1 (trains the tiny model with TRL, minutes)")
def test_grpo_trainer_trains_on_a_world(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    spec = importlib.util.spec_from_file_location("trl_grpo_example", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example  # dataclasses look their module up there
    spec.loader.exec_module(example)
    cfg = example.ExampleConfig(output_dir=str(tmp_path), max_steps=2)

    result = example.main(cfg)
    steps = [h for h in result["log_history"] if "rewards/awm_reward/mean" in h]
    assert len(steps) == cfg.max_steps
    assert result["sft_losses"][-1] < result["sft_losses"][0]
    # the model called the world's tools through TRL's loop, solved the task in some rollouts,
    # and the differing rewards moved the weights
    assert max(h["tools/call_frequency"] for h in steps) > 0
    assert max(h["awm/success"] for h in steps) > 0
    assert max(h["grad_norm"] for h in steps) > 0
    for h in steps:
        assert -1.0 <= h["rewards/awm_reward/mean"] <= 1.0
        assert h["awm/unscored"] == 0.0
        assert not math.isnan(h["loss"])
