"""Code-mode verifiers of the github world, one per task (gen_verifier.pure_code.jsonl).

`verifier_<i>` is task i's verifier. The assembler stores each function's source text with the
name rewritten to `verify_task_completion`, AWM's entry-point name. Each function imports only
sqlite3, json and re, reads both databases, and returns {"result": "complete"} only when the
task is certainly done, else {"result": "others"}. Expected values are derived from the initial
database, never hard-coded ids. VERIFIER_META gives the rest of AWM's raw response (reasoning,
verification_strategy, key_checks) in task order.
"""


def verifier_0(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    rows = conn.execute("SELECT p.number, p.title, COUNT(DISTINCT CASE WHEN rv.state = 'approved' THEN rv.reviewer_id END) AS approvals FROM pull_requests p JOIN repositories r ON r.id = p.repo_id LEFT JOIN pull_request_reviews rv ON rv.pull_request_id = p.id WHERE r.full_name = 'lumen-labs/beacon' AND p.state = 'open' AND p.base_branch = 'main' GROUP BY p.id ORDER BY approvals DESC, p.number").fetchall()
    conn.close()
    if len(rows) < 2 or rows[0][2] == rows[1][2]:
        return {"result": "others"}
    number, title = rows[0][0], rows[0][1]
    if not re.search(re.escape(title), final_answer, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(r"(?<![\d.])" + str(number) + r"(?![\d.]\d|\d)", final_answer):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_1(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    repo = init.execute("SELECT id FROM repositories WHERE full_name = 'lumen-labs/beacon'").fetchone()
    if repo is None:
        return {"result": "others"}
    milestone = init.execute("SELECT id FROM milestones WHERE repo_id = ? AND title = 'v1.5'", (repo[0],)).fetchone()
    mei = init.execute("SELECT id FROM users WHERE name = 'Mei Chen'").fetchall()
    label_ids = {r[0] for r in init.execute("SELECT id FROM labels WHERE repo_id = ? AND name IN ('bug', 'ci')", (repo[0],)).fetchall()}
    issue_columns = "SELECT id, repo_id, number, title, state, state_reason, milestone_id FROM issues ORDER BY id"
    init_issues = init.execute(issue_columns).fetchall()
    final_issues = final.execute(issue_columns).fetchall()
    init_labels = set(init.execute("SELECT issue_id, label_id FROM issue_labels").fetchall())
    final_labels = set(final.execute("SELECT issue_id, label_id FROM issue_labels").fetchall())
    init_assignees = set(init.execute("SELECT issue_id, user_id FROM issue_assignees").fetchall())
    final_assignees = set(final.execute("SELECT issue_id, user_id FROM issue_assignees").fetchall())
    authors = dict(final.execute("SELECT id, author_id FROM issues").fetchall())
    init.close()
    final.close()
    if milestone is None or len(mei) != 1 or len(label_ids) != 2:
        return {"result": "others"}
    init_ids = {r[0] for r in init_issues}
    new = [r for r in final_issues if r[0] not in init_ids]
    if len(new) != 1:
        return {"result": "others"}
    issue_id, repo_id, _, title, state, _, milestone_id = new[0]
    if repo_id != repo[0] or title.strip().lower() != "flaky test: testschedulerretry times out on ci" or state != "open":
        return {"result": "others"}
    if milestone_id != milestone[0] or authors.get(issue_id) != 1:
        return {"result": "others"}
    if {label for issue, label in final_labels if issue == issue_id} != label_ids:
        return {"result": "others"}
    if {user for issue, user in final_assignees if issue == issue_id} != {mei[0][0]}:
        return {"result": "others"}
    if [r for r in final_issues if r[0] in init_ids] != init_issues:
        return {"result": "others"}
    if {r for r in final_labels if r[0] != issue_id} != init_labels or {r for r in final_assignees if r[0] != issue_id} != init_assignees:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_2(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    rows = conn.execute("SELECT c.message FROM commits c JOIN branches b ON b.id = c.branch_id JOIN repositories r ON r.id = c.repo_id JOIN users u ON u.id = c.author_id WHERE r.full_name = 'lumen-labs/beacon' AND b.name = 'main' AND u.name = 'Daniel Kowalski' AND c.committed_at >= '2025-12-01' AND c.committed_at < '2026-01-01' ORDER BY c.committed_at DESC, c.id DESC").fetchall()
    conn.close()
    if not rows:
        return {"result": "others"}
    count, latest = len(rows), rows[0][0]
    if not re.search(re.escape(latest), final_answer, re.IGNORECASE):
        return {"result": "others"}
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
    number = "(?:" + str(count) + ("|" + words[count] if count in words else "") + ")"
    before = r"(?<![\w.,-])" + number + r"\s+(?:[\w-]+\s+){0,3}?commits?\b"
    after = r"\bcommits?\b[^0-9'\"]{0,25}?(?<![\w.,-])" + number + r"(?![\w.,-]\w)"
    if re.search(before, final_answer, re.IGNORECASE) or re.search(after, final_answer, re.IGNORECASE):
        return {"result": "complete"}
    return {"result": "others"}


def verifier_3(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    repo = init.execute("SELECT id FROM repositories WHERE full_name = 'lumen-labs/beacon'").fetchone()
    if repo is None:
        return {"result": "others"}
    pulls = init.execute("SELECT id, number, head_branch, body FROM pull_requests WHERE repo_id = ? AND title = 'Add exponential backoff to webhook retries' AND base_branch = 'main' AND state = 'open'", (repo[0],)).fetchall()
    if len(pulls) != 1:
        return {"result": "others"}
    pull_id, pull_number, head, body = pulls[0]
    fixes = re.findall(r"(?:fixes|closes|resolves)\s+#(\d+)", body or "", re.IGNORECASE)
    issue = init.execute("SELECT id, state FROM issues WHERE repo_id = ? AND number = ?", (repo[0], int(fixes[0]))).fetchone() if len(fixes) == 1 else None
    final_pull = final.execute("SELECT state, merge_method, merged_by FROM pull_requests WHERE id = ?", (pull_id,)).fetchone()
    init_branches = set(init.execute("SELECT repo_id, name FROM branches").fetchall())
    final_branches = set(final.execute("SELECT repo_id, name FROM branches").fetchall())
    init_issue_states = init.execute("SELECT id, state, state_reason FROM issues ORDER BY id").fetchall()
    final_issue_states = final.execute("SELECT id, state, state_reason FROM issues ORDER BY id").fetchall()
    init_pull_states = init.execute("SELECT id, state FROM pull_requests WHERE id <> ? ORDER BY id", (pull_id,)).fetchall()
    final_pull_states = final.execute("SELECT id, state FROM pull_requests WHERE id <> ? ORDER BY id", (pull_id,)).fetchall()
    init_comment_ids = {r[0] for r in init.execute("SELECT id FROM issue_comments").fetchall()}
    final_comments = final.execute("SELECT id, issue_id, author_id, body FROM issue_comments").fetchall()
    init.close()
    final.close()
    if issue is None or issue[1] != "open" or final_pull is None:
        return {"result": "others"}
    if tuple(final_pull) != ("merged", "squash", 1):
        return {"result": "others"}
    if final_branches != init_branches - {(repo[0], head)} or (repo[0], head) not in init_branches:
        return {"result": "others"}
    expected_states = [(i, "closed", "completed") if i == issue[0] else (i, s, r) for i, s, r in init_issue_states]
    if final_issue_states != expected_states:
        return {"result": "others"}
    if init_pull_states != final_pull_states:
        return {"result": "others"}
    new_comments = [r for r in final_comments if r[0] not in init_comment_ids]
    if not new_comments or any(r[1] != issue[0] or r[2] != 1 for r in new_comments):
        return {"result": "others"}
    if not any(re.search(r"#" + str(pull_number) + r"(?!\d)", r[3]) for r in new_comments):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_4(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    repo = init.execute("SELECT id FROM repositories WHERE full_name = 'priya-nair/trailmap'").fetchone()
    people = {name: [r[0] for r in init.execute("SELECT id FROM users WHERE name = ?", (name,)).fetchall()] for name in ("Samuel Okoro", "Tom Brennan", "Jordan Walsh")}
    init_rows = set(init.execute("SELECT repo_id, user_id, permission FROM collaborators").fetchall())
    final_rows = set(final.execute("SELECT repo_id, user_id, permission FROM collaborators").fetchall())
    init.close()
    final.close()
    if repo is None or any(len(ids) != 1 for ids in people.values()):
        return {"result": "others"}
    samuel, tom, jordan = people["Samuel Okoro"][0], people["Tom Brennan"][0], people["Jordan Walsh"][0]
    before = {user: permission for repo_id, user, permission in init_rows if repo_id == repo[0]}
    if samuel in before or before.get(tom) != "admin" or jordan not in before:
        return {"result": "others"}
    expected = dict(before)
    expected[samuel] = "triage"
    expected[tom] = "write"
    del expected[jordan]
    after = {user: permission for repo_id, user, permission in final_rows if repo_id == repo[0]}
    if after != expected:
        return {"result": "others"}
    if {r for r in init_rows if r[0] != repo[0]} != {r for r in final_rows if r[0] != repo[0]}:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_5(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    rust = {r[0] for r in init.execute("SELECT r.id FROM repositories r JOIN organizations o ON o.id = r.owner_org_id WHERE o.login = 'harborworks' AND lower(r.language) = 'rust'").fetchall()}
    init_stars = set(init.execute("SELECT user_id, repo_id FROM stars").fetchall())
    final_stars = set(final.execute("SELECT user_id, repo_id FROM stars").fetchall())
    init.close()
    final.close()
    mine_before = {repo for user, repo in init_stars if user == 1}
    if not rust or rust <= mine_before:
        return {"result": "others"}
    if {repo for user, repo in final_stars if user == 1} != mine_before | rust:
        return {"result": "others"}
    if {r for r in init_stars if r[0] != 1} != {r for r in final_stars if r[0] != 1}:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_6(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    repo = init.execute("SELECT id FROM repositories WHERE full_name = 'lumen-labs/beacon'").fetchone()
    if repo is None:
        return {"result": "others"}
    latest = init.execute("SELECT published_at FROM releases WHERE repo_id = ? AND is_draft = 0 AND is_prerelease = 0 AND published_at IS NOT NULL ORDER BY published_at DESC LIMIT 1", (repo[0],)).fetchone()
    titles = init.execute("SELECT title, state, base_branch, merged_at FROM pull_requests WHERE repo_id = ?", (repo[0],)).fetchall()
    release_columns = "SELECT id, repo_id, tag_name, name, body, target_branch, is_draft, is_prerelease, author_id, published_at FROM releases ORDER BY id"
    init_releases = init.execute(release_columns).fetchall()
    final_releases = final.execute(release_columns).fetchall()
    init.close()
    final.close()
    if latest is None:
        return {"result": "others"}
    expected = [t for t, state, base, merged_at in titles if state == "merged" and base == "main" and merged_at is not None and merged_at > latest[0]]
    excluded = [t for t, state, base, merged_at in titles if t not in expected]
    if not expected:
        return {"result": "others"}
    init_ids = {r[0] for r in init_releases}
    new = [r for r in final_releases if r[0] not in init_ids]
    if len(new) != 1 or [r for r in final_releases if r[0] in init_ids] != init_releases:
        return {"result": "others"}
    _, repo_id, tag, name, body, target, is_draft, is_prerelease, author, _ = new[0]
    if repo_id != repo[0] or tag.strip() != "v1.5.0" or (name or "").strip().lower() != "beacon 1.5.0":
        return {"result": "others"}
    if target != "main" or not is_draft or is_prerelease or author != 1:
        return {"result": "others"}
    notes = (body or "").lower()
    if any(t.lower() not in notes for t in expected):
        return {"result": "others"}
    if any(t.lower() in notes and not any(t.lower() in e.lower() for e in expected) for t in excluded):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_7(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    targets = init.execute("SELECT n.id, p.id, p.state FROM notifications n JOIN pull_requests p ON p.id = n.subject_id WHERE n.user_id = 1 AND n.is_read = 0 AND n.reason = 'review_requested' AND n.subject_type = 'PullRequest'").fetchall()
    init_read = dict(init.execute("SELECT id, is_read FROM notifications").fetchall())
    final_read = dict(final.execute("SELECT id, is_read FROM notifications").fetchall())
    init_review_ids = {r[0] for r in init.execute("SELECT id FROM pull_request_reviews").fetchall()}
    final_reviews = final.execute("SELECT id, pull_request_id, reviewer_id, state FROM pull_request_reviews").fetchall()
    init.close()
    final.close()
    open_pulls = {pull for _, pull, state in targets if state == "open"}
    if not open_pulls or len(open_pulls) == len(targets):
        return {"result": "others"}
    target_ids = {notification for notification, _, _ in targets}
    if set(final_read) != set(init_read) or any(not final_read[n] for n in target_ids):
        return {"result": "others"}
    if any(final_read[n] != read for n, read in init_read.items() if n not in target_ids):
        return {"result": "others"}
    new = [r[1:] for r in final_reviews if r[0] not in init_review_ids]
    if sorted(new) != sorted((pull, 1, "approved") for pull in open_pulls):
        return {"result": "others"}
    if not init_review_ids <= {r[0] for r in final_reviews}:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_8(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    repo = init.execute("SELECT id FROM repositories WHERE full_name = 'lumen-labs/beacon'").fetchone()
    if repo is None:
        return {"result": "others"}
    labels = dict(init.execute("SELECT name, id FROM labels WHERE repo_id = ? AND name IN ('needs-triage', 'triaged')", (repo[0],)).fetchall())
    targets = {r[0] for r in init.execute("SELECT i.id FROM issues i JOIN issue_labels il ON il.issue_id = i.id JOIN labels l ON l.id = il.label_id WHERE i.repo_id = ? AND i.state = 'open' AND l.name = 'needs-triage' AND EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id)", (repo[0],)).fetchall()}
    init_rows = set(init.execute("SELECT issue_id, label_id FROM issue_labels").fetchall())
    final_rows = set(final.execute("SELECT issue_id, label_id FROM issue_labels").fetchall())
    init_label_rows = init.execute("SELECT id, repo_id, name FROM labels ORDER BY id").fetchall()
    final_label_rows = final.execute("SELECT id, repo_id, name FROM labels ORDER BY id").fetchall()
    init.close()
    final.close()
    if len(labels) != 2 or not targets or init_label_rows != final_label_rows:
        return {"result": "others"}
    expected = (init_rows - {(i, labels["needs-triage"]) for i in targets}) | {(i, labels["triaged"]) for i in targets}
    if final_rows != expected:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_9(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    repo = init.execute("SELECT id FROM repositories WHERE full_name = 'lumen-labs/beacon'").fetchone()
    if repo is None:
        return {"result": "others"}
    # "Upcoming" is relative to the world's frozen clock, 2026-01-01 12:00.
    milestone = init.execute("SELECT id, title FROM milestones WHERE repo_id = ? AND state = 'open' AND due_on IS NOT NULL AND due_on >= '2026-01-01' ORDER BY due_on, id LIMIT 1", (repo[0],)).fetchone()
    if milestone is None:
        return {"result": "others"}
    targets = {r[0] for r in init.execute("SELECT i.id FROM issues i WHERE i.milestone_id = ? AND i.state = 'open' AND NOT EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id)", (milestone[0],)).fetchall()}
    init_rows = set(init.execute("SELECT issue_id, user_id FROM issue_assignees").fetchall())
    final_rows = set(final.execute("SELECT issue_id, user_id FROM issue_assignees").fetchall())
    init.close()
    final.close()
    if not targets:
        return {"result": "others"}
    if final_rows != init_rows | {(issue, 1) for issue in targets}:
        return {"result": "others"}
    if not re.search(r"(?<![\w.])" + re.escape(milestone[1]) + r"(?!\.?\d)", final_answer, re.IGNORECASE):
        return {"result": "others"}
    return {"result": "complete"}


VERIFIER_META = [
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: among open pull requests of lumen-labs/beacon whose base is main, count distinct approving reviewers per pull request; the answer must give the number and title of the unique maximum (not the release/1.4 backport or the merged #47, and not the one with the most reviews overall).", "key_checks": ["final_answer contains the title of the open main-branch pull request with the most approvals", "final_answer contains its number"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new issue must exist in lumen-labs/beacon, authored by user 1, open, with the given title, labels exactly {bug, ci}, the single assignee Mei Chen (not Mei Cheng) and the beacon milestone v1.5 (not the fork's); no existing issue, label or assignee row may change.", "key_checks": ["one new issue with the exact title in lumen-labs/beacon", "labels are exactly bug and ci", "assignee is only Mei Chen", "milestone is beacon's v1.5", "existing issues, labels and assignees unchanged"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: commits on lumen-labs/beacon's main branch by Daniel Kowalski dated in December 2025 (excluding feature branches, his fork and Dan Kowalczyk); the answer must state the count next to the word 'commit' and quote the newest commit's message.", "key_checks": ["final_answer states the December 2025 main-branch commit count", "final_answer contains the message of the most recent such commit"]},
    {"verification_strategy": "modification_based", "reasoning": "Pull request 'Add exponential backoff to webhook retries' into main must be merged with the squash method by user 1, its head branch deleted in lumen-labs/beacon only, the issue named in its 'Fixes #N' closed as completed with a new comment by user 1 referencing the pull request number; no other branch, issue state or pull request state may change.", "key_checks": ["pull request state merged, merge_method squash, merged_by 1", "only the upstream head branch was deleted", "fixed issue closed with state_reason completed", "new comment by user 1 on that issue mentions #<pull number>", "other issues and pull requests unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "The collaborators of priya-nair/trailmap must end as the initial set with Samuel Okoro (not Samuel Okorie) added as triage, Tom Brennan lowered from admin to write and Jordan Walsh removed; collaborators of other repositories are untouched.", "key_checks": ["Samuel Okoro has triage", "Tom Brennan has write", "Jordan Walsh removed", "Rosa Mendez unchanged", "other repositories' collaborators unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's starred set must become the initial set plus every harborworks repository whose language is Rust (including the private one visible through membership), with nothing else starred or unstarred and other users' stars untouched.", "key_checks": ["all harborworks Rust repositories starred by user 1", "no other repository newly starred", "no star removed", "other users' stars unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "The latest release is the newest published non-draft, non-prerelease one (v1.4.2); exactly one new release must exist: tag v1.5.0, name 'Beacon 1.5.0', draft, not a pre-release, on main, whose notes contain the title of every pull request merged into main after v1.4.2 was published and no other pull request title of the repository.", "key_checks": ["one new release with tag v1.5.0 and name Beacon 1.5.0", "is_draft = 1, is_prerelease = 0, target main", "notes contain every pull request merged into main after the latest release", "notes contain no other pull request titles", "existing releases unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's unread review_requested notifications must all be marked read while every other notification keeps its read flag; exactly one approving review by user 1 must be added to each of those pull requests that was still open, and none to the merged one.", "key_checks": ["the unread review-request notifications are now read", "other notifications unchanged", "one new approved review by user 1 per open requested pull request", "no review on the already merged pull request"]},
    {"verification_strategy": "modification_based", "reasoning": "For open lumen-labs/beacon issues labeled needs-triage that have at least one assignee, needs-triage must be replaced by triaged; every other issue-label row (unassigned or closed needs-triage issues, the fork's issue) must be unchanged and no label created or deleted.", "key_checks": ["assigned open needs-triage issues now have triaged and not needs-triage", "unassigned needs-triage issues unchanged", "closed and fork issues unchanged", "labels table unchanged"]},
    {"verification_strategy": "combined", "reasoning": "The open beacon milestone with the nearest due date on or after the frozen today (2026-01-01) is v1.5, not the overdue v1.4.3 or the fork's v1.5; user 1 must be added exactly to its open unassigned issues with all other assignments unchanged, and the answer must name the milestone (not v1.5.x).", "key_checks": ["user 1 assigned to every open unassigned issue of the milestone", "no other assignee row added or removed", "final_answer names the milestone title"]},
]
