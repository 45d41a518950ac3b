"""The built-in `gmail` world: scenario, tasks and reference solutions, plus re-exports.

Sources of truth, assembled into AWM JSONL by scripts/build_builtin_worlds.py:
  schema.py (TABLES), sample.py (SAMPLE), spec.py (SPEC), app.py (full_code),
  verifiers.py (VERIFIERS, extracted from the verifier_<i> functions) and this file.
Solution calls use operation ids and flat arguments exactly as an MCP client would send them.
Ids created while solving are predictable from the seed: it has 23 contacts and 4 filters, so a
new contact gets id 24 and a new filter id 5.
"""

import ast
import os

from .sample import SAMPLE
from .schema import TABLES
from .spec import SPEC
from .verifiers import VERIFIER_META

__all__ = ["SCENARIO", "DESCRIPTION", "TASKS", "TABLES", "SAMPLE", "SPEC", "FULL_CODE", "VERIFIERS", "VERIFIER_META", "SOLUTIONS"]

SCENARIO = "gmail"

DESCRIPTION = (
    "Gmail is an email service where people send, receive and organise mail in one searchable "
    "mailbox. Every message keeps its sender, To/Cc/Bcc recipients, subject, body, sent time and "
    "attachments, and belongs to a conversation that groups replies and forwards. Mail lives in the "
    "inbox, the archive, Sent, Spam or Trash, and each message can be marked read or unread, starred "
    "or important. Users search by words, sender, recipient, label, date range, attachments and "
    "flags, read whole conversations, and reply, reply-all or forward with attachments. Labels, "
    "including nested ones such as 'Clients/BrightPath', organise mail alongside the mailboxes and "
    "can be applied to single messages, whole conversations or many messages at once. Drafts keep "
    "unsent messages with their recipients until they are edited and sent. An address book holds "
    "contacts with company, job title and notes, organised into contact groups. Filters match "
    "incoming mail by sender, recipient, subject, words or attachments and label, archive, star, "
    "mark read or important, trash or forward it, and can be run over mail already received. "
    "Account settings cover the vacation responder with its date range and contacts-only option, "
    "blocked senders, signature, undo-send window, page size, reply default and display density; "
    "Spam and Trash can be emptied for good. The simulated service is seen from one logged-in "
    "account (user 1, Priya Raman, a product manager at Northwind Labs) among six accounts, with "
    "fifty-eight messages in fifty-one conversations, fourteen labels, twenty-three contacts and "
    "five drafts."
)

TASKS = [
    "My accountant Tom Whitaker has emailed me several attachments. Which is the largest file he has sent me, and what is the subject of the email it came with?",
    "What is the booking reference and the flight number of my upcoming flight to Lisbon?",
    "How many unread emails from my manager Jordan Lee are sitting in my inbox? Tell me the count and the subject of the newest one, then mark all of them as read.",
    "Apply my 'Clients/BrightPath' label to every email in my inbox that was sent by someone at brightpath.io, then archive those emails.",
    "I'm on leave from January 5 to January 9, 2026. Turn on my vacation responder for exactly those dates with the subject 'Out of office' and a message saying urgent requests should go to Hannah Schmidt at her email address, sent only to people in my contacts. Also star the email in which Jordan approved my leave.",
    "Reply all to the latest message in the 'Q1 roadmap review' conversation saying that Thursday works for me, then mark the whole conversation as read.",
    "Create a filter for mail from newsletters@dailybyte.io that skips the inbox and applies my 'Newsletters' label, and apply it to the matching emails I already have.",
    "Find my draft to Grace Kim about renewing the lease, add my brother Ravi Raman in Cc, and send it.",
    "A message from Nina Petrova ended up in my spam. Move it back to my inbox and mark it as important, block the sender of the 'Your account has been suspended' email, and then empty my spam folder.",
    "Add the person who sent me 'Invoice #2231' to my contacts with their name and email as shown in the email and the company 'Fischer Studio', put them in my 'Work' contact group, and label that invoice email 'Finance'.",
]

VACATION_BODY = "I'm on leave from January 5 to January 9 and will reply when I'm back on January 12. For anything urgent, please contact Hannah Schmidt at hannah.schmidt@northwindlabs.com."
REPLY_BODY = "Thursday, January 8 at 10:00 works for me. See you then!"


def _call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


SOLUTIONS = [
    {
        "calls": [
            _call("search_contacts", q="Tom Whitaker"),
            _call("search_messages", from_address="tom@whitakercpa.com", has_attachment=True),
            _call("list_message_attachments", message_id=23),
            _call("list_message_attachments", message_id=21),
        ],
        "final_answer": "The largest file Tom Whitaker sent you is form_8879_signed.pdf (356,912 bytes), attached to his email 'Signed forms' from 2025-12-19.",
    },
    {
        "calls": [
            _call("search_messages", q="Lisbon"),
            _call("search_messages", q="cancelled", from_address="flyaurora.com"),
            _call("get_message", message_id=28),
        ],
        "final_answer": "Your upcoming Lisbon flight is Aurora Air flight AU 486 from Boston, departing 2026-02-13 at 18:50, booking reference Q4MZ7T (the earlier booking K7PX9A was cancelled).",
    },
    {
        "calls": [
            _call("search_contacts", q="Jordan"),
            _call("search_messages", from_address="jordan.lee@northwindlabs.com", mailbox="inbox", is_read=False),
            _call("update_message_flags", message_id=4, is_read=True),
            _call("update_message_flags", message_id=9, is_read=True),
            _call("update_message_flags", message_id=8, is_read=True),
        ],
        "final_answer": "You had 3 unread emails from Jordan Lee in your inbox; the newest is 'Re: Q1 roadmap review'. All three are now marked as read.",
    },
    {
        "calls": [
            _call("list_labels"),
            _call("search_messages", from_address="@brightpath.io", mailbox="inbox"),
            _call("batch_modify_messages", message_ids=[15, 14, 13, 11], add_label_ids=[6], mailbox="archive"),
        ],
        "final_answer": "Labelled the four inbox emails from brightpath.io (from Nina Petrova, Sam Patel and Jordan Li) with 'Clients/BrightPath' and archived them.",
    },
    {
        "calls": [
            _call("get_vacation_responder"),
            _call("search_contacts", q="Hannah Schmidt"),
            _call("update_vacation_responder", is_enabled=True, subject="Out of office", body=VACATION_BODY, start_date="2026-01-05", end_date="2026-01-09", contacts_only=True),
            _call("search_messages", q="Leave request", from_address="jordan.lee@northwindlabs.com"),
            _call("update_message_flags", message_id=7, is_starred=True),
        ],
        "final_answer": "Your vacation responder is on from 2026-01-05 to 2026-01-09 for contacts only, pointing urgent requests to Hannah Schmidt, and Jordan's approval email is starred.",
    },
    {
        "calls": [
            _call("list_threads", q="Q1 roadmap review"),
            _call("get_thread", thread_id=1),
            _call("reply_to_message", message_id=4, body=REPLY_BODY, reply_all=True),
            _call("update_thread", thread_id=1, is_read=True),
        ],
        "final_answer": "Replied to all on Jordan's latest 'Q1 roadmap review' message that Thursday works for you, and marked the conversation as read.",
    },
    {
        "calls": [
            _call("list_labels"),
            _call("search_messages", from_address="newsletters@dailybyte.io"),
            _call("create_filter", from_contains="newsletters@dailybyte.io", label_id=8, should_archive=True),
            _call("apply_filter", filter_id=5),
        ],
        "final_answer": "Created a filter that archives mail from newsletters@dailybyte.io and labels it 'Newsletters', and applied it to your four existing DailyByte newsletters.",
    },
    {
        "calls": [
            _call("list_drafts"),
            _call("search_contacts", q="Ravi"),
            _call("update_draft", draft_id=1, cc=["ravi.raman@gmail.com"]),
            _call("send_draft", draft_id=1),
        ],
        "final_answer": "Sent your 'Lease renewal for unit 4B' draft to Grace Kim with Ravi Raman in Cc.",
    },
    {
        "calls": [
            _call("search_messages", mailbox="spam"),
            _call("move_message", message_id=17, mailbox="inbox"),
            _call("update_message_flags", message_id=17, is_important=True),
            _call("block_sender", email="security@paypa1-support.com"),
            _call("empty_spam"),
        ],
        "final_answer": "Nina Petrova's 'Updated pricing proposal' is back in your inbox and marked important, security@paypa1-support.com is blocked, and the spam folder is empty.",
    },
    {
        "calls": [
            _call("search_messages", q="Invoice #2231"),
            _call("get_message", message_id=37),
            _call("create_contact", name="Lena Fischer", email="lena@fischer-studio.de", company="Fischer Studio"),
            _call("list_contact_groups"),
            _call("add_contact_to_group", group_id=1, contact_id=24),
            _call("list_labels"),
            _call("add_label_to_message", message_id=37, label_id=2),
        ],
        "final_answer": "Added Lena Fischer (lena@fischer-studio.de, Fischer Studio) to your contacts and the Work group, and labelled her 'Invoice #2231' email 'Finance'.",
    },
]

# Test data, not assembled into JSONL: plausible but wrong answers for the pure query tasks
# (their final DB equals the initial DB); the verifier must reject each one.
WRONG_ANSWERS = {
    0: [
        "EMPTY RESPONSE FOR TESTING",
        "The largest file is w2_northwind_2025.pdf, attached to 'W-2 for 2025'.",
        "engagement_letter_2025.pdf, from the email 'Draft 2025 estimate'.",
        "block_party_photos.zip, from 'Photos from the block party'.",
        "form_8879_signed.pdf, from the email 'Draft 2025 estimate'.",
    ],
    1: [
        "EMPTY RESPONSE FOR TESTING",
        "Booking reference K7PX9A on flight AU 482.",
        "Your Porto flight AU 731 has booking reference B8RT3N.",
        "Booking reference ZZ81QA, flight AU 486.",
        "Booking reference Q4MZ7T, flight AU 482.",
    ],
}
# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    2: [("update_message_flags", {"message_id": 4, "is_read": True}), ("update_message_flags", {"message_id": 9, "is_read": True}), ("update_message_flags", {"message_id": 13, "is_read": True})],
    3: [("batch_modify_messages", {"message_ids": [15, 14, 13, 11, 9], "add_label_ids": [6], "mailbox": "archive"})],
    4: [("update_vacation_responder", {"is_enabled": True, "subject": "Out of office", "body": VACATION_BODY, "start_date": "2026-01-05", "end_date": "2026-01-09"}), ("update_message_flags", {"message_id": 7, "is_starred": True})],
    5: [("reply_to_message", {"message_id": 4, "body": REPLY_BODY}), ("update_thread", {"thread_id": 1, "is_read": True})],
    6: [("create_filter", {"from_contains": "dailybyte.io", "label_id": 8, "should_archive": True}), ("apply_filter", {"filter_id": 5})],
    7: [("update_draft", {"draft_id": 1, "cc": ["ravi.ramesh@northwindlabs.com"]}), ("send_draft", {"draft_id": 1})],
    8: [("move_message", {"message_id": 17, "mailbox": "inbox"}), ("update_message_flags", {"message_id": 17, "is_important": True}), ("empty_spam", {})],
    9: [("create_contact", {"name": "Lena Fischer", "email": "lena@fischer-studio.de", "company": "Fischer Studio"}), ("add_contact_to_group", {"group_id": 1, "contact_id": 24}), ("add_label_to_message", {"message_id": 38, "label_id": 2})],
}

APP_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.py")
VERIFIERS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verifiers.py")


def read_full_code():
    with open(APP_PATH, encoding="utf-8") as handle:
        return handle.read()


def extract_verifiers():
    """Return the source of verifier_0..verifier_9, each renamed to verify_task_completion."""
    with open(VERIFIERS_PATH, encoding="utf-8") as handle:
        source = handle.read()
    functions = {node.name: node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}
    sources = []
    for index in range(len(TASKS)):
        name = f"verifier_{index}"
        code = ast.get_source_segment(source, functions[name])
        sources.append(code.replace(f"def {name}(", "def verify_task_completion(", 1))
    return sources


FULL_CODE = read_full_code()
VERIFIERS = extract_verifiers()

assert len(TASKS) == len(SOLUTIONS) == len(VERIFIERS) == len(VERIFIER_META) == 10
