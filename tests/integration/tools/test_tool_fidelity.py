"""AWM fidelity of the tool layer: our catalogue and tool results against the real MCP stack.

The reference is what AWM's server runs: ``fastapi_mcp.FastApiMCP(app)`` on mcp 1.26, called
through a real MCP client session (``mcp.shared.memory``). For each world, one instance database
is driven by our :meth:`ToolHost.call` and another (same template) by the MCP client, with the
same calls in the same order. The model-visible text, the error flag and the database bytes must
be identical after every call.

Besides the tiny worlds, a ``fidelity_lab`` world written to a temporary world set covers what
the tiny worlds do not: list-typed and Optional query parameters, path values with spaces, slashes
and percent signs, ``HTTPException``, ``JSONResponse``, plain-text and 204 responses, header
parameters, handlers that await, body fields FastAPI (not the JSON schema) rejects.

AWM's stack (fastapi_mcp 0.4.0) runs only on mcp 1.x. Its answers are recorded in
``tests/fixtures/awm_mcp_reference.json`` (text, error flag, database digest per call, and the
tool listing per world): on mcp 1.x every run checks the live stack against the recording too,
so it cannot go stale; on mcp 2.x (the newest versions the ranges allow) the recording is the
reference. Re-record on the validated versions with ``AWM_GYM_RECORD_FIDELITY=1`` (docs/runtime.md,
"Versions").
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import awm_gym
from awm_gym.envs.config import EnvConfig
from awm_gym.envs import get_prepared_world
from awm_gym.tools.catalogue import build_catalogue
from awm_gym.tools.db_routing import DatabaseSlot, bind_database
from awm_gym.tools.dispatch import ToolResult
from awm_gym.tools.host import PreparedWorld
from awm_gym.tools.mcp_compat import MCP_MAJOR, result_is_error
from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.template_db import open_database

LAB_CODE = '''
import os
from datetime import datetime, date
from typing import List, Optional, Literal

from fastapi import FastAPI, Query, Path, Body, Header, HTTPException, Response
from fastapi.responses import PlainTextResponse, JSONResponse
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Float, DateTime
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///lab.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class Tag(Base):
    __tablename__ = "tags"
    id = Column(Integer, primary_key=True, autoincrement=True)
    name = Column(String, nullable=False)
    weight = Column(Float, nullable=False, default=1.0)
    created_at = Column(DateTime, default=datetime.utcnow)


class Event(Base):
    __tablename__ = "events"
    id = Column(Integer, primary_key=True, autoincrement=True)
    title = Column(String, nullable=False)
    due = Column(DateTime, nullable=False)


Base.metadata.create_all(bind=engine)


class TagOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Tag ID", example=1)
    name: str = Field(..., description="Tag name", example="red")
    weight: float = Field(..., description="Weight", example=1.5)
    created_at: Optional[datetime] = Field(None, description="Created", example="2026-01-01T12:00:00")


class TagList(BaseModel):
    tags: List[TagOut] = Field(..., description="Tags", example=[])
    total: int = Field(..., description="Count", example=1)


class EventIn(BaseModel):
    title: str = Field(..., description="Title", max_length=20, example="Standup")
    due: datetime = Field(..., description="When", example="2026-01-02T09:00:00")
    reminder_minutes: Optional[int] = Field(None, description="Reminder", ge=0, example=15)


class EventOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Event ID", example=1)
    title: str = Field(..., description="Title", example="Standup")
    due: datetime = Field(..., description="When", example="2026-01-02T09:00:00")


class Echo(BaseModel):
    values: dict = Field(..., description="What the handler received", example={})


class Strict(BaseModel):
    id: int = Field(..., description="ID", example=1)


app = FastAPI(title="Fidelity Lab API", description="Edge cases of generated code.", version="1.0.0")


@app.get("/api/tags", summary="List tags", description="List tags filtered by names and ids.", tags=["tags"], operation_id="list_tags", response_model=TagList)
async def list_tags(names: Optional[List[str]] = Query(None, description="Names to keep"), ids: List[int] = Query([], description="IDs to keep"), min_weight: Optional[float] = Query(None, description="Minimum weight"), limit: int = Query(10, ge=1, le=50, description="Max results"), order: Literal["id", "name"] = Query("id", description="Sort key")):
    session = SessionLocal()
    query = session.query(Tag)
    if names:
        query = query.filter(Tag.name.in_(names))
    if ids:
        query = query.filter(Tag.id.in_(ids))
    if min_weight is not None:
        query = query.filter(Tag.weight >= min_weight)
    query = query.order_by(Tag.name if order == "name" else Tag.id)
    tags = [TagOut.model_validate(t) for t in query.limit(limit).all()]
    session.close()
    return TagList(tags=tags, total=len(tags))


@app.get("/api/tags/by-name/{name}", summary="Get a tag by name", description="Find a tag by its name.", tags=["tags"], operation_id="get_tag_by_name", response_model=TagOut)
async def get_tag_by_name(name: str = Path(..., description="Tag name")):
    session = SessionLocal()
    tag = session.query(Tag).filter(Tag.name == name).first()
    session.close()
    if tag is None:
        raise HTTPException(status_code=404, detail=f"Tag '{name}' not found")
    return TagOut.model_validate(tag)


@app.post("/api/tags", summary="Create a tag", description="Create a tag.", tags=["tags"], operation_id="create_tag", response_model=TagOut, status_code=201)
async def create_tag(name: str = Body(..., embed=True, description="Tag name"), weight: float = Body(1.0, embed=True, description="Weight")):
    session = SessionLocal()
    tag = Tag(name=name, weight=weight)
    session.add(tag)
    session.commit()
    session.refresh(tag)
    result = TagOut.model_validate(tag)
    session.close()
    return result


@app.put("/api/tags/{tag_id}/weight", summary="Set weight", description="Set a tag weight.", tags=["tags"], operation_id="set_weight", response_model=TagOut)
async def set_weight(tag_id: int = Path(..., description="Tag ID"), weight: float = Body(..., embed=True, description="Weight")):
    session = SessionLocal()
    tag = session.query(Tag).filter(Tag.id == tag_id).first()
    tag.weight = weight
    session.commit()
    session.refresh(tag)
    result = TagOut.model_validate(tag)
    session.close()
    return result


@app.delete("/api/tags/{tag_id}", summary="Delete a tag", description="Delete a tag.", tags=["tags"], operation_id="delete_tag", status_code=204)
async def delete_tag(tag_id: int = Path(..., description="Tag ID")):
    session = SessionLocal()
    session.query(Tag).filter(Tag.id == tag_id).delete()
    session.commit()
    session.close()
    return None


@app.post("/api/events", summary="Create an event", description="Create an event.", tags=["events"], operation_id="create_event", response_model=EventOut)
async def create_event(payload: EventIn = Body(..., description="The event")):
    session = SessionLocal()
    event = Event(title=payload.title, due=payload.due)
    session.add(event)
    session.commit()
    session.refresh(event)
    result = EventOut.model_validate(event)
    session.close()
    return result


@app.get("/api/echo/{code}", summary="Echo", description="Echo query values.", tags=["misc"], operation_id="echo", response_model=Echo)
async def echo(code: str = Path(..., description="A code"), flag: bool = Query(False, description="A flag"), ratio: float = Query(0.5, description="A ratio"), when: Optional[date] = Query(None, description="A date"), page_size: int = Query(5, alias="pageSize", description="Page size")):
    return Echo(values={"code": code, "flag": flag, "ratio": ratio, "when": when.isoformat() if when else None, "page_size": page_size})


@app.get("/api/secure", summary="Secure", description="Needs a header.", tags=["misc"], operation_id="secure_ping", response_model=Echo)
async def secure_ping(x_token: Optional[str] = Header(None, description="Token")):
    if x_token != "s3cret":
        raise HTTPException(status_code=403, detail={"reason": "bad token", "got": x_token})
    return Echo(values={"ok": True})


@app.get("/api/plain", summary="Plain", description="Plain text.", tags=["misc"], operation_id="plain_text", response_class=PlainTextResponse)
async def plain_text():
    return "hello, plain world"


@app.get("/api/raw", summary="Raw", description="A JSONResponse with a custom status.", tags=["misc"], operation_id="raw_json")
async def raw_json(fail: bool = Query(False, description="Fail")):
    if fail:
        return JSONResponse(status_code=409, content={"error": "conflict", "emoji": "☕"})
    return JSONResponse(content={"ok": True, "text": "café ☕"})


@app.get("/api/keys", summary="Keys", description="Dict with int keys and a datetime.", tags=["misc"], operation_id="int_keys")
async def int_keys():
    return {1: "one", "two": 2, "nested": {3: [1.5, None, True]}, "when": datetime(2026, 1, 1, 12, 0, 0, 123456)}


@app.get("/api/nan", summary="NaN", description="Returns a NaN.", tags=["misc"], operation_id="nan_value")
async def nan_value():
    return {"value": float("nan")}


@app.get("/api/mismatch", summary="Mismatch", description="Returns the wrong shape.", tags=["misc"], operation_id="mismatch", response_model=Strict)
async def mismatch():
    return {"name": "no id"}


@app.get("/api/teapot", summary="Teapot", description="HTTPException with headers.", tags=["misc"], operation_id="teapot")
async def teapot():
    raise HTTPException(status_code=418, detail="I'm a teapot", headers={"X-Why": "tea"})


@app.get("/api/awaits", summary="Awaits", description="Awaits before reading.", tags=["misc"], operation_id="awaits", response_model=Echo)
async def awaits():
    import asyncio
    await asyncio.sleep(0)
    session = SessionLocal()
    n = session.query(Tag).count()
    session.close()
    return Echo(values={"n": n})


@app.get("/api/none", summary="None", description="Returns None.", tags=["misc"], operation_id="returns_none")
async def returns_none():
    return None


@app.post("/api/created-empty", summary="Created empty", description="201 with an empty body.", tags=["misc"], operation_id="created_empty", status_code=201)
async def created_empty():
    return Response(status_code=201)


@app.get("/api/sync-fail", summary="Sync fail", description="Sync handler that may fail.", tags=["misc"], operation_id="sync_fail")
def sync_fail(n: int = Query(..., description="Divisor")):
    return {"value": 10 // n}
'''

LAB_ROWS = {
    "gen_scenario.jsonl": {"name": "Fidelity Lab", "description": "Edge cases."},
    "gen_tasks.jsonl": {"scenario": "Fidelity Lab", "tasks": ["Tidy up my tags."]},
    "gen_db.jsonl": {"scenario": "Fidelity Lab", "db_schema": {"tables": [{
        "name": "tags", "ddl": "CREATE TABLE tags (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT "
        "NOT NULL, weight REAL NOT NULL DEFAULT 1.0, created_at DATETIME DEFAULT "
        "CURRENT_TIMESTAMP);", "indexes": []}]}},
    "gen_sample.jsonl": {"scenario": "Fidelity Lab", "sample_data": {"tables": [{
        "table_name": "tags", "insert_statements": [
            "INSERT INTO tags (id, name, weight) VALUES (1, 'red', 2.5);",
            "INSERT INTO tags (id, name, weight) VALUES (2, 'blue', 0.5);",
            "INSERT INTO tags (id, name, weight) VALUES (3, 'café ☕', 1.0);",
            "INSERT INTO tags (id, name, weight) VALUES (4, 'a b', 1.0);"]}]}},
    "gen_envs.jsonl": {"scenario": "Fidelity Lab", "full_code": LAB_CODE},
}

# -- the call tables -------------------------------------------------------------------------
# (case id, tool, arguments). Calls run in this order on both databases, so writes accumulate.

NOTES_CALLS = [
    ("list_notebooks", "list_notebooks", {}),
    ("list_notebooks_limit", "list_notebooks", {"limit": 1}),
    ("query_int_as_string", "list_notebooks", {"limit": "2"}),
    ("query_int_as_float", "list_notebooks", {"limit": 2.0}),
    ("query_negative", "list_notebooks", {"limit": -1}),
    ("search", "search_notes", {"q": "budget"}),
    ("search_unicode", "search_notes", {"q": "é ☕ %_"}),
    ("search_missing_required", "search_notes", {}),
    ("search_null_required", "search_notes", {"q": None}),
    ("search_unknown_extra_arg", "search_notes", {"q": "budget", "colour": "red"}),
    ("get_note", "get_note", {"note_id": 3}),
    ("get_note_missing_row_500", "get_note", {"note_id": 999}),
    ("path_int_as_string", "get_note", {"note_id": "3"}),
    ("path_bool", "get_note", {"note_id": True}),
    ("path_int_as_float", "get_note", {"note_id": 3.0}),
    ("tags_of_note", "list_tags_for_note", {"note_id": 1}),
    ("create_note", "create_note", {"notebook_id": 2, "title": "Call the plumber",
                                    "body": "Tuesday at 9am"}),
    ("create_note_unicode_default_body", "create_note", {"notebook_id": 1, "title": "Café ☕ 日本"}),
    ("create_note_missing_title", "create_note", {"notebook_id": 2}),
    ("body_int_as_string", "create_note", {"notebook_id": "2", "title": "x"}),
    ("body_unknown_extra_arg", "create_note", {"notebook_id": 1, "title": "Extra",
                                               "colour": "red"}),
    ("read_back_created", "get_note", {"note_id": 9}),
    ("rename", "update_note_title", {"note_id": 2, "title": "Daily standup"}),
    ("rename_missing_title", "update_note_title", {"note_id": 2}),
    ("rename_missing_row_500", "update_note_title", {"note_id": 999, "title": "x"}),
    ("delete", "delete_note", {"note_id": 4}),
    ("delete_again_500", "delete_note", {"note_id": 4}),
    ("list_after_writes", "list_notebooks", {"limit": 10}),
]

DEFECT_CALLS = [
    ("duplicate_route_runs_first_handler", "get_item_v2", {"item_id": 1}),
    ("duplicate_route_missing_row_500", "get_item_v2", {"item_id": 99}),
    ("shadowed_route_422", "count_things", {}),
    ("get_thing", "get_thing", {"thing_id": 2}),
    ("with_depends", "with_depends", {}),
    ("sync_route", "sync_stats", {}),
    ("boom_500", "boom", {}),
    ("leaky_write_500", "leaky_write", {}),
    ("after_leak_count", "sync_stats", {}),
    ("create_item", "create_item", {"name": "Widget", "price": 9.99}),
    ("create_item_price_string", "create_item", {"name": "Widget", "price": "cheap"}),
    ("create_item_missing_price", "create_item", {"name": "Widget"}),
    ("create_item_int_price", "create_item", {"name": "Bolt", "price": 3}),
    ("after_create", "with_depends", {}),
    ("order_valid", "submit_order", {"item_id": 1, "unit_price": 4.5, "express": False,
                                     "note": "leave at door", "tag_ids": [1, 2]}),
    ("order_optional_omitted", "submit_order", {"item_id": 1, "unit_price": 4.5, "express": True,
                                                "tag_ids": []}),
    ("order_optional_null", "submit_order", {"item_id": 1, "unit_price": 4.5, "express": True,
                                             "note": None, "tag_ids": []}),
    ("order_missing_list", "submit_order", {"item_id": 1, "unit_price": 4.5, "express": True}),
    ("order_bad_list_item", "submit_order", {"item_id": 1, "unit_price": 4.5, "express": True,
                                             "tag_ids": [1, "two"]}),
    ("order_bool_as_string", "submit_order", {"item_id": 1, "unit_price": 4.5, "express": "yes",
                                              "tag_ids": [1]}),
    ("order_many_errors", "submit_order", {"item_id": "x", "unit_price": "y", "express": 1,
                                           "tag_ids": "z"}),
    ("order_float_valued_int", "submit_order", {"item_id": 2.0, "unit_price": 1, "express": False,
                                                "tag_ids": [3.0]}),
    ("order_unknown_extra_arg", "submit_order", {"item_id": 1, "unit_price": 4.5, "express": False,
                                                 "tag_ids": [], "coupon": "FREE"}),
]

LAB_CALLS = [
    ("list_tags", "list_tags", {}),
    ("list_query_two_values", "list_tags", {"names": ["red", "blue"]}),
    ("list_query_one_value", "list_tags", {"names": ["red"]}),
    ("list_query_ints", "list_tags", {"ids": [1, 3]}),
    ("list_query_empty", "list_tags", {"ids": []}),
    ("list_query_unicode_and_separators", "list_tags", {"names": ["café ☕", "a b", "x&y", "z=1"]}),
    ("list_query_null", "list_tags", {"names": None}),
    ("optional_float_query", "list_tags", {"min_weight": 0.75, "order": "name"}),
    ("query_below_minimum", "list_tags", {"limit": 0}),
    ("query_enum_violation", "list_tags", {"order": "zzz"}),
    ("path_plain", "get_tag_by_name", {"name": "red"}),
    ("path_unicode", "get_tag_by_name", {"name": "café ☕"}),
    ("path_space", "get_tag_by_name", {"name": "a b"}),
    ("path_slash_404", "get_tag_by_name", {"name": "a/b"}),
    ("path_percent", "get_tag_by_name", {"name": "100%"}),
    ("path_question_mark", "get_tag_by_name", {"name": "x?y"}),
    ("path_hash_redirect", "get_tag_by_name", {"name": "#"}),
    ("path_empty_redirect", "get_tag_by_name", {"name": ""}),
    ("path_dot_dot", "get_tag_by_name", {"name": ".."}),
    ("http_exception_404", "get_tag_by_name", {"name": "nope"}),
    ("embedded_body_201", "create_tag", {"name": "green"}),
    ("embedded_body_int_for_float", "create_tag", {"name": "pink", "weight": 3}),
    ("embedded_body_missing", "create_tag", {}),
    ("path_and_body", "set_weight", {"tag_id": 1, "weight": 9.75}),
    ("path_and_body_missing_row_500", "set_weight", {"tag_id": 99, "weight": 1}),
    ("status_204_empty_body", "delete_tag", {"tag_id": 2}),
    ("body_model", "create_event", {"title": "Standup", "due": "2026-01-02T09:00:00"}),
    ("body_fastapi_rejects_datetime", "create_event", {"title": "Bad", "due": "not a date"}),
    ("body_schema_max_length", "create_event", {"title": "x" * 30, "due": "2026-01-02"}),
    ("body_schema_minimum", "create_event", {"title": "R", "due": "2026-01-02",
                                             "reminder_minutes": -1}),
    ("body_extra_arg", "create_event", {"title": "T", "due": "2026-01-02 10:00", "foo": "bar"}),
    ("query_bool_float", "echo", {"code": "abc", "flag": True, "ratio": 0.1}),
    ("query_bad_date_422", "echo", {"code": "abc", "when": "2026-02-30"}),
    ("query_date", "echo", {"code": "abc", "when": "2026-02-03"}),
    ("query_tiny_and_huge_floats", "echo", {"code": "x", "ratio": 1e-7}),
    ("query_alias", "echo", {"code": "x", "pageSize": 7}),
    ("query_alias_by_python_name", "echo", {"code": "x", "page_size": 7}),
    ("header_missing_403", "secure_ping", {}),
    ("header_given", "secure_ping", {"x-token": "s3cret"}),
    ("plain_text_response", "plain_text", {}),
    ("json_response", "raw_json", {}),
    ("json_response_409", "raw_json", {"fail": True}),
    ("int_keys_and_datetime", "int_keys", {}),
    ("nan_500", "nan_value", {}),
    ("response_model_mismatch_500", "mismatch", {}),
    ("http_exception_418", "teapot", {}),
    ("handler_that_awaits", "awaits", {}),
    ("returns_none", "returns_none", {}),
    ("response_object_201", "created_empty", {}),
    ("sync_ok", "sync_fail", {"n": 2}),
    ("sync_500", "sync_fail", {"n": 0}),
]

CALLS = {"notes_app": NOTES_CALLS, "defect_lab": DEFECT_CALLS, "fidelity_lab": LAB_CALLS}
NEVER_CALL = {"hang", "sleepy", "crash_process"}  # would block or kill the MCP side


def _spotify_calls(prepared: PreparedWorld) -> list[tuple[str, str, dict[str, Any]]]:
    """Every spotify tool, in catalogue order, with its required arguments filled minimally."""
    fill = {"integer": 1, "number": 1.5, "string": "a", "boolean": True}
    calls = []
    for tool in prepared.host.tools:
        props = tool.input_schema.get("properties", {})
        args = {name: fill.get(props[name].get("type"), "a")
                for name in tool.input_schema.get("required", [])}
        calls.append((f"{tool.name}", tool.name, args))
        calls.append((f"{tool.name}_no_args", tool.name, {}))
    return calls


# -- running both sides ----------------------------------------------------------------------


@dataclass
class Outcome:
    ours: ToolResult
    mcp_text: str | None
    mcp_is_error: bool
    same_db: bool


def _digest(conn: Any) -> str:
    return hashlib.sha256(conn.serialize()).hexdigest()


def _release_leaks(slot: DatabaseSlot) -> None:
    """Close sessions a handler left open on the MCP side and roll back what they held.

    Under AWM's server such a session is garbage-collected and its pooled connection rolled back;
    ToolHost.call does the same explicitly after every call, so both sides compare alike.
    """
    for session in slot.open_sessions:
        session.close()
    slot.open_sessions.clear()
    if slot.conn.in_transaction:
        slot.conn.rollback()


def run_both(prepared: PreparedWorld, calls: list[tuple[str, str, dict[str, Any]]]
             ) -> tuple[dict[str, Outcome], list[dict[str, Any]]]:
    """Run ``calls`` through ToolHost on one database and through MCP on another."""
    clock = FrozenClock(EnvConfig().clock)
    ours_slot = DatabaseSlot(open_database(prepared.template, clock))
    mcp_slot = DatabaseSlot(open_database(prepared.template, clock))
    ours, ours_db = [], []
    for _, tool, args in calls:  # outside any event loop, as the env calls it
        ours.append(prepared.host.call(ours_slot, tool, args))
        ours_db.append(_digest(ours_slot.conn))
    if HAS_AWM_STACK:
        listed, theirs = _run_awm_stack(prepared, calls, mcp_slot)
        _check_recording(prepared.host.app.title, calls, listed, theirs)
    else:
        listed, theirs = _recorded(prepared.host.app.title, calls)
    ours_slot.conn.close()
    mcp_slot.conn.close()
    outcomes = {case: Outcome(o, text, is_error, db == mcp_db)
                for (case, _, _), o, db, (text, is_error, mcp_db)
                in zip(calls, ours, ours_db, theirs, strict=True)}
    return outcomes, listed


HAS_AWM_STACK = MCP_MAJOR < 2
"""fastapi_mcp 0.4.0 (AWM's MCP layer) cannot start on mcp 2 (its Server() call changed)."""
RECORDING = Path(__file__).resolve().parents[2] / "fixtures" / "awm_mcp_reference.json"
_RECORD = os.environ.get("AWM_GYM_RECORD_FIDELITY") == "1"


def _run_awm_stack(prepared: PreparedWorld, calls: list[tuple[str, str, dict[str, Any]]],
                   mcp_slot: DatabaseSlot) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    """AWM's own answers: fastapi_mcp 0.4.0 over the app, through a real MCP client session."""
    from fastapi_mcp import FastApiMCP
    from mcp.shared.memory import create_connected_server_and_client_session

    theirs: list[list[Any]] = []
    listed: list[dict[str, Any]] = []

    async def drive() -> None:
        with bind_database(mcp_slot):  # the server task (and the ASGI app) inherit the slot
            server = FastApiMCP(prepared.host.app).server
            async with create_connected_server_and_client_session(server) as client:
                listed.extend(t.model_dump(include={"name", "description", "inputSchema"})
                              for t in (await client.list_tools()).tools)
                for _, tool, args in calls:
                    result = await client.call_tool(tool, args)
                    _release_leaks(mcp_slot)
                    text = result.content[0].text if result.content else None
                    theirs.append([text, result_is_error(result), _digest(mcp_slot.conn)])

    asyncio.run(drive())
    return listed, theirs


def _recording_key(app_title: str, calls: list[tuple[str, str, dict[str, Any]]]) -> str:
    return f"{app_title}|{len(calls)}"


def _check_recording(app_title: str, calls: list[tuple[str, str, dict[str, Any]]],
                     listed: list[dict[str, Any]], theirs: list[list[Any]]) -> None:
    """The recording equals the live stack (or, with AWM_GYM_RECORD_FIDELITY=1, is rewritten)."""
    entry = {"listed": listed, "calls": {case: r for (case, _, _), r
                                         in zip(calls, theirs, strict=True)}}
    recorded = json.loads(RECORDING.read_text(encoding="utf-8")) if RECORDING.exists() else {}
    key = _recording_key(app_title, calls)
    if _RECORD:
        recorded[key] = entry
        RECORDING.write_text(json.dumps(recorded, ensure_ascii=False, indent=1, sort_keys=True)
                             + "\n", encoding="utf-8")
    else:
        assert recorded.get(key) == entry, (f"{RECORDING.name}[{key!r}] differs from AWM's live "
                                            "stack: re-record with AWM_GYM_RECORD_FIDELITY=1")


def _recorded(app_title: str, calls: list[tuple[str, str, dict[str, Any]]]
              ) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    recorded = json.loads(RECORDING.read_text(encoding="utf-8"))
    entry = recorded[_recording_key(app_title, calls)]
    return entry["listed"], [entry["calls"][case] for case, _, _ in calls]


@pytest.fixture(scope="module")
def lab_set(tmp_path_factory: pytest.TempPathFactory) -> awm_gym.WorldSet:
    root = tmp_path_factory.mktemp("fidelity_lab")
    for name, row in LAB_ROWS.items():
        (root / name).write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    world_set = awm_gym.get_world_set(root)
    assert not world_set.problems, world_set.problems
    return world_set


@pytest.fixture(scope="module")
def prepared_world(tiny_set: awm_gym.WorldSet, lab_set: awm_gym.WorldSet
                   ) -> Callable[[str], PreparedWorld]:
    def get(world: str) -> PreparedWorld:
        if world == "spotify":
            if "AWM/spotify-v0" not in gym.registry:
                pytest.skip("the built-in spotify world is not there (yet)")
            return get_prepared_world(awm_gym.get_world_set(None)["spotify"], EnvConfig())
        source = lab_set if world == "fidelity_lab" else tiny_set
        return get_prepared_world(source[world], EnvConfig())
    return get


@pytest.fixture(scope="module")
def runs(prepared_world: Callable[[str], PreparedWorld]
         ) -> Callable[[str], tuple[dict[str, Outcome], list[dict[str, Any]]]]:
    """Both sides' results per world, computed once per module (the calls build on each other)."""
    cache: dict[str, tuple[dict[str, Outcome], list[dict[str, Any]]]] = {}

    def get(world: str) -> tuple[dict[str, Outcome], list[dict[str, Any]]]:
        if world not in cache:
            prepared = prepared_world(world)
            calls = _spotify_calls(prepared) if world == "spotify" else [
                tuple(c.values) if hasattr(c, "marks") else c for c in CALLS[world]]
            assert not NEVER_CALL & {tool for _, tool, _ in calls}
            cache[world] = run_both(prepared, calls)
        return cache[world]
    return get


# -- catalogue -------------------------------------------------------------------------------


@pytest.mark.parametrize("world", ["notes_app", "defect_lab", "judge_only", "fidelity_lab",
                                   "spotify"])
def test_catalogue_equals_what_fastapi_mcp_lists(world: str, prepared_world: Callable,
                                                 runs: Callable) -> None:
    prepared = prepared_world(world)
    if world == "judge_only":  # no call table: list through MCP directly
        _, listed = run_both(prepared, [])
    else:
        _, listed = runs(world)
    ours = [t.to_dict() for t in prepared.host.tools]
    rebuilt, operation_map = build_catalogue(prepared.host.app)
    assert [t.to_dict() for t in rebuilt] == ours
    assert [t["name"] for t in ours] == [t["name"] for t in listed]
    for mine, theirs in zip(ours, listed, strict=True):
        assert mine["description"] == (theirs["description"] or ""), mine["name"]
        assert mine["inputSchema"] == theirs["inputSchema"], mine["name"]
    assert set(operation_map) == {t["name"] for t in ours}


def test_duplicate_operation_is_listed_once_under_the_later_name(prepared_world: Callable) -> None:
    names = [t.name for t in prepared_world("defect_lab").host.tools]
    assert "get_item_v2" in names and "get_item" not in names  # as fastapi_mcp lists it
    assert "count_things" in names and "crash_process" in names


def test_description_has_awm_layout(prepared_world: Callable) -> None:
    [tool] = [t for t in prepared_world("notes_app").host.tools if t.name == "get_note"]
    assert tool.description.startswith("Get a note\n\nGet one note with its full text.\n\n"
                                       "### Responses:\n\n**200**: Successful Response")
    assert "**Example Response:**\n```json\n{\n  \"id\": 1," in tool.description


# -- calls -----------------------------------------------------------------------------------


def _cases(world: str) -> list[Any]:
    out = []
    for case in CALLS[world]:
        if hasattr(case, "marks"):  # a pytest.param carrying marks
            out.append(pytest.param(world, case.values[0], id=f"{world}-{case.values[0]}",
                                    marks=case.marks))
        else:
            out.append(pytest.param(world, case[0], id=f"{world}-{case[0]}"))
    return out


ALL_CASES = _cases("notes_app") + _cases("defect_lab") + _cases("fidelity_lab")


@pytest.mark.parametrize(("world", "case"), ALL_CASES)
def test_result_text_and_error_flag_match_mcp(world: str, case: str, runs: Callable) -> None:
    outcome = runs(world)[0][case]
    assert outcome.ours.text == outcome.mcp_text
    assert outcome.ours.is_error == outcome.mcp_is_error


@pytest.mark.parametrize(("world", "case"), [pytest.param(*p.values, id=p.id) for p in ALL_CASES])
def test_database_matches_mcp_after_each_call(world: str, case: str, runs: Callable) -> None:
    assert runs(world)[0][case].same_db


def test_every_spotify_tool_matches_mcp(runs: Callable, spotify_id: str) -> None:
    outcomes, _ = runs("spotify")
    assert len(outcomes) >= 2
    mismatched = [case for case, o in outcomes.items()
                  if (o.ours.text, o.ours.is_error) != (o.mcp_text, o.mcp_is_error)]
    assert mismatched == []
    assert [case for case, o in outcomes.items() if not o.same_db] == []
    assert any(not o.ours.is_error for o in outcomes.values())


# -- what the table exercised (so a silently broken table cannot pass) ------------------------


@pytest.mark.parametrize(("world", "case", "outcome", "status"), [
    ("notes_app", "get_note", "ok", 200),
    ("notes_app", "get_note_missing_row_500", "crash", 500),
    ("notes_app", "search_missing_required", "input_invalid", None),
    ("notes_app", "query_int_as_float", "ok", 200),
    ("notes_app", "create_note", "ok", 200),
    ("defect_lab", "duplicate_route_runs_first_handler", "ok", 200),
    ("defect_lab", "shadowed_route_422", "http_error", 422),
    ("defect_lab", "leaky_write_500", "crash", 500),
    ("defect_lab", "order_optional_null", "input_invalid", None),
    ("fidelity_lab", "body_fastapi_rejects_datetime", "http_error", 422),
    ("fidelity_lab", "path_slash_404", "http_error", 404),
    ("fidelity_lab", "embedded_body_201", "ok", 201),
    ("fidelity_lab", "header_given", "ok", 200),
    ("fidelity_lab", "json_response_409", "http_error", 409),
    ("fidelity_lab", "nan_500", "crash", 500),
])
def test_table_cases_reach_the_intended_outcome(world: str, case: str, outcome: str,
                                                status: int | None, runs: Callable) -> None:
    result = runs(world)[0][case].ours
    assert (result.outcome, result.status_code) == (outcome, status)


def test_awm_error_texts(runs: Callable) -> None:
    notes = runs("notes_app")[0]
    assert notes["get_note_missing_row_500"].ours.text == (
        "Error calling get_note. Status code: 500. Response: Internal Server Error")
    assert notes["search_missing_required"].ours.text == (
        "Input validation error: 'q' is a required property")
    assert notes["path_int_as_string"].ours.text == (
        "Input validation error: '3' is not of type 'integer'")
    shadowed = runs("defect_lab")[0]["shadowed_route_422"].ours.text
    assert shadowed.startswith('Error calling count_things. Status code: 422. Response: '
                               '{"detail":[{"type":"int_parsing","loc":["path","thing_id"]')


def test_results_are_pretty_json_with_unicode_kept(runs: Callable) -> None:
    text = runs("notes_app")[0]["create_note_unicode_default_body"].ours.text
    assert json.loads(text)["title"] == "Café ☕ 日本"
    assert "Café ☕ 日本" in text and text.startswith('{\n  "id": ')
    # the note created through the tool carries the frozen clock
    assert json.loads(text)["created_at"] == "2026-01-01T12:00:00"


def test_duplicate_route_serves_the_first_handlers_shape(runs: Callable) -> None:
    text = runs("defect_lab")[0]["duplicate_route_runs_first_handler"].ours.text
    assert json.loads(text) == {"id": 1, "name": "Gear", "price": 4.5, "in_stock": True}


def test_leaky_write_leaves_no_row(runs: Callable) -> None:
    stats = json.loads(runs("defect_lab")[0]["after_leak_count"].ours.text)
    assert stats == {"item_count": 3, "thing_count": 2}
