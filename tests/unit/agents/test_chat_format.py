"""agents/chat_format.py: the pinned prefix, the sliding window, catalogue modes, token ids."""

from __future__ import annotations

import re

import pytest

from agents.chat_format import (
    CatalogueMode,
    ChatFormatConfig,
    ChatRenderer,
    EpisodeContext,
    Turn,
    build_messages,
    cut_observation,
    render_catalogue,
)
from agents.errors import AgentConfigError

TOOLS = [
    {"name": "search_tracks", "description": "Search tracks\n\nBy title.",
     "inputSchema": {"type": "object", "properties": {"q": {"type": "string"},
                                                      "limit": {"type": "integer"}},
                     "required": ["q"]}},
    {"name": "like_track", "description": "Like a track",
     "inputSchema": {"type": "object", "properties": {"track_id": {"type": "integer"}},
                     "required": ["track_id"]}},
]


def _turns(n: int) -> list[Turn]:
    return [Turn(f"action {k}", f"observation {k}") for k in range(n)]


@pytest.mark.parametrize("w, n, kept", [(1, 5, [4]), (3, 5, [2, 3, 4]), (3, 2, [0, 1]),
                                        (None, 5, [0, 1, 2, 3, 4]), (3, 0, [])])
def test_window_keeps_the_last_w_turns_after_the_prefix(w, n, kept):
    cfg = ChatFormatConfig(history_turns=w, catalogue="none")
    ctx = EpisodeContext.create(cfg, "the task", TOOLS, "")
    messages = build_messages(ctx, _turns(n), cfg)
    assert messages[:2] == ctx.messages()
    assert [m["content"] for m in messages[2::2]] == [f"action {k}" for k in kept]
    assert [m["role"] for m in messages[2:]] == ["assistant", "tool"] * len(kept)
    if kept:  # the newest observation is the last message
        assert messages[-1]["content"] == f"observation {n - 1}"


def test_window_at_least_episode_length_equals_full_history():
    turns = _turns(4)
    full = ChatFormatConfig(history_turns=None)
    ctx = EpisodeContext.create(full, "t", TOOLS, "catalogue")
    for t in range(len(turns) + 1):
        assert build_messages(ctx, turns[:t], ChatFormatConfig(history_turns=4)) == \
            build_messages(ctx, turns[:t], full)


def test_prefix_tokens_identical_across_turns(tiny_tokenizer):
    cfg = ChatFormatConfig(history_turns=2, catalogue="compact")
    renderer = ChatRenderer(tiny_tokenizer)
    ctx = EpisodeContext.create(cfg, "Like the song 'Paper Lanterns'.", TOOLS, "")
    prefix = renderer.encode(tiny_tokenizer.apply_chat_template(ctx.messages(), tokenize=False))
    prompts = [renderer.prompt_ids(build_messages(ctx, _turns(t), cfg)) for t in range(6)]
    for ids in prompts:
        assert ids[:len(prefix)] == prefix
    assert len({len(p) for p in prompts[2:]}) == 1  # the window is full from turn 2 on


def test_completion_ids_end_with_the_end_of_turn_token(tiny_tokenizer):
    renderer = ChatRenderer(tiny_tokenizer)
    ids = renderer.completion_ids('<tool_call>{"name": "x"}</tool_call>')
    assert ids[-1] == tiny_tokenizer.eos_token_id
    assert renderer.decode(ids) == '<tool_call>{"name": "x"}</tool_call>'


@pytest.mark.parametrize("mode, expected", [
    ("none", ""),
    ("names", "Tools: search_tracks, like_track"),
    ("compact", "Tools:\nsearch_tracks(q: string, limit?: integer) - Search tracks\n"
                "like_track(track_id: integer) - Like a track"),
    ("full", "FULL TEXT"),
])
def test_catalogue_modes(mode, expected):
    assert render_catalogue(TOOLS, "FULL TEXT", mode) == expected


def test_system_message_pins_the_catalogue():
    cfg = ChatFormatConfig(catalogue=CatalogueMode.NAMES, system_prompt="Be brief.")
    ctx = EpisodeContext.create(cfg, "task", TOOLS, "")
    assert ctx.system == "Be brief.\n\nTools: search_tracks, like_track"


@pytest.mark.parametrize("limit", [32, 40, 100])
def test_cut_observation_respects_the_limit(limit):
    text = "y" * 500
    cut = cut_observation(text, limit)
    assert len(cut) <= limit
    assert cut.startswith("y")
    n = int(re.search(r"\[\.\.\. (\d+) more chars\]", cut).group(1))
    assert cut.count("y") + n == 500


def test_observations_are_cut_in_prompts():
    cfg = ChatFormatConfig(max_observation_chars=40, catalogue="none")
    ctx = EpisodeContext.create(cfg, "t", TOOLS, "")
    messages = build_messages(ctx, [Turn("a", "z" * 100)], cfg)
    assert len(messages[-1]["content"]) <= 40


@pytest.mark.parametrize("kwargs, text", [
    ({"history_turns": 0}, "history_turns=0"),
    ({"catalogue": "everything"}, "catalogue='everything'"),
    ({"max_observation_chars": 3}, "max_observation_chars=3"),
])
def test_bad_config_names_the_field(kwargs, text):
    with pytest.raises(AgentConfigError, match=re.escape(text)):
        ChatFormatConfig(**kwargs)


QWEN3_LIKE_TEMPLATE = (
    "{%- for m in messages %}{{- '<|im_start|>' + m['role'] + '\\n' + m['content'] + "
    "'<|im_end|>\\n' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}"
    "{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}")
"""Qwen3's switch, reduced: ``enable_thinking=False`` pre-fills an empty thinking block."""


def test_template_kwargs_reach_every_render(tiny_model_dir):
    """``--chat.chat-template-kwargs '{"enable_thinking": false}'`` reaches the sampler's
    renderer, the evaluation policy's and SFT's, so all render the same bytes; a renderer
    built without them is refused where it meets the config."""
    import argparse

    from agents.cli import add_subcommands, train_config_from_args
    from agents.policies.chat_policy import ChatPolicy
    from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer
    from agents.stages.evaluation import eval_policy

    parser = argparse.ArgumentParser(prog="awm")
    add_subcommands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["train", "--chat.chat-template-kwargs",
                              '{"enable_thinking": false}'])
    chat = train_config_from_args(args).chat
    assert chat.chat_template_kwargs == {"enable_thinking": False}

    model, tok = load_model_and_tokenizer(str(tiny_model_dir), "cpu")
    tok.chat_template = QWEN3_LIKE_TEMPLATE
    messages = build_messages(EpisodeContext.create(chat, "the task", TOOLS, ""), [], chat)
    thinking_off = "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    assert not ChatRenderer(tok).prompt_text(messages).endswith(thinking_off)  # the default
    sampler = HFPolicy(model, tok, chat)
    evaluator = eval_policy(sampler, tok, chat, sampler.sampling, 0.0)
    for renderer in (sampler.renderer, evaluator.renderer,
                     ChatRenderer(tok, chat.chat_template_kwargs)):
        assert renderer.prompt_text(messages).endswith(thinking_off)
        assert renderer.prompt_ids(messages) == sampler.renderer.prompt_ids(messages)
    with pytest.raises(AgentConfigError, match=re.escape("chat_template_kwargs")):
        ChatPolicy(sampler.backend, chat, sampler.sampling, ChatRenderer(tok))


def test_template_kwargs_must_be_a_mapping():
    with pytest.raises(AgentConfigError, match=re.escape("ChatFormatConfig.chat_template_kwargs")):
        ChatFormatConfig(chat_template_kwargs=["enable_thinking"])
