"""Which generated routes the direct dispatch path can run exactly, and which need the ASGI app.

A route is *fast* when :class:`~awm_gym.tools.dispatch.Operation` can validate its arguments and
call its endpoint function itself with the same result as a request through the app: no headers,
cookies, forms, request objects or awaiting dependencies, a JSON response, and (for ``async def``
handlers) no ``await`` in the body, so the coroutine can be driven without an event loop.

Example:
    >>> async def handler():
    ...     return 1
    >>> handler_awaits(handler)
    False
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

__all__ = ["app_allows_fast_path", "handler_awaits", "route_is_fast"]


def handler_awaits(fn: Any) -> bool:
    """Whether a coroutine function's own body contains ``await``/``async for``/``async with``."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return True  # unknown: assume it needs an event loop
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    return any(isinstance(node, (ast.Await, ast.AsyncFor, ast.AsyncWith))
               for node in ast.walk(tree))


def _simple_dependency(sub: Any) -> bool:
    """A sub-dependency the fast path can run itself: no parameters of its own, no awaits."""
    if (sub.dependencies or sub.path_params or sub.query_params or sub.header_params
            or sub.cookie_params or sub.body_params or sub.request_param_name
            or sub.websocket_param_name or sub.http_connection_param_name
            or sub.background_tasks_param_name or sub.response_param_name
            or sub.security_scopes_param_name or sub.call is None):
        return False
    if inspect.iscoroutinefunction(sub.call) or inspect.isasyncgenfunction(sub.call):
        return not handler_awaits(sub.call)
    return True


def route_is_fast(route: Any) -> bool:
    """Whether :class:`Operation` can run ``route`` directly and exactly (else: ASGI path)."""
    from fastapi import params
    from fastapi.datastructures import DefaultPlaceholder
    from fastapi.responses import JSONResponse

    dep = route.dependant
    if (dep.header_params or dep.cookie_params or dep.request_param_name
            or dep.websocket_param_name or dep.http_connection_param_name
            or dep.background_tasks_param_name or dep.response_param_name
            or dep.security_scopes_param_name):
        return False
    if route.body_field is not None and isinstance(route.body_field.field_info, params.Form):
        return False
    response_class = route.response_class
    if isinstance(response_class, DefaultPlaceholder):
        response_class = response_class.value
    if response_class is not JSONResponse:
        return False
    if not all(_simple_dependency(sub) for sub in dep.dependencies):
        return False
    if inspect.iscoroutinefunction(route.endpoint) and handler_awaits(route.endpoint):
        return False
    return True


def app_allows_fast_path(app: Any) -> bool:
    """Middleware, dependency overrides or custom exception handlers change what a request
    does; with any of them every call takes the exact ASGI path."""
    from fastapi.exception_handlers import (
        http_exception_handler,
        request_validation_exception_handler,
        websocket_request_validation_exception_handler,
    )

    defaults = {http_exception_handler, request_validation_exception_handler,
                websocket_request_validation_exception_handler}
    return (not app.user_middleware and not app.dependency_overrides
            and all(h in defaults for h in app.exception_handlers.values()))
