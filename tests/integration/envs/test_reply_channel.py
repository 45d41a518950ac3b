"""World code writing to its worker's reply descriptor cannot stretch a deadline, end its
neighbours' episodes, get a neighbour blamed, raise out of ``step()``, make the caller read a
huge reply or take a forged answer for the real one (issue 42, class 3). Each handler of the
hostile world below writes frames in the wire format (awm_gym/envs/wire.py) to the reply
descriptor its worker was started with, then the effects are judged from outside: the step's
wall time, the neighbours' observations and databases, the caller's peak memory, the next
step's observations, and that ``step()`` returned. Most frames carry the id of the request in
flight, read from the worker's memory (as world code can), so that the checks after the id are
what they meet; ``forge_answer`` writes blind. The caller runs in a separate process, in its
own session, so that a hang or a crash there ends only that process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"
TOOL_TIMEOUT_S = 3.0

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux containment")

HANDLERS = textwrap.dedent('''

    def _reply_fd():
        import sys
        return int(sys.argv[2])  # the worker's reply descriptor, as it was started


    def _worker_local(name):
        """A local of the worker's request loop (``_serve`` in awm_gym/envs/shard_worker.py),
        read from the interpreter's frames: the request id in flight, the worker's reporter."""
        import sys
        for frame in sys._current_frames().values():
            while frame is not None:
                if frame.f_code.co_name == "_serve" and name in frame.f_locals:
                    return frame.f_locals[name]
                frame = frame.f_back
        raise LookupError(name)


    def _frame(value, blob_size=0):
        import json, struct
        body = json.dumps(value).encode()
        request_id = _worker_local("request_id")  # what world code reading memory learns
        return struct.pack("!IIQ", len(body), blob_size, request_id) + body


    @app.post("/flood", operation_id="flood_progress", response_model=Reply)
    def flood_progress(seconds: float = Query(..., description="How long"),
                       position: int = Query(0, description="The position each frame names")):
        import time
        signal.signal(signal.SIGALRM, signal.SIG_IGN)  # the tool timeout cannot stop it
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            os.write(_reply_fd(), _frame(["progress", position]))
            time.sleep(0.5)
        return Reply(result="flooded")


    @app.post("/forge_position", operation_id="forge_position", response_model=Reply)
    def forge_position(position: int = Query(..., description="A batch position")):
        os.write(_reply_fd(), _frame(["progress", position]))
        os._exit(3)


    @app.post("/forge_neighbour", operation_id="forge_neighbour", response_model=Reply)
    def forge_neighbour(position: int = Query(..., description="A later batch position")):
        _worker_local("report")(position)  # the worker's own progress frame, for a neighbour
        os._exit(3)


    @app.post("/forge_answer", operation_id="forge_answer", response_model=Reply)
    def forge_answer(instances: int = Query(..., description="Results to forge")):
        import sys
        wire = sys.modules["awm_gym.envs.wire"]
        outcome = sys.modules["awm_gym.envs.protocol"].StepOutcome("forged", 1.0, False, False, {})
        # a complete, well-formed answer, by the worker's own encoder; blind: no request id
        os.write(_reply_fd(), wire.encode_reply("step", "ok", [outcome] * instances))
        return Reply(result="forged")


    @app.post("/forge_blob", operation_id="forge_blob", response_model=Reply)
    def forge_blob(megabytes: int = Query(..., description="The blob's size"),
                   instances: int = Query(..., description="Results to forge")):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        fd = _reply_fd()
        answer = ["ok", [["forged"], [[0, 1.0, True, False, {}]] * instances]]
        os.write(fd, _frame(answer, megabytes * 2**20))
        chunk = b"x" * 2**24
        for _ in range(megabytes // 16):
            os.write(fd, chunk)
        return Reply(result="forged")
''')

SCRIPT = textwrap.dedent('''
    import json, os, resource, sys, time
    sys.path.insert(0, sys.argv[2])
    import gymnasium as gym
    import awm_gym
    from make_hostile_world import rows

    root, handlers, timeout_s = sys.argv[1], sys.argv[3], float(sys.argv[4])
    os.makedirs(root, exist_ok=True)
    files = rows()
    files["gen_envs.jsonl"][0]["full_code"] += handlers
    for name, items in files.items():
        with open(os.path.join(root, name), "w") as f:
            f.write("".join(json.dumps(r) + "\\n" for r in items))

    def call(tool, **arguments):
        return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"

    ADD, COUNT = call("add_note", body="hello"), call("count_notes")

    def peak_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    out = {}
    for name, action in [
            ("blob", call("forge_blob", megabytes=256, instances=3)),
            ("flood", call("flood_progress", seconds=24)),
            ("flood_neighbour", call("flood_progress", seconds=24, position=2)),
            ("verifying", call("forge_position", position=-1)),
            ("far", call("forge_position", position=1_000_000)),
            ("loading", call("forge_position", position=-2)),
            ("neighbour", call("forge_neighbour", position=2)),
            ("answer", call("forge_answer", instances=3))]:
        envs = gym.make_vec("AWM/mix-v0", num_envs=3, world_set=root,  # one env per attack
                            tool_timeout_s=timeout_s, max_episode_steps=100)
        assert len(envs.runtime._shards) == 1  # the three instances share one worker

        def notes():
            obs, *_ = envs.step([COUNT, COUNT, COUNT])
            return [json.loads(o).get("result") if o.startswith("{") else o for o in obs]

        envs.reset(seed=[0, 1, 2], options={"task_idx": [0, 0, 0]})
        envs.step([ADD, ADD, COUNT])
        try:
            before, peak = notes(), peak_mb()
            start = time.monotonic()
            obs, reward, term, trunc, info = envs.step([action, ADD, COUNT])
            errors = zip(info.get("worker_error", [None] * 3), info.get("_worker_error", [0] * 3))
            out[name] = {"elapsed_s": time.monotonic() - start, "obs": list(obs),
                         "outcome": [str(o) for o in info.get("tool_outcome", [None] * 3)],
                         "worker_error": [str(e) if has else None for e, has in errors],
                         "reward": reward.tolist(), "terminated": term.tolist(),
                         "truncated": trunc.tolist(), "grew_mb": peak_mb() - peak,
                         "before": before}
            out[name]["after"] = notes()
        except Exception as e:
            out.setdefault(name, {})["raised"] = f"{type(e).__name__}: {e}"
        envs.close()
    print("RESULT " + json.dumps(out))
''')


@pytest.fixture(scope="module")
def channel_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("reply_channel")
    env = dict(os.environ, AWM_GYM_CACHE=str(tmp / "cache"), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp / "world"), str(FIXTURES),
                           HANDLERS, str(TOOL_TIMEOUT_S)], capture_output=True, text=True,
                          timeout=600, env=env, cwd=tmp, start_new_session=True, check=False)
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-4000:])
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def _result(out: dict, name: str) -> dict:
    result = out[name]
    assert "raised" not in result, result["raised"]
    return result


def _result_of(observation: str) -> str:
    return json.loads(observation).get("result") if observation.startswith("{") else observation


def _culprit_blamed_neighbours_replayed(result: dict) -> None:
    """The hostile instance reads that its call ended its worker and goes on; the neighbours
    get their own results, and their databases hold each write once."""
    assert result["obs"][0].startswith("Error: ") and result["outcome"][0] == "worker_died"
    assert result["terminated"] == [False] * 3 and result["truncated"] == [False] * 3
    before = result["before"]
    assert _result_of(result["obs"][1]) == f"{int(before[1]) + 1} notes"
    assert _result_of(result["obs"][2]) == before[2]
    assert result["after"] == [before[0], str(int(before[1]) + 1), before[2]]


def test_a_reply_with_a_huge_blob_is_refused_before_it_is_read(channel_run: dict) -> None:
    # before: the caller read all 256 MB (peak +768 MB) and took the forged results as the answer
    result = _result(channel_run, "blob")
    assert result["grew_mb"] < 64, result["grew_mb"]
    assert "forged" not in result["obs"] and result["reward"] != [1.0] * 3
    _culprit_blamed_neighbours_replayed(result)


@pytest.mark.parametrize("name", ["flood", "flood_neighbour"])
def test_progress_frames_do_not_extend_a_call_past_its_timeout(channel_run: dict, name: str
                                                               ) -> None:
    # before: each forged frame reset the deadline, and the call ran its whole 24 s
    result = _result(channel_run, name)
    assert result["elapsed_s"] < TOOL_TIMEOUT_S + 5.0, result["elapsed_s"]
    # its own position again is refused at once; a later neighbour's is admitted once, but the
    # neighbour, run alone, answers, and the flood is named when the rest of the batch runs
    _culprit_blamed_neighbours_replayed(result)


@pytest.mark.parametrize("name", ["verifying", "far", "loading"])
def test_a_forged_position_then_an_exit_ends_no_neighbours_episode(channel_run: dict,
                                                                    name: str) -> None:
    # before: -1 (verifying) and -2 (loading) ended all three episodes, 1,000,000 raised
    # IndexError out of step()
    _culprit_blamed_neighbours_replayed(_result(channel_run, name))


def test_a_forged_progress_frame_naming_a_neighbour_does_not_get_it_blamed(channel_run: dict
                                                                           ) -> None:
    # before: the attacker at position 0 reported position 2 with the worker's own reporter,
    # then exited: instance 2 read `worker_died` and lost its turn (and the attacker too, when
    # the batch ran again)
    result = _result(channel_run, "neighbour")
    _culprit_blamed_neighbours_replayed(result)
    assert result["worker_error"][0] is not None, result["worker_error"]
    assert result["worker_error"][1:] == [None, None], result["worker_error"]


def test_a_forged_answer_is_refused_and_the_next_step_reads_its_own_answer(channel_run: dict
                                                                           ) -> None:
    # before: the caller took the three forged results as the step's answer, and the worker's
    # own answer to that step as the answer to the next one (every later step one behind)
    result = _result(channel_run, "answer")
    assert "forged" not in result["obs"] and result["reward"] != [1.0] * 3
    _culprit_blamed_neighbours_replayed(result)  # "after": the next step's own observations
