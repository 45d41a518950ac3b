"""Each ``awm`` command's main failure is one line on stderr, exit status 2, no traceback.

Runs the real entry point (``awm_gym.cli.main``) against real missing files, bad URLs, closed
ports (nothing listens on the discard port 9) and bad option values; one case also runs it as a
subprocess, where ``--debug`` must bring the traceback back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from awm_gym.cli import main

DEAD_HTTP = "http://127.0.0.1:9"  # the discard port: nothing listens there


def _cases(tmp: Path) -> list[tuple[list[str], str]]:
    missing = str(tmp / "missing")
    return [
        (["list", missing], "awm list: error: World set " + missing + " does not exist"),
        (["check", missing], "awm check: error: World set " + missing + " does not exist"),
        (["demo", "--world", "nosuch"], "awm demo: error: No world 'nosuch'"),
        (["eval", "AWM/spotfy-v0"], "awm eval: error: No env id 'AWM/spotfy-v0' is registered."
                                    " Did you mean 'AWM/spotify-v0'"),
        (["eval", "AWM/spotify-v0", "--num-envs", "many"],
         "awm eval: error: argument --num-envs: invalid int value: 'many'"),
        (["eval", "AWM/spotify-v0", "--num-envs", "0"], "awm eval: error: --num-envs 0: must be"),
        (["record", "AWM/spotify-v0", "ds", "--worlds-dir", missing],
         "awm record: error: World set " + missing + " does not exist"),
        (["render", str(tmp / "html"), "--dataset", missing],
         "awm render: error: " + missing + " is not an awm_gym dataset"),
        (["render", str(tmp / "html")], "awm render: error: give --dataset NAME"),
        (["env", "start", "--world", "nosuch"], "awm env start: error: No world 'nosuch'"),
        (["env", "start", "--world", "spotify", "--port", "70000"],
         "awm env start: error: ServerConfig.port=70000"),
        (["env", "check", "--url", DEAD_HTTP, "--timeout", "5"],
         "awm env check: error: cannot list the tools of http://127.0.0.1:9/mcp"),
        (["env", "check", "--url", "127.0.0.1:8001"], "awm env check: error: url='127.0.0.1:8001'"),
        (["gen", "scenario", "--input", missing, "--output-dir", str(tmp / "out")],
         "awm gen scenario: error: --input " + missing + ": no such file"),
        (["gen", "task", "--input", missing, "--output-dir", str(tmp / "out")],
         "awm gen task: error: --input " + missing + ": no such file"),
        (["gen", "task", "--max-retry", "-1"], "awm gen task: error: SynthConfig: target_count"),
        (["gen", "reset_db", "--output-dir", missing],
         "awm gen reset_db: error: " + missing + " has no gen_db.jsonl"),
        (["agent", "--world", "spotify", "--task", "0", "--endpoint", DEAD_HTTP + "/v1"],
         "awm agent: error: cannot list the models at http://127.0.0.1:9/v1"),
        (["agent", "--world", "spotify", "--task", "0", "--endpoint", "localhost:8000"],
         "awm agent: error: LLMEndpoint.base_url='localhost:8000'"),
        (["train", "--run.device", "tpu"], "awm train: error: RunConfig.device='tpu'"),
        (["train", "--grpo.steps", "two"],
         "awm train: error: argument --grpo.steps: invalid int value: 'two'"),
        (["split", missing], "awm split: error: World set " + missing + " does not exist"),
        (["split", "--val-worlds", "1"], "awm split: error: --val-worlds 1.0: use a fraction"),
        (["eval", "AWM/spotify-v0", "--split", missing],
         "awm eval: error: split file " + missing + ": cannot read it"),
        (["eval", "AWM/spotify-v0", "--subset", "train"],
         "awm eval: error: --subset train needs --split FILE"),
        (["nosuch"], "awm: error: argument command: invalid choice: 'nosuch'"),
    ]


def test_every_command_fails_in_one_line(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    cases = _cases(tmp_path)
    assert {argv[0] for argv, _ in cases} >= {"list", "check", "demo", "split", "eval",
                                              "record", "render", "env", "gen", "agent", "train"}
    for argv, expected in cases:
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert err.startswith(expected), (argv, err)
        assert err.count("\n") == 1 and "Traceback" not in err, (argv, err)


@pytest.mark.parametrize("stage", ["scenario", "task", "db", "sample", "spec", "env",
                                   "verifier", "solution", "finalize", "all"])
def test_every_gen_stage_without_its_input_fails_in_one_line(
        stage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: every stage but scenario printed "ok 0" and exited 0 on an empty directory
    code = main(["gen", stage, "--output-dir", str(tmp_path), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"awm gen {stage}: error: ") and err.count("\n") == 1, err
    needs = "--input" if stage in ("scenario", "task", "all") else "gen_tasks.jsonl"
    assert needs in err, err


def test_the_installed_entry_point_prints_one_line_and_debug_the_traceback(
        tmp_path: Path) -> None:
    command = [sys.executable, "-m", "awm_gym.cli", "list", str(tmp_path / "missing")]
    plain = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 2 and plain.stdout == ""
    assert plain.stderr.startswith("awm list: error: World set ")
    assert len(plain.stderr.splitlines()) == 1 and "Traceback" not in plain.stderr
    debug = subprocess.run([*command, "--debug"], capture_output=True, text=True, timeout=120)
    assert debug.returncode == 2 and "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.splitlines()[-1] == plain.stderr.strip()


def test_snake_case_spellings_are_accepted_and_hidden(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "result.json"
    assert main(["eval", "AWM/spotify-v0", "--episodes", "1", "--num_envs", "1", "--quiet",
                 "--task_idx", "0", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["episodes"] == 1
    capsys.readouterr()
    assert main(["eval", "--help"]) == 0
    shown = capsys.readouterr().out
    assert "--num-envs" in shown and "--num_envs" not in shown
    assert "Instances run at once. (default: 16)" in " ".join(shown.split())
