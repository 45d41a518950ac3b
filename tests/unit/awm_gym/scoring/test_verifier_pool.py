"""Tests for awm_gym/scoring/verifier_pool.py: the verifier worker pool, on real SQLite states and real workers."""

from __future__ import annotations

import doctest
import gc
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from awm_gym.errors import VerifierError
from awm_gym.scoring import verifier_pool as verify
from awm_gym.scoring.verifier_pool import VerifierPool, VerifierResult, VerifyJob


def _db(*rows: tuple[int, str]) -> bytes:
    """Serialized bytes of an `orders` table holding `rows`."""
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT)")
    con.executemany("INSERT INTO orders VALUES (?, ?)", rows)
    con.commit()
    data = con.serialize()
    con.close()
    return data


INITIAL = _db((1, "open"), (2, "open"))
SHIPPED = _db((1, "shipped"), (2, "open"))  # the task: ship order 1

SHIP_VERIFIER = textwrap.dedent('''
    def verify_task_completion(initial_db_path: str, final_db_path: str, final_answer=None) -> dict:
        def status(path):
            con = sqlite3.connect(path)
            try:
                return con.execute("SELECT status FROM orders WHERE id = 1").fetchone()[0]
            finally:
                con.close()
        changed = status(initial_db_path) == "open" and status(final_db_path) == "shipped"
        return {"result": "complete" if changed else "others"}
''')

ANSWER_VERIFIER = textwrap.dedent('''
    def verify_task_completion(initial_db_path, final_db_path, final_answer=None):
        con = sqlite3.connect(final_db_path)
        n_open = con.execute("SELECT COUNT(*) FROM orders WHERE status = 'open'").fetchone()[0]
        con.close()
        found = re.search(r"\\b(\\d+)\\s+open orders\\b", final_answer or "")
        ok = found is not None and int(found.group(1)) == n_open
        return {"result": "complete" if ok else "others"}
''')


def _code_job(code: str, final: bytes = SHIPPED, answer: str | None = None,
              name: str = "verify_task_completion", **kw: object) -> VerifyJob:
    return VerifyJob(code, name, "code", INITIAL, final, answer, **kw)


def _sql_job(body: str, name: str = "verify_task", **kw: object) -> VerifyJob:
    return VerifyJob(textwrap.dedent(body), name, "sql", INITIAL, SHIPPED, None, **kw)


@pytest.fixture(scope="module")
def pool():
    with VerifierPool(num_workers=2, timeout_s=10.0) as p:
        yield p


# -- verdicts -------------------------------------------------------------------------------------


def test_code_verifier_sees_the_diff_between_initial_and_final(pool):
    done, untouched = pool.run([_code_job(SHIP_VERIFIER), _code_job(SHIP_VERIFIER, final=INITIAL)])
    assert (done.label, done.error_kind, done.error) == ("complete", None, None)
    assert done.is_complete and not done.is_error
    assert done.output == {"result": "complete"}
    assert untouched.label == "others" and not untouched.is_complete
    assert done.elapsed_s > 0


def test_final_answer_is_checked_with_re(pool):
    right, wrong, missing = pool.run([
        _code_job(ANSWER_VERIFIER, answer="There are 1 open orders left."),
        _code_job(ANSWER_VERIFIER, answer="There are 2 open orders left."),
        _code_job(ANSWER_VERIFIER, answer=None),
    ])
    assert [right.label, wrong.label, missing.label] == ["complete", "others", "others"]


_NAMED = "initial_db_path, final_db_path, final_answer"


@pytest.mark.parametrize(
    ("signature", "received"),
    [
        # named: called by keyword, so the order of the parameters does not matter
        ("initial_db_path, final_db_path, final_answer=None", _NAMED),
        ("final_answer, final_db_path, initial_db_path", _NAMED),
        ("initial_db_path, final_db_path, *, final_answer", _NAMED),
        ("initial_db_path, final_db_path, **extra",
         "initial_db_path, final_db_path, extra['final_answer']"),
        # not named: called positionally
        ("a, b, c", "a, b, c"),
        ("a, b, c=None, /", "a, b, c"),
        ("*args", "args[0], args[1], args[2]"),
    ],
)
def test_signature_decides_keyword_or_positional_call(pool, signature, received):
    code = textwrap.dedent(f'''
        def verify_it({signature}):
            initial, final, answer = {received}
            status = lambda p: sqlite3.connect(p).execute(
                "SELECT status FROM orders WHERE id = 1").fetchone()[0]
            ok = (status(initial), status(final), answer) == ("open", "shipped", "the answer")
            return {{"result": "complete" if ok else "others"}}
    ''')
    (result,) = pool.run([_code_job(code, answer="the answer", name="verify_it")])
    assert result.label == "complete", result


def test_two_argument_code_verifier_gets_no_final_answer(pool):
    keyword = "def verify_x(initial_db_path, final_db_path):\n    return {'result': 'others'}\n"
    positional = "def verify_x(a, b):\n    return {'result': 'complete'}\n"
    results = pool.run([_code_job(keyword, answer="x", name="verify_x"),
                        _code_job(positional, answer="x", name="verify_x")])
    assert [r.label for r in results] == ["others", "complete"]


def test_sql_mode_returns_evidence_awaiting_judge(pool):
    job = _sql_job('''
        def verify_task(initial_db_path, final_db_path):
            rows = lambda p: sqlite3.connect(p).execute("SELECT id, status FROM orders").fetchall()
            return {"before": rows(initial_db_path), "after": rows(final_db_path),
                    "ids": {1}, "raw": b"x"}
    ''')
    (result,) = pool.run([job])
    assert (result.label, result.error_kind) == ("awaiting_judge", None)
    assert not result.is_complete
    # JSON-safe: tuples became lists, a set and bytes went through str()
    assert result.output == {"before": [[1, "open"], [2, "open"]],
                             "after": [[1, "shipped"], [2, "open"]],
                             "ids": "{1}", "raw": "b'x'"}


def test_sql_mode_passes_paths_positionally_without_names(pool):
    (result,) = pool.run([_sql_job('''
        def verify_task(a, b):
            return {"paths": [a.endswith(".db"), b.endswith(".db")]}
    ''')])
    assert result.output == {"paths": [True, True]}


# -- faults are data ------------------------------------------------------------------------------


def test_exception_is_reported_with_type_message_and_line(pool):
    code = textwrap.dedent('''
        def verify_task_completion(initial_db_path, final_db_path, final_answer=None):
            con = sqlite3.connect(final_db_path)
            return con.execute("SELECT nope FROM orders").fetchone()
    ''')
    (result,) = pool.run([_code_job(code)])
    assert (result.label, result.error_kind, result.output) == ("verifier_error", "exception", None)
    assert result.is_error and not result.is_complete
    assert result.error.startswith("OperationalError: no such column: nope")
    assert "line 4 in verify_task_completion" in result.error


@pytest.mark.parametrize(
    ("returned", "output"),
    [
        ("'complete'", "complete"),
        ("{'result': 'done'}", {"result": "done"}),
        ("{'result': 'COMPLETE'}", {"result": "COMPLETE"}),
        ("{'status': 'complete'}", {"status": "complete"}),
        ("None", None),
    ],
)
def test_bad_code_output_shape_is_an_error_not_others(pool, returned, output):
    code = ("def verify_x(initial_db_path, final_db_path, final_answer=None):\n"
            f"    return {returned}\n")
    (result,) = pool.run([_code_job(code, name="verify_x")])
    assert (result.label, result.error_kind) == ("verifier_error", "bad_output")
    assert "expected a dict with 'result' in ['complete', 'others']" in result.error
    assert result.output == output


def test_unserialisable_output_is_bad_output(pool):
    (result,) = pool.run([_sql_job('''
        def verify_task(initial_db_path, final_db_path):
            evidence = {}
            evidence["self"] = evidence
            return evidence
    ''')])
    assert (result.label, result.error_kind) == ("verifier_error", "bad_output")
    assert "not JSON-serialisable" in result.error


def test_syntax_error_and_missing_function_are_compile_errors(pool):
    broken = "def verify_x(a, b:\n    return {}\n"
    wrong_name = "def verify_task(a, b):\n    return {}\n"
    load_fails = "raise RuntimeError('module-level boom')\ndef verify_x(a, b):\n    return {}\n"
    results = pool.run([
        VerifyJob(broken, "verify_x", "sql", INITIAL, SHIPPED),
        VerifyJob(wrong_name, "verify_x", "sql", INITIAL, SHIPPED),
        VerifyJob(load_fails, "verify_x", "sql", INITIAL, SHIPPED),
    ])
    assert [(r.label, r.error_kind) for r in results] == [("verifier_error", "compile")] * 3
    assert "SyntaxError" in results[0].error
    assert "no function 'verify_x'" in results[1].error and "verify_task" in results[1].error
    assert "RuntimeError: module-level boom" in results[2].error


def test_sys_exit_in_a_verifier_is_an_exception_and_the_worker_survives(pool):
    pid = "def verify_x(a, b):\n    return {'pid': os.getpid()}\n"
    exits = "import sys\ndef verify_x(a, b):\n    sys.exit(3)\n"
    with VerifierPool(num_workers=1, timeout_s=5.0) as one:
        before, exited, after = one.run([VerifyJob(c, "verify_x", "sql", INITIAL, SHIPPED)
                                         for c in (pid, exits, pid)])
    assert (exited.label, exited.error_kind) == ("verifier_error", "exception")
    assert exited.error.startswith("SystemExit: 3")
    assert before.output == after.output


def test_verifier_cannot_write_the_database_files(pool):
    (result,) = pool.run([_sql_job('''
        def verify_task(initial_db_path, final_db_path):
            modes = [oct(os.stat(p).st_mode & 0o777) for p in (initial_db_path, final_db_path)]
            con = sqlite3.connect(final_db_path)
            con.execute("INSERT INTO orders VALUES (3, 'forged')")
            con.commit()
            return {"modes": modes}
    ''')])
    assert (result.label, result.error_kind) == ("verifier_error", "exception")
    assert "attempt to write a readonly database" in result.error
    (modes,) = pool.run([_sql_job('''
        def verify_task(initial_db_path, final_db_path):
            return [oct(os.stat(p).st_mode & 0o777) for p in (initial_db_path, final_db_path)]
    ''')])
    assert modes.output == ["0o444", "0o444"]


def test_each_job_gets_its_own_files_and_they_are_removed(pool):
    job = _sql_job('''
        def verify_task(initial_db_path, final_db_path):
            return [initial_db_path, final_db_path]
    ''')
    results = pool.run([job] * 6)
    paths = [p for r in results for p in r.output]
    assert len(set(paths)) == len(paths)
    assert not any(os.path.exists(p) for p in paths)


def test_cached_initial_state_is_correct_per_key():
    count = '''
        def verify_task(initial_db_path, final_db_path):
            n = lambda p: sqlite3.connect(p).execute("SELECT COUNT(*) FROM orders").fetchone()[0]
            return [n(initial_db_path), n(final_db_path), initial_db_path]
    '''
    small, big = _db((1, "open")), _db(*[(i, "open") for i in range(5)])
    jobs = [VerifyJob(textwrap.dedent(count), "verify_task", "sql", initial, SHIPPED, None,
                      initial_key=key)
            for key, initial in [("small", small), ("big", big), ("small", small), ("big", big)]]
    with VerifierPool(num_workers=1, timeout_s=5.0) as one:
        first = one.run(jobs)
        assert [r.output[:2] for r in first] == [[1, 2], [5, 2], [1, 2], [5, 2]]
        assert first[0].output[2] == first[2].output[2]  # kept per key, not rewritten
        # If the pool's record of a worker's cache disagrees with the worker, the worker asks
        # for the bytes again instead of guessing.
        worker = next(w for w in one._slots if w is not None)
        worker.initial_keys.admit("never-sent", len(small))
        (resent,) = one.run([VerifyJob(jobs[0].code, "verify_task", "sql", small, SHIPPED,
                                       initial_key="never-sent")])
        assert resent.output[:2] == [1, 2]
        # in the worker's own view (its work directory is a tmpfs of its mount namespace)
        assert os.path.exists(f"/proc/{worker.process.pid}/root{first[0].output[2]}")
    assert not os.path.exists(first[0].output[2])  # close() removes the worker directories


def test_timeout_kills_only_that_job_and_the_pool_recovers():
    loop = "def verify_x(a, b):\n    while True:\n        pass\n"
    pid = "def verify_x(a, b):\n    return {'pid': os.getpid()}\n"
    with VerifierPool(num_workers=2, timeout_s=1.0) as small:
        (warm,) = small.run([VerifyJob(pid, "verify_x", "sql", INITIAL, SHIPPED)])  # workers up
        batch = [VerifyJob(loop, "verify_x", "sql", INITIAL, SHIPPED)] + [
            _code_job(SHIP_VERIFIER)] * 4
        results = small.run(batch)
        hung = results[0]
        assert (hung.label, hung.error_kind) == ("verifier_error", "timeout")
        assert "timeout_s=1" in hung.error and hung.elapsed_s >= 1.0
        assert [r.label for r in results[1:]] == ["complete"] * 4
        after = small.run([_code_job(SHIP_VERIFIER), _code_job(SHIP_VERIFIER, final=INITIAL)])
        assert [r.label for r in after] == ["complete", "others"]
        assert len(small.worker_pids) == 2


def test_worker_crash_is_reported_and_replaced():
    crash = "def verify_x(a, b):\n    os._exit(1)\n"
    pid = "def verify_x(a, b):\n    return {'pid': os.getpid()}\n"
    with VerifierPool(num_workers=1, timeout_s=5.0) as one:
        (before,) = one.run([VerifyJob(pid, "verify_x", "sql", INITIAL, SHIPPED)])
        crashed, after = one.run([VerifyJob(c, "verify_x", "sql", INITIAL, SHIPPED)
                                  for c in (crash, pid)])
        assert (crashed.label, crashed.error_kind) == ("verifier_error", "crash")
        assert "exited with code 1" in crashed.error
        assert after.label == "awaiting_judge"
        assert after.output["pid"] != before.output["pid"]  # a replacement worker
        assert one.run([_code_job(SHIP_VERIFIER)])[0].label == "complete"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is applied on Linux")
def test_memory_limit_turns_a_runaway_allocation_into_an_exception():
    hog = "def verify_x(a, b):\n    return len(bytearray(4 * 2**30))\n"
    with VerifierPool(num_workers=1, timeout_s=5.0, memory_limit_mb=256) as one:
        hogged, fine = one.run([VerifyJob(hog, "verify_x", "sql", INITIAL, SHIPPED),
                                _code_job(SHIP_VERIFIER)])
    assert (hogged.error_kind, fine.label) == ("exception", "complete")
    assert hogged.error.startswith("MemoryError")


def test_mixed_batch_keeps_job_order(pool):
    raising = "def verify_x(a, b, c=None):\n    raise ValueError('nope')\n"
    jobs = []
    for i in range(24):
        kind = i % 4
        if kind == 0:
            jobs.append(_code_job(SHIP_VERIFIER))
        elif kind == 1:
            jobs.append(_code_job(SHIP_VERIFIER, final=INITIAL))
        elif kind == 2:
            jobs.append(_code_job(raising, name="verify_x"))
        else:
            jobs.append(_sql_job(f"def verify_task(a, b):\n    return {{'i': {i}}}\n"))
    results = pool.run(jobs)
    assert len(results) == len(jobs)
    for i, r in enumerate(results):
        expected = ["complete", "others", "verifier_error", "awaiting_judge"][i % 4]
        assert r.label == expected, (i, r)
        if i % 4 == 3:
            assert r.output == {"i": i}


# -- pool lifecycle -------------------------------------------------------------------------------


def test_workers_start_lazily_persist_across_runs_and_are_not_the_caller():
    pid = "def verify_x(a, b):\n    return os.getpid()\n"
    job = VerifyJob(pid, "verify_x", "sql", INITIAL, SHIPPED)
    with VerifierPool(num_workers=2, timeout_s=5.0) as two:
        assert two.worker_pids == ()  # constructing costs nothing
        assert two.run([]) == [] and two.worker_pids == ()
        seen = {r.output for _ in range(3) for r in two.run([job] * 8)}
        assert seen <= set(two.worker_pids) and len(two.worker_pids) == 2
        assert os.getpid() not in seen


def test_worker_does_not_import_the_package():
    probe = ("import sys\ndef verify_x(a, b):\n"
             "    return sorted(m for m in sys.modules if m.startswith('awm_gym'))\n")
    with VerifierPool(num_workers=1, timeout_s=5.0) as one:
        (result,) = one.run([VerifyJob(probe, "verify_x", "sql", INITIAL, SHIPPED)])
    assert result.output == []


def test_close_is_idempotent_and_a_closed_pool_refuses_work():
    p = VerifierPool(num_workers=1, timeout_s=5.0)
    assert p.run([_code_job(SHIP_VERIFIER)])[0].is_complete
    pids = p.worker_pids
    p.close()
    p.close()
    assert p.closed and p.worker_pids == ()
    assert "closed" in repr(p)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    closed = re.escape("the pool is closed; create a new VerifierPool")
    with pytest.raises(VerifierError, match=closed):
        p.run([_code_job(SHIP_VERIFIER)])


def test_repr_and_properties():
    p = VerifierPool(num_workers=3, timeout_s=2.5)
    assert (p.num_workers, p.timeout_s) == (3, 2.5)
    assert repr(p) == "VerifierPool(num_workers=3, timeout_s=2.5, workers=0 running)"
    p.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_workers": 0}, "num_workers=0"),
        ({"timeout_s": 0}, "timeout_s=0"),
        ({"timeout_s": float("inf")}, "timeout_s=inf"),
        ({"state_dir": "/no/such/dir"}, "state_dir='/no/such/dir'): not a directory"),
        ({"memory_limit_mb": 1}, "memory_limit_mb=1"),
    ],
)
def test_bad_pool_arguments_raise(kwargs, message):
    with pytest.raises(VerifierError, match=re.escape(message)):
        VerifierPool(**kwargs)


def test_bad_jobs_raise_with_the_fix(pool):
    with pytest.raises(VerifierError, match=re.escape(
            "VerifyJob.mode='judge': choose one of 'code', 'sql'.")):
        VerifyJob("", "verify_x", "judge", INITIAL, SHIPPED)  # type: ignore[arg-type]
    with pytest.raises(VerifierError, match=re.escape("function_name='def verify_x'")):
        VerifyJob("", "def verify_x", "code", INITIAL, SHIPPED)
    with pytest.raises(VerifierError, match=re.escape("VerifyJob.final_db must be bytes")):
        VerifyJob("", "verify_x", "code", INITIAL, memoryview(SHIPPED))  # type: ignore[arg-type]
    with pytest.raises(VerifierError, match=re.escape("jobs[1] is a dict, not a VerifyJob")):
        pool.run([_code_job(SHIP_VERIFIER), {}])  # type: ignore[list-item]


def test_state_dir_is_used(tmp_path):
    where = "def verify_x(a, b):\n    return os.path.dirname(os.path.dirname(a))\n"
    with VerifierPool(num_workers=1, timeout_s=5.0, state_dir=str(tmp_path)) as one:
        (result,) = one.run([VerifyJob(where, "verify_x", "sql", INITIAL, SHIPPED)])
        assert result.output == str(tmp_path)
    assert list(tmp_path.iterdir()) == []  # worker directory removed on close


def test_result_record_is_frozen():
    r = VerifierResult("others", None, None, {"result": "others"}, 0.0)
    with pytest.raises(AttributeError):
        r.label = "complete"  # type: ignore[misc]


def test_module_doctests():
    failures, tried = doctest.testmod(verify, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting for a reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def _wait_gone(pids: list[int], within_s: float = 5.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def test_garbage_collected_pool_kills_its_workers():
    p = VerifierPool(num_workers=2, timeout_s=5.0)
    p.run([_code_job(SHIP_VERIFIER)] * 2)
    pids = list(p.worker_pids)
    del p
    gc.collect()
    assert _wait_gone(pids) == []


_ORPHAN_SCRIPT = textwrap.dedent('''
    import os, signal, sqlite3, sys, threading, time
    from awm_gym.scoring.verifier_pool import VerifierPool, VerifyJob
    if __name__ == "__main__":
        con = sqlite3.connect(":memory:"); con.execute("CREATE TABLE t (x)"); db = con.serialize()
        pool = VerifierPool(num_workers=2, timeout_s=60.0, state_dir=sys.argv[2])
        pool.run([VerifyJob("def verify_x(a, b):\\n    return 1\\n", "verify_x", "sql", db, db)])
        print(" ".join(map(str, pool.worker_pids)), flush=True)
        if sys.argv[1] == "sigkill":  # no finaliser runs and a worker is busy in an endless loop
            spin = "def verify_x(a, b):\\n    while True: pass\\n"
            hang = VerifyJob(spin, "verify_x", "sql", db, db)
            threading.Thread(target=pool.run, args=([hang],), daemon=True).start()
            time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGKILL)
''')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_PDEATHSIG")
@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_workers_do_not_outlive_the_parent(tmp_path, how):
    script, state = tmp_path / "orphan.py", tmp_path / "state"
    state.mkdir()
    script.write_text(_ORPHAN_SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with out.open("w") as stdout, err.open("w") as stderr:  # files: a live orphan cannot block us
        subprocess.run([sys.executable, str(script), how, str(state)], stdout=stdout,
                       stderr=stderr, timeout=30, env=env)
    pids = [int(p) for p in out.read_text().split()]
    assert len(pids) == 2, err.read_text()
    left = _wait_gone(pids)
    for pid in left:  # do not leave a spinning orphan behind when this fails
        os.kill(pid, signal.SIGKILL)
    assert left == []
    # A SIGKILLed pool leaves its worker directories; the next pool on that state_dir removes them.
    leftovers = sorted(state.iterdir())
    assert (len(leftovers) == 2) if how == "sigkill" else (leftovers == [])
    with VerifierPool(num_workers=1, timeout_s=5.0, state_dir=str(state)) as next_pool:
        assert next_pool.run([_code_job(SHIP_VERIFIER)])[0].is_complete
        assert len(list(state.iterdir())) == 1 and not any(p.exists() for p in leftovers)
