"""The detail of a crashed handler: ``Type: message (generated code line N)``, even when the
generated exception's ``__str__`` is broken (it used to raise out of the 500 path)."""

from __future__ import annotations

from awm_gym.tools.dispatch import _describe


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def _raised(error: BaseException) -> BaseException:
    try:
        raise error
    except BaseException as e:  # noqa: BLE001 - the test wants the raised object
        return e


def test_detail_names_type_and_message() -> None:
    assert _describe(_raised(ValueError("bad id"))) == "ValueError: bad id"


def test_detail_of_an_unprintable_exception_is_its_type() -> None:
    assert _describe(_raised(_Unprintable())) == "_Unprintable"


def test_detail_points_at_the_generated_line() -> None:
    code = compile("def handler():\n    raise KeyError('x')\n", "<awm world lab>", "exec")
    namespace: dict = {}
    exec(code, namespace)
    try:
        namespace["handler"]()
    except KeyError as e:
        assert _describe(e) == "KeyError: 'x' (generated code line 2)"
