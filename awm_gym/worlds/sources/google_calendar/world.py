"""The built-in `google_calendar` world: scenario, tasks and reference solutions, plus re-exports.

Sources of truth, assembled into AWM JSONL by scripts/build_builtin_worlds.py:
  schema.py (TABLES), sample.py (SAMPLE), spec.py (SPEC), app.py (full_code),
  verifiers.py (VERIFIERS, extracted from the verifier_<i> functions) and this file.
Solution calls use operation ids and flat arguments exactly as an MCP client would send them.
Ids created while solving are predictable: the seed has 57 events, so a new one gets id 58.
"""

import ast
import os

from .sample import SAMPLE
from .schema import TABLES
from .spec import SPEC
from .verifiers import VERIFIER_META

__all__ = ["SCENARIO", "DESCRIPTION", "TASKS", "TABLES", "SAMPLE", "SPEC", "FULL_CODE", "VERIFIERS", "VERIFIER_META", "SOLUTIONS"]

SCENARIO = "google_calendar"

DESCRIPTION = (
    "Google Calendar is an online calendar and scheduling service for individuals and teams. Every "
    "user has a primary calendar and can create secondary calendars, each with its own time zone, "
    "colour and default notifications, and share any calendar with other people as a free/busy "
    "viewer, reader, writer or co-owner. Events carry a title, location, description, start and end "
    "times, visibility, busy/free transparency and an event colour; the organizer invites guests by "
    "email and each guest answers yes, no or maybe, optionally with a comment. Events can repeat "
    "daily, weekly on chosen weekdays or monthly, until a date, and single occurrences of a series "
    "can be cancelled or moved without touching the rest. Users keep their own popup and email "
    "reminders on any event. Offices list meeting rooms and equipment with capacity, floor and video "
    "equipment; rooms are booked for an event and decline when already taken. Scheduling helpers "
    "include free/busy lookups across people, weekly working hours expressed in each person's own "
    "time zone, and out-of-office periods with an auto-reply. The simulated service is seen from one "
    "logged-in product manager (user 1, Jordan Ellis, Europe/London) at Northwind, with colleagues, "
    "family members and contacts at a partner company, four office buildings and the month of "
    "January 2026 ahead; all times are stored in UTC."
)

TASKS = [
    "How many guests have not yet responded to my 'Q1 Roadmap Review' meeting on January 8, 2026, who are they, and which meeting room is booked for it?",
    "Schedule a 45-minute meeting called 'Vendor Sync with Acme' on my Work Projects calendar on January 13, 2026 at 14:00, invite Priya Ramesh from Acme Partners, and book a room at London HQ that has video conferencing, seats at least 6 people and is free at that time.",
    "In my Monday/Wednesday/Friday 'Team Standup' series, cancel only the occurrence on January 19, 2026 and move the January 21 occurrence to 11:00-11:15 that same day.",
    "On my own 'Family' calendar, downgrade everyone who can currently edit it, except Emma Ellis, to view-only (reader) access, and leave everyone else's access as it is.",
    "I'll be away on January 9, 2026: create an out-of-office for that whole day with the message 'Travelling, back on Monday.' and decline every meeting invitation I have on that day, whatever I answered before.",
    "What time zone is Kenji Sato in, what are his working hours on Fridays, and on what date does his out-of-office period that starts in January 2026 end?",
    "Book a one-hour 'Budget Planning' meeting with Priya Raman and Marcus Webb on my Work Projects calendar on January 14, 2026, at the earliest of 10:00, 13:00 or 16:00 when all three of us are free, invite them both, and tell me which time you booked.",
    "Which meeting rooms in our Manchester office seat at least 8 people and are free for the whole of 10:00-12:00 on January 15, 2026? Give each room's name and floor.",
    "I'm relocating to New York: change both my account time zone and my primary calendar's time zone to America/New_York, and set my working hours to 08:00-16:00 on every weekday from Monday to Friday.",
    "For my 'Dentist appointment' on January 16, 2026, replace all of my reminders with a single email reminder one day (1440 minutes) before, and change the event's color to Tomato.",
]


def _call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


_VENDOR = {"title": "Vendor Sync with Acme", "start_time": "2026-01-13T14:00:00", "end_time": "2026-01-13T14:45:00"}
_OUT_OF_OFFICE = {"start_time": "2026-01-09T00:00:00", "end_time": "2026-01-10T00:00:00", "message": "Travelling, back on Monday."}
_BUDGET = {"title": "Budget Planning", "start_time": "2026-01-14T13:00:00", "end_time": "2026-01-14T14:00:00", "attendee_emails": ["priya.raman@northwind.io", "marcus.webb@northwind.io"]}
_MANCHESTER_WINDOW = {"time_min": "2026-01-15T10:00:00", "time_max": "2026-01-15T12:00:00"}

SOLUTIONS = [
    {
        "calls": [_call("search_events", q="Q1 Roadmap Review"), _call("get_event", event_id=10)],
        "final_answer": "Two guests haven't responded yet to the 8 January Q1 Roadmap Review: Marcus Webb and Kenji Sato. The meeting is booked in the Thames room at London HQ.",
    },
    {
        "calls": [
            _call("list_my_calendars"),
            _call("search_users", q="Priya Ramesh"),
            _call("list_buildings"),
            _call("search_rooms", building_id=1, min_capacity=6, has_video=True, available_from="2026-01-13T14:00:00", available_to="2026-01-13T14:45:00"),
            _call("create_event", calendar_id=2, attendee_emails=["priya.ramesh@acmepartners.com"], **_VENDOR),
            _call("book_room", event_id=58, room_id=2),
        ],
        "final_answer": "Scheduled 'Vendor Sync with Acme' on 13 January 2026, 14:00-14:45, on Work Projects with Priya Ramesh invited, and booked the Kew room (6 seats, video) at London HQ.",
    },
    {
        "calls": [
            _call("search_events", q="Team Standup"),
            _call("list_event_instances", event_id=13, time_min="2026-01-19T00:00:00", time_max="2026-01-22T00:00:00"),
            _call("cancel_event_instance", event_id=13, original_start="2026-01-19T09:30:00"),
            _call("reschedule_event_instance", event_id=13, original_start="2026-01-21T09:30:00", new_start="2026-01-21T11:00:00", new_end="2026-01-21T11:15:00"),
        ],
        "final_answer": "Cancelled the 19 January Team Standup and moved the 21 January one to 11:00-11:15; the rest of the series is unchanged.",
    },
    {
        "calls": [
            _call("list_my_calendars"),
            _call("list_calendar_acl", calendar_id=3),
            _call("update_acl_rule", calendar_id=3, rule_id=26, role="reader"),
            _call("update_acl_rule", calendar_id=3, rule_id=27, role="reader"),
        ],
        "final_answer": "Tom Ellis and Margaret Ellis now have view-only access to your Family calendar; Emma Ellis can still edit it and Grace Kim keeps read access.",
    },
    {
        "calls": [
            _call("create_out_of_office", **_OUT_OF_OFFICE),
            _call("list_my_invitations", time_min="2026-01-09T00:00:00", time_max="2026-01-10T00:00:00"),
            _call("respond_to_event", event_id=28, response_status="declined"),
            _call("respond_to_event", event_id=36, response_status="declined"),
            _call("respond_to_event", event_id=40, response_status="declined"),
        ],
        "final_answer": "You're out of office on 9 January with the message 'Travelling, back on Monday.', and I declined Architecture Review, Sales Kickoff rehearsal and Holiday party debrief.",
    },
    {
        "calls": [_call("search_users", q="Kenji"), _call("get_working_hours", user_id=5), _call("list_out_of_office", user_id=5)],
        "final_answer": "Kenji Sato is in Asia/Tokyo. On Fridays he works 09:00-17:30 Tokyo time, and his January out-of-office (19-23 January) ends on 23 January 2026.",
    },
    {
        "calls": [
            _call("search_users", q="Priya Raman"),
            _call("search_users", q="Marcus Webb"),
            _call("query_free_busy", emails=["jordan.ellis@northwind.io", "priya.raman@northwind.io", "marcus.webb@northwind.io"], time_min="2026-01-14T00:00:00", time_max="2026-01-15T00:00:00"),
            _call("list_my_calendars"),
            _call("create_event", calendar_id=2, **_BUDGET),
        ],
        "final_answer": "Marcus is busy at 10:00, so I booked 'Budget Planning' on 14 January at 13:00-14:00 on your Work Projects calendar and invited Priya Raman and Marcus Webb.",
    },
    {
        "calls": [
            _call("list_buildings"),
            _call("search_rooms", building_id=2, min_capacity=8, resource_type="room"),
        ]
        + [_call("get_room_schedule", room_id=room_id, **_MANCHESTER_WINDOW) for room_id in (7, 8, 10, 11)],
        "final_answer": "Two rooms are free: Ancoats (floor 3, 10 seats) and Northern Quarter (floor 5, 12 seats). Piccadilly and Salford are booked during that window.",
    },
    {
        "calls": [
            _call("update_settings", time_zone="America/New_York"),
            _call("list_my_calendars"),
            _call("update_calendar", calendar_id=1, time_zone="America/New_York"),
        ]
        + [_call("set_working_hours", day_of_week=day, start_time="08:00", end_time="16:00") for day in range(1, 6)],
        "final_answer": "Your account and primary calendar now use America/New_York, and your working hours are 08:00-16:00 Monday to Friday.",
    },
    {
        "calls": [
            _call("search_events", q="Dentist appointment", time_min="2026-01-16T00:00:00", time_max="2026-01-17T00:00:00"),
            _call("list_event_reminders", event_id=1),
            _call("delete_reminder", reminder_id=1),
            _call("delete_reminder", reminder_id=2),
            _call("add_reminder", event_id=1, method="email", minutes_before=1440),
            _call("list_colors", kind="event"),
            _call("update_event", event_id=1, color_id=11),
        ],
        "final_answer": "Your 16 January dentist appointment now has a single email reminder one day before and is coloured Tomato.",
    },
]

# Test data, not assembled into JSONL: plausible but wrong answers for the pure query tasks
# (their final DB equals the initial DB); the verifier must reject each one.
WRONG_ANSWERS = {
    0: [
        "EMPTY RESPONSE FOR TESTING",
        "Two guests haven't replied: Priya Raman and Oliver Grant. It is booked in Kew.",
        "Marcus Webb hasn't responded yet (1 guest); the room is Thames.",
        "Two guests, Marcus Webb and Kenji Sato, have not responded; the meeting is in Greenwich.",
        "Four guests have not answered: Marcus Webb, Kenji Sato, Priya Raman and Oliver Grant. Room: Thames.",
    ],
    5: [
        "EMPTY RESPONSE FOR TESTING",
        "Kenji Sato is in Asia/Tokyo and works 09:00-18:00 on Fridays; his out-of-office ends on 23 January.",
        "Kenji is in Asia/Tokyo, works 10:00-19:00 on Fridays and is back after his out-of-office ends on 14 January.",
        "Asia/Tokyo; Fridays 09:00-17:30; the out-of-office runs from 19 January.",
    ],
    7: [
        "EMPTY RESPONSE FOR TESTING",
        "Only Ancoats (floor 3) is free.",
        "Piccadilly (floor 2) and Ancoats (floor 3) are free.",
        "Ancoats and Salford are free, on floors 3 and 4.",
    ],
}
# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    1: [("create_event", dict(_VENDOR, calendar_id=2, attendee_emails=["priya.ramesh@acmepartners.com"])), ("book_room", {"event_id": 58, "room_id": 5})],
    2: [("cancel_event_instance", {"event_id": 13, "original_start": "2026-01-19T09:30:00"}), ("update_event", {"event_id": 13, "start_time": "2026-01-21T11:00:00", "end_time": "2026-01-21T11:15:00"})],
    3: [("update_acl_rule", {"calendar_id": 3, "rule_id": rule_id, "role": "reader"}) for rule_id in (25, 26, 27)],
    4: [("create_out_of_office", _OUT_OF_OFFICE), ("respond_to_event", {"event_id": 36, "response_status": "declined"})],
    6: [("create_event", dict(_BUDGET, calendar_id=2, start_time="2026-01-14T10:00:00", end_time="2026-01-14T11:00:00", attendee_emails=["priya.raman@northwind.io", "marcus.webber@acmepartners.com"]))],
    8: [("update_settings", {"time_zone": "America/New_York"})] + [("set_working_hours", {"day_of_week": day, "start_time": "08:00", "end_time": "16:00"}) for day in range(1, 6)],
    9: [("add_reminder", {"event_id": 1, "method": "email", "minutes_before": 1440}), ("update_event", {"event_id": 1, "color_id": 11})],
}

APP_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.py")
VERIFIERS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verifiers.py")


def read_full_code():
    with open(APP_PATH, encoding="utf-8") as handle:
        return handle.read()


def extract_verifiers():
    """Return the source of verifier_0..verifier_9, each renamed to verify_task_completion."""
    with open(VERIFIERS_PATH, encoding="utf-8") as handle:
        text = handle.read()
    functions = {node.name: node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}
    sources = []
    for index in range(len(TASKS)):
        name = f"verifier_{index}"
        code = ast.get_source_segment(text, functions[name])
        sources.append(code.replace(f"def {name}(", "def verify_task_completion(", 1))
    return sources


FULL_CODE = read_full_code()
VERIFIERS = extract_verifiers()

assert len(TASKS) == len(SOLUTIONS) == len(VERIFIERS) == len(VERIFIER_META) == 10
