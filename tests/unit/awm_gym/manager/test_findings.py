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
