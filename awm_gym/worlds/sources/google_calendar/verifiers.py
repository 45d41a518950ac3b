"""Code-mode verifiers of the google_calendar world, one per task (gen_verifier.pure_code.jsonl).

`verifier_<i>` is task i's verifier. The assembler stores each function's source text with the
name rewritten to `verify_task_completion`, AWM's entry-point name. Each function imports only
sqlite3, json and re, reads both databases, and returns {"result": "complete"} only when the
task is certainly done, else {"result": "others"}. Expected answers and targets are derived from
the initial database, never from "now" (the verifiers must not depend on the clock). Helpers are
nested inside each function because each verifier is stored and executed on its own.
VERIFIER_META gives the rest of AWM's raw response (reasoning, verification_strategy, key_checks).
"""


def verifier_0(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    events = conn.execute("SELECT id FROM events WHERE title = 'Q1 Roadmap Review' AND organizer_id = 1 AND status <> 'cancelled' AND substr(start_time, 1, 10) = '2026-01-08'").fetchall()
    if len(events) != 1:
        conn.close()
        return {"result": "others"}
    event_id = events[0][0]
    names = [r[0] for r in conn.execute("SELECT COALESCE(display_name, email) FROM event_attendees WHERE event_id = ? AND is_organizer = 0 AND response_status = 'needsAction'", (event_id,)).fetchall()]
    rooms = [r[0] for r in conn.execute("SELECT r.name FROM room_bookings b JOIN resources r ON r.id = b.resource_id WHERE b.event_id = ? AND b.status = 'accepted' AND r.resource_type = 'room'", (event_id,)).fetchall()]
    conn.close()
    if not names or not rooms:
        return {"result": "others"}
    for value in names + rooms:
        if not re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", final_answer, re.IGNORECASE):
            return {"result": "others"}
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    count = len(names)
    said_digit = re.search(r"(?<![\d:.\-/])" + str(count) + r"(?![\d:\-/])", final_answer)
    said_word = count < len(words) and re.search(r"\b" + words[count] + r"\b", final_answer, re.IGNORECASE)
    if not said_digit and not said_word:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_1(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    start, end = "2026-01-13 14:00:00", "2026-01-13 14:45:00"
    calendar = init.execute("SELECT id FROM calendars WHERE owner_id = 1 AND summary = 'Work Projects'").fetchone()
    guest = init.execute("SELECT lower(email) FROM users WHERE display_name = 'Priya Ramesh'").fetchone()
    building = init.execute("SELECT id FROM buildings WHERE name = 'London HQ'").fetchone()
    if calendar is None or guest is None or building is None:
        init.close()
        final.close()
        return {"result": "others"}
    rooms = [r[0] for r in init.execute("SELECT id FROM resources WHERE building_id = ? AND resource_type = 'room' AND has_video = 1 AND capacity >= 6", (building[0],)).fetchall()]
    busy = {r[0] for r in init.execute("SELECT b.resource_id FROM room_bookings b JOIN events e ON e.id = b.event_id WHERE b.status = 'accepted' AND e.status <> 'cancelled' AND b.start_time < ? AND b.end_time > ?", (end, start)).fetchall()}
    qualifying = {room for room in rooms if room not in busy}
    tables = {"events": "SELECT * FROM events ORDER BY id", "event_attendees": "SELECT * FROM event_attendees ORDER BY id", "room_bookings": "SELECT * FROM room_bookings ORDER BY id"}
    before = {name: init.execute(sql).fetchall() for name, sql in tables.items()}
    after = {name: final.execute(sql).fetchall() for name, sql in tables.items()}
    init.close()
    final.close()
    if not qualifying:
        return {"result": "others"}
    old_event_ids = {row[0] for row in before["events"]}
    new_events = [row for row in after["events"] if row[0] not in old_event_ids]
    if len(new_events) != 1:
        return {"result": "others"}
    event = new_events[0]
    event_id, calendar_id, organizer_id, title = event[0], event[1], event[2], event[3]
    event_start, event_end, status = event[6], event[7], event[10]
    if calendar_id != calendar[0] or organizer_id != 1 or title.strip().lower() != "vendor sync with acme":
        return {"result": "others"}
    if event_start != start or event_end != end or status != "confirmed":
        return {"result": "others"}
    for name in tables:
        old_ids = {row[0] for row in before[name]}
        if [row for row in after[name] if row[0] in old_ids] != before[name]:
            return {"result": "others"}
    new_guests = [row for row in after["event_attendees"] if row[0] not in {r[0] for r in before["event_attendees"]}]
    if any(row[1] != event_id for row in new_guests):
        return {"result": "others"}
    if {row[3].lower() for row in new_guests if not row[7]} != {guest[0]}:
        return {"result": "others"}
    new_bookings = [row for row in after["room_bookings"] if row[0] not in {r[0] for r in before["room_bookings"]}]
    if len(new_bookings) != 1 or new_bookings[0][2] != event_id:
        return {"result": "others"}
    if new_bookings[0][1] not in qualifying or new_bookings[0][5] != "accepted":
        return {"result": "others"}
    return {"result": "complete"}


def verifier_2(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    series = init.execute("SELECT e.id, e.start_time FROM events e JOIN recurrence_rules r ON r.event_id = e.id JOIN calendars c ON c.id = e.calendar_id WHERE e.title = 'Team Standup' AND e.organizer_id = 1 AND c.owner_id = 1 AND r.frequency = 'WEEKLY' AND r.by_day LIKE '%MO%' AND r.by_day LIKE '%WE%' AND r.by_day LIKE '%FR%'").fetchall()
    queries = ["SELECT * FROM events ORDER BY id", "SELECT * FROM recurrence_rules ORDER BY id"]
    unchanged = all(init.execute(sql).fetchall() == final.execute(sql).fetchall() for sql in queries)
    exception_sql = "SELECT event_id, original_start, exception_type, new_start, new_end FROM event_exceptions"
    init_exceptions = set(init.execute(exception_sql).fetchall())
    final_exceptions = final.execute(exception_sql).fetchall()
    init.close()
    final.close()
    if len(series) != 1 or not unchanged:
        return {"result": "others"}
    series_id, clock = series[0][0], series[0][1][11:]
    expected_new = {
        (series_id, "2026-01-19 " + clock, "cancelled", None, None),
        (series_id, "2026-01-21 " + clock, "modified", "2026-01-21 11:00:00", "2026-01-21 11:15:00"),
    }
    if {item[:2] for item in expected_new} & {item[:2] for item in init_exceptions}:
        return {"result": "others"}
    if len(final_exceptions) != len(set(final_exceptions)) or set(final_exceptions) != init_exceptions | expected_new:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_3(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    calendar = init.execute("SELECT id FROM calendars WHERE owner_id = 1 AND summary = 'Family'").fetchone()
    emma = init.execute("SELECT id FROM users WHERE display_name = 'Emma Ellis'").fetchone()
    if calendar is None or emma is None:
        init.close()
        final.close()
        return {"result": "others"}
    rules_sql = "SELECT user_id, role FROM calendar_acl WHERE calendar_id = ?"
    init_rules = dict(init.execute(rules_sql, (calendar[0],)).fetchall())
    final_rows = final.execute(rules_sql, (calendar[0],)).fetchall()
    others_sql = "SELECT id, calendar_id, user_id, role FROM calendar_acl WHERE calendar_id <> ? ORDER BY id"
    same_elsewhere = init.execute(others_sql, (calendar[0],)).fetchall() == final.execute(others_sql, (calendar[0],)).fetchall()
    calendars_sql = "SELECT * FROM calendars ORDER BY id"
    same_calendars = init.execute(calendars_sql).fetchall() == final.execute(calendars_sql).fetchall()
    init.close()
    final.close()
    expected = {user: ("reader" if role == "writer" and user != emma[0] else role) for user, role in init_rules.items()}
    if expected == init_rules or init_rules.get(emma[0]) != "writer":
        return {"result": "others"}
    if len(final_rows) != len(dict(final_rows)) or dict(final_rows) != expected:
        return {"result": "others"}
    if not same_elsewhere or not same_calendars:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_4(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    day_start, day_end = "2026-01-09 00:00:00", "2026-01-10 00:00:00"
    targets = {r[0] for r in init.execute("SELECT a.id FROM event_attendees a JOIN events e ON e.id = a.event_id WHERE a.user_id = 1 AND a.is_organizer = 0 AND e.organizer_id <> 1 AND e.status <> 'cancelled' AND e.start_time < ? AND e.end_time > ? AND e.id NOT IN (SELECT event_id FROM recurrence_rules)", (day_end, day_start)).fetchall()}
    attendee_sql = "SELECT id, event_id, user_id, email, response_status FROM event_attendees ORDER BY id"
    init_attendees = {row[0]: row for row in init.execute(attendee_sql).fetchall()}
    final_attendees = {row[0]: row for row in final.execute(attendee_sql).fetchall()}
    ooo_sql = "SELECT id, user_id, start_time, end_time, message FROM out_of_office ORDER BY id"
    init_ooo = init.execute(ooo_sql).fetchall()
    final_ooo = final.execute(ooo_sql).fetchall()
    events_sql = "SELECT * FROM events ORDER BY id"
    same_events = init.execute(events_sql).fetchall() == final.execute(events_sql).fetchall()
    init.close()
    final.close()
    if not targets or not same_events or set(init_attendees) != set(final_attendees):
        return {"result": "others"}
    if all(init_attendees[i][4] == "declined" for i in targets):
        return {"result": "others"}
    for attendee_id, row in init_attendees.items():
        if attendee_id in targets:
            if final_attendees[attendee_id][:4] != row[:4] or final_attendees[attendee_id][4] != "declined":
                return {"result": "others"}
        elif final_attendees[attendee_id] != row:
            return {"result": "others"}
    old_ids = {row[0] for row in init_ooo}
    if [row for row in final_ooo if row[0] in old_ids] != init_ooo:
        return {"result": "others"}
    new_ooo = [row for row in final_ooo if row[0] not in old_ids]
    if len(new_ooo) != 1 or new_ooo[0][1] != 1:
        return {"result": "others"}
    _, _, start, end, message = new_ooo[0]
    if start != day_start or end not in ("2026-01-09 23:59:00", "2026-01-09 23:59:59", day_end):
        return {"result": "others"}
    if re.sub(r"[\s.!]+$", "", (message or "").strip()).lower() != "travelling, back on monday":
        return {"result": "others"}
    return {"result": "complete"}


def verifier_5(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    user = conn.execute("SELECT id FROM users WHERE display_name = 'Kenji Sato'").fetchone()
    if user is None:
        conn.close()
        return {"result": "others"}
    zone = conn.execute("SELECT time_zone FROM user_settings WHERE user_id = ?", (user[0],)).fetchone()
    hours = conn.execute("SELECT start_time, end_time FROM working_hours WHERE user_id = ? AND day_of_week = 5", (user[0],)).fetchone()
    absences = conn.execute("SELECT end_time FROM out_of_office WHERE user_id = ? AND substr(start_time, 1, 7) = '2026-01'", (user[0],)).fetchall()
    conn.close()
    if zone is None or hours is None or len(absences) != 1:
        return {"result": "others"}

    def time_found(hhmm):
        hour, minute = int(hhmm[:2]), hhmm[3:5]
        clock = r"(?<![\d:])0?" + str(hour) + r"[:.h]" + minute + r"(?!\d)"
        suffix = r"\s*(a\.?m\.?)" if hour < 12 else r"\s*(p\.?m\.?)"
        twelve = hour % 12 or 12
        spoken = r"(?<![\d:])" + str(twelve) + (r"([:.]00)?" if minute == "00" else r"[:.]" + minute) + suffix
        return re.search(clock, final_answer) or re.search(spoken, final_answer, re.IGNORECASE)

    def date_found(ymd):
        months = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
        year, month, day = int(ymd[:4]), int(ymd[5:7]), int(ymd[8:10])
        name, short = months[month - 1], months[month - 1][:3]
        ordinal = str(day) + r"(st|nd|rd|th)?"
        patterns = [
            r"%d-%02d-%02d" % (year, month, day),
            r"\b0?%d/0?%d/%d\b" % (day, month, year),
            r"\b0?%d/0?%d/%d\b" % (month, day, year),
            r"\b(" + name + "|" + short + r")\.?\s+" + ordinal + r"\b",
            r"\b" + ordinal + r"\s+(of\s+)?(" + name + "|" + short + r")\b",
        ]
        return any(re.search(pattern, final_answer, re.IGNORECASE) for pattern in patterns)

    city = zone[0].split("/")[-1].replace("_", " ")
    if not re.search(re.escape(zone[0]), final_answer, re.IGNORECASE) and not re.search(r"\b" + re.escape(city) + r"\b", final_answer, re.IGNORECASE):
        return {"result": "others"}
    if not time_found(hours[0]) or not time_found(hours[1]):
        return {"result": "others"}
    if not date_found(absences[0][0][:10]):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_6(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    day, candidates = "2026-01-14", ["10:00", "13:00", "16:00"]
    people = [init.execute("SELECT id FROM users WHERE display_name = ?", (name,)).fetchone() for name in ("Priya Raman", "Marcus Webb")]
    calendar = init.execute("SELECT id FROM calendars WHERE owner_id = 1 AND summary = 'Work Projects'").fetchone()
    if None in people or calendar is None:
        init.close()
        final.close()
        return {"result": "others"}
    guest_ids = {row[0] for row in people}

    def scalar(sql, args):
        return init.execute(sql, args).fetchone()[0]

    def occurrences(event_id, start, end, day_text):
        rule = init.execute("SELECT frequency, repeat_interval, by_day, until_date FROM recurrence_rules WHERE event_id = ?", (event_id,)).fetchone()
        if rule is None:
            return [(start, end)]
        frequency, interval, by_day, until = rule
        first = start[:10]
        if day_text < first or (until and day_text > until):
            return []
        gap = int(round(scalar("SELECT julianday(?) - julianday(?)", (day_text, first))))
        codes = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
        first_weekday = int(scalar("SELECT strftime('%w', ?)", (first,)))
        matches = gap % interval == 0
        if frequency == "WEEKLY":
            wanted = by_day.split(",") if by_day else [codes[first_weekday]]
            weeks = (gap + (first_weekday + 6) % 7) // 7
            matches = codes[int(scalar("SELECT strftime('%w', ?)", (day_text,)))] in wanted and weeks % interval == 0
        if frequency == "MONTHLY":
            months = (int(day_text[:4]) - int(first[:4])) * 12 + int(day_text[5:7]) - int(first[5:7])
            matches = day_text[8:] == first[8:] and months % interval == 0
        if not matches:
            return []
        original = day_text + start[10:]
        seconds = int(round(scalar("SELECT (julianday(?) - julianday(?)) * 86400", (end, start))))
        original_end = scalar("SELECT datetime(?, ?)", (original, "+%d seconds" % seconds))
        exception = init.execute("SELECT exception_type, new_start, new_end FROM event_exceptions WHERE event_id = ? AND original_start = ?", (event_id, original)).fetchone()
        if exception is not None and exception[0] == "cancelled":
            return []
        if exception is not None:
            return [(exception[1], exception[2])]
        return [(original, original_end)]

    def is_busy(user_id, start, end):
        own = {r[0] for r in init.execute("SELECT id FROM calendars WHERE owner_id = ?", (user_id,)).fetchall()}
        rows = init.execute("SELECT event_id, response_status FROM event_attendees WHERE user_id = ?", (user_id,)).fetchall()
        listed = {r[0] for r in rows}
        attending = {r[0] for r in rows if r[1] != "declined"}
        for event_id, calendar_id, event_start, event_end in init.execute("SELECT id, calendar_id, start_time, end_time FROM events WHERE status <> 'cancelled' AND transparency = 'opaque'").fetchall():
            if event_id in attending or (calendar_id in own and event_id not in listed):
                if any(a < end and b > start for a, b in occurrences(event_id, event_start, event_end, start[:10])):
                    return True
        return init.execute("SELECT COUNT(*) FROM out_of_office WHERE user_id = ? AND start_time < ? AND end_time > ?", (user_id, end, start)).fetchone()[0] > 0

    slot = None
    for candidate in candidates:
        start = day + " " + candidate + ":00"
        end = scalar("SELECT datetime(?, '+1 hour')", (start,))
        if not any(is_busy(user_id, start, end) for user_id in [1] + sorted(guest_ids)):
            slot = (candidate, start, end)
            break
    tables = {"events": "SELECT * FROM events ORDER BY id", "event_attendees": "SELECT * FROM event_attendees ORDER BY id"}
    before = {name: init.execute(sql).fetchall() for name, sql in tables.items()}
    after = {name: final.execute(sql).fetchall() for name, sql in tables.items()}
    init.close()
    final.close()
    if slot is None:
        return {"result": "others"}
    for name in tables:
        old_ids = {row[0] for row in before[name]}
        if [row for row in after[name] if row[0] in old_ids] != before[name]:
            return {"result": "others"}
    new_events = [row for row in after["events"] if row[0] not in {r[0] for r in before["events"]}]
    if len(new_events) != 1:
        return {"result": "others"}
    event = new_events[0]
    if event[1] != calendar[0] or event[2] != 1 or event[3].strip().lower() != "budget planning" or event[10] != "confirmed":
        return {"result": "others"}
    if event[6] != slot[1] or event[7] != slot[2]:
        return {"result": "others"}
    new_guests = [row for row in after["event_attendees"] if row[0] not in {r[0] for r in before["event_attendees"]}]
    if any(row[1] != event[0] for row in new_guests):
        return {"result": "others"}
    if {row[2] for row in new_guests if not row[7]} != guest_ids:
        return {"result": "others"}
    hour = int(slot[0][:2])
    suffix = "a" if hour < 12 else "p"
    said = re.search(r"(?<![\d:])0?" + str(hour) + r"[:.h]00(?!\d)", final_answer) or re.search(r"(?<![\d:])" + str(hour % 12 or 12) + r"([:.]00)?\s*" + suffix + r"\.?m\b", final_answer, re.IGNORECASE)
    if not said:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_7(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    start, end = "2026-01-15 10:00:00", "2026-01-15 12:00:00"
    conn = sqlite3.connect(initial_db_path)
    building = conn.execute("SELECT id FROM buildings WHERE city = 'Manchester'").fetchone()
    if building is None:
        conn.close()
        return {"result": "others"}
    rooms = conn.execute("SELECT id, name, floor FROM resources WHERE building_id = ? AND resource_type = 'room' AND capacity >= 8 ORDER BY id", (building[0],)).fetchall()
    busy = {r[0] for r in conn.execute("SELECT b.resource_id FROM room_bookings b JOIN events e ON e.id = b.event_id WHERE b.status = 'accepted' AND e.status <> 'cancelled' AND b.start_time < ? AND b.end_time > ?", (end, start)).fetchall()}
    conn.close()
    free = [room for room in rooms if room[0] not in busy]
    if not free or len(free) == len(rooms):
        return {"result": "others"}
    ordinals = ["ground", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
    for _, name, floor in free:
        if not re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", final_answer, re.IGNORECASE):
            return {"result": "others"}
        said_digit = re.search(r"(?<![\d:.\-/])" + str(floor) + r"(?![\d:\-/])", final_answer)
        said_word = floor < len(ordinals) and re.search(r"\b" + ordinals[floor] + r"\b", final_answer, re.IGNORECASE)
        if not said_digit and not said_word:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_8(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    zone = "America/New_York"
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    settings_sql = "SELECT user_id, time_zone, week_start, default_event_minutes, show_declined_events, show_weekends, date_format FROM user_settings ORDER BY user_id"
    init_settings = {row[0]: row for row in init.execute(settings_sql).fetchall()}
    final_settings = {row[0]: row for row in final.execute(settings_sql).fetchall()}
    calendars_sql = "SELECT id, owner_id, summary, description, time_zone, color_id, is_primary FROM calendars ORDER BY id"
    init_calendars = {row[0]: row for row in init.execute(calendars_sql).fetchall()}
    final_calendars = {row[0]: row for row in final.execute(calendars_sql).fetchall()}
    hours_sql = "SELECT user_id, day_of_week, start_time, end_time FROM working_hours"
    init_hours = init.execute(hours_sql).fetchall()
    final_hours = final.execute(hours_sql).fetchall()
    init.close()
    final.close()
    primary = [cid for cid, row in init_calendars.items() if row[1] == 1 and row[6]]
    if len(primary) != 1 or 1 not in init_settings or init_settings[1][1] == zone or init_calendars[primary[0]][4] == zone:
        return {"result": "others"}
    if set(final_settings) != set(init_settings) or set(final_calendars) != set(init_calendars):
        return {"result": "others"}
    if final_settings[1][1] != zone or final_settings[1][2:] != init_settings[1][2:]:
        return {"result": "others"}
    if any(final_settings[uid] != row for uid, row in init_settings.items() if uid != 1):
        return {"result": "others"}
    if final_calendars[primary[0]][4] != zone or final_calendars[primary[0]][:4] + final_calendars[primary[0]][5:] != init_calendars[primary[0]][:4] + init_calendars[primary[0]][5:]:
        return {"result": "others"}
    if any(final_calendars[cid] != row for cid, row in init_calendars.items() if cid != primary[0]):
        return {"result": "others"}
    expected = {(uid, day): (start, end) for uid, day, start, end in init_hours if not (uid == 1 and 1 <= day <= 5)}
    expected.update({(1, day): ("08:00", "16:00") for day in range(1, 6)})
    if len(final_hours) != len(expected) or {(uid, day): (start, end) for uid, day, start, end in final_hours} != expected:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_9(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    events = init.execute("SELECT e.id FROM events e JOIN calendars c ON c.id = e.calendar_id WHERE e.title = 'Dentist appointment' AND c.owner_id = 1 AND substr(e.start_time, 1, 10) = '2026-01-16'").fetchall()
    tomato = init.execute("SELECT id FROM colors WHERE kind = 'event' AND name = 'Tomato'").fetchone()
    reminders_sql = "SELECT id, event_id, user_id, method, minutes_before FROM reminders ORDER BY id"
    init_reminders = init.execute(reminders_sql).fetchall()
    final_reminders = final.execute(reminders_sql).fetchall()
    events_sql = "SELECT id, calendar_id, organizer_id, title, description, location, start_time, end_time, time_zone, is_all_day, status, visibility, transparency, event_type, color_id, use_default_reminders FROM events ORDER BY id"
    init_events = {row[0]: row for row in init.execute(events_sql).fetchall()}
    final_events = {row[0]: row for row in final.execute(events_sql).fetchall()}
    init.close()
    final.close()
    if len(events) != 1 or tomato is None:
        return {"result": "others"}
    event_id = events[0][0]
    mine = sorted((row[3], row[4]) for row in final_reminders if row[1] == event_id and row[2] == 1)
    if mine != [("email", 1440)] or sorted((row[3], row[4]) for row in init_reminders if row[1] == event_id and row[2] == 1) == mine:
        return {"result": "others"}
    if [row for row in init_reminders if not (row[1] == event_id and row[2] == 1)] != [row for row in final_reminders if not (row[1] == event_id and row[2] == 1)]:
        return {"result": "others"}
    if set(init_events) != set(final_events) or any(final_events[eid] != row for eid, row in init_events.items() if eid != event_id):
        return {"result": "others"}
    before, after = init_events[event_id], final_events[event_id]
    if after[14] != tomato[0] or before[14] == tomato[0] or after[15] != 0:
        return {"result": "others"}
    if after[:14] != before[:14]:
        return {"result": "others"}
    return {"result": "complete"}


VERIFIER_META = [
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: the answer must name every guest of the non-cancelled 8 January 'Q1 Roadmap Review' whose RSVP is needsAction, state how many there are, and name the room (not equipment) booked for it; the dry run and the cancelled 5 January review have different people and rooms.", "key_checks": ["final_answer names each guest with response_status needsAction on the 8 January review", "final_answer states their number", "final_answer names the booked room"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new event 'Vendor Sync with Acme' must exist on user 1's Work Projects calendar from 14:00 to 14:45 on 13 January, with Priya Ramesh (not Priya Raman) as its only guest and one accepted booking of a London HQ room that has video, seats at least 6 and had no overlapping booking; existing events, guests and bookings are unchanged.", "key_checks": ["one new event with the right calendar, title and times", "only guest is priya.ramesh@acmepartners.com", "one accepted booking of the single qualifying room", "no existing event, attendee or booking row changed"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's Mon/Wed/Fri 'Team Standup' series must gain exactly two exceptions: the 19 January occurrence cancelled and the 21 January occurrence moved to 11:00-11:15; the series itself, other exceptions and the engineering 'Team Standup' stay untouched.", "key_checks": ["cancelled exception at 2026-01-19 09:30", "modified exception at 2026-01-21 09:30 with new times 11:00-11:15", "no other exception added or changed", "events and recurrence rules unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "On user 1's own 'Family' calendar every writer other than Emma Ellis must become a reader while Emma stays a writer and the owner and reader rules stay; Emma's own 'Family' calendar and all other sharing rules are untouched.", "key_checks": ["Tom and Margaret are readers", "Emma is still a writer", "owner and existing reader rules unchanged", "ACL of every other calendar unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "One new out-of-office for user 1 must cover 9 January 2026 with the requested message, and every invitation of user 1 to another organizer's non-cancelled event on that day must be declined whatever its previous answer, with all other RSVPs and events unchanged.", "key_checks": ["new out_of_office row from 2026-01-09 00:00 to the end of that day with the message", "Architecture Review, Sales Kickoff rehearsal and Holiday party debrief declined", "RSVPs on other days (8 and 12 January) unchanged", "events unchanged"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup for Kenji Sato (not Kenji Saito): the answer must give his time zone, his Friday working hours (which differ from Monday-Thursday) and the end date of his out-of-office that starts in January 2026.", "key_checks": ["final_answer contains Asia/Tokyo (or Tokyo)", "final_answer contains the Friday start and end times", "final_answer contains the end date of the January out-of-office"]},
    {"verification_strategy": "combined", "reasoning": "The verifier recomputes free/busy for user 1, Priya Raman and Marcus Webb on 14 January (own events and non-declined invitations, recurring occurrences and exceptions, transparent and cancelled events ignored, out-of-office counted) and takes the earliest free candidate; exactly one new 'Budget Planning' event must sit there on Work Projects with both people invited, and the answer must state the time.", "key_checks": ["one new event 'Budget Planning' on Work Projects at the earliest common free candidate hour", "guests are exactly Priya Raman and Marcus Webb", "existing events and RSVPs unchanged", "final_answer states the chosen time"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup over resources and room_bookings: the answer must name every Manchester room with at least 8 seats that has no accepted booking of a non-cancelled event overlapping 10:00-12:00 on 15 January, with each room's floor.", "key_checks": ["final_answer names each free room (Ancoats and Northern Quarter)", "final_answer gives each free room's floor"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's account time zone and primary calendar time zone must both become America/New_York with every other setting and calendar unchanged, and Monday-Friday working hours must be 08:00-16:00 with other users' hours untouched.", "key_checks": ["user_settings.time_zone = America/New_York, other settings unchanged", "primary calendar time_zone = America/New_York, other calendars unchanged", "working hours days 1-5 are 08:00-16:00", "no other working-hours row changed"]},
    {"verification_strategy": "modification_based", "reasoning": "On user 1's 16 January dentist appointment, user 1's reminders must be exactly one email reminder 1440 minutes before, the event colour must be the event colour 'Tomato' with default reminders still off, and every other reminder and event (the December visit, Emma's dentist event) stays unchanged.", "key_checks": ["user 1 reminders on the event are exactly [email, 1440]", "color_id is the event-kind Tomato", "other event fields unchanged", "all other reminders and events unchanged"]},
]
