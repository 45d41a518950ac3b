"""awm_gym.boundary: what each helper catches, what propagates, and the text it writes."""

from __future__ import annotations

import logging

import pytest

from awm_gym.boundary import Failure, best_effort, capture, closing_on_error, describe, reraise_as
from awm_gym.errors import WorldLoadError


class _BrokenStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("hostile __str__")


def _raise(error: BaseException) -> None:
    raise error


def test_describe_writes_type_and_message() -> None:
    assert describe(ValueError("bad")) == "ValueError: bad"
    assert describe(ValueError("")) == "ValueError: "
    assert describe(KeyError("k")) == "KeyError: 'k'"
    assert describe(ValueError("abcdef"), limit=2) == "ValueError: ab"


def test_describe_survives_a_broken_str() -> None:
    assert describe(_BrokenStr()) == "_BrokenStr"


def test_capture_returns_the_value_or_a_failure() -> None:
    assert capture(int, "12") == 12
    failure = capture(_raise, ZeroDivisionError("no"))
    assert isinstance(failure, Failure)
    assert (failure.kind, failure.text) == ("ZeroDivisionError", "ZeroDivisionError: no")
    assert failure.error.__traceback__ is not None


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(2), GeneratorExit()])
def test_capture_lets_interrupts_through(error: BaseException) -> None:
    with pytest.raises(type(error)):
        capture(_raise, error)


def test_best_effort_logs_once_and_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("test_boundary")
    with caplog.at_level(logging.DEBUG, logger="test_boundary"):
        with best_effort("closing session %s", "s1", log=log, level=logging.WARNING):
            raise OSError("gone")
    [record] = caplog.records
    assert record.getMessage() == "closing session s1 failed"
    assert record.levelno == logging.WARNING and record.exc_info is not None


def test_best_effort_silent_without_a_logger(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        with best_effort("receiving", log=None):
            raise TimeoutError
    assert caplog.records == []


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(1)])
def test_best_effort_lets_interrupts_through(error: BaseException) -> None:
    with pytest.raises(type(error)), best_effort("x", log=None):
        raise error


def test_reraise_as_names_the_boundary_and_keeps_the_cause() -> None:
    expected = r"^World 'w' cannot be loaded: KeyError: 'x'$"
    with pytest.raises(WorldLoadError, match=expected) as info:
        with reraise_as(WorldLoadError, lambda e: f"World 'w' cannot be loaded: {describe(e)}"):
            {}["x"]
    assert isinstance(info.value.__cause__, KeyError)


def test_reraise_as_passes_its_own_error_and_interrupts() -> None:
    own = WorldLoadError("already named")
    with pytest.raises(WorldLoadError) as info, reraise_as(WorldLoadError, lambda e: "other"):
        raise own
    assert info.value is own
    with pytest.raises(SystemExit), reraise_as(WorldLoadError, lambda e: "other"):
        raise SystemExit(3)


def test_reraise_as_catch_base_exception_translates_system_exit() -> None:
    with pytest.raises(WorldLoadError, match="SystemExit: 3"):
        with reraise_as(WorldLoadError, describe, catch=BaseException):
            raise SystemExit(3)


def test_closing_on_error_cleans_up_on_anything_and_reraises() -> None:
    done: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with closing_on_error(lambda: done.append("a"), lambda: done.append("b")):
            raise KeyboardInterrupt
    assert done == ["a", "b"]
    with closing_on_error(lambda: done.append("c")):
        pass
    assert done == ["a", "b"]
