"""Call one tool of a loaded world the way AWM's MCP layer does, minus the HTTP round trip.

AWM's MCP layer (fastapi_mcp 0.4.0 on mcp 1.26) turns a tool call into an HTTP request sent
through ``httpx.ASGITransport`` into the generated FastAPI app: path arguments are formatted into
the path, query arguments go to the query string, every other argument becomes the JSON body of a
POST, PUT or PATCH (GET and DELETE send none). The reply becomes the text a model reads:
``json.dumps(response_json, indent=2, ensure_ascii=False)`` on success,
``Error calling <tool>. Status code: <code>. Response: <body>`` on a status >= 400, and
``Input validation error: <message>`` when the arguments fail the tool's JSON schema.

:class:`Operation` reproduces that without the ASGI round trip: it routes the concrete path the
way Starlette would (so a shadowing route runs, as under AWM), validates with FastAPI's own
parameter and body functions, calls the endpoint function directly (``async def`` handlers that
never await are driven without an event loop), and serializes with FastAPI's
``serialize_response``. Routes it cannot reproduce exactly (headers, forms, request objects,
middleware, custom exception handlers, unusual paths) go through the real ASGI app instead, so
every call is exact and the common one is fast. Faults in generated code become results, never
exceptions: a crash is a 500, a hang is stopped by a timeout.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import re
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any

from awm_gym.boundary import best_effort, describe
from awm_gym.tools.db_routing import DatabaseSlot, bind_database
from awm_gym.tools.fast_path import route_is_fast
from awm_gym.vocab import ToolOutcome

logger = logging.getLogger(__name__)

__all__ = ["AsgiCaller", "Operation", "ToolResult", "ToolCallTimeout"]

_INTERNAL_ERROR = "Internal Server Error"
_UNSAFE_PATH_VALUE = re.compile(r"[/?#%]")
_PARAM_SEGMENT = re.compile(r"^\{[^}]*\}$")


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one tool call.

    Attributes:
        text: what the model reads (the MCP text content, or the MCP error text).
        is_error: whether MCP would mark the result ``isError``.
        status_code: the app's HTTP status, or None when the call never reached the app.
        outcome: how the call ended: ``OK``, ``HTTP_ERROR`` (status >= 400),
            ``INPUT_INVALID`` (schema), ``TIMEOUT`` or ``CRASH`` (the handler raised: a 500).
        detail: for logs and ``info`` only: the exception inside the handler, if any.
        elapsed_s: wall time of the call.
    """

    text: str
    is_error: bool
    status_code: int | None
    outcome: ToolOutcome
    detail: str | None
    elapsed_s: float


class ToolCallTimeout(BaseException):
    """Raised inside a handler that runs past its deadline (BaseException: generated
    ``except Exception`` blocks must not swallow it)."""


class UserInterrupt(KeyboardInterrupt):
    """Ctrl-C pressed during a tool call. A ``KeyboardInterrupt`` (or ``SystemExit``) the
    generated code raises itself is the handler's fault: a 500, like any crash."""


class _Deadline:
    """Stops a tool call after ``timeout_s``: SIGALRM for Python code (main thread only), an
    SQLite progress handler for long queries. A timer the caller had armed (pytest-timeout,
    say) is put back with its remaining time afterwards."""

    __slots__ = ("timeout_s", "conn", "_deadline", "_old_handler", "_old_timer", "_armed",
                 "_old_sigint")

    def __init__(self, timeout_s: float, conn: Any) -> None:
        self.timeout_s, self.conn = timeout_s, conn
        self._armed = False

    def _on_alarm(self, *_: Any) -> None:
        raise ToolCallTimeout()

    def _on_sigint(self, *_: Any) -> None:
        raise UserInterrupt  # a real Ctrl-C: it propagates, unlike one a handler raises

    def _on_progress(self) -> int:
        return 1 if time.perf_counter() > self._deadline else 0

    def __enter__(self) -> _Deadline:
        start = time.perf_counter()
        self._deadline = start + self.timeout_s
        self.conn.set_progress_handler(self._on_progress, 20_000)
        if threading.current_thread() is threading.main_thread():
            self._old_handler = signal.signal(signal.SIGALRM, self._on_alarm)
            self._old_sigint = signal.signal(signal.SIGINT, self._on_sigint)
            self._old_timer = (signal.setitimer(signal.ITIMER_REAL, self.timeout_s), start)
            self._armed = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old_handler)
            signal.signal(signal.SIGINT, self._old_sigint)
            (delay, interval), start = self._old_timer
            if delay > 0:  # re-arm the caller's timer with what is left of it
                left = delay - (time.perf_counter() - start)
                signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), interval)
            self._armed = False
        self.conn.set_progress_handler(None, 0)


def _drive(coro: Any) -> Any:
    """Run a coroutine that never suspends, without an event loop."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("coroutine suspended; it needs an event loop")


class _NeedsLoop(Exception):
    """A handler suspended although it was expected not to: rerun the call on the ASGI path."""


def _segments_overlap(a: str, b: str) -> bool:
    """Whether some concrete path could match both route templates (conservative)."""
    sa, sb = a.strip("/").split("/"), b.strip("/").split("/")
    if ":path}" in a or ":path}" in b:
        return True
    if len(sa) != len(sb):
        return False
    return all(x == y or _PARAM_SEGMENT.match(x) or _PARAM_SEGMENT.match(y)
               for x, y in zip(sa, sb, strict=True))


class Operation:
    """One tool: its route, how to split its flat arguments, and how to call it.

    Args:
        name: the tool name (operation id).
        spec: fastapi_mcp's operation entry ``{"path", "method", "parameters"}``.
        routes: the app's routes in declaration order (Starlette's matching order).
        fast_ok: whether the app allows the direct path at all (:func:`app_allows_fast_path`).
    """

    def __init__(self, name: str, spec: dict[str, Any], routes: list[Any], *,
                 fast_ok: bool) -> None:
        from fastapi.routing import APIRoute

        self.name = name
        self.method = spec["method"].upper()
        self.path = spec["path"]
        parameters = spec.get("parameters", [])
        self.path_params = [p["name"] for p in parameters if p.get("in") == "path" and p.get("name")]
        self.query_params = [p["name"] for p in parameters if p.get("in") == "query" and p.get("name")]
        self.header_params = [p["name"] for p in parameters if p.get("in") == "header" and p.get("name")]
        api_routes = [r for r in routes if isinstance(r, APIRoute)]
        own = [r for r in api_routes if r.path == self.path and self.method in r.methods]
        by_id = [r for r in own if (r.operation_id or r.unique_id) == name]
        self.route = (by_id or own or [None])[0]
        idx = routes.index(self.route) if self.route is not None else len(routes)
        # earlier routes that could take some of this tool's concrete paths (Starlette: first wins)
        self.shadow_candidates = [r for r in routes[:idx] if isinstance(r, APIRoute)
                                  and self.method in r.methods
                                  and _segments_overlap(r.path, self.path)]
        self._fast_routes = {id(r): fast_ok and route_is_fast(r)
                             for r in [self.route, *self.shadow_candidates] if r is not None}
        self._extractors: dict[int, tuple[_ParamExtractor, _ParamExtractor]] = {}

    def __repr__(self) -> str:
        return f"Operation({self.name!r}, {self.method} {self.path})"

    # -- splitting arguments exactly like fastapi_mcp's _execute_api_tool ------------------
    def split_arguments(self, arguments: dict[str, Any]
                        ) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any] | None]:
        args = dict(arguments)
        path = self.path
        for name in self.path_params:
            if name in args:
                path = path.replace(f"{{{name}}}", str(args.pop(name)))
        query = {n: args.pop(n) for n in self.query_params if n in args}
        headers = {n: args.pop(n) for n in self.header_params if n in args}
        body = args if args else None
        return path, query, headers, body

    def resolve_route(self, path: str) -> tuple[Any, dict[str, Any]] | None:
        """The route Starlette would run for ``path`` and its converted path parameters, or None
        when the direct path cannot decide exactly (the caller then uses ASGI)."""
        for candidate in (*self.shadow_candidates, self.route):
            if candidate is None:
                continue
            match = candidate.path_regex.match(path)
            if match:
                convertors = candidate.param_convertors
                return candidate, {k: convertors[k].convert(v) for k, v in match.groupdict().items()}
        return None

    def call(self, slot: DatabaseSlot, arguments: dict[str, Any], *, timeout_s: float,
             asgi: AsgiCaller) -> ToolResult:
        """Run the tool on ``slot``'s database; never raises for faults of the generated code."""
        start = time.perf_counter()
        path, query, headers, body = self.split_arguments(arguments)
        with bind_database(slot):
            try:
                route_and_params = None
                if not headers and not any(
                        _UNSAFE_PATH_VALUE.search(str(arguments[n])) or str(arguments[n]) in ("", ".", "..")
                        for n in self.path_params if n in arguments):
                    route_and_params = self.resolve_route(path)
                if route_and_params is not None and self._fast_routes.get(id(route_and_params[0])):
                    try:
                        status, payload, detail = self._call_direct(
                            route_and_params[0], route_and_params[1], query, body, slot, timeout_s)
                    except _NeedsLoop:
                        self._fast_routes[id(route_and_params[0])] = False
                        status, payload, detail = asgi.request(
                            self.method, path, query, headers, body, slot, timeout_s)
                else:
                    status, payload, detail = asgi.request(
                        self.method, path, query, headers, body, slot, timeout_s)
            except ToolCallTimeout:
                return ToolResult(f"Tool call timed out after {timeout_s:g} s (the handler did "
                                  "not return).", True, None, ToolOutcome.TIMEOUT,
                                  f"{self.name} exceeded {timeout_s:g} s",
                                  time.perf_counter() - start)
            except UserInterrupt:
                raise
            except (SystemExit, KeyboardInterrupt, GeneratorExit) as e:  # the handler's own
                status, payload, detail = (500, _ResponseBody(_INTERNAL_ERROR.encode()),
                                           f"the handler raised {_describe(e)}")
            finally:
                _cleanup(slot)
        return _to_result(self.name, status, payload, detail, time.perf_counter() - start)

    def _call_direct(self, route: Any, path_values: dict[str, Any], query: dict[str, Any],
                     body: Any, slot: DatabaseSlot, timeout_s: float
                     ) -> tuple[int, Any, str | None]:
        from fastapi.dependencies.utils import request_body_to_args
        from fastapi.encoders import jsonable_encoder

        from awm_gym.tools.fastapi_compat import normalize_errors
        from fastapi.routing import serialize_response
        from fastapi.utils import is_body_allowed_for_status_code
        from starlette.exceptions import HTTPException
        from starlette.responses import Response

        dep = route.dependant
        values: dict[str, Any] = {}
        errors: list[Any] = []
        exits: list[Any] = []
        with _Deadline(timeout_s, slot.conn):
            try:
                for sub in dep.dependencies:
                    value, exit_fn = _enter_dependency(sub.call)
                    exits.append(exit_fn)
                    if sub.name is not None:
                        values[sub.name] = value
                extractors = self._extractors.get(id(route))
                if extractors is None:
                    extractors = self._extractors[id(route)] = (
                        _ParamExtractor(dep.path_params), _ParamExtractor(dep.query_params))
                pv, pe = extractors[0].extract(path_values)
                qv, qe = extractors[1].extract(_query_params(query))
                values.update(pv)
                values.update(qv)
                errors += pe + qe
                if dep.body_params:
                    bv, be = _drive(request_body_to_args(
                        body_fields=dep.body_params, received_body=body,
                        embed_body_fields=route._embed_body_fields))
                    values.update(bv)
                    errors += be
                if errors:
                    content = {"detail": jsonable_encoder(normalize_errors(errors))}
                    _exit_dependencies(exits, None)
                    return 422, content, None
                raw = route.dependant.call(**values)
                if inspect.iscoroutine(raw):
                    try:
                        raw = _drive(raw)
                    except RuntimeError as e:
                        raise _NeedsLoop() from e
                if isinstance(raw, Response):
                    _exit_dependencies(exits, None)
                    return raw.status_code, _ResponseBody(raw.body), None
                content = _drive(serialize_response(
                    field=route.response_field, response_content=raw,
                    include=route.response_model_include, exclude=route.response_model_exclude,
                    by_alias=route.response_model_by_alias,
                    exclude_unset=route.response_model_exclude_unset,
                    exclude_defaults=route.response_model_exclude_defaults,
                    exclude_none=route.response_model_exclude_none, is_coroutine=True))
                _exit_dependencies(exits, None)
                status = route.status_code or 200
                if not is_body_allowed_for_status_code(status):  # FastAPI drops the body
                    return status, _ResponseBody(b""), None
                return status, content, None
            except (ToolCallTimeout, _NeedsLoop):
                raise
            except HTTPException as e:
                _exit_dependencies(exits, e)
                if e.status_code < 200 or e.status_code in (204, 205, 304):
                    return e.status_code, _ResponseBody(b""), None
                return e.status_code, {"detail": e.detail}, None
            except Exception as e:  # noqa: BLE001 - the generated handler's fault: a 500, as AWM sees it
                with best_effort("exiting the dependencies of a crashed handler", log=logger):
                    _exit_dependencies(exits, e)
                return 500, _ResponseBody(_INTERNAL_ERROR.encode()), _describe(e)


class _ParamExtractor:
    """FastAPI's ``request_params_to_args`` with the per-field type introspection done once.

    Same extraction and validation (``_validate_value_with_model_field``), same errors; a single
    pydantic-model parameter group is delegated to FastAPI's own function.
    """

    def __init__(self, fields: list[Any]) -> None:
        from pydantic import BaseModel

        from awm_gym.tools.fastapi_compat import (
            has_field_loop,
            is_sequence_field,
            lenient_issubclass,
        )

        self.fields = fields
        # FastAPI after 0.115 reworked request_params_to_args: there, its own function decides
        self.delegate = not has_field_loop or (
            len(fields) == 1 and lenient_issubclass(fields[0].type_, BaseModel))
        self.items = [] if self.delegate else [
            (f, f.alias, is_sequence_field(f), (f.field_info.in_.value, f.alias)) for f in fields]

    def extract(self, received: Any) -> tuple[dict[str, Any], list[Any]]:
        from copy import deepcopy

        from fastapi.dependencies.utils import (
            _validate_value_with_model_field,
            request_params_to_args,
        )
        from starlette.datastructures import ImmutableMultiDict

        if self.delegate:
            return request_params_to_args(self.fields, received)
        values: dict[str, Any] = {}
        errors: list[Any] = []
        multi = isinstance(received, ImmutableMultiDict)
        for field, alias, is_seq, loc in self.items:
            value = received.getlist(alias) if is_seq and multi else received.get(alias, None)
            if value is None or (is_seq and len(value) == 0):
                value = None if field.required else deepcopy(field.default)
            v, errs = _validate_value_with_model_field(field=field, value=value, values=values,
                                                       loc=loc)
            if errs:
                errors.extend(errs)
            else:
                values[field.name] = v
        return values, errors


class _ResponseBody(bytes):
    """A response body that is not (necessarily) JSON, passed through as text."""


def _describe(e: BaseException) -> str:
    tb = e.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith("<awm world"):
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f" (generated code line {line})" if line else ""
    return f"{describe(e)}{where}"


def _enter_dependency(call: Any) -> tuple[Any, Any]:
    if inspect.isgeneratorfunction(call):
        gen = call()
        value = next(gen)

        def exit_gen(exc: BaseException | None) -> None:
            if exc is None:
                try:
                    next(gen)
                except StopIteration:
                    return
                raise RuntimeError("dependency generator yielded twice")
            try:
                gen.throw(exc)
            except StopIteration:
                return
            except BaseException as raised:  # noqa: BLE001 - the thrown one back is the normal end
                if raised is not exc:
                    raise
        return value, exit_gen
    if inspect.isasyncgenfunction(call):
        agen = call()
        value = _drive(agen.__anext__())

        def exit_agen(exc: BaseException | None) -> None:
            try:
                _drive(agen.__anext__() if exc is None else agen.athrow(exc))
            except StopAsyncIteration:
                return
            except BaseException as raised:  # noqa: BLE001 - the thrown one back is the normal end
                if raised is not exc:
                    raise
        return value, exit_agen
    value = call()
    if inspect.iscoroutine(value):
        value = _drive(value)
    return value, None


def _exit_dependencies(exits: list[Any], exc: BaseException | None) -> None:
    while exits:
        exit_fn = exits.pop()
        if exit_fn is not None:
            exit_fn(exc)


_EMPTY_QUERY: Any = None


def _query_value(value: Any) -> str | None:
    """httpx's ``primitive_value_to_str`` for values whose URL round trip is the identity."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return value
    return None


def _query_params(query: dict[str, Any]) -> Any:
    """The query parameters the app would parse after httpx encoded ``query`` into a URL.

    Scalars (and lists of scalars) come back unchanged from httpx's encoding and Starlette's
    parsing, so they are converted directly; anything else takes the real round trip.
    """
    global _EMPTY_QUERY
    from starlette.datastructures import QueryParams

    if not query:
        if _EMPTY_QUERY is None:
            _EMPTY_QUERY = QueryParams("")
        return _EMPTY_QUERY
    pairs: list[tuple[str, str]] = []
    for key, value in query.items():
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            text = _query_value(item)
            if text is None or isinstance(item, (list, tuple)):
                import httpx

                return QueryParams(str(httpx.QueryParams(query)))
            pairs.append((str(key), text))
    return QueryParams(pairs)


def _cleanup(slot: DatabaseSlot) -> None:
    """Roll back and close whatever the handler left open on this instance's database."""
    sessions, slot.open_sessions = slot.open_sessions, []
    for session in sessions:
        with best_effort("closing a leaked session", log=logger):  # must not break the instance
            session.close()
    if slot.conn.in_transaction:
        slot.conn.rollback()


def _to_result(tool: str, status: int, payload: Any, detail: str | None,
               elapsed_s: float) -> ToolResult:
    if isinstance(payload, _ResponseBody):
        body_text = payload.decode("utf-8", errors="replace")
        try:
            text = json.dumps(json.loads(body_text), indent=2, ensure_ascii=False)
        except ValueError:
            text = body_text
    else:
        try:
            if 400 <= status < 600:  # the compact body JSONResponse sends is shown only on errors
                body_text = text = json.dumps(payload, ensure_ascii=False, allow_nan=False,
                                              separators=(",", ":"))
            else:
                text = json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False)
        except (ValueError, TypeError) as e:  # the server's JSONResponse would fail: a 500
            status, body_text, text, detail = 500, _INTERNAL_ERROR, _INTERNAL_ERROR, _describe(e)
    if 400 <= status < 600:
        outcome = ToolOutcome.CRASH if status == 500 and detail else ToolOutcome.HTTP_ERROR
        return ToolResult(f"Error calling {tool}. Status code: {status}. Response: {body_text}",
                          True, status, outcome, detail, elapsed_s)
    return ToolResult(text, False, status, ToolOutcome.OK, None, elapsed_s)


class AsgiCaller:
    """Sends a request through the real app with ``httpx.ASGITransport``, as fastapi_mcp does."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._local = threading.local()

    def _client(self) -> tuple[asyncio.AbstractEventLoop, Any]:
        state = getattr(self._local, "state", None)
        if state is None:
            import httpx

            loop = asyncio.new_event_loop()
            client = httpx.AsyncClient(
                transport=httpx.ASGITransport(app=self.app, raise_app_exceptions=False),
                base_url="http://apiserver", timeout=10.0)
            state = self._local.state = (loop, client)
        return state

    def request(self, method: str, path: str, query: dict[str, Any], headers: dict[str, Any],
                body: Any, slot: DatabaseSlot, timeout_s: float) -> tuple[int, Any, str | None]:
        loop, client = self._client()
        kwargs: dict[str, Any] = {"params": query, "headers": headers}
        if method in ("POST", "PUT", "PATCH"):
            kwargs["json"] = body
        try:
            with _Deadline(timeout_s, slot.conn):
                response = loop.run_until_complete(asyncio.wait_for(
                    client.request(method, path, **kwargs), timeout_s))
        except (asyncio.TimeoutError, TimeoutError) as e:
            raise ToolCallTimeout() from e
        return response.status_code, _ResponseBody(response.content), None

    def close(self) -> None:
        state = getattr(self._local, "state", None)
        if state is not None:
            loop, client = state
            try:
                loop.run_until_complete(client.aclose())
            finally:
                loop.close()
            self._local.state = None
