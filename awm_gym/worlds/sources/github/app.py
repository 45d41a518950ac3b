import os
import hashlib
from datetime import datetime, timedelta
from typing import List, Optional

from fastapi import FastAPI, Query, Path
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Text, Boolean, DateTime, ForeignKey, UniqueConstraint, PrimaryKeyConstraint, func, or_
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///github.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    login = Column(String, nullable=False, unique=True)
    name = Column(String, nullable=False)
    email = Column(String, nullable=False, unique=True)
    bio = Column(Text)
    company = Column(String)
    location = Column(String)
    account_type = Column(String, nullable=False, default="User")
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Organization(Base):
    __tablename__ = "organizations"
    id = Column(Integer, primary_key=True)
    login = Column(String, nullable=False, unique=True)
    name = Column(String, nullable=False)
    description = Column(Text)
    email = Column(String)
    location = Column(String)
    website = Column(String)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class OrgMember(Base):
    __tablename__ = "org_members"
    __table_args__ = (UniqueConstraint("org_id", "user_id"),)
    id = Column(Integer, primary_key=True)
    org_id = Column(Integer, ForeignKey("organizations.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    role = Column(String, nullable=False, default="member")
    joined_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Repository(Base):
    __tablename__ = "repositories"
    id = Column(Integer, primary_key=True)
    owner_user_id = Column(Integer, ForeignKey("users.id"))
    owner_org_id = Column(Integer, ForeignKey("organizations.id"))
    name = Column(String, nullable=False)
    full_name = Column(String, nullable=False, unique=True)
    description = Column(Text)
    visibility = Column(String, nullable=False, default="public")
    default_branch = Column(String, nullable=False, default="main")
    language = Column(String)
    homepage = Column(String)
    is_archived = Column(Boolean, nullable=False, default=False)
    is_fork = Column(Boolean, nullable=False, default=False)
    parent_id = Column(Integer, ForeignKey("repositories.id"))
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    pushed_at = Column(DateTime)


class Collaborator(Base):
    __tablename__ = "collaborators"
    __table_args__ = (UniqueConstraint("repo_id", "user_id"),)
    id = Column(Integer, primary_key=True)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    permission = Column(String, nullable=False, default="write")
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Branch(Base):
    __tablename__ = "branches"
    __table_args__ = (UniqueConstraint("repo_id", "name"),)
    id = Column(Integer, primary_key=True)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    name = Column(String, nullable=False)
    head_sha = Column(String, nullable=False)
    is_protected = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Commit(Base):
    __tablename__ = "commits"
    id = Column(Integer, primary_key=True)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    branch_id = Column(Integer, ForeignKey("branches.id"))
    sha = Column(String, nullable=False, unique=True)
    author_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    message = Column(Text, nullable=False)
    additions = Column(Integer, nullable=False, default=0)
    deletions = Column(Integer, nullable=False, default=0)
    committed_at = Column(DateTime, nullable=False)


class Label(Base):
    __tablename__ = "labels"
    __table_args__ = (UniqueConstraint("repo_id", "name"),)
    id = Column(Integer, primary_key=True)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    name = Column(String, nullable=False)
    color = Column(String, nullable=False, default="ededed")
    description = Column(Text)


class Milestone(Base):
    __tablename__ = "milestones"
    __table_args__ = (UniqueConstraint("repo_id", "title"),)
    id = Column(Integer, primary_key=True)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    title = Column(String, nullable=False)
    description = Column(Text)
    state = Column(String, nullable=False, default="open")
    due_on = Column(String)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    closed_at = Column(DateTime)


class Issue(Base):
    __tablename__ = "issues"
    __table_args__ = (UniqueConstraint("repo_id", "number"),)
    id = Column(Integer, primary_key=True)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    number = Column(Integer, nullable=False)
    title = Column(String, nullable=False)
    body = Column(Text)
    author_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    state = Column(String, nullable=False, default="open")
    state_reason = Column(String)
    milestone_id = Column(Integer, ForeignKey("milestones.id"))
    is_locked = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    closed_at = Column(DateTime)


class IssueLabel(Base):
    __tablename__ = "issue_labels"
    __table_args__ = (PrimaryKeyConstraint("issue_id", "label_id"),)
    issue_id = Column(Integer, ForeignKey("issues.id"), nullable=False)
    label_id = Column(Integer, ForeignKey("labels.id"), nullable=False)


class IssueAssignee(Base):
    __tablename__ = "issue_assignees"
    __table_args__ = (PrimaryKeyConstraint("issue_id", "user_id"),)
    issue_id = Column(Integer, ForeignKey("issues.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    assigned_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class IssueComment(Base):
    __tablename__ = "issue_comments"
    id = Column(Integer, primary_key=True)
    issue_id = Column(Integer, ForeignKey("issues.id"), nullable=False)
    author_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    body = Column(Text, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class PullRequest(Base):
    __tablename__ = "pull_requests"
    __table_args__ = (UniqueConstraint("repo_id", "number"),)
    id = Column(Integer, primary_key=True)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    number = Column(Integer, nullable=False)
    title = Column(String, nullable=False)
    body = Column(Text)
    author_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    head_branch = Column(String, nullable=False)
    base_branch = Column(String, nullable=False)
    state = Column(String, nullable=False, default="open")
    is_draft = Column(Boolean, nullable=False, default=False)
    merge_method = Column(String)
    merged_by = Column(Integer, ForeignKey("users.id"))
    merged_at = Column(DateTime)
    merge_commit_sha = Column(String)
    additions = Column(Integer, nullable=False, default=0)
    deletions = Column(Integer, nullable=False, default=0)
    changed_files = Column(Integer, nullable=False, default=0)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    closed_at = Column(DateTime)


class PullRequestReview(Base):
    __tablename__ = "pull_request_reviews"
    id = Column(Integer, primary_key=True)
    pull_request_id = Column(Integer, ForeignKey("pull_requests.id"), nullable=False)
    reviewer_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    state = Column(String, nullable=False)
    body = Column(Text)
    submitted_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class ReviewComment(Base):
    __tablename__ = "review_comments"
    id = Column(Integer, primary_key=True)
    pull_request_id = Column(Integer, ForeignKey("pull_requests.id"), nullable=False)
    review_id = Column(Integer, ForeignKey("pull_request_reviews.id"))
    author_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    path = Column(String, nullable=False)
    line = Column(Integer, nullable=False)
    body = Column(Text, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class ReviewRequest(Base):
    __tablename__ = "review_requests"
    __table_args__ = (UniqueConstraint("pull_request_id", "reviewer_id"),)
    id = Column(Integer, primary_key=True)
    pull_request_id = Column(Integer, ForeignKey("pull_requests.id"), nullable=False)
    reviewer_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    requested_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Star(Base):
    __tablename__ = "stars"
    __table_args__ = (UniqueConstraint("user_id", "repo_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    starred_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Watch(Base):
    __tablename__ = "watches"
    __table_args__ = (UniqueConstraint("user_id", "repo_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    subscription = Column(String, nullable=False, default="watching")
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Release(Base):
    __tablename__ = "releases"
    __table_args__ = (UniqueConstraint("repo_id", "tag_name"),)
    id = Column(Integer, primary_key=True)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    tag_name = Column(String, nullable=False)
    name = Column(String)
    body = Column(Text)
    target_branch = Column(String, nullable=False, default="main")
    is_draft = Column(Boolean, nullable=False, default=False)
    is_prerelease = Column(Boolean, nullable=False, default=False)
    author_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    published_at = Column(DateTime)


class Notification(Base):
    __tablename__ = "notifications"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    repo_id = Column(Integer, ForeignKey("repositories.id"), nullable=False)
    subject_type = Column(String, nullable=False)
    subject_id = Column(Integer, nullable=False)
    reason = Column(String, nullable=False)
    is_read = Column(Boolean, nullable=False, default=False)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    last_read_at = Column(DateTime)


Base.metadata.create_all(bind=engine)


class UserResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="User ID", example=1)
    login: str = Field(..., description="Unique username", example="priya-nair")
    name: str = Field(..., description="Display name", example="Priya Nair")
    email: str = Field(..., description="Public email address", example="priya.nair@example.com")
    bio: Optional[str] = Field(None, description="Profile bio", example="Backend engineer. Maintainer of Beacon.")
    company: Optional[str] = Field(None, description="Company", example="Lumen Labs")
    location: Optional[str] = Field(None, description="Location", example="Toronto, Canada")
    account_type: str = Field(..., description="User or Bot", example="User")
    created_at: datetime = Field(..., description="Account creation time", example="2016-03-14T10:22:00")


class OrganizationResponse(BaseModel):
    id: int = Field(..., description="Organization ID", example=1)
    login: str = Field(..., description="Organization login", example="lumen-labs")
    name: str = Field(..., description="Display name", example="Lumen Labs")
    description: Optional[str] = Field(None, description="Description", example="Open-source uptime monitoring and observability tools.")
    email: Optional[str] = Field(None, description="Contact email", example="hello@lumenlabs.example.com")
    location: Optional[str] = Field(None, description="Location", example="Toronto, Canada")
    website: Optional[str] = Field(None, description="Website", example="https://lumenlabs.example.com")
    my_role: Optional[str] = Field(None, description="The current user's role: owner, member, or null", example="owner")
    created_at: datetime = Field(..., description="Creation time", example="2018-04-01T09:00:00")


class OrgMemberResponse(BaseModel):
    user_id: int = Field(..., description="User ID", example=3)
    login: str = Field(..., description="Member login", example="mchen-dev")
    name: str = Field(..., description="Member display name", example="Mei Chen")
    role: str = Field(..., description="owner or member", example="member")
    joined_at: datetime = Field(..., description="When the user joined", example="2018-09-03T15:30:00")


class RepositoryResponse(BaseModel):
    id: int = Field(..., description="Repository ID", example=4)
    name: str = Field(..., description="Repository name", example="beacon")
    full_name: str = Field(..., description="owner/name", example="lumen-labs/beacon")
    owner_login: str = Field(..., description="Owner login (user or organization)", example="lumen-labs")
    owner_type: str = Field(..., description="User or Organization", example="Organization")
    description: Optional[str] = Field(None, description="Description", example="Lightweight uptime monitoring and alerting service.")
    visibility: str = Field(..., description="public or private", example="public")
    default_branch: str = Field(..., description="Default branch", example="main")
    language: Optional[str] = Field(None, description="Main language", example="Go")
    homepage: Optional[str] = Field(None, description="Homepage URL", example="https://beacon.example.com")
    is_archived: bool = Field(..., description="Whether the repository is archived (read-only)", example=False)
    is_fork: bool = Field(..., description="Whether the repository is a fork", example=False)
    parent_full_name: Optional[str] = Field(None, description="Full name of the forked repository", example=None)
    stargazers_count: int = Field(..., description="Number of stars", example=8)
    watchers_count: int = Field(..., description="Users watching all activity", example=6)
    open_issues_count: int = Field(..., description="Open issues (not pull requests)", example=11)
    open_pull_requests_count: int = Field(..., description="Open pull requests", example=5)
    permission: str = Field(..., description="The current user's permission: read, triage, write, maintain or admin", example="admin")
    created_at: datetime = Field(..., description="Creation time", example="2018-04-10T12:00:00")
    updated_at: datetime = Field(..., description="Last update", example="2025-12-30T09:00:00")
    pushed_at: Optional[datetime] = Field(None, description="Last push", example="2025-12-29T16:45:00")


class CollaboratorResponse(BaseModel):
    user_id: int = Field(..., description="User ID", example=8)
    login: str = Field(..., description="Collaborator login", example="tbrennan")
    name: str = Field(..., description="Collaborator display name", example="Tom Brennan")
    permission: str = Field(..., description="read, triage, write, maintain or admin", example="admin")
    added_at: datetime = Field(..., description="When access was granted", example="2023-02-11T10:00:00")


class BranchResponse(BaseModel):
    id: int = Field(..., description="Branch ID", example=7)
    name: str = Field(..., description="Branch name", example="feature/webhook-backoff")
    head_sha: str = Field(..., description="SHA of the newest commit", example="3f1c2a9d0b7e4c5f8a6d1e2b3c4d5e6f7a8b9c0d")
    is_protected: bool = Field(..., description="Protected branches cannot be deleted", example=False)
    is_default: bool = Field(..., description="Whether this is the repository's default branch", example=False)
    created_at: datetime = Field(..., description="Creation time", example="2025-12-19T16:00:00")


class CommitResponse(BaseModel):
    sha: str = Field(..., description="Commit SHA", example="3f1c2a9d0b7e4c5f8a6d1e2b3c4d5e6f7a8b9c0d")
    message: str = Field(..., description="Commit message", example="Validate check intervals at config load")
    author_login: str = Field(..., description="Author login", example="dkowalski")
    author_name: str = Field(..., description="Author display name", example="Daniel Kowalski")
    branch: Optional[str] = Field(None, description="Branch the commit was made on", example="main")
    additions: int = Field(..., description="Lines added", example=41)
    deletions: int = Field(..., description="Lines deleted", example=2)
    committed_at: datetime = Field(..., description="Commit time", example="2025-12-19T14:12:00")


class LabelResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Label ID", example=1)
    name: str = Field(..., description="Label name", example="bug")
    color: str = Field(..., description="Hex color without #", example="d73a4a")
    description: Optional[str] = Field(None, description="Description", example="Something isn't working")


class MilestoneResponse(BaseModel):
    id: int = Field(..., description="Milestone ID (use it as milestone_id)", example=3)
    title: str = Field(..., description="Milestone title", example="v1.5")
    description: Optional[str] = Field(None, description="Description", example="Webhook reliability and latency metrics.")
    state: str = Field(..., description="open or closed", example="open")
    due_on: Optional[str] = Field(None, description="Due date YYYY-MM-DD", example="2026-01-20")
    open_issues: int = Field(..., description="Open issues in the milestone", example=4)
    closed_issues: int = Field(..., description="Closed issues in the milestone", example=1)
    created_at: datetime = Field(..., description="Creation time", example="2025-11-19T10:05:00")
    closed_at: Optional[datetime] = Field(None, description="When it was closed", example=None)


class IssueResponse(BaseModel):
    id: int = Field(..., description="Issue ID", example=5)
    number: int = Field(..., description="Issue number within the repository", example=53)
    repository: str = Field(..., description="Repository full name", example="lumen-labs/beacon")
    title: str = Field(..., description="Title", example="Webhook retries hammer endpoints after an outage")
    body: Optional[str] = Field(None, description="Description", example="When a receiver comes back after downtime we replay every failed webhook at once.")
    state: str = Field(..., description="open or closed", example="open")
    state_reason: Optional[str] = Field(None, description="completed, not_planned or reopened", example=None)
    author_login: str = Field(..., description="Who opened it", example="lfischer")
    labels: List[str] = Field(..., description="Label names", example=["bug"])
    assignees: List[str] = Field(..., description="Assignee logins", example=["dkowalski"])
    milestone_id: Optional[int] = Field(None, description="Milestone ID", example=3)
    milestone_title: Optional[str] = Field(None, description="Milestone title", example="v1.5")
    comments: int = Field(..., description="Number of comments", example=3)
    is_locked: bool = Field(..., description="Whether the conversation is locked", example=False)
    created_at: datetime = Field(..., description="Creation time", example="2025-12-10T14:00:00")
    updated_at: datetime = Field(..., description="Last update", example="2025-12-20T11:30:00")
    closed_at: Optional[datetime] = Field(None, description="When it was closed", example=None)


class CommentResponse(BaseModel):
    id: int = Field(..., description="Comment ID", example=3)
    issue_number: int = Field(..., description="Issue number", example=53)
    author_login: str = Field(..., description="Comment author", example="dkowalski")
    body: str = Field(..., description="Comment text", example="PR incoming with exponential backoff and jitter.")
    created_at: datetime = Field(..., description="Creation time", example="2025-12-20T11:30:00")
    updated_at: datetime = Field(..., description="Last edit", example="2025-12-20T11:30:00")


class PullRequestResponse(BaseModel):
    id: int = Field(..., description="Pull request ID", example=12)
    number: int = Field(..., description="Pull request number within the repository", example=57)
    repository: str = Field(..., description="Repository full name", example="lumen-labs/beacon")
    title: str = Field(..., description="Title", example="Add exponential backoff to webhook retries")
    body: Optional[str] = Field(None, description="Description", example="Webhook retries now back off exponentially. Fixes #53.")
    state: str = Field(..., description="open, closed or merged", example="open")
    is_draft: bool = Field(..., description="Draft pull requests cannot be merged", example=False)
    author_login: str = Field(..., description="Author login", example="dkowalski")
    head: str = Field(..., description="Branch with the changes", example="feature/webhook-backoff")
    base: str = Field(..., description="Branch the changes go into", example="main")
    requested_reviewers: List[str] = Field(..., description="Logins with a pending review request", example=["priya-nair"])
    merge_method: Optional[str] = Field(None, description="merge, squash or rebase once merged", example=None)
    merged_by_login: Optional[str] = Field(None, description="Who merged it", example=None)
    merged_at: Optional[datetime] = Field(None, description="Merge time", example=None)
    merge_commit_sha: Optional[str] = Field(None, description="SHA of the merge commit", example=None)
    additions: int = Field(..., description="Lines added", example=102)
    deletions: int = Field(..., description="Lines deleted", example=19)
    changed_files: int = Field(..., description="Files changed", example=4)
    created_at: datetime = Field(..., description="Creation time", example="2025-12-21T15:30:00")
    updated_at: datetime = Field(..., description="Last update", example="2025-12-27T11:00:00")
    closed_at: Optional[datetime] = Field(None, description="When it was closed or merged", example=None)


class MergeResponse(BaseModel):
    merged: bool = Field(..., description="Whether the pull request was merged", example=True)
    sha: Optional[str] = Field(None, description="SHA of the new commit on the base branch", example="9b2e7c1d0a4f5e6b7c8d9e0f1a2b3c4d5e6f7a8b")
    message: str = Field(..., description="Result message", example="Pull request #57 merged into main with squash")


class ReviewResponse(BaseModel):
    id: int = Field(..., description="Review ID", example=9)
    pull_number: int = Field(..., description="Pull request number", example=57)
    reviewer_login: str = Field(..., description="Reviewer login", example="jwalsh")
    state: str = Field(..., description="approved, changes_requested, commented or dismissed", example="approved")
    body: Optional[str] = Field(None, description="Review summary", example="LGTM.")
    submitted_at: datetime = Field(..., description="Submission time", example="2025-12-27T11:00:00")


class ReviewCommentResponse(BaseModel):
    id: int = Field(..., description="Review comment ID", example=3)
    pull_number: int = Field(..., description="Pull request number", example=57)
    review_id: Optional[int] = Field(None, description="Review the comment belongs to", example=8)
    author_login: str = Field(..., description="Author login", example="mchen-dev")
    path: str = Field(..., description="File path", example="webhooks/dispatch.go")
    line: int = Field(..., description="Line number", example=131)
    body: str = Field(..., description="Comment text", example="Should the 5 minute cap be configurable?")
    created_at: datetime = Field(..., description="Creation time", example="2025-12-22T09:00:00")


class StarredRepositoryResponse(BaseModel):
    starred_at: datetime = Field(..., description="When the star was given", example="2024-05-01T20:00:00")
    repository: RepositoryResponse = Field(..., description="The starred repository", example={"full_name": "harborworks/tidewatch"})


class SubscriptionResponse(BaseModel):
    repository: str = Field(..., description="Repository full name", example="lumen-labs/beacon")
    subscription: str = Field(..., description="watching, releases_only or ignoring", example="watching")
    created_at: datetime = Field(..., description="When the subscription was set", example="2018-04-10T12:30:00")


class ReleaseResponse(BaseModel):
    id: int = Field(..., description="Release ID", example=3)
    repository: str = Field(..., description="Repository full name", example="lumen-labs/beacon")
    tag_name: str = Field(..., description="Git tag", example="v1.4.2")
    name: Optional[str] = Field(None, description="Release title", example="Beacon 1.4.2")
    body: Optional[str] = Field(None, description="Release notes", example="Fixes stale dashboard status and DNS resolver hangs.")
    target_branch: str = Field(..., description="Branch the tag is created from", example="release/1.4")
    is_draft: bool = Field(..., description="Drafts are unpublished", example=False)
    is_prerelease: bool = Field(..., description="Pre-releases are not production ready", example=False)
    author_login: str = Field(..., description="Who created the release", example="priya-nair")
    created_at: datetime = Field(..., description="Creation time", example="2025-11-18T08:40:00")
    published_at: Optional[datetime] = Field(None, description="Publication time; null for drafts", example="2025-11-18T09:00:00")


class NotificationResponse(BaseModel):
    id: int = Field(..., description="Notification thread ID", example=1)
    repository: str = Field(..., description="Repository full name", example="lumen-labs/beacon")
    subject_type: str = Field(..., description="Issue, PullRequest or Release", example="PullRequest")
    subject_number: Optional[int] = Field(None, description="Issue or pull request number (null for releases)", example=55)
    subject_title: str = Field(..., description="Issue or pull request title, or release tag", example="Cache DNS lookups between checks")
    reason: str = Field(..., description="assign, author, comment, mention, review_requested, state_change or subscribed", example="review_requested")
    is_read: bool = Field(..., description="Whether the thread was read", example=False)
    updated_at: datetime = Field(..., description="Last activity", example="2025-12-23T13:45:00")
    last_read_at: Optional[datetime] = Field(None, description="When it was last read", example=None)


class ActionResponse(BaseModel):
    success: bool = Field(..., description="Whether the action succeeded", example=True)
    message: str = Field(..., description="Human-readable result", example="Branch 'feature/webhook-backoff' deleted")


class RepositoryCreateRequest(BaseModel):
    name: str = Field(..., description="Repository name", example="trail-data")
    description: Optional[str] = Field(None, description="Description", example="Public GPX samples")
    visibility: str = Field("public", description="public or private", example="private", pattern="^(public|private)$")
    org: Optional[str] = Field(None, description="Organization login to create it in; the current user's account when omitted", example=None)
    homepage: Optional[str] = Field(None, description="Homepage URL", example=None)


class RepositoryUpdateRequest(BaseModel):
    description: Optional[str] = Field(None, description="New description", example="Plan hiking routes offline.")
    homepage: Optional[str] = Field(None, description="New homepage URL", example="https://trailmap.example.com")
    visibility: Optional[str] = Field(None, description="public or private", example="public", pattern="^(public|private)$")
    default_branch: Optional[str] = Field(None, description="Existing branch to make the default", example="main")
    is_archived: Optional[bool] = Field(None, description="Archive or unarchive", example=False)


class CollaboratorRequest(BaseModel):
    permission: str = Field("write", description="read, triage, write, maintain or admin", example="triage", pattern="^(read|triage|write|maintain|admin)$")


class BranchCreateRequest(BaseModel):
    name: str = Field(..., description="New branch name", example="docs/install-guide")
    from_branch: Optional[str] = Field(None, description="Branch to start from; the default branch when omitted", example="main")


class LabelCreateRequest(BaseModel):
    name: str = Field(..., description="Label name", example="flaky-test")
    color: str = Field("ededed", description="Hex color without #", example="c2e0c6", pattern="^[0-9a-fA-F]{6}$")
    description: Optional[str] = Field(None, description="Description", example="Tests that fail intermittently")


class MilestoneCreateRequest(BaseModel):
    title: str = Field(..., description="Milestone title", example="v1.7")
    description: Optional[str] = Field(None, description="Description", example="Next feature release")
    due_on: Optional[str] = Field(None, description="Due date YYYY-MM-DD", example="2026-06-30", pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


class IssueCreateRequest(BaseModel):
    title: str = Field(..., description="Issue title", example="Flaky test in scheduler")
    body: Optional[str] = Field(None, description="Issue description", example="Fails about one run in ten.")
    labels: List[str] = Field([], description="Existing label names to apply", example=["bug"])
    assignees: List[str] = Field([], description="Logins to assign", example=["mchen-dev"])
    milestone_id: Optional[int] = Field(None, description="Milestone ID from list_milestones", example=3)


class IssueUpdateRequest(BaseModel):
    title: Optional[str] = Field(None, description="New title", example="Webhook retries overwhelm receivers")
    body: Optional[str] = Field(None, description="New description", example="Updated details.")
    state: Optional[str] = Field(None, description="open or closed", example="closed", pattern="^(open|closed)$")
    state_reason: Optional[str] = Field(None, description="completed or not_planned when closing", example="completed", pattern="^(completed|not_planned|reopened)$")
    milestone_id: Optional[int] = Field(None, description="Milestone ID; 0 removes the milestone", example=3)


class LabelsRequest(BaseModel):
    labels: List[str] = Field(..., description="Existing label names to add", example=["triaged"])


class AssigneesRequest(BaseModel):
    assignees: List[str] = Field(..., description="Logins to add as assignees", example=["priya-nair"])


class CommentCreateRequest(BaseModel):
    body: str = Field(..., description="Comment text (Markdown)", example="Fixed by #57.")


class PullRequestCreateRequest(BaseModel):
    title: str = Field(..., description="Pull request title", example="Document webhook signatures")
    head: str = Field(..., description="Existing branch with the changes", example="docs/webhook-signatures")
    base: Optional[str] = Field(None, description="Branch to merge into; the default branch when omitted", example="main")
    body: Optional[str] = Field(None, description="Description", example="Closes #62.")
    draft: bool = Field(False, description="Open as a draft", example=False)


class PullRequestUpdateRequest(BaseModel):
    title: Optional[str] = Field(None, description="New title", example="Add exponential backoff to webhook retries")
    body: Optional[str] = Field(None, description="New description", example="Fixes #53.")
    state: Optional[str] = Field(None, description="open or closed (use merge_pull_request to merge)", example="closed", pattern="^(open|closed)$")
    base: Optional[str] = Field(None, description="New base branch", example="main")
    draft: Optional[bool] = Field(None, description="false marks a draft ready for review", example=False)


class MergeRequest(BaseModel):
    merge_method: str = Field("merge", description="merge, squash or rebase", example="squash", pattern="^(merge|squash|rebase)$")
    commit_title: Optional[str] = Field(None, description="Title of the merge commit; the pull request title when omitted", example=None)


class ReviewCreateRequest(BaseModel):
    event: str = Field(..., description="APPROVE, REQUEST_CHANGES or COMMENT", example="APPROVE", pattern="^(APPROVE|REQUEST_CHANGES|COMMENT)$")
    body: Optional[str] = Field(None, description="Review summary", example="Looks good to me.")


class ReviewCommentCreateRequest(BaseModel):
    path: str = Field(..., description="File path in the pull request", example="webhooks/dispatch.go")
    line: int = Field(..., description="Line number", example=131, ge=1)
    body: str = Field(..., description="Comment text", example="Please add a test for the cap.")


class ReviewersRequest(BaseModel):
    reviewers: List[str] = Field(..., description="Logins to request a review from", example=["mchen-dev"])


class SubscriptionRequest(BaseModel):
    subscription: str = Field(..., description="watching, releases_only or ignoring", example="releases_only", pattern="^(watching|releases_only|ignoring)$")


class ReleaseCreateRequest(BaseModel):
    tag_name: str = Field(..., description="Tag to create", example="v1.5.0")
    name: Optional[str] = Field(None, description="Release title", example="Beacon 1.5.0")
    body: Optional[str] = Field(None, description="Release notes (Markdown)", example="- Add Prometheus metrics endpoint")
    target_branch: Optional[str] = Field(None, description="Branch to tag; the default branch when omitted", example="main")
    draft: bool = Field(False, description="Save as an unpublished draft", example=True)
    prerelease: bool = Field(False, description="Mark as a pre-release", example=False)


app = FastAPI(
    title="GitHub API",
    description="Code hosting for the logged-in developer: repositories, collaborators, branches, commits, issues, pull requests and reviews, stars, watching, releases and notifications.",
    version="1.0.0",
)


def find_user(session, login):
    return session.query(User).filter(func.lower(User.login) == login.lower()).first()


def login_of(session, user_id):
    return session.query(User.login).filter(User.id == user_id).scalar()


def owner_login(session, repository):
    if repository.owner_user_id is not None:
        return login_of(session, repository.owner_user_id)
    return session.query(Organization.login).filter(Organization.id == repository.owner_org_id).scalar()


def permission_for(session, repository):
    if repository.owner_user_id == 1:
        return "admin"
    collaborator = session.query(Collaborator).filter(Collaborator.repo_id == repository.id, Collaborator.user_id == 1).first()
    if collaborator is not None:
        return collaborator.permission
    if repository.owner_org_id is not None:
        membership = session.query(OrgMember).filter(OrgMember.org_id == repository.owner_org_id, OrgMember.user_id == 1).first()
        if membership is not None:
            return "admin" if membership.role == "owner" else "write"
    if repository.visibility == "public":
        return "read"
    return None


def find_repository(session, owner, repo):
    repository = session.query(Repository).filter(func.lower(Repository.full_name) == f"{owner}/{repo}".lower()).first()
    if repository is None or permission_for(session, repository) is None:
        return None
    return repository


def visible_only(session, repositories):
    return [repository for repository in repositories if permission_for(session, repository) is not None]


def find_issue(session, repository, number):
    return session.query(Issue).filter(Issue.repo_id == repository.id, Issue.number == number).first()


def find_pull(session, repository, number):
    return session.query(PullRequest).filter(PullRequest.repo_id == repository.id, PullRequest.number == number).first()


def find_label(session, repository, name):
    return session.query(Label).filter(Label.repo_id == repository.id, func.lower(Label.name) == name.lower()).first()


def find_branch(session, repository, name):
    return session.query(Branch).filter(Branch.repo_id == repository.id, Branch.name == name).first()


def next_number(session, repository):
    issue_max = session.query(func.coalesce(func.max(Issue.number), 0)).filter(Issue.repo_id == repository.id).scalar()
    pull_max = session.query(func.coalesce(func.max(PullRequest.number), 0)).filter(PullRequest.repo_id == repository.id).scalar()
    return max(issue_max, pull_max) + 1


def make_sha(session, *parts):
    count = session.query(func.count(Commit.id)).scalar()
    return hashlib.sha1(":".join(str(part) for part in parts + (count,)).encode()).hexdigest()


def parse_time(value, end_of_day):
    moment = datetime.fromisoformat(value)
    if end_of_day and len(value) == 10:
        moment = moment + timedelta(days=1)
    return moment


def build_repository(session, repository):
    parent = session.query(Repository.full_name).filter(Repository.id == repository.parent_id).scalar() if repository.parent_id else None
    return RepositoryResponse(
        id=repository.id,
        name=repository.name,
        full_name=repository.full_name,
        owner_login=owner_login(session, repository),
        owner_type="User" if repository.owner_user_id is not None else "Organization",
        description=repository.description,
        visibility=repository.visibility,
        default_branch=repository.default_branch,
        language=repository.language,
        homepage=repository.homepage,
        is_archived=repository.is_archived,
        is_fork=repository.is_fork,
        parent_full_name=parent,
        stargazers_count=session.query(func.count(Star.id)).filter(Star.repo_id == repository.id).scalar(),
        watchers_count=session.query(func.count(Watch.id)).filter(Watch.repo_id == repository.id, Watch.subscription == "watching").scalar(),
        open_issues_count=session.query(func.count(Issue.id)).filter(Issue.repo_id == repository.id, Issue.state == "open").scalar(),
        open_pull_requests_count=session.query(func.count(PullRequest.id)).filter(PullRequest.repo_id == repository.id, PullRequest.state == "open").scalar(),
        permission=permission_for(session, repository) or "none",
        created_at=repository.created_at,
        updated_at=repository.updated_at,
        pushed_at=repository.pushed_at,
    )


def build_organization(session, organization):
    membership = session.query(OrgMember).filter(OrgMember.org_id == organization.id, OrgMember.user_id == 1).first()
    return OrganizationResponse(
        id=organization.id,
        login=organization.login,
        name=organization.name,
        description=organization.description,
        email=organization.email,
        location=organization.location,
        website=organization.website,
        my_role=membership.role if membership else None,
        created_at=organization.created_at,
    )


def build_collaborator(session, collaborator):
    user = session.query(User).filter(User.id == collaborator.user_id).first()
    return CollaboratorResponse(user_id=user.id, login=user.login, name=user.name, permission=collaborator.permission, added_at=collaborator.added_at)


def build_branch(repository, branch):
    return BranchResponse(id=branch.id, name=branch.name, head_sha=branch.head_sha, is_protected=branch.is_protected, is_default=branch.name == repository.default_branch, created_at=branch.created_at)


def build_commit(session, commit):
    author = session.query(User).filter(User.id == commit.author_id).first()
    branch_name = session.query(Branch.name).filter(Branch.id == commit.branch_id).scalar() if commit.branch_id else None
    return CommitResponse(sha=commit.sha, message=commit.message, author_login=author.login, author_name=author.name, branch=branch_name, additions=commit.additions, deletions=commit.deletions, committed_at=commit.committed_at)


def build_milestone(session, milestone):
    open_count = session.query(func.count(Issue.id)).filter(Issue.milestone_id == milestone.id, Issue.state == "open").scalar()
    closed_count = session.query(func.count(Issue.id)).filter(Issue.milestone_id == milestone.id, Issue.state == "closed").scalar()
    return MilestoneResponse(id=milestone.id, title=milestone.title, description=milestone.description, state=milestone.state, due_on=milestone.due_on, open_issues=open_count, closed_issues=closed_count, created_at=milestone.created_at, closed_at=milestone.closed_at)


def build_issue(session, issue):
    labels = session.query(Label.name).join(IssueLabel, IssueLabel.label_id == Label.id).filter(IssueLabel.issue_id == issue.id).order_by(Label.name).all()
    assignees = session.query(User.login).join(IssueAssignee, IssueAssignee.user_id == User.id).filter(IssueAssignee.issue_id == issue.id).order_by(User.login).all()
    milestone = session.query(Milestone).filter(Milestone.id == issue.milestone_id).first() if issue.milestone_id else None
    return IssueResponse(
        id=issue.id,
        number=issue.number,
        repository=session.query(Repository.full_name).filter(Repository.id == issue.repo_id).scalar(),
        title=issue.title,
        body=issue.body,
        state=issue.state,
        state_reason=issue.state_reason,
        author_login=login_of(session, issue.author_id),
        labels=[row[0] for row in labels],
        assignees=[row[0] for row in assignees],
        milestone_id=milestone.id if milestone else None,
        milestone_title=milestone.title if milestone else None,
        comments=session.query(func.count(IssueComment.id)).filter(IssueComment.issue_id == issue.id).scalar(),
        is_locked=issue.is_locked,
        created_at=issue.created_at,
        updated_at=issue.updated_at,
        closed_at=issue.closed_at,
    )


def build_comment(session, comment, issue):
    return CommentResponse(id=comment.id, issue_number=issue.number, author_login=login_of(session, comment.author_id), body=comment.body, created_at=comment.created_at, updated_at=comment.updated_at)


def build_pull(session, pull):
    requested = session.query(User.login).join(ReviewRequest, ReviewRequest.reviewer_id == User.id).filter(ReviewRequest.pull_request_id == pull.id).order_by(User.login).all()
    return PullRequestResponse(
        id=pull.id,
        number=pull.number,
        repository=session.query(Repository.full_name).filter(Repository.id == pull.repo_id).scalar(),
        title=pull.title,
        body=pull.body,
        state=pull.state,
        is_draft=pull.is_draft,
        author_login=login_of(session, pull.author_id),
        head=pull.head_branch,
        base=pull.base_branch,
        requested_reviewers=[row[0] for row in requested],
        merge_method=pull.merge_method,
        merged_by_login=login_of(session, pull.merged_by) if pull.merged_by else None,
        merged_at=pull.merged_at,
        merge_commit_sha=pull.merge_commit_sha,
        additions=pull.additions,
        deletions=pull.deletions,
        changed_files=pull.changed_files,
        created_at=pull.created_at,
        updated_at=pull.updated_at,
        closed_at=pull.closed_at,
    )


def build_review(session, review, pull):
    return ReviewResponse(id=review.id, pull_number=pull.number, reviewer_login=login_of(session, review.reviewer_id), state=review.state, body=review.body, submitted_at=review.submitted_at)


def build_review_comment(session, comment, pull):
    return ReviewCommentResponse(id=comment.id, pull_number=pull.number, review_id=comment.review_id, author_login=login_of(session, comment.author_id), path=comment.path, line=comment.line, body=comment.body, created_at=comment.created_at)


def build_release(session, release):
    return ReleaseResponse(
        id=release.id,
        repository=session.query(Repository.full_name).filter(Repository.id == release.repo_id).scalar(),
        tag_name=release.tag_name,
        name=release.name,
        body=release.body,
        target_branch=release.target_branch,
        is_draft=release.is_draft,
        is_prerelease=release.is_prerelease,
        author_login=login_of(session, release.author_id),
        created_at=release.created_at,
        published_at=release.published_at,
    )


def build_notification(session, notification):
    number = None
    if notification.subject_type == "Issue":
        issue = session.query(Issue).filter(Issue.id == notification.subject_id).first()
        number, title = issue.number, issue.title
    elif notification.subject_type == "PullRequest":
        pull = session.query(PullRequest).filter(PullRequest.id == notification.subject_id).first()
        number, title = pull.number, pull.title
    else:
        title = session.query(Release.tag_name).filter(Release.id == notification.subject_id).scalar()
    return NotificationResponse(
        id=notification.id,
        repository=session.query(Repository.full_name).filter(Repository.id == notification.repo_id).scalar(),
        subject_type=notification.subject_type,
        subject_number=number,
        subject_title=title,
        reason=notification.reason,
        is_read=notification.is_read,
        updated_at=notification.updated_at,
        last_read_at=notification.last_read_at,
    )


@app.get("/api/user", response_model=UserResponse, summary="Get the authenticated user", description="Return the profile of the logged-in user.", tags=["users"], operation_id="get_authenticated_user")
async def get_authenticated_user():
    session = SessionLocal()
    user = session.query(User).filter(User.id == 1).first()
    result = UserResponse.model_validate(user)
    session.close()
    return result


@app.get("/api/users/{username}", response_model=UserResponse, summary="Get a user", description="Return the public profile of a user by login.", tags=["users"], operation_id="get_user")
async def get_user(username: str = Path(..., description="User login, e.g. mchen-dev")):
    session = SessionLocal()
    user = find_user(session, username)
    result = UserResponse.model_validate(user)
    session.close()
    return result


@app.get("/api/search/users", response_model=List[UserResponse], summary="Search users", description="Search users whose login or display name contains the query text.", tags=["users"], operation_id="search_users")
async def search_users(q: str = Query(..., description="Text matched against login and display name"), limit: int = Query(20, description="Maximum number of users", ge=1, le=100)):
    session = SessionLocal()
    pattern = f"%{q}%"
    users = session.query(User).filter(or_(User.login.ilike(pattern), User.name.ilike(pattern))).order_by(User.login).limit(limit).all()
    result = [UserResponse.model_validate(user) for user in users]
    session.close()
    return result


@app.get("/api/user/orgs", response_model=List[OrganizationResponse], summary="List my organizations", description="List the organizations the current user belongs to, with the user's role.", tags=["organizations"], operation_id="list_my_organizations")
async def list_my_organizations():
    session = SessionLocal()
    organizations = session.query(Organization).join(OrgMember, OrgMember.org_id == Organization.id).filter(OrgMember.user_id == 1).order_by(Organization.login).all()
    result = [build_organization(session, organization) for organization in organizations]
    session.close()
    return result


@app.get("/api/orgs/{org}/members", response_model=List[OrgMemberResponse], summary="List organization members", description="List the members of an organization with their roles.", tags=["organizations"], operation_id="list_org_members")
async def list_org_members(org: str = Path(..., description="Organization login, e.g. lumen-labs"), role: Optional[str] = Query(None, description="Only owner or member", pattern="^(owner|member)$")):
    session = SessionLocal()
    organization = session.query(Organization).filter(func.lower(Organization.login) == org.lower()).first()
    query = session.query(OrgMember, User).join(User, User.id == OrgMember.user_id).filter(OrgMember.org_id == organization.id)
    if role:
        query = query.filter(OrgMember.role == role)
    rows = query.order_by(User.login).all()
    result = [OrgMemberResponse(user_id=user.id, login=user.login, name=user.name, role=member.role, joined_at=member.joined_at) for member, user in rows]
    session.close()
    return result


@app.get("/api/orgs/{org}/repos", response_model=List[RepositoryResponse], summary="List organization repositories", description="List the repositories of an organization that the current user can see.", tags=["repositories"], operation_id="list_org_repositories")
async def list_org_repositories(org: str = Path(..., description="Organization login, e.g. harborworks"), language: Optional[str] = Query(None, description="Only repositories whose main language is this, e.g. Rust"), visibility: Optional[str] = Query(None, description="public or private", pattern="^(public|private)$")):
    session = SessionLocal()
    organization = session.query(Organization).filter(func.lower(Organization.login) == org.lower()).first()
    query = session.query(Repository).filter(Repository.owner_org_id == organization.id)
    if language:
        query = query.filter(func.lower(Repository.language) == language.lower())
    if visibility:
        query = query.filter(Repository.visibility == visibility)
    repositories = visible_only(session, query.order_by(Repository.name).all())
    result = [build_repository(session, repository) for repository in repositories]
    session.close()
    return result


@app.get("/api/user/repos", response_model=List[RepositoryResponse], summary="List my repositories", description="List repositories the current user owns, collaborates on or can access through an organization.", tags=["repositories"], operation_id="list_my_repositories")
async def list_my_repositories(affiliation: Optional[str] = Query(None, description="owner, collaborator or organization_member; all when omitted", pattern="^(owner|collaborator|organization_member)$"), visibility: Optional[str] = Query(None, description="public or private", pattern="^(public|private)$")):
    session = SessionLocal()
    org_ids = [row[0] for row in session.query(OrgMember.org_id).filter(OrgMember.user_id == 1).all()]
    collaborating_ids = [row[0] for row in session.query(Collaborator.repo_id).filter(Collaborator.user_id == 1).all()]
    conditions = {"owner": Repository.owner_user_id == 1, "collaborator": Repository.id.in_(collaborating_ids), "organization_member": Repository.owner_org_id.in_(org_ids)}
    if affiliation:
        query = session.query(Repository).filter(conditions[affiliation])
    else:
        query = session.query(Repository).filter(or_(*conditions.values()))
    if visibility:
        query = query.filter(Repository.visibility == visibility)
    repositories = query.order_by(Repository.full_name).all()
    result = [build_repository(session, repository) for repository in repositories]
    session.close()
    return result


@app.get("/api/search/repositories", response_model=List[RepositoryResponse], summary="Search repositories", description="Search visible repositories by name, full name or description; most-starred first.", tags=["repositories"], operation_id="search_repositories")
async def search_repositories(q: Optional[str] = Query(None, description="Text matched against name, owner/name and description"), language: Optional[str] = Query(None, description="Main language, e.g. Rust"), limit: int = Query(20, description="Maximum number of repositories", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Repository)
    if q:
        pattern = f"%{q}%"
        query = query.filter(or_(Repository.name.ilike(pattern), Repository.full_name.ilike(pattern), Repository.description.ilike(pattern)))
    if language:
        query = query.filter(func.lower(Repository.language) == language.lower())
    repositories = visible_only(session, query.all())
    result = sorted([build_repository(session, repository) for repository in repositories], key=lambda item: (-item.stargazers_count, item.full_name))[:limit]
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}", response_model=RepositoryResponse, summary="Get a repository", description="Return one repository with counts and the current user's permission.", tags=["repositories"], operation_id="get_repository")
async def get_repository(owner: str = Path(..., description="Owner login (user or organization)"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    result = build_repository(session, repository)
    session.close()
    return result


@app.post("/api/user/repos", response_model=RepositoryResponse, summary="Create a repository", description="Create a repository with a main branch for the current user or in one of the user's organizations.", tags=["repositories"], operation_id="create_repository")
async def create_repository(request: RepositoryCreateRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    if request.org:
        organization = session.query(Organization).join(OrgMember, OrgMember.org_id == Organization.id).filter(func.lower(Organization.login) == request.org.lower(), OrgMember.user_id == 1).first()
        repository = Repository(owner_org_id=organization.id, name=request.name, full_name=f"{organization.login}/{request.name}")
    else:
        repository = Repository(owner_user_id=1, name=request.name, full_name=f"{login_of(session, 1)}/{request.name}")
    repository.description = request.description
    repository.visibility = request.visibility
    repository.homepage = request.homepage
    repository.default_branch = "main"
    repository.is_archived = False
    repository.is_fork = False
    repository.created_at = now
    repository.updated_at = now
    repository.pushed_at = now
    session.add(repository)
    session.flush()
    sha = make_sha(session, repository.full_name, "initial")
    branch = Branch(repo_id=repository.id, name="main", head_sha=sha, is_protected=False, created_at=now)
    session.add(branch)
    session.flush()
    session.add(Commit(repo_id=repository.id, branch_id=branch.id, sha=sha, author_id=1, message="Initial commit", additions=0, deletions=0, committed_at=now))
    session.commit()
    result = build_repository(session, repository)
    session.close()
    return result


@app.patch("/api/repos/{owner}/{repo}", response_model=RepositoryResponse, summary="Update a repository", description="Change a repository's description, homepage, visibility, default branch or archived flag.", tags=["repositories"], operation_id="update_repository")
async def update_repository(request: RepositoryUpdateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    if request.description is not None:
        repository.description = request.description
    if request.homepage is not None:
        repository.homepage = request.homepage
    if request.visibility is not None:
        repository.visibility = request.visibility
    if request.default_branch is not None:
        repository.default_branch = find_branch(session, repository, request.default_branch).name
    if request.is_archived is not None:
        repository.is_archived = request.is_archived
    repository.updated_at = datetime.utcnow()
    session.commit()
    result = build_repository(session, repository)
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/collaborators", response_model=List[CollaboratorResponse], summary="List collaborators", description="List users given explicit access to a repository, with their permission.", tags=["collaborators"], operation_id="list_collaborators")
async def list_collaborators(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    collaborators = session.query(Collaborator).filter(Collaborator.repo_id == repository.id).order_by(Collaborator.id).all()
    result = [build_collaborator(session, collaborator) for collaborator in collaborators]
    session.close()
    return result


@app.put("/api/repos/{owner}/{repo}/collaborators/{username}", response_model=CollaboratorResponse, summary="Add a collaborator or change access", description="Give a user access to a repository, or change the permission of an existing collaborator.", tags=["collaborators"], operation_id="add_collaborator")
async def add_collaborator(request: CollaboratorRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), username: str = Path(..., description="Login of the user")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    user = find_user(session, username)
    collaborator = session.query(Collaborator).filter(Collaborator.repo_id == repository.id, Collaborator.user_id == user.id).first()
    if collaborator is None:
        collaborator = Collaborator(repo_id=repository.id, user_id=user.id, permission=request.permission, added_at=datetime.utcnow())
        session.add(collaborator)
    else:
        collaborator.permission = request.permission
    session.commit()
    session.refresh(collaborator)
    result = build_collaborator(session, collaborator)
    session.close()
    return result


@app.delete("/api/repos/{owner}/{repo}/collaborators/{username}", response_model=ActionResponse, summary="Remove a collaborator", description="Revoke a user's explicit access to a repository.", tags=["collaborators"], operation_id="remove_collaborator")
async def remove_collaborator(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), username: str = Path(..., description="Login of the collaborator")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    user = find_user(session, username)
    full_name = repository.full_name
    deleted = session.query(Collaborator).filter(Collaborator.repo_id == repository.id, Collaborator.user_id == user.id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Removed {username} from {full_name}" if deleted else f"{username} is not a collaborator on {full_name}")


@app.get("/api/repos/{owner}/{repo}/branches", response_model=List[BranchResponse], summary="List branches", description="List a repository's branches with their head commit and protection.", tags=["branches"], operation_id="list_branches")
async def list_branches(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), protected: Optional[bool] = Query(None, description="Only protected (true) or unprotected (false) branches")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    query = session.query(Branch).filter(Branch.repo_id == repository.id)
    if protected is not None:
        query = query.filter(Branch.is_protected == protected)
    branches = query.order_by(Branch.name).all()
    result = [build_branch(repository, branch) for branch in branches]
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/branches", response_model=BranchResponse, summary="Create a branch", description="Create a branch pointing at the head of another branch.", tags=["branches"], operation_id="create_branch")
async def create_branch(request: BranchCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    source = find_branch(session, repository, request.from_branch or repository.default_branch)
    branch = Branch(repo_id=repository.id, name=request.name, head_sha=source.head_sha, is_protected=False, created_at=datetime.utcnow())
    session.add(branch)
    session.commit()
    session.refresh(branch)
    result = build_branch(repository, branch)
    session.close()
    return result


@app.delete("/api/repos/{owner}/{repo}/branches", response_model=ActionResponse, summary="Delete a branch", description="Delete an unprotected, non-default branch; open pull requests from it are closed.", tags=["branches"], operation_id="delete_branch")
async def delete_branch(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), name: str = Query(..., description="Branch name, e.g. feature/webhook-backoff")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    branch = find_branch(session, repository, name)
    if branch is None:
        session.close()
        return ActionResponse(success=False, message=f"Branch '{name}' not found in {owner}/{repo}")
    if branch.is_protected or branch.name == repository.default_branch:
        session.close()
        return ActionResponse(success=False, message=f"Branch '{name}' is protected or the default branch and cannot be deleted")
    now = datetime.utcnow()
    session.query(Commit).filter(Commit.branch_id == branch.id).update({Commit.branch_id: None}, synchronize_session=False)
    closed = session.query(PullRequest).filter(PullRequest.repo_id == repository.id, PullRequest.head_branch == name, PullRequest.state == "open").update({PullRequest.state: "closed", PullRequest.closed_at: now, PullRequest.updated_at: now}, synchronize_session=False)
    session.delete(branch)
    session.commit()
    session.close()
    suffix = f"; closed {closed} open pull request(s) from it" if closed else ""
    return ActionResponse(success=True, message=f"Branch '{name}' deleted{suffix}")


@app.get("/api/repos/{owner}/{repo}/commits", response_model=List[CommitResponse], summary="List commits", description="List commits on a branch (default branch when omitted), newest first, optionally by author and date range.", tags=["commits"], operation_id="list_commits")
async def list_commits(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), branch: Optional[str] = Query(None, description="Branch name; the default branch when omitted"), author: Optional[str] = Query(None, description="Author login"), since: Optional[str] = Query(None, description="Only commits at or after this time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS)"), until: Optional[str] = Query(None, description="Only commits up to this time; a bare date includes the whole day"), limit: int = Query(30, description="Maximum number of commits", ge=1, le=100)):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    source = find_branch(session, repository, branch or repository.default_branch)
    query = session.query(Commit).filter(Commit.branch_id == source.id)
    if author:
        query = query.filter(Commit.author_id == find_user(session, author).id)
    if since:
        query = query.filter(Commit.committed_at >= parse_time(since, False))
    if until:
        query = query.filter(Commit.committed_at < parse_time(until, True) if len(until) == 10 else Commit.committed_at <= parse_time(until, False))
    commits = query.order_by(Commit.committed_at.desc(), Commit.id.desc()).limit(limit).all()
    result = [build_commit(session, commit) for commit in commits]
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/labels", response_model=List[LabelResponse], summary="List labels", description="List the labels defined in a repository.", tags=["labels"], operation_id="list_labels")
async def list_labels(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    labels = session.query(Label).filter(Label.repo_id == repository.id).order_by(Label.name).all()
    result = [LabelResponse.model_validate(label) for label in labels]
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/labels", response_model=LabelResponse, summary="Create a label", description="Create a new label in a repository.", tags=["labels"], operation_id="create_label")
async def create_label(request: LabelCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    label = Label(repo_id=repository.id, name=request.name, color=request.color.lower(), description=request.description)
    session.add(label)
    session.commit()
    session.refresh(label)
    result = LabelResponse.model_validate(label)
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/milestones", response_model=List[MilestoneResponse], summary="List milestones", description="List a repository's milestones with issue counts, soonest due date first.", tags=["milestones"], operation_id="list_milestones")
async def list_milestones(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), state: str = Query("open", description="open, closed or all", pattern="^(open|closed|all)$")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    query = session.query(Milestone).filter(Milestone.repo_id == repository.id)
    if state != "all":
        query = query.filter(Milestone.state == state)
    milestones = query.order_by(Milestone.due_on.is_(None), Milestone.due_on, Milestone.id).all()
    result = [build_milestone(session, milestone) for milestone in milestones]
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/milestones", response_model=MilestoneResponse, summary="Create a milestone", description="Create an open milestone in a repository.", tags=["milestones"], operation_id="create_milestone")
async def create_milestone(request: MilestoneCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    milestone = Milestone(repo_id=repository.id, title=request.title, description=request.description, state="open", due_on=request.due_on, created_at=datetime.utcnow())
    session.add(milestone)
    session.commit()
    session.refresh(milestone)
    result = build_milestone(session, milestone)
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/issues", response_model=List[IssueResponse], summary="List repository issues", description="List a repository's issues (not pull requests), newest first, with optional filters.", tags=["issues"], operation_id="list_repo_issues")
async def list_repo_issues(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), state: str = Query("open", description="open, closed or all", pattern="^(open|closed|all)$"), label: Optional[str] = Query(None, description="Only issues with this label name"), assignee: Optional[str] = Query(None, description="Assignee login, or 'none' for unassigned issues"), milestone_id: Optional[int] = Query(None, description="Only issues in this milestone"), creator: Optional[str] = Query(None, description="Login of the issue author"), limit: int = Query(30, description="Maximum number of issues", ge=1, le=100)):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    query = session.query(Issue).filter(Issue.repo_id == repository.id)
    if state != "all":
        query = query.filter(Issue.state == state)
    if label:
        labelled = [row[0] for row in session.query(IssueLabel.issue_id).join(Label, Label.id == IssueLabel.label_id).filter(Label.repo_id == repository.id, func.lower(Label.name) == label.lower()).all()]
        query = query.filter(Issue.id.in_(labelled))
    if assignee and assignee.lower() == "none":
        assigned = [row[0] for row in session.query(IssueAssignee.issue_id).all()]
        query = query.filter(Issue.id.notin_(assigned))
    elif assignee:
        assigned = [row[0] for row in session.query(IssueAssignee.issue_id).filter(IssueAssignee.user_id == find_user(session, assignee).id).all()]
        query = query.filter(Issue.id.in_(assigned))
    if milestone_id is not None:
        query = query.filter(Issue.milestone_id == milestone_id)
    if creator:
        query = query.filter(Issue.author_id == find_user(session, creator).id)
    issues = query.order_by(Issue.number.desc()).limit(limit).all()
    result = [build_issue(session, issue) for issue in issues]
    session.close()
    return result


@app.get("/api/user/issues", response_model=List[IssueResponse], summary="List my issues", description="List issues assigned to or created by the current user across repositories.", tags=["issues"], operation_id="list_my_issues")
async def list_my_issues(involvement: str = Query("assigned", description="assigned, created or all", pattern="^(assigned|created|all)$"), state: str = Query("open", description="open, closed or all", pattern="^(open|closed|all)$")):
    session = SessionLocal()
    assigned = [row[0] for row in session.query(IssueAssignee.issue_id).filter(IssueAssignee.user_id == 1).all()]
    conditions = {"assigned": Issue.id.in_(assigned), "created": Issue.author_id == 1, "all": or_(Issue.id.in_(assigned), Issue.author_id == 1)}
    query = session.query(Issue).filter(conditions[involvement])
    if state != "all":
        query = query.filter(Issue.state == state)
    issues = query.order_by(Issue.updated_at.desc(), Issue.id.desc()).all()
    visible_ids = {repository.id for repository in visible_only(session, session.query(Repository).all())}
    result = [build_issue(session, issue) for issue in issues if issue.repo_id in visible_ids]
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/issues/{issue_number}", response_model=IssueResponse, summary="Get an issue", description="Return one issue with its labels, assignees and milestone.", tags=["issues"], operation_id="get_issue")
async def get_issue(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), issue_number: int = Path(..., description="Issue number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    issue = find_issue(session, repository, issue_number)
    result = build_issue(session, issue)
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/issues", response_model=IssueResponse, summary="Create an issue", description="Open an issue, optionally with existing labels, assignees and a milestone of the same repository.", tags=["issues"], operation_id="create_issue")
async def create_issue(request: IssueCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    now = datetime.utcnow()
    milestone_id = None
    if request.milestone_id is not None:
        milestone_id = session.query(Milestone).filter(Milestone.id == request.milestone_id, Milestone.repo_id == repository.id).first().id
    label_ids = {find_label(session, repository, name).id for name in request.labels}
    user_ids = {find_user(session, login).id for login in request.assignees}
    issue = Issue(repo_id=repository.id, number=next_number(session, repository), title=request.title, body=request.body, author_id=1, state="open", milestone_id=milestone_id, is_locked=False, created_at=now, updated_at=now)
    session.add(issue)
    session.flush()
    for label_id in sorted(label_ids):
        session.add(IssueLabel(issue_id=issue.id, label_id=label_id))
    for user_id in sorted(user_ids):
        session.add(IssueAssignee(issue_id=issue.id, user_id=user_id, assigned_at=now))
    session.commit()
    result = build_issue(session, issue)
    session.close()
    return result


@app.patch("/api/repos/{owner}/{repo}/issues/{issue_number}", response_model=IssueResponse, summary="Update an issue", description="Edit an issue's title or body, close or reopen it, or change its milestone.", tags=["issues"], operation_id="update_issue")
async def update_issue(request: IssueUpdateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), issue_number: int = Path(..., description="Issue number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    issue = find_issue(session, repository, issue_number)
    now = datetime.utcnow()
    if request.title is not None:
        issue.title = request.title
    if request.body is not None:
        issue.body = request.body
    if request.state is not None and request.state != issue.state:
        issue.state = request.state
        issue.closed_at = now if request.state == "closed" else None
        issue.state_reason = (request.state_reason or "completed") if request.state == "closed" else "reopened"
    elif request.state_reason is not None:
        issue.state_reason = request.state_reason
    if request.milestone_id == 0:
        issue.milestone_id = None
    elif request.milestone_id is not None:
        issue.milestone_id = session.query(Milestone).filter(Milestone.id == request.milestone_id, Milestone.repo_id == repository.id).first().id
    issue.updated_at = now
    session.commit()
    result = build_issue(session, issue)
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/issues/{issue_number}/labels", response_model=List[LabelResponse], summary="Add labels to an issue", description="Add existing repository labels to an issue and return all of its labels.", tags=["issues"], operation_id="add_issue_labels")
async def add_issue_labels(request: LabelsRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), issue_number: int = Path(..., description="Issue number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    issue = find_issue(session, repository, issue_number)
    current = {row[0] for row in session.query(IssueLabel.label_id).filter(IssueLabel.issue_id == issue.id).all()}
    label_ids = {find_label(session, repository, name).id for name in request.labels}
    for label_id in sorted(label_ids - current):
        session.add(IssueLabel(issue_id=issue.id, label_id=label_id))
    issue.updated_at = datetime.utcnow()
    session.commit()
    labels = session.query(Label).join(IssueLabel, IssueLabel.label_id == Label.id).filter(IssueLabel.issue_id == issue.id).order_by(Label.name).all()
    result = [LabelResponse.model_validate(label) for label in labels]
    session.close()
    return result


@app.delete("/api/repos/{owner}/{repo}/issues/{issue_number}/labels/{label_name}", response_model=ActionResponse, summary="Remove a label from an issue", description="Remove one label from an issue; the label itself stays in the repository.", tags=["issues"], operation_id="remove_issue_label")
async def remove_issue_label(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), issue_number: int = Path(..., description="Issue number"), label_name: str = Path(..., description="Label name, e.g. needs-triage")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    issue = find_issue(session, repository, issue_number)
    label = find_label(session, repository, label_name)
    deleted = session.query(IssueLabel).filter(IssueLabel.issue_id == issue.id, IssueLabel.label_id == label.id).delete()
    issue.updated_at = datetime.utcnow()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Removed '{label_name}' from #{issue_number}" if deleted else f"#{issue_number} does not have the label '{label_name}'")


@app.post("/api/repos/{owner}/{repo}/issues/{issue_number}/assignees", response_model=IssueResponse, summary="Add assignees to an issue", description="Assign one or more users to an issue; existing assignees are kept.", tags=["issues"], operation_id="add_issue_assignees")
async def add_issue_assignees(request: AssigneesRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), issue_number: int = Path(..., description="Issue number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    issue = find_issue(session, repository, issue_number)
    now = datetime.utcnow()
    current = {row[0] for row in session.query(IssueAssignee.user_id).filter(IssueAssignee.issue_id == issue.id).all()}
    user_ids = {find_user(session, login).id for login in request.assignees}
    for user_id in sorted(user_ids - current):
        session.add(IssueAssignee(issue_id=issue.id, user_id=user_id, assigned_at=now))
    issue.updated_at = now
    session.commit()
    result = build_issue(session, issue)
    session.close()
    return result


@app.delete("/api/repos/{owner}/{repo}/issues/{issue_number}/assignees/{username}", response_model=IssueResponse, summary="Remove an assignee from an issue", description="Unassign one user from an issue.", tags=["issues"], operation_id="remove_issue_assignee")
async def remove_issue_assignee(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), issue_number: int = Path(..., description="Issue number"), username: str = Path(..., description="Login of the assignee")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    issue = find_issue(session, repository, issue_number)
    user = find_user(session, username)
    session.query(IssueAssignee).filter(IssueAssignee.issue_id == issue.id, IssueAssignee.user_id == user.id).delete()
    issue.updated_at = datetime.utcnow()
    session.commit()
    result = build_issue(session, issue)
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/issues/{issue_number}/comments", response_model=List[CommentResponse], summary="List issue comments", description="List the comments on an issue, oldest first.", tags=["issues"], operation_id="list_issue_comments")
async def list_issue_comments(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), issue_number: int = Path(..., description="Issue number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    issue = find_issue(session, repository, issue_number)
    comments = session.query(IssueComment).filter(IssueComment.issue_id == issue.id).order_by(IssueComment.created_at, IssueComment.id).all()
    result = [build_comment(session, comment, issue) for comment in comments]
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/issues/{issue_number}/comments", response_model=CommentResponse, summary="Comment on an issue", description="Add a comment to an issue as the current user.", tags=["issues"], operation_id="create_issue_comment")
async def create_issue_comment(request: CommentCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), issue_number: int = Path(..., description="Issue number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    issue = find_issue(session, repository, issue_number)
    now = datetime.utcnow()
    comment = IssueComment(issue_id=issue.id, author_id=1, body=request.body, created_at=now, updated_at=now)
    session.add(comment)
    issue.updated_at = now
    session.commit()
    session.refresh(comment)
    result = build_comment(session, comment, issue)
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/pulls", response_model=List[PullRequestResponse], summary="List pull requests", description="List a repository's pull requests, newest first, filtered by state, base, head or author.", tags=["pulls"], operation_id="list_pull_requests")
async def list_pull_requests(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), state: str = Query("open", description="open, closed (not merged), merged or all", pattern="^(open|closed|merged|all)$"), base: Optional[str] = Query(None, description="Only pull requests into this branch"), head: Optional[str] = Query(None, description="Only pull requests from this branch"), author: Optional[str] = Query(None, description="Author login"), limit: int = Query(30, description="Maximum number of pull requests", ge=1, le=100)):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    query = session.query(PullRequest).filter(PullRequest.repo_id == repository.id)
    if state != "all":
        query = query.filter(PullRequest.state == state)
    if base:
        query = query.filter(PullRequest.base_branch == base)
    if head:
        query = query.filter(PullRequest.head_branch == head)
    if author:
        query = query.filter(PullRequest.author_id == find_user(session, author).id)
    pulls = query.order_by(PullRequest.number.desc()).limit(limit).all()
    result = [build_pull(session, pull) for pull in pulls]
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/pulls/{pull_number}", response_model=PullRequestResponse, summary="Get a pull request", description="Return one pull request with its branches, state and pending review requests.", tags=["pulls"], operation_id="get_pull_request")
async def get_pull_request(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), pull_number: int = Path(..., description="Pull request number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    pull = find_pull(session, repository, pull_number)
    result = build_pull(session, pull)
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/pulls", response_model=PullRequestResponse, summary="Create a pull request", description="Open a pull request from an existing head branch into a base branch.", tags=["pulls"], operation_id="create_pull_request")
async def create_pull_request(request: PullRequestCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    head = find_branch(session, repository, request.head)
    base = find_branch(session, repository, request.base or repository.default_branch)
    now = datetime.utcnow()
    pull = PullRequest(repo_id=repository.id, number=next_number(session, repository), title=request.title, body=request.body, author_id=1, head_branch=head.name, base_branch=base.name, state="open", is_draft=request.draft, additions=0, deletions=0, changed_files=0, created_at=now, updated_at=now)
    session.add(pull)
    session.commit()
    result = build_pull(session, pull)
    session.close()
    return result


@app.patch("/api/repos/{owner}/{repo}/pulls/{pull_number}", response_model=PullRequestResponse, summary="Update a pull request", description="Edit the title, body or base branch, close or reopen, or mark a draft ready for review.", tags=["pulls"], operation_id="update_pull_request")
async def update_pull_request(request: PullRequestUpdateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), pull_number: int = Path(..., description="Pull request number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    pull = find_pull(session, repository, pull_number)
    now = datetime.utcnow()
    if request.title is not None:
        pull.title = request.title
    if request.body is not None:
        pull.body = request.body
    if request.base is not None:
        pull.base_branch = find_branch(session, repository, request.base).name
    if request.draft is not None and pull.state == "open":
        pull.is_draft = request.draft
    if request.state is not None and pull.state != "merged" and request.state != pull.state:
        pull.state = request.state
        pull.closed_at = now if request.state == "closed" else None
    pull.updated_at = now
    session.commit()
    result = build_pull(session, pull)
    session.close()
    return result


@app.put("/api/repos/{owner}/{repo}/pulls/{pull_number}/merge", response_model=MergeResponse, summary="Merge a pull request", description="Merge an open, non-draft pull request into its base branch with merge, squash or rebase.", tags=["pulls"], operation_id="merge_pull_request")
async def merge_pull_request(request: MergeRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), pull_number: int = Path(..., description="Pull request number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    pull = find_pull(session, repository, pull_number)
    if pull.state != "open" or pull.is_draft:
        reason = "it is a draft" if pull.is_draft else f"it is already {pull.state}"
        session.close()
        return MergeResponse(merged=False, sha=None, message=f"Pull request #{pull_number} cannot be merged because {reason}")
    base = find_branch(session, repository, pull.base_branch)
    now = datetime.utcnow()
    if request.merge_method == "merge":
        title = request.commit_title or f"Merge pull request #{pull.number} from {pull.head_branch}"
    else:
        title = request.commit_title or f"{pull.title} (#{pull.number})"
    sha = make_sha(session, repository.full_name, pull.number, request.merge_method)
    session.add(Commit(repo_id=repository.id, branch_id=base.id, sha=sha, author_id=1, message=title, additions=pull.additions, deletions=pull.deletions, committed_at=now))
    base.head_sha = sha
    pull.state = "merged"
    pull.merge_method = request.merge_method
    pull.merged_by = 1
    pull.merged_at = now
    pull.merge_commit_sha = sha
    pull.closed_at = now
    pull.updated_at = now
    repository.pushed_at = now
    repository.updated_at = now
    base_name = base.name
    session.commit()
    session.close()
    return MergeResponse(merged=True, sha=sha, message=f"Pull request #{pull_number} merged into {base_name} with {request.merge_method}")


@app.get("/api/repos/{owner}/{repo}/pulls/{pull_number}/reviews", response_model=List[ReviewResponse], summary="List pull request reviews", description="List the reviews submitted on a pull request, oldest first.", tags=["reviews"], operation_id="list_pull_request_reviews")
async def list_pull_request_reviews(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), pull_number: int = Path(..., description="Pull request number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    pull = find_pull(session, repository, pull_number)
    reviews = session.query(PullRequestReview).filter(PullRequestReview.pull_request_id == pull.id).order_by(PullRequestReview.submitted_at, PullRequestReview.id).all()
    result = [build_review(session, review, pull) for review in reviews]
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/pulls/{pull_number}/reviews", response_model=ReviewResponse, summary="Review a pull request", description="Submit a review that approves, requests changes or comments; it fulfils the user's review request.", tags=["reviews"], operation_id="create_pull_request_review")
async def create_pull_request_review(request: ReviewCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), pull_number: int = Path(..., description="Pull request number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    pull = find_pull(session, repository, pull_number)
    states = {"APPROVE": "approved", "REQUEST_CHANGES": "changes_requested", "COMMENT": "commented"}
    now = datetime.utcnow()
    review = PullRequestReview(pull_request_id=pull.id, reviewer_id=1, state=states[request.event], body=request.body, submitted_at=now)
    session.add(review)
    session.query(ReviewRequest).filter(ReviewRequest.pull_request_id == pull.id, ReviewRequest.reviewer_id == 1).delete()
    pull.updated_at = now
    session.commit()
    session.refresh(review)
    result = build_review(session, review, pull)
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/pulls/{pull_number}/comments", response_model=List[ReviewCommentResponse], summary="List review comments", description="List the line comments left in a pull request's reviews.", tags=["reviews"], operation_id="list_review_comments")
async def list_review_comments(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), pull_number: int = Path(..., description="Pull request number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    pull = find_pull(session, repository, pull_number)
    comments = session.query(ReviewComment).filter(ReviewComment.pull_request_id == pull.id).order_by(ReviewComment.created_at, ReviewComment.id).all()
    result = [build_review_comment(session, comment, pull) for comment in comments]
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/pulls/{pull_number}/comments", response_model=ReviewCommentResponse, summary="Comment on a pull request line", description="Leave a comment on one line of a file in a pull request.", tags=["reviews"], operation_id="create_review_comment")
async def create_review_comment(request: ReviewCommentCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), pull_number: int = Path(..., description="Pull request number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    pull = find_pull(session, repository, pull_number)
    comment = ReviewComment(pull_request_id=pull.id, review_id=None, author_id=1, path=request.path, line=request.line, body=request.body, created_at=datetime.utcnow())
    session.add(comment)
    session.commit()
    session.refresh(comment)
    result = build_review_comment(session, comment, pull)
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", response_model=PullRequestResponse, summary="Request reviewers", description="Request a review on a pull request from one or more users.", tags=["reviews"], operation_id="request_reviewers")
async def request_reviewers(request: ReviewersRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name"), pull_number: int = Path(..., description="Pull request number")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    pull = find_pull(session, repository, pull_number)
    now = datetime.utcnow()
    current = {row[0] for row in session.query(ReviewRequest.reviewer_id).filter(ReviewRequest.pull_request_id == pull.id).all()}
    user_ids = {find_user(session, login).id for login in request.reviewers}
    for user_id in sorted(user_ids - current):
        session.add(ReviewRequest(pull_request_id=pull.id, reviewer_id=user_id, requested_at=now))
    pull.updated_at = now
    session.commit()
    result = build_pull(session, pull)
    session.close()
    return result


@app.get("/api/user/starred", response_model=List[StarredRepositoryResponse], summary="List starred repositories", description="List repositories the current user has starred, most recent first.", tags=["activity"], operation_id="list_starred_repositories")
async def list_starred_repositories():
    session = SessionLocal()
    stars = session.query(Star).filter(Star.user_id == 1).order_by(Star.starred_at.desc(), Star.id.desc()).all()
    result = []
    for star in stars:
        repository = session.query(Repository).filter(Repository.id == star.repo_id).first()
        if permission_for(session, repository) is not None:
            result.append(StarredRepositoryResponse(starred_at=star.starred_at, repository=build_repository(session, repository)))
    session.close()
    return result


@app.put("/api/user/starred/{owner}/{repo}", response_model=RepositoryResponse, summary="Star a repository", description="Star a repository as the current user; starring twice has no effect.", tags=["activity"], operation_id="star_repository")
async def star_repository(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    existing = session.query(Star).filter(Star.user_id == 1, Star.repo_id == repository.id).first()
    if existing is None:
        session.add(Star(user_id=1, repo_id=repository.id, starred_at=datetime.utcnow()))
        session.commit()
    result = build_repository(session, repository)
    session.close()
    return result


@app.delete("/api/user/starred/{owner}/{repo}", response_model=ActionResponse, summary="Unstar a repository", description="Remove the current user's star from a repository.", tags=["activity"], operation_id="unstar_repository")
async def unstar_repository(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    full_name = repository.full_name
    deleted = session.query(Star).filter(Star.user_id == 1, Star.repo_id == repository.id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Unstarred {full_name}" if deleted else f"{full_name} was not starred")


@app.get("/api/user/subscriptions", response_model=List[SubscriptionResponse], summary="List watched repositories", description="List the current user's watch settings per repository.", tags=["activity"], operation_id="list_watched_repositories")
async def list_watched_repositories():
    session = SessionLocal()
    rows = session.query(Watch, Repository).join(Repository, Repository.id == Watch.repo_id).filter(Watch.user_id == 1).order_by(Repository.full_name).all()
    result = [SubscriptionResponse(repository=repository.full_name, subscription=watch.subscription, created_at=watch.created_at) for watch, repository in rows]
    session.close()
    return result


@app.put("/api/repos/{owner}/{repo}/subscription", response_model=SubscriptionResponse, summary="Set watch subscription", description="Watch all activity, only releases, or ignore a repository.", tags=["activity"], operation_id="set_repository_subscription")
async def set_repository_subscription(request: SubscriptionRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    watch = session.query(Watch).filter(Watch.user_id == 1, Watch.repo_id == repository.id).first()
    if watch is None:
        watch = Watch(user_id=1, repo_id=repository.id, subscription=request.subscription, created_at=datetime.utcnow())
        session.add(watch)
    else:
        watch.subscription = request.subscription
    session.commit()
    result = SubscriptionResponse(repository=repository.full_name, subscription=watch.subscription, created_at=watch.created_at)
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/releases", response_model=List[ReleaseResponse], summary="List releases", description="List a repository's releases including drafts and pre-releases, newest first.", tags=["releases"], operation_id="list_releases")
async def list_releases(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    releases = session.query(Release).filter(Release.repo_id == repository.id).order_by(Release.created_at.desc(), Release.id.desc()).all()
    result = [build_release(session, release) for release in releases]
    session.close()
    return result


@app.get("/api/repos/{owner}/{repo}/releases/latest", response_model=ReleaseResponse, summary="Get the latest release", description="Return the most recently published release that is neither a draft nor a pre-release.", tags=["releases"], operation_id="get_latest_release")
async def get_latest_release(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    release = session.query(Release).filter(Release.repo_id == repository.id, Release.is_draft == False, Release.is_prerelease == False).order_by(Release.published_at.desc(), Release.id.desc()).first()
    result = build_release(session, release)
    session.close()
    return result


@app.post("/api/repos/{owner}/{repo}/releases", response_model=ReleaseResponse, summary="Create a release", description="Create a release for a new tag on a branch; drafts stay unpublished.", tags=["releases"], operation_id="create_release")
async def create_release(request: ReleaseCreateRequest, owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    target = find_branch(session, repository, request.target_branch or repository.default_branch)
    now = datetime.utcnow()
    existing = session.query(Release).filter(Release.repo_id == repository.id, Release.tag_name == request.tag_name).first()
    if existing is not None:
        result = build_release(session, existing)
        session.close()
        return result
    release = Release(repo_id=repository.id, tag_name=request.tag_name, name=request.name, body=request.body, target_branch=target.name, is_draft=request.draft, is_prerelease=request.prerelease, author_id=1, created_at=now, published_at=None if request.draft else now)
    session.add(release)
    session.commit()
    session.refresh(release)
    result = build_release(session, release)
    session.close()
    return result


@app.get("/api/notifications", response_model=List[NotificationResponse], summary="List notifications", description="List the current user's notification threads, newest first; unread only unless include_read is true.", tags=["notifications"], operation_id="list_notifications")
async def list_notifications(include_read: bool = Query(False, description="Also return threads already read"), reason: Optional[str] = Query(None, description="assign, author, comment, mention, review_requested, state_change or subscribed"), repository: Optional[str] = Query(None, description="Only threads of this repository, as owner/name"), limit: int = Query(50, description="Maximum number of threads", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Notification).filter(Notification.user_id == 1)
    if not include_read:
        query = query.filter(Notification.is_read == False)
    if reason:
        query = query.filter(Notification.reason == reason)
    if repository:
        repo_ids = [row[0] for row in session.query(Repository.id).filter(func.lower(Repository.full_name) == repository.lower()).all()]
        query = query.filter(Notification.repo_id.in_(repo_ids))
    notifications = query.order_by(Notification.updated_at.desc(), Notification.id.desc()).limit(limit).all()
    result = [build_notification(session, notification) for notification in notifications]
    session.close()
    return result


@app.patch("/api/notifications/threads/{thread_id}", response_model=NotificationResponse, summary="Mark a notification as read", description="Mark one of the current user's notification threads as read.", tags=["notifications"], operation_id="mark_notification_read")
async def mark_notification_read(thread_id: int = Path(..., description="Notification thread ID")):
    session = SessionLocal()
    notification = session.query(Notification).filter(Notification.id == thread_id, Notification.user_id == 1).first()
    notification.is_read = True
    notification.last_read_at = datetime.utcnow()
    session.commit()
    result = build_notification(session, notification)
    session.close()
    return result


@app.put("/api/repos/{owner}/{repo}/notifications", response_model=ActionResponse, summary="Mark repository notifications read", description="Mark every unread notification of the current user in one repository as read.", tags=["notifications"], operation_id="mark_repo_notifications_read")
async def mark_repo_notifications_read(owner: str = Path(..., description="Owner login"), repo: str = Path(..., description="Repository name")):
    session = SessionLocal()
    repository = find_repository(session, owner, repo)
    full_name = repository.full_name
    updated = session.query(Notification).filter(Notification.user_id == 1, Notification.repo_id == repository.id, Notification.is_read == False).update({Notification.is_read: True, Notification.last_read_at: datetime.utcnow()}, synchronize_session=False)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Marked {updated} notification(s) in {full_name} as read")


if __name__ == "__main__":
    import uvicorn
    host = os.getenv("HOST", "127.0.0.1")
    port = int(os.getenv("PORT", "8000"))
    uvicorn.run(app, host=host, port=port)
