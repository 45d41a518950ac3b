"""The ``list_tools`` text of a whole generated world, byte for byte as AWM's agent renders it.

``GOLDEN`` is what AWM's own ``format_tools_for_response`` (``awm/core/agent.py``,
agent-world-model 0.1.0) returned for the ``schema_zoo`` catalogue of
``tests/fixtures/make_triage_worlds.py``: a tool without parameters, an enum with a default, an
``Optional`` query parameter, bounds, a nested object with an ``anyOf`` field, an array. The rule
by rule tests are in ``tests/unit/awm_gym/tools/test_catalogue.py``.
"""

from __future__ import annotations

import json

from awm_gym.envs.vector_env import AWMVectorEnv

GOLDEN = """Available MCP Tools (4 tools):
================================================================================

1. mcp_tool_get_status
   Description: Service status
   Whether the service is up.
   ### Responses:
   **200**: Successful Response (Success Response)
   Content-Type: application/json
   **Example Response:**
   ```json
   {
   "ok": true,
   "open_tickets": 1
   }
   ```
   Parameters: None

2. mcp_tool_list_tickets
   Description: List tickets
   List tickets by status and label.
   ### Responses:
   **200**: Successful Response (Success Response)
   Content-Type: application/json
   **Example Response:**
   ```json
   {
   "tickets": [
   {
   "id": 1,
   "title": "Title",
   "status": "Status",
   "priority": "Priority"
   }
   ],
   "total": 1
   }
   ```
   Parameters:
      - status: string (optional)
        Description: Only tickets with this status
        Default: open
        Allowed values: ['open', 'closed']
      - label: string (optional)
        Description: Only tickets with this label
      - limit: integer (optional)
        Description: Maximum number of tickets
        Default: 10

3. mcp_tool_create_ticket
   Description: Open a ticket
   Open a new ticket.
   ### Responses:
   **200**: Successful Response (Success Response)
   Content-Type: application/json
   **Example Response:**
   ```json
   {
   "id": 1,
   "title": "Title",
   "status": "Status",
   "priority": "Priority"
   }
   ```
   Parameters:
      - title: string (required)
        Description: Short summary
      - priority: string (optional)
        Description: How urgent
        Default: normal
        Allowed values: ['low', 'normal', 'high']
      - contact: object (required)
        Description: The reporter
        Properties:
          - name: string (required)
            Description: Who reported it
          - email: unknown (optional)
            Description: Where to reach them
      - tags: array (optional)
        Description: Free-form tags
      - due: string (optional)
        Description: Due date (YYYY-MM-DD)

4. mcp_tool_close_ticket
   Description: Close a ticket
   Mark a ticket as closed.
   ### Responses:
   **200**: Successful Response (Success Response)
   Content-Type: application/json
   **Example Response:**
   ```json
   {
   "id": 1,
   "title": "Title",
   "status": "Status",
   "priority": "Priority"
   }
   ```
   Parameters:
      - ticket_id: integer (required)
        Description: ID of the ticket"""


def test_list_tools_text_is_awms_byte_for_byte(triage_path: str) -> None:
    envs = AWMVectorEnv(num_envs=1, world_set=triage_path, worlds=["schema_zoo"],
                        verifier_workers=1)
    try:
        assert envs.runtime.tools_text("schema_zoo") == GOLDEN
        envs.reset(seed=0)
        call = json.dumps({"name": "list_tools", "arguments": {}})
        obs, reward, terminated, truncated, info = envs.step([f"<tool_call>{call}</tool_call>"])
        assert obs[0] == GOLDEN and not terminated[0] and info["action_kind"][0] == "list_tools"
    finally:
        envs.close()
