"""Code-mode verifiers of the gmail world, one per task (gen_verifier.pure_code.jsonl).

`verifier_<i>` is task i's verifier. The assembler stores each function's source text with the
name rewritten to `verify_task_completion`, AWM's entry-point name. Each function imports only
sqlite3, json and re, reads both databases, and returns {"result": "complete"} only when the
task is certainly done, else {"result": "others"}. Expected values are derived from the initial
database (contacts, labels and messages looked up by name), never hard-coded ids. VERIFIER_META
gives the rest of AWM's raw response (reasoning, verification_strategy, key_checks) in task order.
"""


def verifier_0(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    contact = conn.execute("SELECT lower(email) FROM contacts WHERE owner_id = 1 AND name = 'Tom Whitaker'").fetchone()
    if contact is None:
        conn.close()
        return {"result": "others"}
    address = contact[0]
    rows = conn.execute("SELECT a.filename, a.size_bytes, m.subject FROM attachments a JOIN messages m ON m.id = a.message_id WHERE m.user_id = 1 AND lower(m.from_address) = ? ORDER BY a.size_bytes DESC, a.id", (address,)).fetchall()
    if not rows or (len(rows) > 1 and rows[0][1] == rows[1][1]):
        conn.close()
        return {"result": "others"}
    filename, size, subject = rows[0]
    larger = conn.execute("SELECT DISTINCT a.filename FROM attachments a JOIN messages m ON m.id = a.message_id WHERE m.user_id = 1 AND a.size_bytes > ? AND (lower(m.from_address) = ? OR m.from_name LIKE 'Tom %' OR m.id IN (SELECT message_id FROM message_recipients WHERE lower(address) = ?))", (size, address, address)).fetchall()
    conn.close()
    if not re.search(re.escape(filename), final_answer, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(re.escape(subject), final_answer, re.IGNORECASE):
        return {"result": "others"}
    if any(re.search(re.escape(row[0]), final_answer, re.IGNORECASE) for row in larger):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_1(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    confirmed = conn.execute("SELECT subject, body FROM messages WHERE user_id = 1 AND subject LIKE 'Booking confirmed: Lisbon%' ORDER BY sent_at, id").fetchall()
    cancelled_subjects = conn.execute("SELECT subject FROM messages WHERE user_id = 1 AND subject LIKE 'Booking cancelled:%'").fetchall()
    conn.close()
    cancelled = set()
    for (subject,) in cancelled_subjects:
        match = re.search(r"ref ([A-Z0-9]{6})", subject)
        if match:
            cancelled.add(match.group(1))
    active = []
    for subject, body in confirmed:
        ref = re.search(r"ref ([A-Z0-9]{6})", subject)
        flight = re.search(r"Flight ([A-Z]{2}) ?(\d+)", body)
        if ref and flight and ref.group(1) not in cancelled:
            active.append((ref.group(1), flight.group(1), flight.group(2)))
    if len(active) != 1:
        return {"result": "others"}
    ref, carrier, number = active[0]
    if not re.search(r"(?<![A-Za-z0-9])" + ref + r"(?![A-Za-z0-9])", final_answer, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(r"(?<![A-Za-z0-9])" + carrier + r"\s*-?\s*" + number + r"(?!\d)", final_answer, re.IGNORECASE):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_2(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    contact = init.execute("SELECT lower(email) FROM contacts WHERE owner_id = 1 AND name = 'Jordan Lee'").fetchone()
    targets = []
    if contact is not None:
        targets = init.execute("SELECT id, subject FROM messages WHERE user_id = 1 AND mailbox = 'inbox' AND is_read = 0 AND lower(from_address) = ? ORDER BY sent_at DESC, id DESC", (contact[0],)).fetchall()
    query = "SELECT id, user_id, mailbox, is_read, is_starred, is_important FROM messages"
    init_rows = {r[0]: r[1:] for r in init.execute(query).fetchall()}
    final_rows = {r[0]: r[1:] for r in final.execute(query).fetchall()}
    init.close()
    final.close()
    if not targets:
        return {"result": "others"}
    count = len(targets)
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
    count_said = re.search(r"(?<![\d.])" + str(count) + r"(?!\d)", final_answer) or (count in words and re.search(r"\b" + words[count] + r"\b", final_answer, re.IGNORECASE))
    if not count_said:
        return {"result": "others"}
    topic = re.sub(r"^\s*((re|fwd?)\s*:\s*)+", "", targets[0][1], flags=re.IGNORECASE)
    if not re.search(re.escape(topic), final_answer, re.IGNORECASE):
        return {"result": "others"}
    target_ids = {t[0] for t in targets}
    if set(init_rows) != set(final_rows):
        return {"result": "others"}
    for message_id, row in init_rows.items():
        after = final_rows[message_id]
        if message_id in target_ids:
            if after[2] != 1 or after[:2] != row[:2] or after[3:] != row[3:]:
                return {"result": "others"}
        elif after != row:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_3(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    label = init.execute("SELECT id FROM labels WHERE user_id = 1 AND name = 'Clients/BrightPath'").fetchone()
    targets = {r[0] for r in init.execute("SELECT id FROM messages WHERE user_id = 1 AND mailbox = 'inbox' AND lower(from_address) LIKE '%@brightpath.io'").fetchall()}
    query = "SELECT id, user_id, thread_id, mailbox, is_read, is_starred, is_important FROM messages"
    init_rows = {r[0]: r[1:] for r in init.execute(query).fetchall()}
    final_rows = {r[0]: r[1:] for r in final.execute(query).fetchall()}
    init_links = set(init.execute("SELECT message_id, label_id FROM message_labels").fetchall())
    final_links = set(final.execute("SELECT message_id, label_id FROM message_labels").fetchall())
    label_kept = label is not None and final.execute("SELECT COUNT(*) FROM labels WHERE id = ? AND user_id = 1", (label[0],)).fetchone()[0] == 1
    init.close()
    final.close()
    if label is None or not targets or not label_kept:
        return {"result": "others"}
    if set(init_rows) != set(final_rows):
        return {"result": "others"}
    for message_id, row in init_rows.items():
        after = final_rows[message_id]
        if message_id in targets:
            if after[2] != "archive" or after[:2] != row[:2] or after[3:] != row[3:]:
                return {"result": "others"}
        elif after != row:
            return {"result": "others"}
    if final_links != init_links | {(message_id, label[0]) for message_id in targets}:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_4(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    hannah = init.execute("SELECT lower(email) FROM contacts WHERE owner_id = 1 AND name = 'Hannah Schmidt'").fetchone()
    jordan = init.execute("SELECT lower(email) FROM contacts WHERE owner_id = 1 AND name = 'Jordan Lee'").fetchone()
    approvals = []
    if jordan is not None:
        approvals = init.execute("SELECT id, is_starred FROM messages WHERE user_id = 1 AND lower(from_address) = ? AND subject LIKE 'Re: Leave request%'", (jordan[0],)).fetchall()
    vacation_query = "SELECT user_id, is_enabled, subject, body, start_date, end_date, contacts_only FROM vacation_responders ORDER BY user_id"
    init_vacations = init.execute(vacation_query).fetchall()
    final_vacations = final.execute(vacation_query).fetchall()
    message_query = "SELECT id, user_id, mailbox, is_read, is_starred, is_important FROM messages"
    init_rows = {r[0]: r[1:] for r in init.execute(message_query).fetchall()}
    final_rows = {r[0]: r[1:] for r in final.execute(message_query).fetchall()}
    init.close()
    final.close()
    if hannah is None or len(approvals) != 1 or approvals[0][1]:
        return {"result": "others"}
    approval_id = approvals[0][0]
    mine = [v for v in final_vacations if v[0] == 1]
    if len(mine) != 1:
        return {"result": "others"}
    vacation = mine[0]
    if not vacation[1] or vacation[4] != "2026-01-05" or vacation[5] != "2026-01-09" or not vacation[6]:
        return {"result": "others"}
    if (vacation[2] or "").strip().lower() != "out of office":
        return {"result": "others"}
    if hannah[0] not in (vacation[3] or "").lower():
        return {"result": "others"}
    if [v for v in init_vacations if v[0] != 1] != [v for v in final_vacations if v[0] != 1]:
        return {"result": "others"}
    if set(init_rows) != set(final_rows):
        return {"result": "others"}
    for message_id, row in init_rows.items():
        after = final_rows[message_id]
        if message_id == approval_id:
            if after[3] != 1 or after[:3] != row[:3] or after[4:] != row[4:]:
                return {"result": "others"}
        elif after != row:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_5(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    me = init.execute("SELECT lower(email) FROM users WHERE id = 1").fetchone()[0]
    threads = init.execute("SELECT id FROM threads WHERE user_id = 1 AND subject = 'Q1 roadmap review'").fetchall()
    if len(threads) != 1:
        init.close()
        final.close()
        return {"result": "others"}
    thread_id = threads[0][0]
    latest = init.execute("SELECT id, lower(from_address) FROM messages WHERE user_id = 1 AND thread_id = ? ORDER BY sent_at DESC, id DESC LIMIT 1", (thread_id,)).fetchone()
    expected = {latest[1]} | {r[0] for r in init.execute("SELECT lower(address) FROM message_recipients WHERE message_id = ? AND recipient_type IN ('to', 'cc')", (latest[0],)).fetchall()}
    expected.discard(me)
    thread_ids = {r[0] for r in init.execute("SELECT id FROM messages WHERE user_id = 1 AND thread_id = ?", (thread_id,)).fetchall()}
    query = "SELECT id, user_id, thread_id, mailbox, is_read, is_starred, is_important FROM messages"
    init_rows = {r[0]: r[1:] for r in init.execute(query).fetchall()}
    final_rows = {r[0]: r[1:] for r in final.execute(query).fetchall()}
    new_ids = sorted(set(final_rows) - set(init_rows))
    new = None
    recipients = []
    if len(new_ids) == 1:
        new = final.execute("SELECT user_id, thread_id, lower(from_address), mailbox, in_reply_to_id, body FROM messages WHERE id = ?", (new_ids[0],)).fetchone()
        recipients = final.execute("SELECT lower(address), recipient_type FROM message_recipients WHERE message_id = ?", (new_ids[0],)).fetchall()
    init.close()
    final.close()
    if new is None:
        return {"result": "others"}
    if new[0] != 1 or new[1] != thread_id or new[2] != me or new[3] != "sent" or new[4] != latest[0]:
        return {"result": "others"}
    if "thursday" not in (new[5] or "").lower():
        return {"result": "others"}
    if {r[0] for r in recipients} != expected or len(recipients) != len(expected):
        return {"result": "others"}
    if any(r[1] == "bcc" for r in recipients) or (latest[1], "to") not in set(recipients):
        return {"result": "others"}
    if not set(init_rows).issubset(final_rows):
        return {"result": "others"}
    for message_id, row in init_rows.items():
        after = final_rows[message_id]
        if message_id in thread_ids:
            if after[3] != 1 or after[:3] != row[:3] or after[4:] != row[4:]:
                return {"result": "others"}
        elif after != row:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_6(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    sender = "newsletters@dailybyte.io"
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    label = init.execute("SELECT id FROM labels WHERE user_id = 1 AND name = 'Newsletters'").fetchone()
    targets = init.execute("SELECT id, mailbox FROM messages WHERE user_id = 1 AND lower(from_address) = ? AND mailbox IN ('inbox', 'archive')", (sender,)).fetchall()
    filter_query = "SELECT id, user_id, from_contains, to_contains, subject_contains, has_words, has_attachment, label_id, should_archive, should_mark_read, should_star, should_mark_important, should_trash, forward_to, is_enabled FROM filters"
    init_filters = {r[0]: r[1:] for r in init.execute(filter_query).fetchall()}
    final_filters = {r[0]: r[1:] for r in final.execute(filter_query).fetchall()}
    query = "SELECT id, user_id, thread_id, mailbox, is_read, is_starred, is_important FROM messages"
    init_rows = {r[0]: r[1:] for r in init.execute(query).fetchall()}
    final_rows = {r[0]: r[1:] for r in final.execute(query).fetchall()}
    init_links = set(init.execute("SELECT message_id, label_id FROM message_labels").fetchall())
    final_links = set(final.execute("SELECT message_id, label_id FROM message_labels").fetchall())
    init.close()
    final.close()
    if label is None or not any(mailbox == "inbox" for _, mailbox in targets):
        return {"result": "others"}
    target_ids = {t[0] for t in targets}
    new_filters = [final_filters[i] for i in final_filters if i not in init_filters]
    if len(new_filters) != 1:
        return {"result": "others"}
    f = new_filters[0]
    if f[0] != 1 or (f[1] or "").strip().lower() != sender:
        return {"result": "others"}
    if (f[2] or "").strip() or (f[3] or "").strip() or (f[4] or "").strip() or f[5]:
        return {"result": "others"}
    if f[6] != label[0] or f[7] != 1 or f[8] or f[9] or f[10] or f[11] or (f[12] or "").strip() or f[13] != 1:
        return {"result": "others"}
    if any(final_filters.get(i) != row for i, row in init_filters.items()):
        return {"result": "others"}
    if set(init_rows) != set(final_rows):
        return {"result": "others"}
    for message_id, row in init_rows.items():
        after = final_rows[message_id]
        if message_id in target_ids:
            if after[2] != "archive" or after[:2] != row[:2] or after[3:] != row[3:]:
                return {"result": "others"}
        elif after != row:
            return {"result": "others"}
    if final_links != init_links | {(message_id, label[0]) for message_id in target_ids}:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_7(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    me = init.execute("SELECT lower(email) FROM users WHERE id = 1").fetchone()[0]
    grace = init.execute("SELECT lower(email) FROM contacts WHERE owner_id = 1 AND name = 'Grace Kim'").fetchone()
    ravi = init.execute("SELECT lower(email) FROM contacts WHERE owner_id = 1 AND name = 'Ravi Raman'").fetchone()
    drafts = []
    if grace is not None:
        drafts = init.execute("SELECT id, subject, body FROM drafts WHERE user_id = 1 AND lower(subject) LIKE '%lease renewal%' AND id IN (SELECT draft_id FROM draft_recipients WHERE lower(address) = ?)", (grace[0],)).fetchall()
    draft_query = "SELECT id, user_id, subject, body FROM drafts"
    recipient_query = "SELECT draft_id, lower(address), recipient_type FROM draft_recipients"
    init_drafts = {r[0]: r[1:] for r in init.execute(draft_query).fetchall()}
    final_drafts = {r[0]: r[1:] for r in final.execute(draft_query).fetchall()}
    init_draft_recipients = set(init.execute(recipient_query).fetchall())
    final_draft_recipients = set(final.execute(recipient_query).fetchall())
    message_query = "SELECT id, user_id, mailbox, is_read, is_starred, is_important FROM messages"
    init_rows = {r[0]: r[1:] for r in init.execute(message_query).fetchall()}
    final_rows = {r[0]: r[1:] for r in final.execute(message_query).fetchall()}
    new_ids = sorted(set(final_rows) - set(init_rows))
    new = None
    recipients = set()
    if len(new_ids) == 1:
        new = final.execute("SELECT user_id, lower(from_address), mailbox, subject, body FROM messages WHERE id = ?", (new_ids[0],)).fetchone()
        recipients = set(final.execute("SELECT lower(address), recipient_type FROM message_recipients WHERE message_id = ?", (new_ids[0],)).fetchall())
    init.close()
    final.close()
    if ravi is None or len(drafts) != 1 or new is None:
        return {"result": "others"}
    draft_id, subject, body = drafts[0]
    if draft_id in final_drafts:
        return {"result": "others"}
    for other_id, row in init_drafts.items():
        if other_id != draft_id and final_drafts.get(other_id) != row:
            return {"result": "others"}
    if {r for r in init_draft_recipients if r[0] != draft_id} != final_draft_recipients:
        return {"result": "others"}
    if new[0] != 1 or new[1] != me or new[2] != "sent" or new[3] != subject or (new[4] or "").strip() != body.strip():
        return {"result": "others"}
    if recipients != {(grace[0], "to"), (ravi[0], "cc")}:
        return {"result": "others"}
    if any(final_rows.get(i) != row for i, row in init_rows.items()):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_8(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    nina = init.execute("SELECT lower(email) FROM contacts WHERE owner_id = 1 AND name = 'Nina Petrova'").fetchone()
    rescues = []
    if nina is not None:
        rescues = init.execute("SELECT id FROM messages WHERE user_id = 1 AND mailbox = 'spam' AND lower(from_address) = ?", (nina[0],)).fetchall()
    phish = init.execute("SELECT lower(from_address) FROM messages WHERE user_id = 1 AND mailbox = 'spam' AND subject = 'Your account has been suspended'").fetchall()
    spam_ids = {r[0] for r in init.execute("SELECT id FROM messages WHERE user_id = 1 AND mailbox = 'spam'").fetchall()}
    query = "SELECT id, user_id, thread_id, mailbox, is_read, is_starred, is_important FROM messages"
    init_rows = {r[0]: r[1:] for r in init.execute(query).fetchall()}
    final_rows = {r[0]: r[1:] for r in final.execute(query).fetchall()}
    init_blocks = set(init.execute("SELECT user_id, lower(email) FROM blocked_senders").fetchall())
    final_blocks = set(final.execute("SELECT user_id, lower(email) FROM blocked_senders").fetchall())
    init.close()
    final.close()
    if len(rescues) != 1 or len(phish) != 1 or len(spam_ids) < 2:
        return {"result": "others"}
    rescue_id = rescues[0][0]
    if set(final_rows) - set(init_rows):
        return {"result": "others"}
    for message_id, row in init_rows.items():
        after = final_rows.get(message_id)
        if message_id == rescue_id:
            if after is None or after[2] != "inbox" or after[5] != 1 or after[:2] != row[:2] or after[4] != row[4]:
                return {"result": "others"}
        elif message_id in spam_ids:
            if after is not None:
                return {"result": "others"}
        elif after != row:
            return {"result": "others"}
    if final_blocks != init_blocks | {(1, phish[0][0])} or (1, phish[0][0]) in init_blocks:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_9(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    invoices = init.execute("SELECT id, lower(from_address), from_name FROM messages WHERE user_id = 1 AND subject LIKE 'Invoice #2231%'").fetchall()
    finance = init.execute("SELECT id FROM labels WHERE user_id = 1 AND name = 'Finance'").fetchone()
    work = init.execute("SELECT id FROM contact_groups WHERE owner_id = 1 AND name = 'Work'").fetchone()
    contact_query = "SELECT id, owner_id, name, lower(email), company FROM contacts"
    init_contacts = {r[0]: r[1:] for r in init.execute(contact_query).fetchall()}
    final_contacts = {r[0]: r[1:] for r in final.execute(contact_query).fetchall()}
    init_members = set(init.execute("SELECT group_id, contact_id FROM contact_group_members").fetchall())
    final_members = set(final.execute("SELECT group_id, contact_id FROM contact_group_members").fetchall())
    init_links = set(init.execute("SELECT message_id, label_id FROM message_labels").fetchall())
    final_links = set(final.execute("SELECT message_id, label_id FROM message_labels").fetchall())
    message_query = "SELECT id, user_id, mailbox, is_starred, is_important FROM messages"
    init_rows = {r[0]: r[1:] for r in init.execute(message_query).fetchall()}
    final_rows = {r[0]: r[1:] for r in final.execute(message_query).fetchall()}
    init.close()
    final.close()
    if len(invoices) != 1 or finance is None or work is None:
        return {"result": "others"}
    message_id, address, sender_name = invoices[0]
    if any(row[0] == 1 and row[2] == address for row in init_contacts.values()):
        return {"result": "others"}
    new_ids = [i for i in final_contacts if i not in init_contacts]
    if len(new_ids) != 1:
        return {"result": "others"}
    new = final_contacts[new_ids[0]]
    if new[0] != 1 or new[2] != address or new[1].strip().lower() != (sender_name or "").strip().lower():
        return {"result": "others"}
    if (new[3] or "").strip().lower() != "fischer studio":
        return {"result": "others"}
    if any(final_contacts.get(i) != row for i, row in init_contacts.items()):
        return {"result": "others"}
    if final_members != init_members | {(work[0], new_ids[0])}:
        return {"result": "others"}
    if final_links != init_links | {(message_id, finance[0])} or (message_id, finance[0]) in init_links:
        return {"result": "others"}
    if init_rows != final_rows:
        return {"result": "others"}
    return {"result": "complete"}


VERIFIER_META = [
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: Tom Whitaker's address comes from user 1's contacts; the largest attachment on mail he sent user 1 (not the bigger W-2 user 1 sent him, nor Tom Whitfield's photos) must be named together with its email's subject, and no larger Tom-related file may be named.", "key_checks": ["final_answer contains the filename of the largest attachment sent by Tom Whitaker", "final_answer contains that email's subject", "final_answer names no larger attachment from the W-2 sent to Tom or from Tom Whitfield"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: among user 1's 'Booking confirmed: Lisbon' emails, the one whose reference has no 'Booking cancelled' email is the live booking; the answer must give its reference and the flight number from its body (the Porto flight also mentions Lisbon).", "key_checks": ["final_answer contains the booking reference of the non-cancelled Lisbon booking", "final_answer contains that booking's flight number"]},
    {"verification_strategy": "combined", "reasoning": "The unread inbox messages from Jordan Lee (not Jordan Li, not the archived unread one) are counted from the initial DB; the answer must give the count and the newest subject, and exactly those messages must become read with nothing else changed.", "key_checks": ["final_answer states the number of unread inbox messages from Jordan Lee", "final_answer contains the newest one's subject", "those messages are read in the final DB", "no other message's mailbox or flags changed"]},
    {"verification_strategy": "modification_based", "reasoning": "Every user 1 inbox message from an @brightpath.io sender must carry 'Clients/BrightPath' and be archived; BrightPath mail in spam/archive/sent, Jordan Lee's 'BrightPath kickoff notes' and all other messages and labels must be untouched.", "key_checks": ["targets moved to archive", "targets labelled Clients/BrightPath", "no other message_labels change", "non-target messages unchanged", "flags of targets unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's vacation responder must be on from 2026-01-05 to 2026-01-09, contacts only, subject 'Out of office', body containing Hannah Schmidt's address; Jordan Lee's leave approval must be newly starred with no other message changed and other users' responders untouched.", "key_checks": ["vacation_responders row of user 1 enabled with the exact dates and contacts_only", "subject 'Out of office' and body contains Hannah's email", "the approval message is starred", "no other message changed", "other users' responders unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new sent message must reply (in_reply_to) to the latest message of the 'Q1 roadmap review' thread (not the look-alike notes thread), addressed to its sender plus every other To/Cc recipient except user 1, mentioning Thursday; every message of that thread must be read and nothing else may change.", "key_checks": ["one new sent message in the thread replying to the latest message", "recipients equal sender + other To/Cc, no bcc, sender in To", "body mentions Thursday", "all thread messages read", "other messages unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "One new user 1 filter must match exactly newsletters@dailybyte.io, archive and apply user 1's 'Newsletters' label with no other actions; existing DailyByte newsletters must end up archived and labelled while the DailyByte billing receipt, other filters and all other messages stay unchanged.", "key_checks": ["exactly one new filter with from_contains = newsletters@dailybyte.io, label Newsletters, should_archive only", "existing filters unchanged", "newsletter messages archived and labelled", "billing receipt and other messages untouched"]},
    {"verification_strategy": "modification_based", "reasoning": "The lease-renewal draft to Grace Kim (not the parking-permit draft) must be sent unchanged except for Ravi Raman (not Ravi Ramesh) in Cc: one new sent message with the draft's subject and body, To Grace and Cc Ravi only; the draft is gone and other drafts are intact.", "key_checks": ["draft removed", "other drafts and their recipients unchanged", "one new sent message with the draft's subject and body", "recipients exactly To Grace Kim and Cc Ravi Raman", "existing messages unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "Nina Petrova's spam message must be back in the inbox and important; every other user 1 spam message must be deleted; the phishing sender must be newly blocked; other users' spam and all non-spam messages must be untouched.", "key_checks": ["Nina's message in inbox with is_important = 1", "all other user 1 spam messages deleted", "blocked_senders gains exactly the phishing address for user 1", "other messages unchanged and none created"]},
    {"verification_strategy": "modification_based", "reasoning": "A single new user 1 contact must hold the invoice sender's name and address with company 'Fischer Studio', be added to user 1's 'Work' group only, and the 'Invoice #2231' email (not '#2213') must gain the Finance label; nothing else may change.", "key_checks": ["one new contact with the sender's name, email and company Fischer Studio", "new membership only in the Work group", "Finance label added to the #2231 message only", "existing contacts and messages unchanged"]},
]
