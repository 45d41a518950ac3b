"""Seed data of the google_calendar world (the `sample_data.tables` of gen_sample.jsonl).

One INSERT per string, explicit column lists, foreign-key-safe order; the rows are written as
tuples below and rendered to SQL by `_insert`. The clock reads 2026-01-01 12:00 UTC, so December
2025 is the past and January 2026 is the upcoming month. User 1 (Jordan Ellis) is the logged-in
user. Distractors: near-duplicate people (Priya Raman / Priya Ramesh, Kenji Sato / Kenji Saito,
Marcus Webb / Marcus Webber), two calendars named 'Family', three 'Q1 Roadmap Review' events (one
cancelled, one a dry run), two 'Team Standup' series, three 'Dentist appointment' events, and an
event colour and a calendar colour both named 'Tomato'.
"""


def _sql(value):
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _insert(table, columns, rows):
    head = f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
    return [head + "(" + ", ".join(_sql(value) for value in row) + ");" for row in rows]


USERS = [
    (1, "jordan.ellis@northwind.io", "Jordan Ellis", "Northwind", "Senior Product Manager", 0, "2021-03-01 09:00:00"),
    (2, "priya.raman@northwind.io", "Priya Raman", "Northwind", "Engineering Manager", 0, "2020-06-15 09:00:00"),
    (3, "marcus.webb@northwind.io", "Marcus Webb", "Northwind", "Account Director", 0, "2019-09-02 13:00:00"),
    (4, "sofia.alvarez@northwind.io", "Sofia Alvarez", "Northwind", "Design Lead", 0, "2022-01-10 08:30:00"),
    (5, "kenji.sato@northwind.io", "Kenji Sato", "Northwind", "Partnerships Manager, APAC", 0, "2021-11-08 00:30:00"),
    (6, "hannah.brooks@northwind.io", "Hannah Brooks", "Northwind", "Operations Manager", 0, "2018-04-23 09:00:00"),
    (7, "priya.ramesh@acmepartners.com", "Priya Ramesh", "Acme Partners", "Vendor Success Lead", 1, "2023-05-19 04:00:00"),
    (8, "emma.ellis@gmail.com", "Emma Ellis", None, None, 1, "2021-03-05 19:00:00"),
    (9, "tom.ellis@gmail.com", "Tom Ellis", None, None, 1, "2021-03-06 20:15:00"),
    (10, "oliver.grant@northwind.io", "Oliver Grant", "Northwind", "Sales Lead, North", 0, "2020-02-03 09:00:00"),
    (11, "kenji.saito@acmepartners.com", "Kenji Saito", "Acme Partners", "Solutions Architect", 1, "2023-07-01 01:00:00"),
    (12, "marcus.webber@acmepartners.com", "Marcus Webber", "Acme Partners", "Channel Manager", 1, "2023-08-14 15:00:00"),
    (13, "margaret.ellis@gmail.com", "Margaret Ellis", None, None, 1, "2021-04-11 10:00:00"),
    (14, "grace.kim@gmail.com", "Grace Kim", None, None, 1, "2024-09-01 08:00:00"),
]
_PEOPLE = {row[0]: (row[1], row[2]) for row in USERS}

USER_SETTINGS = [
    (1, "Europe/London", 1, 30, 0, 1, "DD/MM/YYYY", "2025-11-03 09:00:00"),
    (2, "Europe/London", 1, 30, 0, 1, "DD/MM/YYYY", "2025-06-01 10:00:00"),
    (3, "America/New_York", 7, 30, 1, 1, "MM/DD/YYYY", "2025-02-11 14:00:00"),
    (4, "Europe/Madrid", 1, 45, 0, 0, "DD/MM/YYYY", "2025-09-09 08:00:00"),
    (5, "Asia/Tokyo", 7, 60, 0, 1, "YYYY-MM-DD", "2025-10-20 01:00:00"),
    (6, "Europe/London", 1, 30, 0, 1, "DD/MM/YYYY", "2024-12-01 09:00:00"),
    (7, "Asia/Kolkata", 1, 30, 0, 1, "DD/MM/YYYY", "2025-03-14 05:00:00"),
    (8, "Europe/London", 1, 60, 0, 1, "DD/MM/YYYY", "2025-01-07 20:00:00"),
    (9, "Europe/Dublin", 1, 30, 0, 1, "DD/MM/YYYY", "2024-08-30 18:00:00"),
    (10, "Europe/London", 1, 25, 0, 0, "DD/MM/YYYY", "2025-05-05 08:00:00"),
    (11, "Asia/Tokyo", 7, 30, 0, 1, "YYYY-MM-DD", "2025-07-01 02:00:00"),
    (12, "America/Chicago", 7, 30, 0, 1, "MM/DD/YYYY", "2025-08-14 16:00:00"),
    (13, "Europe/London", 1, 60, 1, 1, "DD/MM/YYYY", "2023-04-11 10:00:00"),
    (14, "Europe/London", 1, 30, 0, 1, "DD/MM/YYYY", "2024-09-01 08:30:00"),
]

COLORS = [
    (1, "event", "Lavender", "#7986cb", "#1d1d1d"),
    (2, "event", "Sage", "#33b679", "#1d1d1d"),
    (3, "event", "Grape", "#8e24aa", "#ffffff"),
    (4, "event", "Flamingo", "#e67c73", "#1d1d1d"),
    (5, "event", "Banana", "#f6bf26", "#1d1d1d"),
    (6, "event", "Tangerine", "#f4511e", "#ffffff"),
    (7, "event", "Peacock", "#039be5", "#ffffff"),
    (8, "event", "Graphite", "#616161", "#ffffff"),
    (9, "event", "Blueberry", "#3f51b5", "#ffffff"),
    (10, "event", "Basil", "#0b8043", "#ffffff"),
    (11, "event", "Tomato", "#d50000", "#ffffff"),
    (12, "calendar", "Cocoa", "#795548", "#ffffff"),
    (13, "calendar", "Radicchio", "#ad1457", "#ffffff"),
    (14, "calendar", "Cherry Blossom", "#d81b60", "#ffffff"),
    (15, "calendar", "Pumpkin", "#ef6c00", "#1d1d1d"),
    (16, "calendar", "Avocado", "#c0ca33", "#1d1d1d"),
    (17, "calendar", "Eucalyptus", "#009688", "#ffffff"),
    (18, "calendar", "Cobalt", "#3f51b5", "#ffffff"),
    (19, "calendar", "Wisteria", "#b39ddb", "#1d1d1d"),
    (20, "calendar", "Tomato", "#d50000", "#ffffff"),
]

CALENDARS = [
    (1, 1, "Jordan Ellis", "Personal and default calendar", "Europe/London", 18, 1, "2021-03-01 09:00:00"),
    (2, 1, "Work Projects", "Product meetings, reviews and planning", "Europe/London", 15, 0, "2021-03-02 09:00:00"),
    (3, 1, "Family", "Family plans shared with Emma, Tom and Mum", "Europe/London", 17, 0, "2021-03-05 19:30:00"),
    (4, 1, "Gym & Health", "Workouts and medical appointments", "Europe/London", 16, 0, "2022-01-03 07:00:00"),
    (5, 1, "Book Club", "Monthly book club at Bankside Library", "Europe/London", 19, 0, "2023-09-12 20:00:00"),
    (6, 2, "Priya Raman", None, "Europe/London", 12, 1, "2020-06-15 09:00:00"),
    (7, 3, "Marcus Webb", None, "America/New_York", 13, 1, "2019-09-02 13:00:00"),
    (8, 4, "Sofia Alvarez", None, "Europe/Madrid", 14, 1, "2022-01-10 08:30:00"),
    (9, 5, "Kenji Sato", None, "Asia/Tokyo", 17, 1, "2021-11-08 00:30:00"),
    (10, 6, "Hannah Brooks", None, "Europe/London", 15, 1, "2018-04-23 09:00:00"),
    (11, 2, "Engineering Team", "Shared engineering rituals and reviews", "Europe/London", 18, 0, "2020-07-01 09:00:00"),
    (12, 6, "Northwind Holidays", "Office closures and company-wide events", "Europe/London", 20, 0, "2018-05-01 09:00:00"),
    (13, 8, "Family", "Ellis family plans (kept by Emma)", "Europe/London", 14, 0, "2021-03-05 19:00:00"),
    (14, 7, "Priya Ramesh", None, "Asia/Kolkata", 16, 1, "2023-05-19 04:00:00"),
    (15, 8, "Emma Ellis", None, "Europe/London", 19, 1, "2021-03-05 19:00:00"),
    (16, 9, "Tom Ellis", None, "Europe/Dublin", 12, 1, "2021-03-06 20:15:00"),
    (17, 10, "Oliver Grant", None, "Europe/London", 13, 1, "2020-02-03 09:00:00"),
    (18, 11, "Kenji Saito", None, "Asia/Tokyo", 15, 1, "2023-07-01 01:00:00"),
    (19, 12, "Marcus Webber", None, "America/Chicago", 18, 1, "2023-08-14 15:00:00"),
]

# Rule ids 1-19 are each calendar's owner rule (rule i belongs to calendar i); sharing rules follow.
CALENDAR_ACL = [(row[0], row[0], row[1], "owner", row[7]) for row in CALENDARS] + [
    (20, 1, 2, "freeBusyReader", "2021-05-04 10:00:00"),
    (21, 1, 6, "reader", "2022-02-14 09:00:00"),
    (22, 2, 2, "writer", "2021-03-02 09:10:00"),
    (23, 2, 3, "reader", "2021-03-02 09:10:00"),
    (24, 2, 10, "freeBusyReader", "2023-01-16 11:00:00"),
    (25, 3, 8, "writer", "2021-03-05 19:31:00"),
    (26, 3, 9, "writer", "2021-03-06 20:20:00"),
    (27, 3, 13, "writer", "2021-04-11 10:05:00"),
    (28, 3, 14, "reader", "2024-09-01 08:40:00"),
    (29, 5, 8, "reader", "2023-09-12 20:05:00"),
    (30, 6, 1, "freeBusyReader", "2021-05-04 10:05:00"),
    (31, 11, 1, "writer", "2021-03-01 09:30:00"),
    (32, 11, 3, "writer", "2020-07-01 09:10:00"),
    (33, 11, 5, "reader", "2021-11-08 01:00:00"),
    (34, 11, 10, "writer", "2020-07-01 09:10:00"),
    (35, 12, 1, "reader", "2021-03-01 09:00:00"),
    (36, 12, 2, "reader", "2020-06-15 09:00:00"),
    (37, 12, 3, "reader", "2019-09-02 13:00:00"),
    (38, 12, 4, "reader", "2022-01-10 08:30:00"),
    (39, 12, 5, "reader", "2021-11-08 00:30:00"),
    (40, 12, 10, "reader", "2020-02-03 09:00:00"),
    (41, 13, 1, "writer", "2021-03-05 19:05:00"),
    (42, 13, 9, "writer", "2021-03-06 20:16:00"),
    (43, 13, 13, "reader", "2021-04-11 10:02:00"),
    (44, 15, 1, "reader", "2021-03-05 19:10:00"),
]

CALENDAR_LIST_ENTRIES = [
    (1, 1, 1, None, 0, 1, "2021-03-01 09:00:00"),
    (2, 1, 2, None, 0, 1, "2021-03-02 09:00:00"),
    (3, 1, 3, None, 0, 1, "2021-03-05 19:30:00"),
    (4, 1, 4, None, 0, 1, "2022-01-03 07:00:00"),
    (5, 1, 5, None, 0, 1, "2023-09-12 20:00:00"),
    (6, 1, 11, None, 0, 1, "2021-03-01 09:30:00"),
    (7, 1, 12, None, 0, 1, "2021-03-01 09:00:00"),
    (8, 1, 13, 14, 0, 1, "2021-03-05 19:05:00"),
    (9, 1, 15, None, 1, 0, "2021-03-05 19:10:00"),
    (10, 1, 6, None, 1, 0, "2021-05-04 10:05:00"),
    (11, 2, 6, None, 0, 1, "2020-06-15 09:00:00"),
    (12, 2, 11, None, 0, 1, "2020-07-01 09:00:00"),
    (13, 2, 12, None, 0, 1, "2020-06-15 09:00:00"),
    (14, 2, 2, None, 0, 1, "2021-03-02 09:10:00"),
    (15, 3, 7, None, 0, 1, "2019-09-02 13:00:00"),
    (16, 3, 11, None, 0, 0, "2020-07-01 09:10:00"),
    (17, 3, 12, None, 0, 1, "2019-09-02 13:00:00"),
    (18, 8, 15, None, 0, 1, "2021-03-05 19:00:00"),
    (19, 8, 13, None, 0, 1, "2021-03-05 19:00:00"),
    (20, 8, 3, 15, 0, 1, "2021-03-05 19:31:00"),
    (21, 8, 5, None, 0, 1, "2023-09-12 20:05:00"),
    (22, 9, 16, None, 0, 1, "2021-03-06 20:15:00"),
    (23, 9, 3, None, 0, 1, "2021-03-06 20:20:00"),
    (24, 9, 13, None, 0, 1, "2021-03-06 20:16:00"),
]

DEFAULT_REMINDERS = [
    (1, 1, "popup", 10),
    (2, 2, "popup", 10),
    (3, 2, "email", 60),
    (4, 3, "popup", 60),
    (5, 4, "popup", 30),
    (6, 6, "popup", 10),
    (7, 11, "popup", 5),
    (8, 13, "popup", 30),
]

_LONDON, _MADRID, _NEW_YORK, _TOKYO = "Europe/London", "Europe/Madrid", "America/New_York", "Asia/Tokyo"
# (id, calendar_id, organizer_id, title, description, location, start, end, time_zone, is_all_day,
#  status, visibility, transparency, event_type, color_id, use_default_reminders, created_at);
# updated_at is written equal to created_at.
EVENTS = [
    (1, 1, 1, "Dentist appointment", "Six-month check-up and clean.", "Smile Dental, 14 King Street", "2026-01-16 08:30:00", "2026-01-16 09:15:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 0, "2025-07-16 12:00:00"),
    (2, 1, 1, "Dentist appointment", "Filling follow-up.", "Smile Dental, 14 King Street", "2025-12-03 08:30:00", "2025-12-03 09:15:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 0, "2025-11-12 17:00:00"),
    (3, 1, 1, "Haircut", None, "Barber & Co, Borough", "2026-01-10 10:00:00", "2026-01-10 10:45:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-20 10:00:00"),
    (4, 1, 1, "1:1 with Hannah", "Weekly operations check-in.", "London HQ", "2026-01-09 15:00:00", "2026-01-09 15:30:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-02 09:00:00"),
    (5, 1, 1, "Lunch with Oliver", None, "Flat Iron, Bankside", "2026-01-14 12:00:00", "2026-01-14 13:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", 2, 1, "2025-12-29 16:00:00"),
    (6, 1, 1, "Flight to Madrid", "BA0458, seat 14A.", "Heathrow Terminal 5", "2026-01-27 07:00:00", "2026-01-27 09:30:00", _LONDON, 0, "confirmed", "default", "opaque", "default", 9, 0, "2025-12-15 21:00:00"),
    (7, 1, 1, "Call with bank", None, "Phone", "2025-12-18 11:00:00", "2025-12-18 11:30:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 1, "2025-12-16 09:00:00"),
    (8, 1, 1, "Focus time", "Write the Q1 roadmap narrative.", None, "2026-01-07 13:00:00", "2026-01-07 15:00:00", _LONDON, 0, "confirmed", "default", "opaque", "focusTime", 7, 1, "2025-12-30 10:00:00"),
    (9, 1, 1, "Working from Manchester", None, "Manchester Office", "2026-01-15 00:00:00", "2026-01-16 00:00:00", _LONDON, 1, "confirmed", "default", "transparent", "workingLocation", None, 1, "2025-12-30 10:05:00"),
    (10, 2, 1, "Q1 Roadmap Review", "Agree the Q1 roadmap and an owner for each theme.", "London HQ - Thames", "2026-01-08 14:00:00", "2026-01-08 15:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", 5, 1, "2025-12-18 11:00:00"),
    (11, 2, 1, "Q1 Roadmap Review (dry run)", "Walk through the deck before the real review.", "London HQ - Kew", "2026-01-06 16:00:00", "2026-01-06 16:30:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-22 15:00:00"),
    (12, 2, 1, "Q1 Roadmap Review", "Moved to January 8.", "London HQ - Greenwich", "2026-01-05 14:00:00", "2026-01-05 15:00:00", _LONDON, 0, "cancelled", "default", "opaque", "default", None, 1, "2025-12-10 10:00:00"),
    (13, 2, 1, "Team Standup", "Fifteen minutes: yesterday, today, blockers.", "Google Meet", "2026-01-05 09:30:00", "2026-01-05 09:45:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-19 12:00:00"),
    (14, 2, 1, "Sprint Planning", "Sprint 14 scope and capacity.", "London HQ - Hyde", "2026-01-12 10:00:00", "2026-01-12 11:30:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-19 12:10:00"),
    (15, 2, 1, "Quarterly Business Review", None, "London HQ - Thames", "2025-12-10 13:00:00", "2025-12-10 15:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-11-20 09:00:00"),
    (16, 2, 1, "Budget Planning", "FY2026 budget first pass.", "London HQ - Richmond", "2025-11-20 10:00:00", "2025-11-20 11:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-11-01 09:00:00"),
    (17, 2, 1, "Payroll review", "Fortnightly payroll sign-off.", "Google Meet", "2026-01-07 16:00:00", "2026-01-07 16:30:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 1, "2025-12-19 12:20:00"),
    (18, 3, 1, "Mum's birthday dinner", "Table for five booked under Ellis.", "The Ivy, Covent Garden", "2026-01-24 18:00:00", "2026-01-24 21:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", 4, 0, "2025-12-05 20:00:00"),
    (19, 3, 1, "Family video call", None, "Google Meet", "2026-01-04 17:00:00", "2026-01-04 18:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-28 18:00:00"),
    (20, 3, 1, "Boiler service", "Engineer arrives between 8 and 10.", "Home", "2026-01-20 08:00:00", "2026-01-20 10:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-11 08:00:00"),
    (21, 4, 1, "Gym session", None, "PureGym Southwark", "2026-01-05 07:00:00", "2026-01-05 08:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", 10, 1, "2025-12-31 09:00:00"),
    (22, 4, 1, "Physio", "Knee rehab, session 3.", "Bankside Physio", "2026-01-14 16:30:00", "2026-01-14 17:15:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 0, "2025-12-17 13:00:00"),
    (23, 4, 1, "Physio", "Knee rehab, session 4.", "Bankside Physio", "2026-01-28 16:30:00", "2026-01-28 17:15:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 1, "2025-12-17 13:05:00"),
    (24, 4, 1, "Blood test", None, "Guy's Hospital", "2025-12-15 08:00:00", "2025-12-15 08:20:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 1, "2025-12-01 10:00:00"),
    (25, 5, 1, "Book Club: The Covenant of Water", "Chapters 1-40.", "Bankside Library", "2026-01-22 19:00:00", "2026-01-22 21:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-01 20:00:00"),
    (26, 5, 1, "Author Talk: Kazuo Ishiguro", None, "Southbank Centre", "2026-02-05 18:30:00", "2026-02-05 20:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-08 20:00:00"),
    (27, 6, 2, "Yoga", None, "Triyoga Soho", "2026-01-14 07:30:00", "2026-01-14 08:30:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 1, "2025-12-30 08:00:00"),
    (28, 6, 2, "Architecture Review", "Review the event-sourcing proposal.", "Google Meet", "2026-01-09 10:00:00", "2026-01-09 11:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-22 09:00:00"),
    (29, 6, 2, "Priya / Jordan 1:1", None, "London HQ", "2026-01-13 11:00:00", "2026-01-13 11:30:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-22 09:10:00"),
    (30, 6, 2, "Hiring panel", "Final round, staff engineer.", "London HQ", "2026-01-14 16:00:00", "2026-01-14 17:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-23 11:00:00"),
    (31, 6, 2, "Interview: Senior Engineer", None, "London HQ - Hyde", "2026-01-13 14:30:00", "2026-01-13 15:30:00", _LONDON, 0, "confirmed", "private", "opaque", "default", None, 1, "2025-12-23 11:30:00"),
    (32, 7, 3, "Client call - Initech", None, "Zoom", "2026-01-14 10:00:00", "2026-01-14 11:00:00", _NEW_YORK, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-29 15:00:00"),
    (33, 7, 3, "AMA livestream (optional)", "Watch if there is time.", "YouTube", "2026-01-14 13:00:00", "2026-01-14 14:00:00", _NEW_YORK, 0, "confirmed", "default", "transparent", "default", None, 1, "2025-12-29 15:10:00"),
    (34, 7, 3, "Client onboarding - Initech", "Kick-off with the Initech admin team.", "Zoom", "2026-01-08 17:00:00", "2026-01-08 18:00:00", _NEW_YORK, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-30 14:00:00"),
    (35, 7, 3, "Marcus / Jordan sync", None, "Zoom", "2026-01-12 15:00:00", "2026-01-12 15:30:00", _NEW_YORK, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-30 14:10:00"),
    (36, 8, 4, "Sales Kickoff rehearsal", "Dry run of the SKO product keynote.", "Google Meet", "2026-01-09 13:00:00", "2026-01-09 14:00:00", _MADRID, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-29 10:00:00"),
    (37, 8, 4, "Design Critique", "Checkout redesign, round 2.", "London HQ - Thames", "2026-01-13 13:30:00", "2026-01-13 15:00:00", _MADRID, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-29 10:10:00"),
    (38, 8, 4, "Design Team Standup", None, "Google Meet", "2026-01-05 08:30:00", "2026-01-05 08:45:00", _MADRID, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-29 10:20:00"),
    (39, 9, 5, "Tokyo partner meeting", None, "Marunouchi office", "2026-01-08 01:00:00", "2026-01-08 02:00:00", _TOKYO, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-26 03:00:00"),
    (40, 10, 6, "Holiday party debrief", "What worked, what to change next year.", "London HQ - Kew", "2026-01-09 16:00:00", "2026-01-09 16:30:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-22 16:00:00"),
    (41, 10, 6, "Coffee chat", None, "Grind, London Bridge", "2026-01-09 09:00:00", "2026-01-09 09:30:00", _LONDON, 0, "cancelled", "default", "opaque", "default", None, 1, "2025-12-22 16:10:00"),
    (42, 10, 6, "Marketing sync", None, "London HQ - Kew", "2026-01-13 15:00:00", "2026-01-13 16:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-22 16:20:00"),
    (43, 11, 2, "Team Standup", "Engineering standup.", "Google Meet", "2026-01-06 10:00:00", "2026-01-06 10:15:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-19 09:00:00"),
    (44, 11, 2, "Incident postmortem", "Checkout outage of 18 December.", "Google Meet", "2026-01-07 11:00:00", "2026-01-07 12:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-20 09:00:00"),
    (45, 11, 10, "Architecture Guild", None, "London HQ - Richmond", "2026-01-14 13:00:00", "2026-01-14 14:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-20 10:00:00"),
    (46, 12, 6, "New Year's Day (office closed)", None, None, "2026-01-01 00:00:00", "2026-01-02 00:00:00", _LONDON, 1, "confirmed", "public", "transparent", "default", None, 1, "2025-10-01 09:00:00"),
    (47, 12, 6, "Company all-hands", "Q4 results and 2026 plans.", "London HQ - Atrium", "2026-01-21 16:00:00", "2026-01-21 17:00:00", _LONDON, 0, "confirmed", "public", "opaque", "default", None, 1, "2025-11-28 09:00:00"),
    (48, 13, 8, "Dentist appointment", "Lily's check-up.", "Smile Dental, 14 King Street", "2026-01-23 15:00:00", "2026-01-23 15:30:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 0, "2025-12-12 19:00:00"),
    (49, 13, 8, "Grandma visit", None, "Emma's house", "2026-01-17 00:00:00", "2026-01-18 00:00:00", _LONDON, 1, "confirmed", "default", "transparent", "default", None, 1, "2025-12-12 19:10:00"),
    (50, 14, 7, "Acme quarterly sync", None, "Microsoft Teams", "2026-01-20 09:00:00", "2026-01-20 10:00:00", "Asia/Kolkata", 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-15 06:00:00"),
    (51, 17, 10, "Manchester sales huddle", None, "Manchester Office - Piccadilly", "2026-01-15 11:00:00", "2026-01-15 12:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-18 09:00:00"),
    (52, 17, 10, "Quarterly planning (North)", None, "Manchester Office - Salford", "2026-01-15 09:00:00", "2026-01-15 10:30:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-18 09:10:00"),
    (53, 17, 10, "Customer workshop", "Cancelled by the customer.", "Manchester Office - Northern Quarter", "2026-01-15 10:00:00", "2026-01-15 11:00:00", _LONDON, 0, "cancelled", "default", "opaque", "default", None, 1, "2025-12-18 09:20:00"),
    (54, 17, 10, "Recruiting sync", None, "Manchester Office - Ancoats", "2026-01-15 14:00:00", "2026-01-15 15:00:00", _LONDON, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-18 09:30:00"),
    (55, 18, 11, "Acme roadmap briefing", None, "Microsoft Teams", "2026-01-13 05:00:00", "2026-01-13 06:00:00", _TOKYO, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-20 02:00:00"),
    (56, 19, 12, "Partner pipeline review", None, "Microsoft Teams", "2026-01-14 15:00:00", "2026-01-14 16:00:00", "America/Chicago", 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-21 16:00:00"),
    (57, 8, 4, "Madrid design sprint", None, "Madrid Hub - Retiro", "2026-01-20 09:00:00", "2026-01-20 12:00:00", _MADRID, 0, "confirmed", "default", "opaque", "default", None, 1, "2025-12-29 10:30:00"),
]

RECURRENCE_RULES = [
    (1, 13, "WEEKLY", 1, "MO,WE,FR", "2026-03-27"),
    (2, 17, "WEEKLY", 2, "WE", "2026-06-24"),
    (3, 19, "WEEKLY", 1, "SU", None),
    (4, 21, "WEEKLY", 1, "MO,WE,FR", None),
    (5, 38, "WEEKLY", 1, "MO,TU,WE,TH,FR", None),
    (6, 43, "WEEKLY", 1, "TU,TH", "2026-06-30"),
    (7, 25, "MONTHLY", 1, None, None),
]

EVENT_EXCEPTIONS = [
    (1, 13, "2026-01-16 09:30:00", "modified", "2026-01-16 10:00:00", "2026-01-16 10:15:00", "2025-12-30 11:00:00"),
    (2, 43, "2026-01-08 10:00:00", "cancelled", None, None, "2025-12-31 09:00:00"),
    (3, 21, "2026-01-09 07:00:00", "cancelled", None, None, "2025-12-31 09:05:00"),
    (4, 19, "2026-01-25 17:00:00", "modified", "2026-01-25 18:00:00", "2026-01-25 19:00:00", "2025-12-31 18:00:00"),
]

# (event_id, user_id, response_status, is_optional, is_organizer, comment); ids follow list order.
_ATTENDANCE = [
    (4, 1, "accepted", 0, 1, None), (4, 6, "accepted", 0, 0, None),
    (5, 1, "accepted", 0, 1, None), (5, 10, "accepted", 0, 0, None),
    (10, 1, "accepted", 0, 1, None), (10, 2, "accepted", 0, 0, None), (10, 3, "needsAction", 0, 0, None),
    (10, 4, "declined", 0, 0, "In Madrid that week, will send notes."), (10, 5, "needsAction", 0, 0, None),
    (10, 6, "tentative", 0, 0, "Might be late."), (10, 10, "accepted", 1, 0, None),
    (11, 1, "accepted", 0, 1, None), (11, 2, "needsAction", 0, 0, None), (11, 10, "needsAction", 0, 0, None),
    (11, 6, "accepted", 0, 0, None),
    (12, 1, "accepted", 0, 1, None), (12, 3, "accepted", 0, 0, None), (12, 4, "needsAction", 0, 0, None),
    (12, 6, "needsAction", 0, 0, None),
    (13, 1, "accepted", 0, 1, None), (13, 2, "accepted", 0, 0, None), (13, 6, "accepted", 0, 0, None),
    (13, 10, "accepted", 0, 0, None),
    (14, 1, "accepted", 0, 1, None), (14, 2, "accepted", 0, 0, None), (14, 3, "accepted", 0, 0, None),
    (14, 10, "tentative", 0, 0, None),
    (15, 1, "accepted", 0, 1, None), (15, 3, "accepted", 0, 0, None), (15, 4, "accepted", 0, 0, None),
    (16, 1, "accepted", 0, 1, None), (16, 3, "accepted", 0, 0, None), (16, 6, "accepted", 0, 0, None),
    (17, 1, "accepted", 0, 1, None), (17, 6, "accepted", 0, 0, None),
    (18, 1, "accepted", 0, 1, None), (18, 8, "accepted", 0, 0, None), (18, 9, "tentative", 0, 0, "Flight lands at 17:00."),
    (18, 13, "accepted", 0, 0, None),
    (19, 1, "accepted", 0, 1, None), (19, 8, "accepted", 0, 0, None), (19, 9, "accepted", 0, 0, None),
    (19, 13, "accepted", 0, 0, None),
    (25, 1, "accepted", 0, 1, None), (25, 8, "accepted", 0, 0, None),
    (28, 2, "accepted", 0, 1, None), (28, 1, "accepted", 0, 0, None), (28, 3, "accepted", 0, 0, None),
    (28, 10, "needsAction", 1, 0, None),
    (29, 2, "accepted", 0, 1, None), (29, 1, "accepted", 0, 0, None),
    (30, 2, "accepted", 0, 1, None), (30, 6, "accepted", 0, 0, None),
    (31, 2, "accepted", 0, 1, None), (31, 4, "accepted", 0, 0, None),
    (34, 3, "accepted", 0, 1, None), (34, 1, "needsAction", 0, 0, None), (34, 5, "accepted", 0, 0, None),
    (35, 3, "accepted", 0, 1, None), (35, 1, "needsAction", 0, 0, None),
    (36, 4, "accepted", 0, 1, None), (36, 1, "needsAction", 0, 0, None), (36, 6, "accepted", 0, 0, None),
    (37, 4, "accepted", 0, 1, None), (37, 2, "accepted", 0, 0, None), (37, 6, "accepted", 0, 0, None),
    (40, 6, "accepted", 0, 1, None), (40, 1, "tentative", 0, 0, None), (40, 10, "accepted", 0, 0, None),
    (41, 6, "accepted", 0, 1, None), (41, 1, "needsAction", 0, 0, None),
    (42, 6, "accepted", 0, 1, None), (42, 4, "accepted", 0, 0, None),
    (43, 2, "accepted", 0, 1, None), (43, 1, "accepted", 0, 0, None), (43, 3, "accepted", 0, 0, None),
    (43, 5, "accepted", 0, 0, None), (43, 10, "accepted", 0, 0, None),
    (44, 2, "accepted", 0, 1, None), (44, 1, "accepted", 0, 0, None), (44, 3, "needsAction", 0, 0, None),
    (45, 10, "accepted", 0, 1, None), (45, 2, "declined", 0, 0, "Hiring panel prep."), (45, 3, "declined", 0, 0, None),
    (48, 8, "accepted", 0, 1, None), (48, 9, "accepted", 0, 0, None),
    (50, 7, "accepted", 0, 1, None), (50, 1, "accepted", 0, 0, None), (50, 11, "accepted", 0, 0, None),
    (51, 10, "accepted", 0, 1, None), (51, 6, "accepted", 0, 0, None),
    (52, 10, "accepted", 0, 1, None), (52, 1, "needsAction", 0, 0, None),
    (53, 10, "accepted", 0, 1, None), (53, 6, "needsAction", 0, 0, None),
    (54, 10, "accepted", 0, 1, None), (54, 4, "accepted", 0, 0, None),
    (55, 11, "accepted", 0, 1, None), (55, 12, "accepted", 0, 0, None), (55, 7, "accepted", 0, 0, None),
    (56, 12, "accepted", 0, 1, None), (56, 7, "accepted", 0, 0, None),
    (57, 4, "accepted", 0, 1, None), (57, 5, "accepted", 0, 0, None),
]
EVENT_ATTENDEES = [
    (index, event_id, user_id, _PEOPLE[user_id][0], _PEOPLE[user_id][1], status, optional, organizer, comment,
     None if status == "needsAction" else "2025-12-30 09:00:00")
    for index, (event_id, user_id, status, optional, organizer, comment) in enumerate(_ATTENDANCE, start=1)
]

REMINDERS = [
    (1, 1, 1, "popup", 60),
    (2, 1, 1, "popup", 15),
    (3, 2, 1, "popup", 60),
    (4, 6, 1, "popup", 180),
    (5, 6, 1, "email", 1440),
    (6, 18, 1, "popup", 120),
    (7, 18, 1, "email", 2880),
    (8, 22, 1, "popup", 30),
    (9, 48, 8, "popup", 30),
    (10, 48, 1, "popup", 60),
    (11, 36, 4, "popup", 10),
    (12, 28, 2, "popup", 5),
    (13, 30, 2, "email", 60),
]

EVENT_ATTACHMENTS = [
    (1, 10, "Q1 roadmap draft.pdf", "https://drive.northwind.io/files/q1-roadmap-draft.pdf", "application/pdf", 1, "2025-12-18 11:05:00"),
    (2, 14, "Sprint 14 board", "https://jira.northwind.io/boards/14", "text/html", 1, "2025-12-19 12:15:00"),
    (3, 18, "The Ivy booking confirmation.pdf", "https://drive.google.com/file/d/ivy-booking", "application/pdf", 1, "2025-12-05 20:05:00"),
    (4, 37, "Checkout redesign deck.pptx", "https://drive.northwind.io/files/checkout-redesign.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", 4, "2025-12-29 10:15:00"),
    (5, 28, "Event-sourcing proposal", "https://docs.northwind.io/arch/event-sourcing", "text/html", 2, "2025-12-22 09:05:00"),
]

BUILDINGS = [
    (1, "London HQ", "1 Bankside, London SE1 9JT", "London", "Europe/London"),
    (2, "Manchester Office", "20 Spinningfields, Manchester M3 3EB", "Manchester", "Europe/London"),
    (3, "Madrid Hub", "Calle de Alcala 45, 28014 Madrid", "Madrid", "Europe/Madrid"),
    (4, "New York Studio", "85 Broad Street, New York, NY 10004", "New York", "America/New_York"),
]

RESOURCES = [
    (1, 1, "Thames", "room", 4, 10, 1, 1, "thames.london@rooms.northwind.io"),
    (2, 1, "Kew", "room", 2, 6, 1, 0, "kew.london@rooms.northwind.io"),
    (3, 1, "Greenwich", "room", 2, 4, 1, 1, "greenwich.london@rooms.northwind.io"),
    (4, 1, "Richmond", "room", 3, 8, 0, 1, "richmond.london@rooms.northwind.io"),
    (5, 1, "Hyde", "room", 5, 12, 1, 1, "hyde.london@rooms.northwind.io"),
    (6, 1, "Projector Cart A", "equipment", 1, None, 0, 0, "projector-a.london@rooms.northwind.io"),
    (7, 2, "Piccadilly", "room", 2, 8, 1, 0, "piccadilly.manchester@rooms.northwind.io"),
    (8, 2, "Ancoats", "room", 3, 10, 0, 1, "ancoats.manchester@rooms.northwind.io"),
    (9, 2, "Deansgate", "room", 3, 6, 1, 1, "deansgate.manchester@rooms.northwind.io"),
    (10, 2, "Salford", "room", 4, 14, 1, 1, "salford.manchester@rooms.northwind.io"),
    (11, 2, "Northern Quarter", "room", 5, 12, 1, 1, "northern-quarter.manchester@rooms.northwind.io"),
    (12, 2, "Portable Webcam Kit", "equipment", 2, None, 1, 0, "webcam-kit.manchester@rooms.northwind.io"),
    (13, 3, "Retiro", "room", 1, 8, 1, 1, "retiro.madrid@rooms.northwind.io"),
    (14, 3, "Sol", "room", 1, 4, 0, 0, "sol.madrid@rooms.northwind.io"),
    (15, 4, "Hudson", "room", 12, 10, 1, 1, "hudson.newyork@rooms.northwind.io"),
]

ROOM_BOOKINGS = [
    (1, 1, 10, "2026-01-08 14:00:00", "2026-01-08 15:00:00", "accepted", 1, "2025-12-18 11:00:00"),
    (2, 2, 11, "2026-01-06 16:00:00", "2026-01-06 16:30:00", "accepted", 1, "2025-12-22 15:00:00"),
    (3, 3, 12, "2026-01-05 14:00:00", "2026-01-05 15:00:00", "cancelled", 1, "2025-12-10 10:00:00"),
    (4, 5, 14, "2026-01-12 10:00:00", "2026-01-12 11:30:00", "accepted", 1, "2025-12-19 12:10:00"),
    (5, 1, 37, "2026-01-13 13:30:00", "2026-01-13 15:00:00", "accepted", 4, "2025-12-29 10:10:00"),
    (6, 5, 31, "2026-01-13 14:30:00", "2026-01-13 15:30:00", "accepted", 2, "2025-12-23 11:30:00"),
    (7, 2, 42, "2026-01-13 15:00:00", "2026-01-13 16:00:00", "accepted", 6, "2025-12-22 16:20:00"),
    (8, 7, 51, "2026-01-15 11:00:00", "2026-01-15 12:00:00", "accepted", 10, "2025-12-18 09:00:00"),
    (9, 10, 52, "2026-01-15 09:00:00", "2026-01-15 10:30:00", "accepted", 10, "2025-12-18 09:10:00"),
    (10, 11, 53, "2026-01-15 10:00:00", "2026-01-15 11:00:00", "cancelled", 10, "2025-12-18 09:20:00"),
    (11, 8, 54, "2026-01-15 14:00:00", "2026-01-15 15:00:00", "accepted", 10, "2025-12-18 09:30:00"),
    (12, 13, 57, "2026-01-20 09:00:00", "2026-01-20 12:00:00", "accepted", 4, "2025-12-29 10:30:00"),
    (13, 6, 10, "2026-01-08 14:00:00", "2026-01-08 15:00:00", "accepted", 1, "2025-12-18 11:02:00"),
]

_WEEKDAYS = [1, 2, 3, 4, 5]
_HOURS = [
    (1, {day: ("09:00", "17:30") for day in _WEEKDAYS}),
    (2, {day: ("08:30", "17:00") for day in _WEEKDAYS}),
    (3, {day: ("09:00", "17:00") for day in _WEEKDAYS}),
    (5, {1: ("09:00", "18:00"), 2: ("09:00", "18:00"), 3: ("09:00", "18:00"), 4: ("09:00", "18:00"), 5: ("09:00", "17:30")}),
    (11, {day: ("10:00", "19:00") for day in _WEEKDAYS}),
    (12, {1: ("08:00", "17:00"), 2: ("08:00", "17:00"), 3: ("08:00", "17:00"), 4: ("08:00", "17:00"), 5: ("08:00", "13:00")}),
]
WORKING_HOURS = [
    (index, user_id, day, start, end)
    for index, (user_id, day, start, end) in enumerate(
        [(user_id, day, hours[day][0], hours[day][1]) for user_id, hours in _HOURS for day in sorted(hours)], start=1)
]

OUT_OF_OFFICE = [
    (1, 1, "2025-12-22 00:00:00", "2026-01-01 00:00:00", "Christmas break, back on 2 January.", 1, "2025-12-01 09:00:00"),
    (2, 5, "2025-12-24 00:00:00", "2026-01-01 00:00:00", "Year-end holidays.", 1, "2025-11-20 01:00:00"),
    (3, 5, "2026-01-19 00:00:00", "2026-01-23 23:59:00", "Visiting family in Osaka.", 1, "2025-12-10 02:00:00"),
    (4, 11, "2026-01-12 00:00:00", "2026-01-14 23:59:00", "Acme offsite.", 0, "2025-12-15 03:00:00"),
    (5, 4, "2026-01-26 00:00:00", "2026-01-30 23:59:00", "Annual leave.", 1, "2025-12-05 08:00:00"),
    (6, 3, "2026-01-02 00:00:00", "2026-01-03 00:00:00", "Personal day.", 0, "2025-12-19 15:00:00"),
]

SAMPLE = [
    {
        "table_name": "users",
        "reasoning": "User 1 (Jordan Ellis) is the logged-in product manager; colleagues, family and external Acme contacts include near-duplicate names (Priya Raman/Ramesh, Kenji Sato/Saito, Marcus Webb/Webber).",
        "insert_statements": _insert("users", ["id", "email", "display_name", "organization", "job_title", "is_external", "created_at"], USERS),
    },
    {
        "table_name": "user_settings",
        "reasoning": "Every user has settings; the time_zone column is how other people's working hours are read (Kenji Sato in Asia/Tokyo, Marcus Webb in America/New_York).",
        "insert_statements": _insert("user_settings", ["user_id", "time_zone", "week_start", "default_event_minutes", "show_declined_events", "show_weekends", "date_format", "updated_at"], USER_SETTINGS),
    },
    {
        "table_name": "colors",
        "reasoning": "Google's eleven event colours plus calendar colours; 'Tomato' exists as both an event colour (id 11) and a calendar colour (id 20).",
        "insert_statements": _insert("colors", ["id", "kind", "name", "background", "foreground"], COLORS),
    },
    {
        "table_name": "calendars",
        "reasoning": "Jordan owns a primary calendar and four secondary ones; colleagues own primaries and team calendars; Emma owns a second calendar named 'Family' that Jordan can edit.",
        "insert_statements": _insert("calendars", ["id", "owner_id", "summary", "description", "time_zone", "color_id", "is_primary", "created_at"], CALENDARS),
    },
    {
        "table_name": "calendar_acl",
        "reasoning": "Owner rules for every calendar plus sharing: Jordan's 'Family' has three writers (Emma, Tom, Margaret) and a reader; Emma's 'Family' has its own writers that must not be touched.",
        "insert_statements": _insert("calendar_acl", ["id", "calendar_id", "user_id", "role", "created_at"], CALENDAR_ACL),
    },
    {
        "table_name": "calendar_list_entries",
        "reasoning": "Jordan's calendar list holds own calendars and shared ones (Emma's 'Family' with a colour override, hidden primaries); a few entries for other users.",
        "insert_statements": _insert("calendar_list_entries", ["id", "user_id", "calendar_id", "color_override_id", "is_hidden", "is_selected", "added_at"], CALENDAR_LIST_ENTRIES),
    },
    {
        "table_name": "default_reminders",
        "reasoning": "Default notifications per calendar, shown with each calendar.",
        "insert_statements": _insert("default_reminders", ["id", "calendar_id", "method", "minutes_before"], DEFAULT_REMINDERS),
    },
    {
        "table_name": "events",
        "reasoning": "Past (December 2025) and upcoming (January 2026) events on every calendar: the real, dry-run and cancelled 'Q1 Roadmap Review', invitations on 8, 9 and 12 January, room bookings that conflict with 13 and 15 January, and transparent or declined events that must not count as busy.",
        "insert_statements": _insert("events", ["id", "calendar_id", "organizer_id", "title", "description", "location", "start_time", "end_time", "time_zone", "is_all_day", "status", "visibility", "transparency", "event_type", "color_id", "use_default_reminders", "created_at", "updated_at"], [row + (row[-1],) for row in EVENTS]),
    },
    {
        "table_name": "recurrence_rules",
        "reasoning": "Weekly series (Jordan's Mon/Wed/Fri 'Team Standup', the Tue/Thu engineering 'Team Standup', gym, a fortnightly payroll review) and a monthly book club.",
        "insert_statements": _insert("recurrence_rules", ["id", "event_id", "frequency", "repeat_interval", "by_day", "until_date"], RECURRENCE_RULES),
    },
    {
        "table_name": "event_exceptions",
        "reasoning": "Existing instance exceptions (a moved standup on 16 January, a cancelled engineering standup, a skipped gym session) that edits to other instances must preserve.",
        "insert_statements": _insert("event_exceptions", ["id", "event_id", "original_start", "exception_type", "new_start", "new_end", "created_at"], EVENT_EXCEPTIONS),
    },
    {
        "table_name": "event_attendees",
        "reasoning": "Attendees with every RSVP status; the Q1 review has two people who have not answered, Jordan has accepted, tentative and unanswered invitations on 9 January and unanswered ones on other days.",
        "insert_statements": _insert("event_attendees", ["id", "event_id", "user_id", "email", "display_name", "response_status", "is_optional", "is_organizer", "comment", "responded_at"], EVENT_ATTENDEES),
    },
    {
        "table_name": "reminders",
        "reasoning": "Jordan's custom reminders (two popups on the 16 January dentist visit) and reminders of other users and on Emma's dentist event, which must survive edits.",
        "insert_statements": _insert("reminders", ["id", "event_id", "user_id", "method", "minutes_before"], REMINDERS),
    },
    {
        "table_name": "event_attachments",
        "reasoning": "A few documents attached to meetings, shown in event details.",
        "insert_statements": _insert("event_attachments", ["id", "event_id", "title", "file_url", "mime_type", "added_by", "added_at"], EVENT_ATTACHMENTS),
    },
    {
        "table_name": "buildings",
        "reasoning": "Four offices in three time zones.",
        "insert_statements": _insert("buildings", ["id", "name", "address", "city", "time_zone"], BUILDINGS),
    },
    {
        "table_name": "resources",
        "reasoning": "Rooms with different capacities, floors and video equipment so that exactly one London room fits the vendor call and exactly two Manchester rooms are free on 15 January; two equipment resources.",
        "insert_statements": _insert("resources", ["id", "building_id", "name", "resource_type", "floor", "capacity", "has_video", "has_whiteboard", "email"], RESOURCES),
    },
    {
        "table_name": "room_bookings",
        "reasoning": "Bookings that overlap fully, partially or only touch the slots used by tasks; two bookings are cancelled and must not block a room.",
        "insert_statements": _insert("room_bookings", ["id", "resource_id", "event_id", "start_time", "end_time", "status", "booked_by", "created_at"], ROOM_BOOKINGS),
    },
    {
        "table_name": "working_hours",
        "reasoning": "Weekly working hours (HH:MM in the user's own time zone); Kenji Sato finishes earlier on Fridays than Kenji Saito.",
        "insert_statements": _insert("working_hours", ["id", "user_id", "day_of_week", "start_time", "end_time"], WORKING_HOURS),
    },
    {
        "table_name": "out_of_office",
        "reasoning": "Past and upcoming out-of-office periods; Kenji Sato has a past one and one in January, Kenji Saito a different January one.",
        "insert_statements": _insert("out_of_office", ["id", "user_id", "start_time", "end_time", "message", "auto_decline", "created_at"], OUT_OF_OFFICE),
    },
]
