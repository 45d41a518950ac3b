"""Tests for awm_gym/manager/findings.py: one line per finding, and the exit status."""

from __future__ import annotations

import pytest

from awm_gym.manager.findings import Finding, Severity, exit_code, format_finding


def test_a_finding_is_one_line_cut_to_the_width() -> None:
    finding = Finding(Severity.INFO, "blocking_async_handler", "43 of 43 handlers\nnever await",
                      detail="a, b, c")
    assert format_finding(finding) == ("  info    blocking_async_handler: 43 of 43 handlers never "
                                       "await")
    cut = format_finding(finding, width=40)
    assert len(cut) == 40 and cut.endswith("…")
    assert format_finding(Finding(Severity.ERROR, "load_error", "x"), width=200) == (
        "  error   load_error: x")


@pytest.mark.parametrize(("severities", "code"), [
    ([], 0), ([None], 0), ([Severity.INFO, None], 0), ([Severity.INFO, Severity.DEFECT], 1),
    ([Severity.ERROR, Severity.DEFECT, None], 2),
])
def test_the_exit_status_is_the_worst_severity(severities: list, code: int) -> None:
    assert exit_code(severities) == code


def test_to_dict_is_plain_json() -> None:
    finding = Finding(Severity.DEFECT, "complete_on_initial_state", "task 0: ...", task_idx=0)
    assert finding.to_dict() == {"severity": "defect", "kind": "complete_on_initial_state",
                                 "message": "task 0: ...", "detail": "", "task_idx": 0,
                                 "tool": None}


def test_repeated_findings_of_a_kind_become_one_line_per_kind() -> None:
    from awm_gym.manager.findings import aggregate

    findings = [Finding(Severity.DEFECT, "no_verifier", f"task {t} has no verifier", task_idx=t)
                for t in range(10)]
    findings += [Finding(Severity.DEFECT, "duplicate_route", "GET /a twice", tool="a"),
                 Finding(Severity.ERROR, "duplicate_route", "GET /b twice", tool="b"),
                 Finding(Severity.INFO, "no_reference_solution", "3 of 10 tasks ...")]
    out = aggregate(findings, tasks_total=10)
    assert [f.kind for f in out] == ["no_verifier", "duplicate_route", "no_reference_solution"]
    assert out[0].message == ("10 of 10 tasks have no verifier: they cannot be scored (tasks 0, "
                              "1, 2, 3, 4, ... (10 in all))")
    assert out[0].detail.splitlines()[9] == "task 9 has no verifier"
    assert out[1].severity is Severity.ERROR  # the worst of the group
    assert out[1].message == "2 findings: GET /a twice; GET /b twice"
    assert out[2] is findings[-1]  # a kind found once stays as it is
