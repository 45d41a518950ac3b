"""SQLite schema of the google_calendar world (the `db_schema.tables` of gen_db.jsonl).

Each entry is {"name", "ddl", "indexes"}; tables are listed in foreign-key-safe order.
Event, booking and out-of-office times are TEXT 'YYYY-MM-DD HH:MM:SS' in UTC (so string order is
time order); time zones are IANA names stored as text and are informational.
"""

TABLES = [
    {
        "name": "users",
        "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL, organization TEXT, job_title TEXT, is_external BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_users_display_name ON users(display_name);"],
    },
    {
        "name": "user_settings",
        "ddl": "CREATE TABLE user_settings (user_id INTEGER PRIMARY KEY REFERENCES users(id), time_zone TEXT NOT NULL DEFAULT 'UTC', week_start INTEGER NOT NULL DEFAULT 1 CHECK (week_start IN (1, 6, 7)), default_event_minutes INTEGER NOT NULL DEFAULT 30 CHECK (default_event_minutes BETWEEN 5 AND 480), show_declined_events BOOLEAN NOT NULL DEFAULT 0, show_weekends BOOLEAN NOT NULL DEFAULT 1, date_format TEXT NOT NULL DEFAULT 'YYYY-MM-DD' CHECK (date_format IN ('YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY')), updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [],
    },
    {
        "name": "colors",
        "ddl": "CREATE TABLE colors (id INTEGER PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('calendar', 'event')), name TEXT NOT NULL, background TEXT NOT NULL CHECK (background LIKE '#%'), foreground TEXT NOT NULL DEFAULT '#ffffff', UNIQUE (kind, name));",
        "indexes": [],
    },
    {
        "name": "calendars",
        "ddl": "CREATE TABLE calendars (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES users(id), summary TEXT NOT NULL, description TEXT, time_zone TEXT NOT NULL DEFAULT 'UTC', color_id INTEGER REFERENCES colors(id), is_primary BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [
            "CREATE INDEX idx_calendars_owner_id ON calendars(owner_id);",
            "CREATE UNIQUE INDEX idx_calendars_one_primary ON calendars(owner_id) WHERE is_primary = 1;",
        ],
    },
    {
        "name": "calendar_acl",
        "ddl": "CREATE TABLE calendar_acl (id INTEGER PRIMARY KEY, calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE, user_id INTEGER NOT NULL REFERENCES users(id), role TEXT NOT NULL CHECK (role IN ('freeBusyReader', 'reader', 'writer', 'owner')), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (calendar_id, user_id));",
        "indexes": ["CREATE INDEX idx_calendar_acl_user_id ON calendar_acl(user_id);"],
    },
    {
        "name": "calendar_list_entries",
        "ddl": "CREATE TABLE calendar_list_entries (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE, color_override_id INTEGER REFERENCES colors(id), is_hidden BOOLEAN NOT NULL DEFAULT 0, is_selected BOOLEAN NOT NULL DEFAULT 1, added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, calendar_id));",
        "indexes": ["CREATE INDEX idx_calendar_list_entries_calendar_id ON calendar_list_entries(calendar_id);"],
    },
    {
        "name": "default_reminders",
        "ddl": "CREATE TABLE default_reminders (id INTEGER PRIMARY KEY, calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE, method TEXT NOT NULL CHECK (method IN ('popup', 'email')), minutes_before INTEGER NOT NULL CHECK (minutes_before BETWEEN 0 AND 40320), UNIQUE (calendar_id, method, minutes_before));",
        "indexes": [],
    },
    {
        "name": "events",
        "ddl": "CREATE TABLE events (id INTEGER PRIMARY KEY, calendar_id INTEGER NOT NULL REFERENCES calendars(id), organizer_id INTEGER NOT NULL REFERENCES users(id), title TEXT NOT NULL, description TEXT, location TEXT, start_time TEXT NOT NULL, end_time TEXT NOT NULL, time_zone TEXT NOT NULL DEFAULT 'UTC', is_all_day BOOLEAN NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed', 'tentative', 'cancelled')), visibility TEXT NOT NULL DEFAULT 'default' CHECK (visibility IN ('default', 'public', 'private')), transparency TEXT NOT NULL DEFAULT 'opaque' CHECK (transparency IN ('opaque', 'transparent')), event_type TEXT NOT NULL DEFAULT 'default' CHECK (event_type IN ('default', 'focusTime', 'workingLocation')), color_id INTEGER REFERENCES colors(id), use_default_reminders BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, CHECK (end_time > start_time));",
        "indexes": [
            "CREATE INDEX idx_events_calendar_start ON events(calendar_id, start_time);",
            "CREATE INDEX idx_events_title ON events(title);",
            "CREATE INDEX idx_events_organizer_id ON events(organizer_id);",
        ],
    },
    {
        "name": "recurrence_rules",
        "ddl": "CREATE TABLE recurrence_rules (id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL UNIQUE REFERENCES events(id) ON DELETE CASCADE, frequency TEXT NOT NULL CHECK (frequency IN ('DAILY', 'WEEKLY', 'MONTHLY')), repeat_interval INTEGER NOT NULL DEFAULT 1 CHECK (repeat_interval BETWEEN 1 AND 52), by_day TEXT, until_date TEXT, CHECK (by_day IS NULL OR frequency = 'WEEKLY'));",
        "indexes": [],
    },
    {
        "name": "event_exceptions",
        "ddl": "CREATE TABLE event_exceptions (id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE, original_start TEXT NOT NULL, exception_type TEXT NOT NULL CHECK (exception_type IN ('cancelled', 'modified')), new_start TEXT, new_end TEXT, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (event_id, original_start), CHECK (exception_type = 'cancelled' OR (new_start IS NOT NULL AND new_end IS NOT NULL AND new_end > new_start)));",
        "indexes": [],
    },
    {
        "name": "event_attendees",
        "ddl": "CREATE TABLE event_attendees (id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE, user_id INTEGER REFERENCES users(id), email TEXT NOT NULL, display_name TEXT, response_status TEXT NOT NULL DEFAULT 'needsAction' CHECK (response_status IN ('needsAction', 'accepted', 'declined', 'tentative')), is_optional BOOLEAN NOT NULL DEFAULT 0, is_organizer BOOLEAN NOT NULL DEFAULT 0, comment TEXT, responded_at DATETIME, UNIQUE (event_id, email));",
        "indexes": [
            "CREATE INDEX idx_event_attendees_user_id ON event_attendees(user_id);",
            "CREATE INDEX idx_event_attendees_event_id ON event_attendees(event_id);",
        ],
    },
    {
        "name": "reminders",
        "ddl": "CREATE TABLE reminders (id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE, user_id INTEGER NOT NULL REFERENCES users(id), method TEXT NOT NULL CHECK (method IN ('popup', 'email')), minutes_before INTEGER NOT NULL CHECK (minutes_before BETWEEN 0 AND 40320));",
        "indexes": ["CREATE INDEX idx_reminders_event_user ON reminders(event_id, user_id);"],
    },
    {
        "name": "event_attachments",
        "ddl": "CREATE TABLE event_attachments (id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE, title TEXT NOT NULL, file_url TEXT NOT NULL, mime_type TEXT NOT NULL, added_by INTEGER REFERENCES users(id), added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_event_attachments_event_id ON event_attachments(event_id);"],
    },
    {
        "name": "buildings",
        "ddl": "CREATE TABLE buildings (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, address TEXT NOT NULL, city TEXT NOT NULL, time_zone TEXT NOT NULL);",
        "indexes": [],
    },
    {
        "name": "resources",
        "ddl": "CREATE TABLE resources (id INTEGER PRIMARY KEY, building_id INTEGER NOT NULL REFERENCES buildings(id), name TEXT NOT NULL, resource_type TEXT NOT NULL DEFAULT 'room' CHECK (resource_type IN ('room', 'equipment')), floor INTEGER, capacity INTEGER CHECK (capacity IS NULL OR capacity > 0), has_video BOOLEAN NOT NULL DEFAULT 0, has_whiteboard BOOLEAN NOT NULL DEFAULT 0, email TEXT NOT NULL UNIQUE, UNIQUE (building_id, name));",
        "indexes": ["CREATE INDEX idx_resources_building_id ON resources(building_id);"],
    },
    {
        "name": "room_bookings",
        "ddl": "CREATE TABLE room_bookings (id INTEGER PRIMARY KEY, resource_id INTEGER NOT NULL REFERENCES resources(id), event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE, start_time TEXT NOT NULL, end_time TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'accepted' CHECK (status IN ('accepted', 'declined', 'cancelled')), booked_by INTEGER REFERENCES users(id), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (resource_id, event_id), CHECK (end_time > start_time));",
        "indexes": ["CREATE INDEX idx_room_bookings_resource_start ON room_bookings(resource_id, start_time);"],
    },
    {
        "name": "working_hours",
        "ddl": "CREATE TABLE working_hours (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), day_of_week INTEGER NOT NULL CHECK (day_of_week BETWEEN 1 AND 7), start_time TEXT NOT NULL CHECK (length(start_time) = 5), end_time TEXT NOT NULL CHECK (length(end_time) = 5), UNIQUE (user_id, day_of_week), CHECK (end_time > start_time));",
        "indexes": [],
    },
    {
        "name": "out_of_office",
        "ddl": "CREATE TABLE out_of_office (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), start_time TEXT NOT NULL, end_time TEXT NOT NULL, message TEXT, auto_decline BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, CHECK (end_time > start_time));",
        "indexes": ["CREATE INDEX idx_out_of_office_user_start ON out_of_office(user_id, start_time);"],
    },
]
