"""The built-in `github` world: scenario, tasks and reference solutions, plus re-exports.

Sources of truth, assembled into AWM JSONL by scripts/build_builtin_worlds.py:
  schema.py (TABLES), sample.py (SAMPLE), spec.py (SPEC), app.py (full_code),
  verifiers.py (VERIFIERS, extracted from the verifier_<i> functions) and this file.
Solution calls use operation ids and flat arguments exactly as an MCP client would send them.
Ids and numbers created while solving are predictable: lumen-labs/beacon's highest issue or pull
request number is 66, so a new issue there becomes #67.
"""

import ast
import os

from .sample import SAMPLE
from .schema import TABLES
from .spec import SPEC
from .verifiers import VERIFIER_META

__all__ = ["SCENARIO", "DESCRIPTION", "TASKS", "TABLES", "SAMPLE", "SPEC", "FULL_CODE", "VERIFIERS", "VERIFIER_META", "SOLUTIONS"]

SCENARIO = "github"

DESCRIPTION = (
    "GitHub is a code hosting platform where developers and organizations keep Git repositories and "
    "collaborate on them. Users belong to organizations as owners or members, and every repository "
    "is public or private, owned by a user or an organization, and may be a fork of another. Owners "
    "grant outside collaborators read, triage, write, maintain or admin permission. Repositories have "
    "branches (some protected) and a commit history per branch with authors and timestamps. Issues "
    "carry labels, assignees, a milestone with a due date, comments, and are closed as completed or "
    "not planned; issues and pull requests share one number sequence per repository. Pull requests "
    "propose merging a head branch into a base branch, can be drafts, collect reviews that approve, "
    "request changes or comment, line-level review comments and review requests, and are merged with "
    "a merge commit, squash or rebase. Users star repositories, choose to watch everything, only "
    "releases or nothing, publish tagged releases (drafts and pre-releases included, with a 'latest' "
    "release), and work through notification threads for review requests, assignments, mentions and "
    "comments. The simulated service is seen from one logged-in developer (user 1, Priya Nair, login "
    "priya-nair) who owns the lumen-labs organization, is a member of harborworks and collaborates on "
    "a quillstack repository, among thirteen users, three organizations and eighteen repositories."
)

TASKS = [
    "In lumen-labs/beacon, which open pull request into the main branch has the most approving reviews? Give me its number and title.",
    "Open an issue in lumen-labs/beacon titled 'Flaky test: TestSchedulerRetry times out on CI' with the labels 'bug' and 'ci', assigned to Mei Chen and added to the v1.5 milestone.",
    "How many commits did Daniel Kowalski author on the main branch of lumen-labs/beacon in December 2025, and what is the message of the most recent one?",
    "Squash-merge the pull request 'Add exponential backoff to webhook retries' into main of lumen-labs/beacon, delete its head branch, then close the issue it says it fixes as completed with a comment that references the pull request by its number.",
    "On my repository trailmap, give Samuel Okoro triage access, lower Tom Brennan's access from admin to write, and remove Jordan Walsh as a collaborator.",
    "Star every Rust repository of the harborworks organization that I have not starred yet.",
    "Create a draft release in lumen-labs/beacon tagged 'v1.5.0' and named 'Beacon 1.5.0' on main, whose notes list the title of every pull request merged into main since the repository's latest release was published.",
    "Go through my unread notifications where my review was requested: approve each of those pull requests that is still open, and mark all of those notifications as read.",
    "In lumen-labs/beacon, replace the 'needs-triage' label with 'triaged' on every open issue that has it and already has an assignee.",
    "Find the open milestone of lumen-labs/beacon with the nearest upcoming due date, assign me to each of its open issues that has no assignee yet, and tell me the milestone's title.",
]


def _call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


def _beacon(tool, **arguments):
    return _call(tool, owner="lumen-labs", repo="beacon", **arguments)


SOLUTIONS = [
    {
        "calls": [_beacon("list_pull_requests", state="open", base="main")] + [_beacon("list_pull_request_reviews", pull_number=number) for number in (58, 57, 55, 52)],
        "final_answer": "Pull request #55, 'Cache DNS lookups between checks', has the most approving reviews (3: mchen-dev, jwalsh and dkowalczyk).",
    },
    {
        "calls": [
            _call("search_users", q="Mei Chen"),
            _beacon("list_labels"),
            _beacon("list_milestones", state="open"),
            _beacon("create_issue", title="Flaky test: TestSchedulerRetry times out on CI", labels=["bug", "ci"], assignees=["mchen-dev"], milestone_id=3),
        ],
        "final_answer": "Opened lumen-labs/beacon#67 'Flaky test: TestSchedulerRetry times out on CI' with labels bug and ci, assigned to Mei Chen (mchen-dev), in milestone v1.5.",
    },
    {
        "calls": [
            _call("search_users", q="Daniel Kowalski"),
            _beacon("list_commits", branch="main", author="dkowalski", since="2025-12-01", until="2025-12-31"),
        ],
        "final_answer": "Daniel Kowalski authored 3 commits on main in December 2025; the most recent is 'Validate check intervals at config load' (2025-12-19).",
    },
    {
        "calls": [
            _beacon("list_pull_requests", state="open", base="main"),
            _beacon("get_pull_request", pull_number=57),
            _beacon("merge_pull_request", pull_number=57, merge_method="squash"),
            _beacon("delete_branch", name="feature/webhook-backoff"),
            _beacon("update_issue", issue_number=53, state="closed", state_reason="completed"),
            _beacon("create_issue_comment", issue_number=53, body="Fixed by #57."),
        ],
        "final_answer": "Squash-merged #57 into main, deleted feature/webhook-backoff, and closed #53 as completed with the comment 'Fixed by #57.'",
    },
    {
        "calls": [
            _call("list_collaborators", owner="priya-nair", repo="trailmap"),
            _call("search_users", q="Samuel Okoro"),
            _call("add_collaborator", owner="priya-nair", repo="trailmap", username="samuel-okoro", permission="triage"),
            _call("add_collaborator", owner="priya-nair", repo="trailmap", username="tbrennan", permission="write"),
            _call("remove_collaborator", owner="priya-nair", repo="trailmap", username="jwalsh"),
        ],
        "final_answer": "trailmap now has samuel-okoro (triage), tbrennan (write) and rosa-mendez (read); jwalsh was removed.",
    },
    {
        "calls": [
            _call("list_org_repositories", org="harborworks", language="Rust"),
            _call("list_starred_repositories"),
            _call("star_repository", owner="harborworks", repo="anchorline"),
            _call("star_repository", owner="harborworks", repo="ballast"),
            _call("star_repository", owner="harborworks", repo="buoy-cli"),
        ],
        "final_answer": "Starred harborworks/anchorline, harborworks/ballast and harborworks/buoy-cli; tidewatch was already starred.",
    },
    {
        "calls": [
            _beacon("get_latest_release"),
            _beacon("list_pull_requests", state="merged", base="main"),
            _beacon("create_release", tag_name="v1.5.0", name="Beacon 1.5.0", target_branch="main", draft=True, prerelease=False, body="Changes since v1.4.2:\n- Retry failed HTTP checks before alerting (#50)\n- Add Prometheus metrics endpoint (#47)\n- Add configurable DNS resolver timeout (#46)"),
        ],
        "final_answer": "Created the draft release v1.5.0 'Beacon 1.5.0' on main listing #50, #47 and #46, the pull requests merged since v1.4.2.",
    },
    {
        "calls": [
            _call("list_notifications", reason="review_requested"),
            _call("get_pull_request", owner="harborworks", repo="tidewatch", pull_number=14),
            _beacon("get_pull_request", pull_number=55),
            _call("get_pull_request", owner="lumen-labs", repo="beacon-sdk-python", pull_number=8),
            _call("create_pull_request_review", owner="harborworks", repo="tidewatch", pull_number=14, event="APPROVE"),
            _beacon("create_pull_request_review", pull_number=55, event="APPROVE"),
            _call("mark_notification_read", thread_id=2),
            _call("mark_notification_read", thread_id=1),
            _call("mark_notification_read", thread_id=3),
        ],
        "final_answer": "Approved harborworks/tidewatch#14 and lumen-labs/beacon#55; beacon-sdk-python#8 was already merged, so I only marked it read. All three review-request notifications are now read.",
    },
    {
        "calls": [
            _beacon("list_repo_issues", state="open", label="needs-triage"),
            _beacon("remove_issue_label", issue_number=64, label_name="needs-triage"),
            _beacon("add_issue_labels", issue_number=64, labels=["triaged"]),
            _beacon("remove_issue_label", issue_number=61, label_name="needs-triage"),
            _beacon("add_issue_labels", issue_number=61, labels=["triaged"]),
        ],
        "final_answer": "Replaced needs-triage with triaged on #64 and #61; #66 and #63 have no assignee, so they keep needs-triage.",
    },
    {
        "calls": [
            _beacon("list_milestones", state="open"),
            _beacon("list_repo_issues", state="open", milestone_id=3, assignee="none"),
            _beacon("add_issue_assignees", issue_number=62, assignees=["priya-nair"]),
            _beacon("add_issue_assignees", issue_number=60, assignees=["priya-nair"]),
        ],
        "final_answer": "The nearest upcoming milestone is v1.5 (due 2026-01-20); I assigned you to #62 and #60, its open issues that had no assignee.",
    },
]

# Test data, not assembled into JSONL: plausible but wrong answers for the pure query tasks
# (their final DB equals the initial DB); the verifier must reject each one.
WRONG_ANSWERS = {
    0: [
        "EMPTY RESPONSE FOR TESTING",
        "Pull request #56, 'Add exponential backoff to webhook retries (1.4 backport)', has 4 approvals.",
        "Pull request #52, 'Add Slack alert channel integration', has the most reviews (4).",
        "#47 'Add Prometheus metrics endpoint' with 4 approvals.",
    ],
    2: [
        "EMPTY RESPONSE FOR TESTING",
        "Daniel Kowalski authored 9 commits in December 2025; the most recent is 'Validate check intervals at config load'.",
        "He made 3 commits on main; the latest is 'Cache resolver answers for the check interval'.",
        "5 commits on main in December 2025 (including Dan Kowalczyk's), most recently 'Validate check intervals at config load'.",
    ],
}
# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    1: [("create_issue", {"owner": "lumen-labs", "repo": "beacon", "title": "Flaky test: TestSchedulerRetry times out on CI", "labels": ["bug", "ci"], "assignees": ["meicheng"], "milestone_id": 3})],
    3: [
        ("merge_pull_request", {"owner": "lumen-labs", "repo": "beacon", "pull_number": 57, "merge_method": "merge"}),
        ("delete_branch", {"owner": "lumen-labs", "repo": "beacon", "name": "feature/webhook-backoff"}),
        ("update_issue", {"owner": "lumen-labs", "repo": "beacon", "issue_number": 53, "state": "closed", "state_reason": "completed"}),
        ("create_issue_comment", {"owner": "lumen-labs", "repo": "beacon", "issue_number": 53, "body": "Fixed by #57."}),
    ],
    4: [
        ("add_collaborator", {"owner": "priya-nair", "repo": "trailmap", "username": "sokorie", "permission": "triage"}),
        ("add_collaborator", {"owner": "priya-nair", "repo": "trailmap", "username": "tbrennan", "permission": "write"}),
        ("remove_collaborator", {"owner": "priya-nair", "repo": "trailmap", "username": "jwalsh"}),
    ],
    5: [("star_repository", {"owner": "harborworks", "repo": "anchorline"}), ("star_repository", {"owner": "harborworks", "repo": "buoy-cli"})],
    6: [("create_release", {"owner": "lumen-labs", "repo": "beacon", "tag_name": "v1.5.0", "name": "Beacon 1.5.0", "target_branch": "main", "draft": True, "body": "- Retry failed HTTP checks before alerting (#50)"})],
    7: [
        ("create_pull_request_review", {"owner": "harborworks", "repo": "tidewatch", "pull_number": 14, "event": "APPROVE"}),
        ("create_pull_request_review", {"owner": "lumen-labs", "repo": "beacon", "pull_number": 55, "event": "APPROVE"}),
        ("create_pull_request_review", {"owner": "lumen-labs", "repo": "beacon-sdk-python", "pull_number": 8, "event": "APPROVE"}),
    ] + [("mark_notification_read", {"thread_id": thread}) for thread in (1, 2, 3)],
    8: [("add_issue_labels", {"owner": "lumen-labs", "repo": "beacon", "issue_number": number, "labels": ["triaged"]}) for number in (64, 61)],
    9: [("add_issue_assignees", {"owner": "lumen-labs", "repo": "beacon", "issue_number": number, "assignees": ["priya-nair"]}) for number in (62, 60, 53)],
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
