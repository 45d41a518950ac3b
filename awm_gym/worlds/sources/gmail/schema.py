"""SQLite schema of the gmail world (the `db_schema.tables` of gen_db.jsonl).

Each entry is {"name", "ddl", "indexes"}; tables are listed in foreign-key-safe order.
A message row is one copy in one mailbox (`messages.user_id`); its `mailbox` column says where
it sits (inbox, archive, sent, trash, spam) and the read/starred/important flags are per copy.
"""

TABLES = [
    {
        "name": "users",
        "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL, time_zone TEXT NOT NULL DEFAULT 'UTC', storage_used_mb INTEGER NOT NULL DEFAULT 0 CHECK (storage_used_mb >= 0), storage_limit_mb INTEGER NOT NULL DEFAULT 15360 CHECK (storage_limit_mb > 0), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_users_display_name ON users(display_name);"],
    },
    {
        "name": "contacts",
        "ddl": "CREATE TABLE contacts (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT, company TEXT, job_title TEXT, notes TEXT, is_favorite BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (owner_id, email));",
        "indexes": [
            "CREATE INDEX idx_contacts_owner_name ON contacts(owner_id, name);",
            "CREATE INDEX idx_contacts_email ON contacts(email);",
        ],
    },
    {
        "name": "contact_groups",
        "ddl": "CREATE TABLE contact_groups (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (owner_id, name));",
        "indexes": [],
    },
    {
        "name": "contact_group_members",
        "ddl": "CREATE TABLE contact_group_members (group_id INTEGER NOT NULL REFERENCES contact_groups(id) ON DELETE CASCADE, contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE, added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (group_id, contact_id));",
        "indexes": ["CREATE INDEX idx_contact_group_members_contact_id ON contact_group_members(contact_id);"],
    },
    {
        "name": "labels",
        "ddl": "CREATE TABLE labels (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, color TEXT NOT NULL DEFAULT '#999999' CHECK (length(color) = 7 AND substr(color, 1, 1) = '#'), is_visible BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, name));",
        "indexes": ["CREATE INDEX idx_labels_user_id ON labels(user_id);"],
    },
    {
        "name": "threads",
        "ddl": "CREATE TABLE threads (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), subject TEXT NOT NULL, is_muted BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_threads_user_id ON threads(user_id);"],
    },
    {
        "name": "messages",
        "ddl": "CREATE TABLE messages (id INTEGER PRIMARY KEY, thread_id INTEGER NOT NULL REFERENCES threads(id), user_id INTEGER NOT NULL REFERENCES users(id), from_address TEXT NOT NULL, from_name TEXT, subject TEXT NOT NULL, body TEXT NOT NULL DEFAULT '', sent_at DATETIME NOT NULL, mailbox TEXT NOT NULL DEFAULT 'inbox' CHECK (mailbox IN ('inbox', 'archive', 'sent', 'trash', 'spam')), is_read BOOLEAN NOT NULL DEFAULT 0, is_starred BOOLEAN NOT NULL DEFAULT 0, is_important BOOLEAN NOT NULL DEFAULT 0, in_reply_to_id INTEGER REFERENCES messages(id));",
        "indexes": [
            "CREATE INDEX idx_messages_user_mailbox_sent_at ON messages(user_id, mailbox, sent_at);",
            "CREATE INDEX idx_messages_thread_id ON messages(thread_id);",
            "CREATE INDEX idx_messages_from_address ON messages(from_address);",
        ],
    },
    {
        "name": "message_recipients",
        "ddl": "CREATE TABLE message_recipients (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE, address TEXT NOT NULL, name TEXT, recipient_type TEXT NOT NULL DEFAULT 'to' CHECK (recipient_type IN ('to', 'cc', 'bcc')), UNIQUE (message_id, address));",
        "indexes": ["CREATE INDEX idx_message_recipients_address ON message_recipients(address);"],
    },
    {
        "name": "message_labels",
        "ddl": "CREATE TABLE message_labels (message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE, label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE, applied_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (message_id, label_id));",
        "indexes": ["CREATE INDEX idx_message_labels_label_id ON message_labels(label_id);"],
    },
    {
        "name": "attachments",
        "ddl": "CREATE TABLE attachments (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE, filename TEXT NOT NULL, mime_type TEXT NOT NULL, size_bytes INTEGER NOT NULL CHECK (size_bytes > 0));",
        "indexes": ["CREATE INDEX idx_attachments_message_id ON attachments(message_id);"],
    },
    {
        "name": "drafts",
        "ddl": "CREATE TABLE drafts (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), thread_id INTEGER REFERENCES threads(id), in_reply_to_id INTEGER REFERENCES messages(id), subject TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '', created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_drafts_user_id ON drafts(user_id);"],
    },
    {
        "name": "draft_recipients",
        "ddl": "CREATE TABLE draft_recipients (id INTEGER PRIMARY KEY, draft_id INTEGER NOT NULL REFERENCES drafts(id) ON DELETE CASCADE, address TEXT NOT NULL, recipient_type TEXT NOT NULL DEFAULT 'to' CHECK (recipient_type IN ('to', 'cc', 'bcc')), UNIQUE (draft_id, address));",
        "indexes": ["CREATE INDEX idx_draft_recipients_draft_id ON draft_recipients(draft_id);"],
    },
    {
        "name": "filters",
        "ddl": "CREATE TABLE filters (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), from_contains TEXT, to_contains TEXT, subject_contains TEXT, has_words TEXT, has_attachment BOOLEAN NOT NULL DEFAULT 0, label_id INTEGER REFERENCES labels(id), should_archive BOOLEAN NOT NULL DEFAULT 0, should_mark_read BOOLEAN NOT NULL DEFAULT 0, should_star BOOLEAN NOT NULL DEFAULT 0, should_mark_important BOOLEAN NOT NULL DEFAULT 0, should_trash BOOLEAN NOT NULL DEFAULT 0, forward_to TEXT, is_enabled BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, CHECK (from_contains IS NOT NULL OR to_contains IS NOT NULL OR subject_contains IS NOT NULL OR has_words IS NOT NULL OR has_attachment = 1));",
        "indexes": ["CREATE INDEX idx_filters_user_id ON filters(user_id);"],
    },
    {
        "name": "vacation_responders",
        "ddl": "CREATE TABLE vacation_responders (user_id INTEGER PRIMARY KEY REFERENCES users(id), is_enabled BOOLEAN NOT NULL DEFAULT 0, subject TEXT, body TEXT, start_date TEXT, end_date TEXT, contacts_only BOOLEAN NOT NULL DEFAULT 0, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, CHECK (start_date IS NULL OR end_date IS NULL OR end_date >= start_date));",
        "indexes": [],
    },
    {
        "name": "mail_settings",
        "ddl": "CREATE TABLE mail_settings (user_id INTEGER PRIMARY KEY REFERENCES users(id), display_density TEXT NOT NULL DEFAULT 'default' CHECK (display_density IN ('default', 'comfortable', 'compact')), conversation_view BOOLEAN NOT NULL DEFAULT 1, signature TEXT, undo_send_seconds INTEGER NOT NULL DEFAULT 5 CHECK (undo_send_seconds IN (5, 10, 20, 30)), page_size INTEGER NOT NULL DEFAULT 50 CHECK (page_size IN (10, 15, 20, 25, 50, 100)), default_reply_behavior TEXT NOT NULL DEFAULT 'reply' CHECK (default_reply_behavior IN ('reply', 'reply_all')), language TEXT NOT NULL DEFAULT 'en', keyboard_shortcuts BOOLEAN NOT NULL DEFAULT 0, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [],
    },
    {
        "name": "blocked_senders",
        "ddl": "CREATE TABLE blocked_senders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), email TEXT NOT NULL, blocked_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, email));",
        "indexes": ["CREATE INDEX idx_blocked_senders_user_id ON blocked_senders(user_id);"],
    },
]
