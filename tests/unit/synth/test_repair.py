"""The execute-and-correct loop against a real HTTP server: corrections, give-ups, fallbacks."""

from __future__ import annotations

import json

from scripted_llm import Reply

from synth.errors import GenerationError
from synth.repair import Imperfect, RepairJob, StageCounter, run_with_repair


def number(job: RepairJob, text: str) -> int:
    if not text.strip().isdigit():
        raise GenerationError(f"{text!r} is not a number")
    return int(text)


def job(key: str) -> RepairJob:
    return RepairJob(key, ({"role": "user", "content": f"a number for {key}"},))


def test_each_failure_goes_back_with_its_error_up_to_max_retry_times(server, llm) -> None:
    server.script("demo", "never", *[f"word{i}" for i in range(10)])
    server.script("demo", "late", "one", "two", "three", "4")
    counter = StageCounter()
    never, late = run_with_repair(llm, "demo", [job("never"), job("late")], number,
                                  max_retry=5, counter=counter)
    assert not never.is_ok and never.attempts == 6 and len(never.errors) == 6
    assert never.last_error == "'word5' is not a number"
    assert late.value == 4 and late.attempts == 4 and late.is_repaired
    assert (counter.ok, counter.repaired, counter.failed) == (1, 1, 1)
    requests = server.requests_for("demo", "never")
    assert len(requests) == 6
    last = requests[-1]["body"]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert last[1]["content"] == "word4" and "'word4' is not a number" in last[2]["content"]
    assert "Earlier attempts failed with" in last[2]["content"]
    assert "4. 'word3' is not a number" in last[2]["content"]  # at most 4 earlier errors
    assert "5. " not in last[2]["content"]
    assert {r["body"]["messages"][0]["content"] for r in requests} == {"a number for never"}


def test_a_client_error_is_not_retried_but_a_server_error_is(server, llm) -> None:
    server.script("demo", "bad_request", Reply(status=400))
    server.script("demo", "flaky", Reply(status=500), Reply(status=502), Reply(status=503), "7")
    bad, flaky = run_with_repair(llm, "demo", [job("bad_request"), job("flaky")], number,
                                 max_retry=5)
    assert not bad.is_ok and bad.attempts == 1 and "HTTP 400" in bad.last_error
    assert len(server.requests_for("demo", "bad_request")) == 1
    # the client retries twice (max_retries=2), the third 5xx fails that attempt, the next works
    assert flaky.value == 7 and flaky.attempts == 2
    assert flaky.errors[0].startswith("provider: demo request for flaky")
    assert "after 3 attempt(s): InternalServerError (HTTP 503)" in flaky.errors[0]
    assert len(server.requests_for("demo", "flaky")) == 4


def test_an_imperfect_answer_is_kept_only_when_nothing_better_comes(server, llm) -> None:
    server.script("demo", "x", json.dumps({"failed": 3}), json.dumps({"failed": 1}),
                  json.dumps({"failed": 2}))

    def check(job: RepairJob, text: str) -> dict:
        value = json.loads(text)
        raise Imperfect(f"{value['failed']} rows failed", fallback=value,
                        badness=value["failed"])

    [out] = run_with_repair(llm, "demo", [job("x")], check, max_retry=2)
    assert out.value == {"failed": 1} and out.is_imperfect and out.attempts == 3


def test_outcomes_are_reported_as_items_finish(server, llm) -> None:
    server.script("demo", None, "5")
    seen = []
    run_with_repair(llm, "demo", [job("a"), job("b")], number, max_retry=0,
                    on_outcome=lambda o: seen.append((o.key, o.value)))
    assert seen == [("a", 5), ("b", 5)]
