"""SQLite schema of the github world (the `db_schema.tables` of gen_db.jsonl).

Each entry is {"name", "ddl", "indexes"}; tables are listed in foreign-key-safe order.
Issues and pull requests share one number sequence per repository, as on GitHub.
"""

TABLES = [
    {
        "name": "users",
        "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY, login TEXT NOT NULL UNIQUE, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, bio TEXT, company TEXT, location TEXT, account_type TEXT NOT NULL DEFAULT 'User' CHECK (account_type IN ('User', 'Bot')), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_users_name ON users(name);"],
    },
    {
        "name": "organizations",
        "ddl": "CREATE TABLE organizations (id INTEGER PRIMARY KEY, login TEXT NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT, email TEXT, location TEXT, website TEXT, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [],
    },
    {
        "name": "org_members",
        "ddl": "CREATE TABLE org_members (id INTEGER PRIMARY KEY, org_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE, user_id INTEGER NOT NULL REFERENCES users(id), role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')), joined_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (org_id, user_id));",
        "indexes": ["CREATE INDEX idx_org_members_user_id ON org_members(user_id);"],
    },
    {
        "name": "repositories",
        "ddl": "CREATE TABLE repositories (id INTEGER PRIMARY KEY, owner_user_id INTEGER REFERENCES users(id), owner_org_id INTEGER REFERENCES organizations(id), name TEXT NOT NULL, full_name TEXT NOT NULL UNIQUE, description TEXT, visibility TEXT NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'private')), default_branch TEXT NOT NULL DEFAULT 'main', language TEXT, homepage TEXT, is_archived BOOLEAN NOT NULL DEFAULT 0, is_fork BOOLEAN NOT NULL DEFAULT 0, parent_id INTEGER REFERENCES repositories(id), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, pushed_at DATETIME, CHECK ((owner_user_id IS NULL) <> (owner_org_id IS NULL)), CHECK (is_fork = 1 OR parent_id IS NULL));",
        "indexes": [
            "CREATE INDEX idx_repositories_owner_user_id ON repositories(owner_user_id);",
            "CREATE INDEX idx_repositories_owner_org_id ON repositories(owner_org_id);",
            "CREATE INDEX idx_repositories_name ON repositories(name);",
        ],
    },
    {
        "name": "collaborators",
        "ddl": "CREATE TABLE collaborators (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, user_id INTEGER NOT NULL REFERENCES users(id), permission TEXT NOT NULL DEFAULT 'write' CHECK (permission IN ('read', 'triage', 'write', 'maintain', 'admin')), added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (repo_id, user_id));",
        "indexes": ["CREATE INDEX idx_collaborators_user_id ON collaborators(user_id);"],
    },
    {
        "name": "branches",
        "ddl": "CREATE TABLE branches (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, name TEXT NOT NULL, head_sha TEXT NOT NULL, is_protected BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (repo_id, name));",
        "indexes": [],
    },
    {
        "name": "commits",
        "ddl": "CREATE TABLE commits (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, branch_id INTEGER REFERENCES branches(id) ON DELETE SET NULL, sha TEXT NOT NULL UNIQUE CHECK (length(sha) = 40), author_id INTEGER NOT NULL REFERENCES users(id), message TEXT NOT NULL, additions INTEGER NOT NULL DEFAULT 0 CHECK (additions >= 0), deletions INTEGER NOT NULL DEFAULT 0 CHECK (deletions >= 0), committed_at DATETIME NOT NULL);",
        "indexes": [
            "CREATE INDEX idx_commits_branch_committed_at ON commits(branch_id, committed_at);",
            "CREATE INDEX idx_commits_repo_id ON commits(repo_id);",
            "CREATE INDEX idx_commits_author_id ON commits(author_id);",
        ],
    },
    {
        "name": "labels",
        "ddl": "CREATE TABLE labels (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, name TEXT NOT NULL, color TEXT NOT NULL DEFAULT 'ededed' CHECK (length(color) = 6), description TEXT, UNIQUE (repo_id, name));",
        "indexes": [],
    },
    {
        "name": "milestones",
        "ddl": "CREATE TABLE milestones (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, title TEXT NOT NULL, description TEXT, state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')), due_on TEXT, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, closed_at DATETIME, UNIQUE (repo_id, title));",
        "indexes": ["CREATE INDEX idx_milestones_repo_state ON milestones(repo_id, state);"],
    },
    {
        "name": "issues",
        "ddl": "CREATE TABLE issues (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, number INTEGER NOT NULL CHECK (number > 0), title TEXT NOT NULL, body TEXT, author_id INTEGER NOT NULL REFERENCES users(id), state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')), state_reason TEXT CHECK (state_reason IS NULL OR state_reason IN ('completed', 'not_planned', 'reopened')), milestone_id INTEGER REFERENCES milestones(id) ON DELETE SET NULL, is_locked BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, closed_at DATETIME, UNIQUE (repo_id, number));",
        "indexes": [
            "CREATE INDEX idx_issues_repo_state ON issues(repo_id, state);",
            "CREATE INDEX idx_issues_author_id ON issues(author_id);",
            "CREATE INDEX idx_issues_milestone_id ON issues(milestone_id);",
        ],
    },
    {
        "name": "issue_labels",
        "ddl": "CREATE TABLE issue_labels (issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE, label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE, PRIMARY KEY (issue_id, label_id));",
        "indexes": ["CREATE INDEX idx_issue_labels_label_id ON issue_labels(label_id);"],
    },
    {
        "name": "issue_assignees",
        "ddl": "CREATE TABLE issue_assignees (issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE, user_id INTEGER NOT NULL REFERENCES users(id), assigned_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (issue_id, user_id));",
        "indexes": ["CREATE INDEX idx_issue_assignees_user_id ON issue_assignees(user_id);"],
    },
    {
        "name": "issue_comments",
        "ddl": "CREATE TABLE issue_comments (id INTEGER PRIMARY KEY, issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE, author_id INTEGER NOT NULL REFERENCES users(id), body TEXT NOT NULL, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_issue_comments_issue_created ON issue_comments(issue_id, created_at);"],
    },
    {
        "name": "pull_requests",
        "ddl": "CREATE TABLE pull_requests (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, number INTEGER NOT NULL CHECK (number > 0), title TEXT NOT NULL, body TEXT, author_id INTEGER NOT NULL REFERENCES users(id), head_branch TEXT NOT NULL, base_branch TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed', 'merged')), is_draft BOOLEAN NOT NULL DEFAULT 0, merge_method TEXT CHECK (merge_method IS NULL OR merge_method IN ('merge', 'squash', 'rebase')), merged_by INTEGER REFERENCES users(id), merged_at DATETIME, merge_commit_sha TEXT, additions INTEGER NOT NULL DEFAULT 0, deletions INTEGER NOT NULL DEFAULT 0, changed_files INTEGER NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, closed_at DATETIME, UNIQUE (repo_id, number), CHECK (head_branch <> base_branch), CHECK (state <> 'merged' OR merged_at IS NOT NULL));",
        "indexes": [
            "CREATE INDEX idx_pull_requests_repo_state ON pull_requests(repo_id, state);",
            "CREATE INDEX idx_pull_requests_author_id ON pull_requests(author_id);",
        ],
    },
    {
        "name": "pull_request_reviews",
        "ddl": "CREATE TABLE pull_request_reviews (id INTEGER PRIMARY KEY, pull_request_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE, reviewer_id INTEGER NOT NULL REFERENCES users(id), state TEXT NOT NULL CHECK (state IN ('approved', 'changes_requested', 'commented', 'dismissed')), body TEXT, submitted_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [
            "CREATE INDEX idx_pull_request_reviews_pull ON pull_request_reviews(pull_request_id);",
            "CREATE INDEX idx_pull_request_reviews_reviewer ON pull_request_reviews(reviewer_id);",
        ],
    },
    {
        "name": "review_comments",
        "ddl": "CREATE TABLE review_comments (id INTEGER PRIMARY KEY, pull_request_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE, review_id INTEGER REFERENCES pull_request_reviews(id) ON DELETE SET NULL, author_id INTEGER NOT NULL REFERENCES users(id), path TEXT NOT NULL, line INTEGER NOT NULL CHECK (line > 0), body TEXT NOT NULL, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_review_comments_pull ON review_comments(pull_request_id);"],
    },
    {
        "name": "review_requests",
        "ddl": "CREATE TABLE review_requests (id INTEGER PRIMARY KEY, pull_request_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE, reviewer_id INTEGER NOT NULL REFERENCES users(id), requested_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (pull_request_id, reviewer_id));",
        "indexes": ["CREATE INDEX idx_review_requests_reviewer ON review_requests(reviewer_id);"],
    },
    {
        "name": "stars",
        "ddl": "CREATE TABLE stars (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, starred_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, repo_id));",
        "indexes": ["CREATE INDEX idx_stars_repo_id ON stars(repo_id);"],
    },
    {
        "name": "watches",
        "ddl": "CREATE TABLE watches (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, subscription TEXT NOT NULL DEFAULT 'watching' CHECK (subscription IN ('watching', 'releases_only', 'ignoring')), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, repo_id));",
        "indexes": ["CREATE INDEX idx_watches_repo_id ON watches(repo_id);"],
    },
    {
        "name": "releases",
        "ddl": "CREATE TABLE releases (id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, tag_name TEXT NOT NULL, name TEXT, body TEXT, target_branch TEXT NOT NULL DEFAULT 'main', is_draft BOOLEAN NOT NULL DEFAULT 0, is_prerelease BOOLEAN NOT NULL DEFAULT 0, author_id INTEGER NOT NULL REFERENCES users(id), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, published_at DATETIME, UNIQUE (repo_id, tag_name), CHECK (is_draft = 1 OR published_at IS NOT NULL));",
        "indexes": ["CREATE INDEX idx_releases_repo_published ON releases(repo_id, published_at);"],
    },
    {
        "name": "notifications",
        "ddl": "CREATE TABLE notifications (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE, subject_type TEXT NOT NULL CHECK (subject_type IN ('Issue', 'PullRequest', 'Release')), subject_id INTEGER NOT NULL, reason TEXT NOT NULL CHECK (reason IN ('assign', 'author', 'comment', 'mention', 'review_requested', 'state_change', 'subscribed')), is_read BOOLEAN NOT NULL DEFAULT 0, updated_at DATETIME NOT NULL, last_read_at DATETIME);",
        "indexes": ["CREATE INDEX idx_notifications_user_read ON notifications(user_id, is_read, updated_at);"],
    },
]
