import os
from datetime import date, datetime, time
from typing import List, Optional

from fastapi import FastAPI, Query, Path
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Text, Boolean, DateTime, ForeignKey, UniqueConstraint, PrimaryKeyConstraint, func, or_
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///gmail.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    email = Column(String, nullable=False, unique=True)
    display_name = Column(String, nullable=False)
    time_zone = Column(String, nullable=False, default="UTC")
    storage_used_mb = Column(Integer, nullable=False, default=0)
    storage_limit_mb = Column(Integer, nullable=False, default=15360)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Contact(Base):
    __tablename__ = "contacts"
    __table_args__ = (UniqueConstraint("owner_id", "email"),)
    id = Column(Integer, primary_key=True)
    owner_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    name = Column(String, nullable=False)
    email = Column(String, nullable=False)
    phone = Column(String)
    company = Column(String)
    job_title = Column(String)
    notes = Column(Text)
    is_favorite = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class ContactGroup(Base):
    __tablename__ = "contact_groups"
    __table_args__ = (UniqueConstraint("owner_id", "name"),)
    id = Column(Integer, primary_key=True)
    owner_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    name = Column(String, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class ContactGroupMember(Base):
    __tablename__ = "contact_group_members"
    __table_args__ = (PrimaryKeyConstraint("group_id", "contact_id"),)
    group_id = Column(Integer, ForeignKey("contact_groups.id"), nullable=False)
    contact_id = Column(Integer, ForeignKey("contacts.id"), nullable=False)
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Label(Base):
    __tablename__ = "labels"
    __table_args__ = (UniqueConstraint("user_id", "name"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    name = Column(String, nullable=False)
    color = Column(String, nullable=False, default="#999999")
    is_visible = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Thread(Base):
    __tablename__ = "threads"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    subject = Column(String, nullable=False)
    is_muted = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Message(Base):
    __tablename__ = "messages"
    id = Column(Integer, primary_key=True)
    thread_id = Column(Integer, ForeignKey("threads.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    from_address = Column(String, nullable=False)
    from_name = Column(String)
    subject = Column(String, nullable=False)
    body = Column(Text, nullable=False, default="")
    sent_at = Column(DateTime, nullable=False)
    mailbox = Column(String, nullable=False, default="inbox")
    is_read = Column(Boolean, nullable=False, default=False)
    is_starred = Column(Boolean, nullable=False, default=False)
    is_important = Column(Boolean, nullable=False, default=False)
    in_reply_to_id = Column(Integer, ForeignKey("messages.id"))


class MessageRecipient(Base):
    __tablename__ = "message_recipients"
    __table_args__ = (UniqueConstraint("message_id", "address"),)
    id = Column(Integer, primary_key=True)
    message_id = Column(Integer, ForeignKey("messages.id"), nullable=False)
    address = Column(String, nullable=False)
    name = Column(String)
    recipient_type = Column(String, nullable=False, default="to")


class MessageLabel(Base):
    __tablename__ = "message_labels"
    __table_args__ = (PrimaryKeyConstraint("message_id", "label_id"),)
    message_id = Column(Integer, ForeignKey("messages.id"), nullable=False)
    label_id = Column(Integer, ForeignKey("labels.id"), nullable=False)
    applied_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Attachment(Base):
    __tablename__ = "attachments"
    id = Column(Integer, primary_key=True)
    message_id = Column(Integer, ForeignKey("messages.id"), nullable=False)
    filename = Column(String, nullable=False)
    mime_type = Column(String, nullable=False)
    size_bytes = Column(Integer, nullable=False)


class Draft(Base):
    __tablename__ = "drafts"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    thread_id = Column(Integer, ForeignKey("threads.id"))
    in_reply_to_id = Column(Integer, ForeignKey("messages.id"))
    subject = Column(String, nullable=False, default="")
    body = Column(Text, nullable=False, default="")
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class DraftRecipient(Base):
    __tablename__ = "draft_recipients"
    __table_args__ = (UniqueConstraint("draft_id", "address"),)
    id = Column(Integer, primary_key=True)
    draft_id = Column(Integer, ForeignKey("drafts.id"), nullable=False)
    address = Column(String, nullable=False)
    recipient_type = Column(String, nullable=False, default="to")


class MailFilter(Base):
    __tablename__ = "filters"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    from_contains = Column(String)
    to_contains = Column(String)
    subject_contains = Column(String)
    has_words = Column(String)
    has_attachment = Column(Boolean, nullable=False, default=False)
    label_id = Column(Integer, ForeignKey("labels.id"))
    should_archive = Column(Boolean, nullable=False, default=False)
    should_mark_read = Column(Boolean, nullable=False, default=False)
    should_star = Column(Boolean, nullable=False, default=False)
    should_mark_important = Column(Boolean, nullable=False, default=False)
    should_trash = Column(Boolean, nullable=False, default=False)
    forward_to = Column(String)
    is_enabled = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class VacationResponder(Base):
    __tablename__ = "vacation_responders"
    user_id = Column(Integer, ForeignKey("users.id"), primary_key=True)
    is_enabled = Column(Boolean, nullable=False, default=False)
    subject = Column(String)
    body = Column(Text)
    start_date = Column(String)
    end_date = Column(String)
    contacts_only = Column(Boolean, nullable=False, default=False)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class MailSettings(Base):
    __tablename__ = "mail_settings"
    user_id = Column(Integer, ForeignKey("users.id"), primary_key=True)
    display_density = Column(String, nullable=False, default="default")
    conversation_view = Column(Boolean, nullable=False, default=True)
    signature = Column(Text)
    undo_send_seconds = Column(Integer, nullable=False, default=5)
    page_size = Column(Integer, nullable=False, default=50)
    default_reply_behavior = Column(String, nullable=False, default="reply")
    language = Column(String, nullable=False, default="en")
    keyboard_shortcuts = Column(Boolean, nullable=False, default=False)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class BlockedSender(Base):
    __tablename__ = "blocked_senders"
    __table_args__ = (UniqueConstraint("user_id", "email"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    email = Column(String, nullable=False)
    blocked_at = Column(DateTime, nullable=False, default=datetime.utcnow)


Base.metadata.create_all(bind=engine)


class ProfileResponse(BaseModel):
    id: int = Field(..., description="User ID", example=1)
    email: str = Field(..., description="Account email address", example="priya.raman@gmail.com")
    display_name: str = Field(..., description="Name shown on sent mail", example="Priya Raman")
    time_zone: str = Field(..., description="IANA time zone", example="America/New_York")
    storage_used_mb: int = Field(..., description="Storage used in MB", example=8420)
    storage_limit_mb: int = Field(..., description="Storage quota in MB", example=15360)
    unread_inbox_count: int = Field(..., description="Unread messages in the inbox", example=12)
    created_at: datetime = Field(..., description="Account creation time", example="2016-03-14T10:00:00")


class SettingsResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    user_id: int = Field(..., description="User ID", example=1)
    display_density: str = Field(..., description="default, comfortable or compact", example="comfortable")
    conversation_view: bool = Field(..., description="Group messages into conversations", example=True)
    signature: Optional[str] = Field(None, description="Signature text", example="Priya Raman\nSenior Product Manager, Northwind Labs")
    undo_send_seconds: int = Field(..., description="Undo-send window: 5, 10, 20 or 30 seconds", example=10)
    page_size: int = Field(..., description="Conversations per page: 10, 15, 20, 25, 50 or 100", example=50)
    default_reply_behavior: str = Field(..., description="reply or reply_all", example="reply")
    language: str = Field(..., description="Interface language code", example="en")
    keyboard_shortcuts: bool = Field(..., description="Keyboard shortcuts enabled", example=True)
    updated_at: datetime = Field(..., description="Last settings change", example="2025-09-30T12:00:00")


class VacationResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    user_id: int = Field(..., description="User ID", example=1)
    is_enabled: bool = Field(..., description="Whether the auto-reply is on", example=False)
    subject: Optional[str] = Field(None, description="Auto-reply subject", example="Out of office")
    body: Optional[str] = Field(None, description="Auto-reply message", example="I'm away until January 12.")
    start_date: Optional[str] = Field(None, description="First day (YYYY-MM-DD)", example="2026-01-05")
    end_date: Optional[str] = Field(None, description="Last day (YYYY-MM-DD)", example="2026-01-09")
    contacts_only: bool = Field(..., description="Only reply to people in my contacts", example=True)
    updated_at: datetime = Field(..., description="Last change", example="2025-08-07T18:00:00")


class BlockedSenderResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Block record ID", example=1)
    email: str = Field(..., description="Blocked address", example="promo@fastloans.biz")
    blocked_at: datetime = Field(..., description="When the sender was blocked", example="2025-04-02T13:00:00")


class LabelResponse(BaseModel):
    id: int = Field(..., description="Label ID", example=1)
    name: str = Field(..., description="Label name; '/' nests labels", example="Clients/BrightPath")
    color: str = Field(..., description="Hex color", example="#2da2bb")
    is_visible: bool = Field(..., description="Shown in the label list", example=True)
    message_count: int = Field(..., description="Labelled messages outside Trash and Spam", example=2)
    unread_count: int = Field(..., description="Unread labelled messages outside Trash and Spam", example=0)
    created_at: datetime = Field(..., description="Creation time", example="2025-09-22T17:10:00")


class LabelBrief(BaseModel):
    id: int = Field(..., description="Label ID", example=1)
    name: str = Field(..., description="Label name", example="Work")


class RecipientResponse(BaseModel):
    address: str = Field(..., description="Email address", example="hannah.schmidt@northwindlabs.com")
    name: Optional[str] = Field(None, description="Display name", example="Hannah Schmidt")
    recipient_type: str = Field(..., description="to, cc or bcc", example="to")


class AttachmentResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Attachment ID", example=11)
    message_id: int = Field(..., description="Message ID", example=23)
    filename: str = Field(..., description="File name", example="form_8879_signed.pdf")
    mime_type: str = Field(..., description="MIME type", example="application/pdf")
    size_bytes: int = Field(..., description="Size in bytes", example=356912)


class MessageSummaryResponse(BaseModel):
    id: int = Field(..., description="Message ID", example=4)
    thread_id: int = Field(..., description="Conversation ID", example=1)
    from_address: str = Field(..., description="Sender address", example="jordan.lee@northwindlabs.com")
    from_name: Optional[str] = Field(None, description="Sender name", example="Jordan Lee")
    to: List[str] = Field(..., description="To addresses", example=["priya.raman@gmail.com"])
    subject: str = Field(..., description="Subject", example="Re: Q1 roadmap review")
    snippet: str = Field(..., description="Start of the body", example="Thanks all. I've added Ravi from the data team.")
    sent_at: datetime = Field(..., description="Sent time", example="2025-12-31T17:20:00")
    mailbox: str = Field(..., description="inbox, archive, sent, trash or spam", example="inbox")
    is_read: bool = Field(..., description="Read flag", example=False)
    is_starred: bool = Field(..., description="Starred flag", example=False)
    is_important: bool = Field(..., description="Important flag", example=True)
    has_attachments: bool = Field(..., description="Whether files are attached", example=False)
    labels: List[str] = Field(..., description="Label names", example=["Work"])


class MessageDetailResponse(BaseModel):
    id: int = Field(..., description="Message ID", example=4)
    thread_id: int = Field(..., description="Conversation ID", example=1)
    from_address: str = Field(..., description="Sender address", example="jordan.lee@northwindlabs.com")
    from_name: Optional[str] = Field(None, description="Sender name", example="Jordan Lee")
    to: List[RecipientResponse] = Field(..., description="To recipients", example=[{"address": "priya.raman@gmail.com", "name": "Priya Raman", "recipient_type": "to"}])
    cc: List[RecipientResponse] = Field(..., description="Cc recipients", example=[])
    bcc: List[RecipientResponse] = Field(..., description="Bcc recipients (only on mail you sent)", example=[])
    subject: str = Field(..., description="Subject", example="Re: Q1 roadmap review")
    body: str = Field(..., description="Plain-text body", example="Thanks all. I've added Ravi from the data team.")
    sent_at: datetime = Field(..., description="Sent time", example="2025-12-31T17:20:00")
    mailbox: str = Field(..., description="inbox, archive, sent, trash or spam", example="inbox")
    is_read: bool = Field(..., description="Read flag", example=False)
    is_starred: bool = Field(..., description="Starred flag", example=False)
    is_important: bool = Field(..., description="Important flag", example=True)
    in_reply_to_id: Optional[int] = Field(None, description="Message this one replies to", example=3)
    labels: List[LabelBrief] = Field(..., description="Applied labels", example=[{"id": 1, "name": "Work"}])
    attachments: List[AttachmentResponse] = Field(..., description="Attached files", example=[])


class ThreadSummaryResponse(BaseModel):
    id: int = Field(..., description="Conversation ID", example=1)
    subject: str = Field(..., description="Subject of the first message", example="Q1 roadmap review")
    message_count: int = Field(..., description="Messages in the conversation", example=4)
    unread_count: int = Field(..., description="Unread messages", example=2)
    participants: List[str] = Field(..., description="Sender names in order of first appearance", example=["Jordan Lee", "Priya Raman"])
    last_message_at: datetime = Field(..., description="Time of the newest message", example="2025-12-31T17:20:00")
    snippet: str = Field(..., description="Start of the newest message", example="Thanks all. I've added Ravi from the data team.")
    is_muted: bool = Field(..., description="Muted conversation", example=False)
    mailboxes: List[str] = Field(..., description="Mailboxes its messages are in", example=["inbox", "sent"])


class ThreadDetailResponse(BaseModel):
    id: int = Field(..., description="Conversation ID", example=1)
    subject: str = Field(..., description="Subject of the first message", example="Q1 roadmap review")
    is_muted: bool = Field(..., description="Muted conversation", example=False)
    created_at: datetime = Field(..., description="When the conversation started", example="2025-12-15T09:12:00")
    messages: List[MessageDetailResponse] = Field(..., description="Messages, oldest first", example=[])


class DraftResponse(BaseModel):
    id: int = Field(..., description="Draft ID", example=1)
    thread_id: Optional[int] = Field(None, description="Conversation of a reply draft", example=None)
    in_reply_to_id: Optional[int] = Field(None, description="Message a reply draft answers", example=None)
    subject: str = Field(..., description="Subject", example="Lease renewal for unit 4B")
    body: str = Field(..., description="Body", example="Hi Grace, I'd like to renew the lease.")
    to: List[str] = Field(..., description="To addresses", example=["grace.kim@skylineproperties.com"])
    cc: List[str] = Field(..., description="Cc addresses", example=[])
    bcc: List[str] = Field(..., description="Bcc addresses", example=[])
    created_at: datetime = Field(..., description="Created", example="2025-12-28T21:10:00")
    updated_at: datetime = Field(..., description="Last edited", example="2025-12-30T08:05:00")


class ContactResponse(BaseModel):
    id: int = Field(..., description="Contact ID", example=3)
    name: str = Field(..., description="Full name", example="Hannah Schmidt")
    email: str = Field(..., description="Email address", example="hannah.schmidt@northwindlabs.com")
    phone: Optional[str] = Field(None, description="Phone number", example="+1 617 555 0163")
    company: Optional[str] = Field(None, description="Company", example="Northwind Labs")
    job_title: Optional[str] = Field(None, description="Job title", example="Design Lead")
    notes: Optional[str] = Field(None, description="Notes", example="Covers design reviews when I am away.")
    is_favorite: bool = Field(..., description="Favorite contact", example=True)
    groups: List[str] = Field(..., description="Contact groups", example=["Work"])
    created_at: datetime = Field(..., description="Created", example="2022-04-05T10:15:00")


class ContactGroupResponse(BaseModel):
    id: int = Field(..., description="Group ID", example=1)
    name: str = Field(..., description="Group name", example="Work")
    member_count: int = Field(..., description="Number of members", example=5)
    created_at: datetime = Field(..., description="Created", example="2022-04-04T09:05:00")


class GroupMembershipResponse(BaseModel):
    group_id: int = Field(..., description="Group ID", example=1)
    group_name: str = Field(..., description="Group name", example="Work")
    contact_id: int = Field(..., description="Contact ID", example=24)
    contact_name: str = Field(..., description="Contact name", example="Lena Fischer")
    added_at: datetime = Field(..., description="When the contact was added", example="2026-01-01T12:00:00")


class FilterResponse(BaseModel):
    id: int = Field(..., description="Filter ID", example=1)
    from_contains: Optional[str] = Field(None, description="Sender contains", example="notifications@codehub.dev")
    to_contains: Optional[str] = Field(None, description="A recipient contains", example=None)
    subject_contains: Optional[str] = Field(None, description="Subject contains", example=None)
    has_words: Optional[str] = Field(None, description="Subject or body contains", example=None)
    has_attachment: bool = Field(..., description="Only messages with attachments", example=False)
    label_id: Optional[int] = Field(None, description="Label to apply", example=1)
    label_name: Optional[str] = Field(None, description="Name of that label", example="Work")
    should_archive: bool = Field(..., description="Skip the inbox", example=False)
    should_mark_read: bool = Field(..., description="Mark as read", example=False)
    should_star: bool = Field(..., description="Star it", example=False)
    should_mark_important: bool = Field(..., description="Mark as important", example=False)
    should_trash: bool = Field(..., description="Delete it (move to Trash)", example=False)
    forward_to: Optional[str] = Field(None, description="Forward new matches to this address", example=None)
    is_enabled: bool = Field(..., description="Filter is active", example=True)
    created_at: datetime = Field(..., description="Created", example="2025-06-02T10:00:00")


class FilterApplyResponse(BaseModel):
    filter_id: int = Field(..., description="Filter ID", example=5)
    matched_count: int = Field(..., description="Existing messages the filter acted on", example=3)
    message_ids: List[int] = Field(..., description="IDs of those messages", example=[32, 33, 34])


class BatchModifyResponse(BaseModel):
    updated_count: int = Field(..., description="Messages changed", example=4)
    message_ids: List[int] = Field(..., description="IDs of the changed messages", example=[11, 13, 14, 15])


class ActionResponse(BaseModel):
    success: bool = Field(..., description="Whether the action succeeded", example=True)
    message: str = Field(..., description="Human-readable result", example="Deleted 5 messages from Spam")


class SettingsUpdateRequest(BaseModel):
    display_density: Optional[str] = Field(None, description="default, comfortable or compact", example="compact", pattern="^(default|comfortable|compact)$")
    conversation_view: Optional[bool] = Field(None, description="Group messages into conversations", example=True)
    signature: Optional[str] = Field(None, description="New signature text", example="Priya Raman")
    undo_send_seconds: Optional[int] = Field(None, description="5, 10, 20 or 30", example=20)
    page_size: Optional[int] = Field(None, description="10, 15, 20, 25, 50 or 100", example=25)
    default_reply_behavior: Optional[str] = Field(None, description="reply or reply_all", example="reply_all", pattern="^(reply|reply_all)$")
    language: Optional[str] = Field(None, description="Interface language code", example="en")
    keyboard_shortcuts: Optional[bool] = Field(None, description="Enable keyboard shortcuts", example=True)


class VacationUpdateRequest(BaseModel):
    is_enabled: bool = Field(..., description="Turn the auto-reply on or off", example=True)
    subject: Optional[str] = Field(None, description="Auto-reply subject", example="Out of office")
    body: Optional[str] = Field(None, description="Auto-reply message", example="I'm away until January 12.")
    start_date: Optional[str] = Field(None, description="First day (YYYY-MM-DD)", example="2026-01-05", pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
    end_date: Optional[str] = Field(None, description="Last day (YYYY-MM-DD)", example="2026-01-09", pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
    contacts_only: Optional[bool] = Field(None, description="Only reply to people in my contacts", example=True)


class BlockSenderRequest(BaseModel):
    email: str = Field(..., description="Address to block", example="security@paypa1-support.com")


class LabelCreateRequest(BaseModel):
    name: str = Field(..., description="Label name; use '/' to nest", example="Clients/Acme")
    color: str = Field("#999999", description="Hex color like #4a86e8", example="#4a86e8", pattern="^#[0-9a-fA-F]{6}$")
    is_visible: bool = Field(True, description="Show in the label list", example=True)


class LabelIdRequest(BaseModel):
    label_id: int = Field(..., description="Label ID", example=2)


class SendMessageRequest(BaseModel):
    to: List[str] = Field(..., description="To addresses", example=["hannah.schmidt@northwindlabs.com"])
    cc: List[str] = Field([], description="Cc addresses", example=[])
    bcc: List[str] = Field([], description="Bcc addresses", example=[])
    subject: str = Field(..., description="Subject", example="Design review")
    body: str = Field(..., description="Plain-text body", example="Can we move the design review to Tuesday?")


class ReplyRequest(BaseModel):
    body: str = Field(..., description="Reply text", example="Thursday works for me.")
    reply_all: bool = Field(False, description="Also reply to the other To and Cc recipients", example=True)


class ForwardRequest(BaseModel):
    to: List[str] = Field(..., description="Addresses to forward to", example=["ravi.raman@gmail.com"])
    note: Optional[str] = Field(None, description="Text placed above the forwarded message", example="FYI")


class MessageFlagsRequest(BaseModel):
    is_read: Optional[bool] = Field(None, description="Mark read or unread", example=True)
    is_starred: Optional[bool] = Field(None, description="Star or unstar", example=True)
    is_important: Optional[bool] = Field(None, description="Mark important or not", example=True)


class MoveRequest(BaseModel):
    mailbox: str = Field(..., description="inbox, archive, trash or spam", example="archive", pattern="^(inbox|archive|trash|spam)$")


class BatchModifyRequest(BaseModel):
    message_ids: List[int] = Field(..., description="Messages to change", example=[11, 13])
    add_label_ids: List[int] = Field([], description="Labels to apply", example=[6])
    remove_label_ids: List[int] = Field([], description="Labels to remove", example=[])
    mailbox: Optional[str] = Field(None, description="Move to inbox, archive, trash or spam", example="archive", pattern="^(inbox|archive|trash|spam)$")
    is_read: Optional[bool] = Field(None, description="Mark read or unread", example=None)
    is_starred: Optional[bool] = Field(None, description="Star or unstar", example=None)
    is_important: Optional[bool] = Field(None, description="Mark important or not", example=None)


class ThreadUpdateRequest(BaseModel):
    is_read: Optional[bool] = Field(None, description="Mark every message read or unread", example=True)
    is_important: Optional[bool] = Field(None, description="Mark every message important or not", example=None)
    is_muted: Optional[bool] = Field(None, description="Mute or unmute the conversation", example=None)
    mailbox: Optional[str] = Field(None, description="Move received messages to inbox, archive, trash or spam", example=None, pattern="^(inbox|archive|trash|spam)$")


class DraftCreateRequest(BaseModel):
    to: List[str] = Field([], description="To addresses", example=["grace.kim@skylineproperties.com"])
    cc: List[str] = Field([], description="Cc addresses", example=[])
    bcc: List[str] = Field([], description="Bcc addresses", example=[])
    subject: str = Field("", description="Subject", example="Lease renewal for unit 4B")
    body: str = Field("", description="Body", example="Hi Grace, I'd like to renew the lease.")
    in_reply_to_id: Optional[int] = Field(None, description="Message this draft replies to", example=None)


class DraftUpdateRequest(BaseModel):
    to: Optional[List[str]] = Field(None, description="New To list (replaces the old one)", example=None)
    cc: Optional[List[str]] = Field(None, description="New Cc list (replaces the old one)", example=["ravi.raman@gmail.com"])
    bcc: Optional[List[str]] = Field(None, description="New Bcc list (replaces the old one)", example=None)
    subject: Optional[str] = Field(None, description="New subject", example=None)
    body: Optional[str] = Field(None, description="New body", example=None)


class ContactCreateRequest(BaseModel):
    name: str = Field(..., description="Full name", example="Lena Fischer")
    email: str = Field(..., description="Email address", example="lena@fischer-studio.de")
    phone: Optional[str] = Field(None, description="Phone number", example=None)
    company: Optional[str] = Field(None, description="Company", example="Fischer Studio")
    job_title: Optional[str] = Field(None, description="Job title", example="Illustrator")
    notes: Optional[str] = Field(None, description="Notes", example=None)
    is_favorite: bool = Field(False, description="Favorite contact", example=False)


class ContactUpdateRequest(BaseModel):
    name: Optional[str] = Field(None, description="Full name", example=None)
    email: Optional[str] = Field(None, description="Email address", example=None)
    phone: Optional[str] = Field(None, description="Phone number", example="+1 617 555 0199")
    company: Optional[str] = Field(None, description="Company", example=None)
    job_title: Optional[str] = Field(None, description="Job title", example=None)
    notes: Optional[str] = Field(None, description="Notes", example=None)
    is_favorite: Optional[bool] = Field(None, description="Favorite contact", example=True)


class ContactIdRequest(BaseModel):
    contact_id: int = Field(..., description="Contact ID", example=24)


class FilterCreateRequest(BaseModel):
    from_contains: Optional[str] = Field(None, description="Match when the sender address or name contains this", example="newsletters@dailybyte.io")
    to_contains: Optional[str] = Field(None, description="Match when a recipient address contains this", example=None)
    subject_contains: Optional[str] = Field(None, description="Match when the subject contains this", example=None)
    has_words: Optional[str] = Field(None, description="Match when the subject or body contains this", example=None)
    has_attachment: bool = Field(False, description="Only match messages with attachments", example=False)
    label_id: Optional[int] = Field(None, description="Label to apply", example=8)
    should_archive: bool = Field(False, description="Skip the inbox (archive)", example=True)
    should_mark_read: bool = Field(False, description="Mark as read", example=False)
    should_star: bool = Field(False, description="Star it", example=False)
    should_mark_important: bool = Field(False, description="Mark as important", example=False)
    should_trash: bool = Field(False, description="Delete it (move to Trash)", example=False)
    forward_to: Optional[str] = Field(None, description="Forward new matches to this address", example=None)


app = FastAPI(
    title="Gmail API",
    description="Email service for the logged-in user: search and read mail, conversations, labels, drafts, sending and replying, contacts, filters, spam and trash, and account settings.",
    version="1.0.0",
)


def get_me(session):
    return session.query(User).filter(User.id == 1).first()


def lookup_name(session, address):
    contact = session.query(Contact).filter(Contact.owner_id == 1, func.lower(Contact.email) == address.lower()).first()
    if contact:
        return contact.name
    user = session.query(User).filter(func.lower(User.email) == address.lower()).first()
    return user.display_name if user else None


def add_message_recipients(session, message_id, addresses, recipient_type, taken):
    for address in addresses:
        cleaned = address.strip()
        if cleaned and cleaned.lower() not in taken:
            session.add(MessageRecipient(message_id=message_id, address=cleaned, name=lookup_name(session, cleaned), recipient_type=recipient_type))
            taken.add(cleaned.lower())


def replace_draft_recipients(session, draft_id, addresses, recipient_type):
    session.query(DraftRecipient).filter(DraftRecipient.draft_id == draft_id, DraftRecipient.recipient_type == recipient_type).delete(synchronize_session=False)
    session.flush()
    taken = {row[0].lower() for row in session.query(DraftRecipient.address).filter(DraftRecipient.draft_id == draft_id).all()}
    for address in addresses:
        cleaned = address.strip()
        if cleaned and cleaned.lower() not in taken:
            session.add(DraftRecipient(draft_id=draft_id, address=cleaned, recipient_type=recipient_type))
            taken.add(cleaned.lower())
    session.flush()


def apply_label(session, message_id, label_id):
    exists = session.query(MessageLabel).filter(MessageLabel.message_id == message_id, MessageLabel.label_id == label_id).first()
    if exists is None:
        session.add(MessageLabel(message_id=message_id, label_id=label_id, applied_at=datetime.utcnow()))


def delete_messages(session, message_ids):
    if not message_ids:
        return 0
    session.query(Attachment).filter(Attachment.message_id.in_(message_ids)).delete(synchronize_session=False)
    session.query(MessageLabel).filter(MessageLabel.message_id.in_(message_ids)).delete(synchronize_session=False)
    session.query(MessageRecipient).filter(MessageRecipient.message_id.in_(message_ids)).delete(synchronize_session=False)
    session.query(Message).filter(Message.in_reply_to_id.in_(message_ids)).update({Message.in_reply_to_id: None}, synchronize_session=False)
    session.query(Draft).filter(Draft.in_reply_to_id.in_(message_ids)).update({Draft.in_reply_to_id: None}, synchronize_session=False)
    session.query(Message).filter(Message.id.in_(message_ids)).delete(synchronize_session=False)
    return len(message_ids)


def build_recipients(session, message_id, recipient_type):
    rows = session.query(MessageRecipient).filter(MessageRecipient.message_id == message_id, MessageRecipient.recipient_type == recipient_type).order_by(MessageRecipient.id).all()
    return [RecipientResponse(address=row.address, name=row.name, recipient_type=row.recipient_type) for row in rows]


def message_label_rows(session, message_id):
    return session.query(Label).join(MessageLabel, MessageLabel.label_id == Label.id).filter(MessageLabel.message_id == message_id).order_by(Label.name).all()


def build_message_summary(session, message):
    to_rows = session.query(MessageRecipient.address).filter(MessageRecipient.message_id == message.id, MessageRecipient.recipient_type == "to").order_by(MessageRecipient.id).all()
    attachment_count = session.query(func.count(Attachment.id)).filter(Attachment.message_id == message.id).scalar()
    return MessageSummaryResponse(
        id=message.id,
        thread_id=message.thread_id,
        from_address=message.from_address,
        from_name=message.from_name,
        to=[row[0] for row in to_rows],
        subject=message.subject,
        snippet=" ".join(message.body.split())[:120],
        sent_at=message.sent_at,
        mailbox=message.mailbox,
        is_read=message.is_read,
        is_starred=message.is_starred,
        is_important=message.is_important,
        has_attachments=attachment_count > 0,
        labels=[label.name for label in message_label_rows(session, message.id)],
    )


def build_message_detail(session, message):
    attachments = session.query(Attachment).filter(Attachment.message_id == message.id).order_by(Attachment.id).all()
    return MessageDetailResponse(
        id=message.id,
        thread_id=message.thread_id,
        from_address=message.from_address,
        from_name=message.from_name,
        to=build_recipients(session, message.id, "to"),
        cc=build_recipients(session, message.id, "cc"),
        bcc=build_recipients(session, message.id, "bcc"),
        subject=message.subject,
        body=message.body,
        sent_at=message.sent_at,
        mailbox=message.mailbox,
        is_read=message.is_read,
        is_starred=message.is_starred,
        is_important=message.is_important,
        in_reply_to_id=message.in_reply_to_id,
        labels=[LabelBrief(id=label.id, name=label.name) for label in message_label_rows(session, message.id)],
        attachments=[AttachmentResponse.model_validate(item) for item in attachments],
    )


def build_label(session, label):
    visible = session.query(Message).join(MessageLabel, MessageLabel.message_id == Message.id).filter(MessageLabel.label_id == label.id, Message.mailbox.notin_(["trash", "spam"]))
    return LabelResponse(
        id=label.id,
        name=label.name,
        color=label.color,
        is_visible=label.is_visible,
        message_count=visible.count(),
        unread_count=visible.filter(Message.is_read == False).count(),
        created_at=label.created_at,
    )


def build_thread_summary(session, thread, messages):
    participants = []
    for message in messages:
        name = message.from_name or message.from_address
        if name not in participants:
            participants.append(name)
    last = messages[-1]
    return ThreadSummaryResponse(
        id=thread.id,
        subject=thread.subject,
        message_count=len(messages),
        unread_count=len([message for message in messages if not message.is_read]),
        participants=participants,
        last_message_at=last.sent_at,
        snippet=" ".join(last.body.split())[:120],
        is_muted=thread.is_muted,
        mailboxes=sorted({message.mailbox for message in messages}),
    )


def build_draft(session, draft):
    rows = session.query(DraftRecipient).filter(DraftRecipient.draft_id == draft.id).order_by(DraftRecipient.id).all()
    return DraftResponse(
        id=draft.id,
        thread_id=draft.thread_id,
        in_reply_to_id=draft.in_reply_to_id,
        subject=draft.subject,
        body=draft.body,
        to=[row.address for row in rows if row.recipient_type == "to"],
        cc=[row.address for row in rows if row.recipient_type == "cc"],
        bcc=[row.address for row in rows if row.recipient_type == "bcc"],
        created_at=draft.created_at,
        updated_at=draft.updated_at,
    )


def build_contact(session, contact):
    groups = session.query(ContactGroup.name).join(ContactGroupMember, ContactGroupMember.group_id == ContactGroup.id).filter(ContactGroupMember.contact_id == contact.id).order_by(ContactGroup.name).all()
    return ContactResponse(
        id=contact.id,
        name=contact.name,
        email=contact.email,
        phone=contact.phone,
        company=contact.company,
        job_title=contact.job_title,
        notes=contact.notes,
        is_favorite=contact.is_favorite,
        groups=[row[0] for row in groups],
        created_at=contact.created_at,
    )


def build_filter(session, mail_filter):
    label = session.query(Label).filter(Label.id == mail_filter.label_id).first() if mail_filter.label_id else None
    return FilterResponse(
        id=mail_filter.id,
        from_contains=mail_filter.from_contains,
        to_contains=mail_filter.to_contains,
        subject_contains=mail_filter.subject_contains,
        has_words=mail_filter.has_words,
        has_attachment=mail_filter.has_attachment,
        label_id=mail_filter.label_id,
        label_name=label.name if label else None,
        should_archive=mail_filter.should_archive,
        should_mark_read=mail_filter.should_mark_read,
        should_star=mail_filter.should_star,
        should_mark_important=mail_filter.should_mark_important,
        should_trash=mail_filter.should_trash,
        forward_to=mail_filter.forward_to,
        is_enabled=mail_filter.is_enabled,
        created_at=mail_filter.created_at,
    )


def filter_matches(session, mail_filter, message):
    if mail_filter.from_contains and mail_filter.from_contains.lower() not in (message.from_address + " " + (message.from_name or "")).lower():
        return False
    if mail_filter.to_contains:
        addresses = " ".join(row[0] for row in session.query(MessageRecipient.address).filter(MessageRecipient.message_id == message.id).all()).lower()
        if mail_filter.to_contains.lower() not in addresses:
            return False
    if mail_filter.subject_contains and mail_filter.subject_contains.lower() not in message.subject.lower():
        return False
    if mail_filter.has_words and mail_filter.has_words.lower() not in (message.subject + " " + message.body).lower():
        return False
    if mail_filter.has_attachment and session.query(func.count(Attachment.id)).filter(Attachment.message_id == message.id).scalar() == 0:
        return False
    return True


def day_start(value):
    return datetime.combine(value, time.min)


@app.get("/api/me", response_model=ProfileResponse, summary="Get my profile", description="Return the logged-in account's address, name, storage use and unread inbox count.", tags=["account"], operation_id="get_my_profile")
async def get_my_profile():
    session = SessionLocal()
    me = get_me(session)
    unread = session.query(func.count(Message.id)).filter(Message.user_id == 1, Message.mailbox == "inbox", Message.is_read == False).scalar()
    result = ProfileResponse(id=me.id, email=me.email, display_name=me.display_name, time_zone=me.time_zone, storage_used_mb=me.storage_used_mb, storage_limit_mb=me.storage_limit_mb, unread_inbox_count=unread, created_at=me.created_at)
    session.close()
    return result


@app.get("/api/settings", response_model=SettingsResponse, summary="Get mail settings", description="Return display density, conversation view, signature, undo-send, page size and reply defaults.", tags=["account"], operation_id="get_settings")
async def get_settings():
    session = SessionLocal()
    settings = session.query(MailSettings).filter(MailSettings.user_id == 1).first()
    result = SettingsResponse.model_validate(settings)
    session.close()
    return result


@app.patch("/api/settings", response_model=SettingsResponse, summary="Update mail settings", description="Change any of the general mail settings; fields left out keep their value.", tags=["account"], operation_id="update_settings")
async def update_settings(request: SettingsUpdateRequest):
    session = SessionLocal()
    settings = session.query(MailSettings).filter(MailSettings.user_id == 1).first()
    if request.display_density is not None:
        settings.display_density = request.display_density
    if request.conversation_view is not None:
        settings.conversation_view = request.conversation_view
    if request.signature is not None:
        settings.signature = request.signature
    if request.undo_send_seconds is not None:
        settings.undo_send_seconds = request.undo_send_seconds
    if request.page_size is not None:
        settings.page_size = request.page_size
    if request.default_reply_behavior is not None:
        settings.default_reply_behavior = request.default_reply_behavior
    if request.language is not None:
        settings.language = request.language
    if request.keyboard_shortcuts is not None:
        settings.keyboard_shortcuts = request.keyboard_shortcuts
    settings.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(settings)
    result = SettingsResponse.model_validate(settings)
    session.close()
    return result


@app.get("/api/settings/vacation", response_model=VacationResponse, summary="Get vacation responder", description="Return the auto-reply (vacation responder) settings.", tags=["account"], operation_id="get_vacation_responder")
async def get_vacation_responder():
    session = SessionLocal()
    vacation = session.query(VacationResponder).filter(VacationResponder.user_id == 1).first()
    result = VacationResponse.model_validate(vacation)
    session.close()
    return result


@app.put("/api/settings/vacation", response_model=VacationResponse, summary="Set vacation responder", description="Turn the auto-reply on or off and set its subject, message, date range and audience; omitted fields keep their value.", tags=["account"], operation_id="update_vacation_responder")
async def update_vacation_responder(request: VacationUpdateRequest):
    session = SessionLocal()
    vacation = session.query(VacationResponder).filter(VacationResponder.user_id == 1).first()
    if vacation is None:
        vacation = VacationResponder(user_id=1, is_enabled=False, contacts_only=False, updated_at=datetime.utcnow())
        session.add(vacation)
    vacation.is_enabled = request.is_enabled
    if request.subject is not None:
        vacation.subject = request.subject
    if request.body is not None:
        vacation.body = request.body
    if request.start_date is not None:
        vacation.start_date = request.start_date
    if request.end_date is not None:
        vacation.end_date = request.end_date
    if request.contacts_only is not None:
        vacation.contacts_only = request.contacts_only
    vacation.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(vacation)
    result = VacationResponse.model_validate(vacation)
    session.close()
    return result


@app.get("/api/settings/blocked-senders", response_model=List[BlockedSenderResponse], summary="List blocked senders", description="List the addresses the user has blocked.", tags=["account"], operation_id="list_blocked_senders")
async def list_blocked_senders():
    session = SessionLocal()
    rows = session.query(BlockedSender).filter(BlockedSender.user_id == 1).order_by(BlockedSender.blocked_at.desc(), BlockedSender.id.desc()).all()
    result = [BlockedSenderResponse.model_validate(row) for row in rows]
    session.close()
    return result


@app.post("/api/settings/blocked-senders", response_model=BlockedSenderResponse, summary="Block a sender", description="Block an email address so its future messages go straight to Spam.", tags=["account"], operation_id="block_sender")
async def block_sender(request: BlockSenderRequest):
    session = SessionLocal()
    address = request.email.strip()
    row = session.query(BlockedSender).filter(BlockedSender.user_id == 1, func.lower(BlockedSender.email) == address.lower()).first()
    if row is None:
        row = BlockedSender(user_id=1, email=address, blocked_at=datetime.utcnow())
        session.add(row)
        session.commit()
        session.refresh(row)
    result = BlockedSenderResponse.model_validate(row)
    session.close()
    return result


@app.delete("/api/settings/blocked-senders/{blocked_id}", response_model=ActionResponse, summary="Unblock a sender", description="Remove a block record by its ID.", tags=["account"], operation_id="unblock_sender")
async def unblock_sender(blocked_id: int = Path(..., description="Block record ID")):
    session = SessionLocal()
    deleted = session.query(BlockedSender).filter(BlockedSender.id == blocked_id, BlockedSender.user_id == 1).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Unblocked sender {blocked_id}" if deleted else f"Block {blocked_id} not found")


@app.get("/api/labels", response_model=List[LabelResponse], summary="List labels", description="List the user's labels with message and unread counts.", tags=["labels"], operation_id="list_labels")
async def list_labels():
    session = SessionLocal()
    labels = session.query(Label).filter(Label.user_id == 1).order_by(Label.name).all()
    result = [build_label(session, label) for label in labels]
    session.close()
    return result


@app.post("/api/labels", response_model=LabelResponse, summary="Create a label", description="Create a new label; use '/' in the name to nest it under another label.", tags=["labels"], operation_id="create_label")
async def create_label(request: LabelCreateRequest):
    session = SessionLocal()
    label = Label(user_id=1, name=request.name.strip(), color=request.color, is_visible=request.is_visible, created_at=datetime.utcnow())
    session.add(label)
    session.commit()
    session.refresh(label)
    result = build_label(session, label)
    session.close()
    return result


@app.delete("/api/labels/{label_id}", response_model=ActionResponse, summary="Delete a label", description="Delete a label and remove it from every message; the messages themselves stay.", tags=["labels"], operation_id="delete_label")
async def delete_label(label_id: int = Path(..., description="Label ID")):
    session = SessionLocal()
    label = session.query(Label).filter(Label.id == label_id, Label.user_id == 1).first()
    name = label.name
    session.query(MessageLabel).filter(MessageLabel.label_id == label.id).delete(synchronize_session=False)
    session.query(MailFilter).filter(MailFilter.label_id == label.id).update({MailFilter.label_id: None}, synchronize_session=False)
    session.delete(label)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Label '{name}' deleted")


@app.get("/api/messages", response_model=List[MessageSummaryResponse], summary="Search messages", description="Search the user's mail, newest first; without a mailbox filter, Trash and Spam are excluded.", tags=["messages"], operation_id="search_messages")
async def search_messages(q: Optional[str] = Query(None, description="Text matched against subject, body, sender name and sender address"), from_address: Optional[str] = Query(None, description="Sender address contains this"), to_address: Optional[str] = Query(None, description="A To/Cc/Bcc address contains this"), mailbox: Optional[str] = Query(None, description="inbox, archive, sent, trash or spam"), label_id: Optional[int] = Query(None, description="Only messages with this label"), is_read: Optional[bool] = Query(None, description="Filter on the read flag"), is_starred: Optional[bool] = Query(None, description="Filter on the starred flag"), is_important: Optional[bool] = Query(None, description="Filter on the important flag"), has_attachment: Optional[bool] = Query(None, description="Only messages with (true) or without (false) attachments"), after: Optional[date] = Query(None, description="Sent on or after this date (YYYY-MM-DD)"), before: Optional[date] = Query(None, description="Sent before this date (YYYY-MM-DD)"), limit: int = Query(20, description="Maximum number of results", ge=1, le=100), offset: int = Query(0, description="Results to skip", ge=0)):
    session = SessionLocal()
    query = session.query(Message).filter(Message.user_id == 1)
    if mailbox:
        query = query.filter(Message.mailbox == mailbox)
    else:
        query = query.filter(Message.mailbox.notin_(["trash", "spam"]))
    if q:
        pattern = f"%{q}%"
        query = query.filter(or_(Message.subject.ilike(pattern), Message.body.ilike(pattern), Message.from_name.ilike(pattern), Message.from_address.ilike(pattern)))
    if from_address:
        query = query.filter(Message.from_address.ilike(f"%{from_address}%"))
    if to_address:
        recipient_ids = [row[0] for row in session.query(MessageRecipient.message_id).filter(MessageRecipient.address.ilike(f"%{to_address}%")).all()]
        query = query.filter(Message.id.in_(recipient_ids))
    if label_id is not None:
        labelled_ids = [row[0] for row in session.query(MessageLabel.message_id).filter(MessageLabel.label_id == label_id).all()]
        query = query.filter(Message.id.in_(labelled_ids))
    if is_read is not None:
        query = query.filter(Message.is_read == is_read)
    if is_starred is not None:
        query = query.filter(Message.is_starred == is_starred)
    if is_important is not None:
        query = query.filter(Message.is_important == is_important)
    if has_attachment is not None:
        attached_ids = [row[0] for row in session.query(Attachment.message_id).distinct().all()]
        query = query.filter(Message.id.in_(attached_ids)) if has_attachment else query.filter(Message.id.notin_(attached_ids))
    if after is not None:
        query = query.filter(Message.sent_at >= day_start(after))
    if before is not None:
        query = query.filter(Message.sent_at < day_start(before))
    messages = query.order_by(Message.sent_at.desc(), Message.id.desc()).offset(offset).limit(limit).all()
    result = [build_message_summary(session, message) for message in messages]
    session.close()
    return result


@app.get("/api/messages/{message_id}", response_model=MessageDetailResponse, summary="Get a message", description="Return one message with its full body, recipients, labels and attachments.", tags=["messages"], operation_id="get_message")
async def get_message(message_id: int = Path(..., description="Message ID")):
    session = SessionLocal()
    message = session.query(Message).filter(Message.id == message_id, Message.user_id == 1).first()
    result = build_message_detail(session, message)
    session.close()
    return result


@app.post("/api/messages/send", response_model=MessageDetailResponse, summary="Send a message", description="Compose and send a new message; it starts a new conversation and is stored in Sent.", tags=["messages"], operation_id="send_message")
async def send_message(request: SendMessageRequest):
    session = SessionLocal()
    me = get_me(session)
    now = datetime.utcnow()
    thread = Thread(user_id=1, subject=request.subject, is_muted=False, created_at=now)
    session.add(thread)
    session.flush()
    message = Message(thread_id=thread.id, user_id=1, from_address=me.email, from_name=me.display_name, subject=request.subject, body=request.body, sent_at=now, mailbox="sent", is_read=True, is_starred=False, is_important=False, in_reply_to_id=None)
    session.add(message)
    session.flush()
    taken = set()
    add_message_recipients(session, message.id, request.to, "to", taken)
    add_message_recipients(session, message.id, request.cc, "cc", taken)
    add_message_recipients(session, message.id, request.bcc, "bcc", taken)
    session.commit()
    result = build_message_detail(session, message)
    session.close()
    return result


@app.post("/api/messages/{message_id}/reply", response_model=MessageDetailResponse, summary="Reply to a message", description="Reply in the same conversation; reply_all also addresses the other To and Cc recipients.", tags=["messages"], operation_id="reply_to_message")
async def reply_to_message(request: ReplyRequest, message_id: int = Path(..., description="Message to reply to")):
    session = SessionLocal()
    me = get_me(session)
    original = session.query(Message).filter(Message.id == message_id, Message.user_id == 1).first()
    own_address = me.email.lower()
    original_to = [row.address for row in session.query(MessageRecipient).filter(MessageRecipient.message_id == original.id, MessageRecipient.recipient_type == "to").order_by(MessageRecipient.id).all()]
    original_cc = [row.address for row in session.query(MessageRecipient).filter(MessageRecipient.message_id == original.id, MessageRecipient.recipient_type == "cc").order_by(MessageRecipient.id).all()]
    if original.from_address.lower() == own_address:
        to_list = original_to
    else:
        to_list = [original.from_address]
        if request.reply_all:
            to_list = to_list + [address for address in original_to if address.lower() != own_address]
    cc_list = [address for address in original_cc if address.lower() != own_address] if request.reply_all else []
    subject = original.subject if original.subject.lower().startswith("re:") else "Re: " + original.subject
    message = Message(thread_id=original.thread_id, user_id=1, from_address=me.email, from_name=me.display_name, subject=subject, body=request.body, sent_at=datetime.utcnow(), mailbox="sent", is_read=True, is_starred=False, is_important=False, in_reply_to_id=original.id)
    session.add(message)
    session.flush()
    taken = {own_address}
    add_message_recipients(session, message.id, to_list, "to", taken)
    add_message_recipients(session, message.id, cc_list, "cc", taken)
    session.commit()
    result = build_message_detail(session, message)
    session.close()
    return result


@app.post("/api/messages/{message_id}/forward", response_model=MessageDetailResponse, summary="Forward a message", description="Forward a message with its attachments to new recipients, optionally with a note on top.", tags=["messages"], operation_id="forward_message")
async def forward_message(request: ForwardRequest, message_id: int = Path(..., description="Message to forward")):
    session = SessionLocal()
    me = get_me(session)
    original = session.query(Message).filter(Message.id == message_id, Message.user_id == 1).first()
    subject = original.subject if original.subject.lower().startswith("fwd:") else "Fwd: " + original.subject
    header = f"---------- Forwarded message ---------\nFrom: {original.from_name or original.from_address} <{original.from_address}>\nDate: {original.sent_at}\nSubject: {original.subject}\n\n"
    body = (request.note + "\n\n" if request.note else "") + header + original.body
    message = Message(thread_id=original.thread_id, user_id=1, from_address=me.email, from_name=me.display_name, subject=subject, body=body, sent_at=datetime.utcnow(), mailbox="sent", is_read=True, is_starred=False, is_important=False, in_reply_to_id=None)
    session.add(message)
    session.flush()
    add_message_recipients(session, message.id, request.to, "to", set())
    for item in session.query(Attachment).filter(Attachment.message_id == original.id).order_by(Attachment.id).all():
        session.add(Attachment(message_id=message.id, filename=item.filename, mime_type=item.mime_type, size_bytes=item.size_bytes))
    session.commit()
    result = build_message_detail(session, message)
    session.close()
    return result


@app.patch("/api/messages/{message_id}", response_model=MessageDetailResponse, summary="Update message flags", description="Mark a message read or unread, starred or unstarred, important or not.", tags=["messages"], operation_id="update_message_flags")
async def update_message_flags(request: MessageFlagsRequest, message_id: int = Path(..., description="Message ID")):
    session = SessionLocal()
    message = session.query(Message).filter(Message.id == message_id, Message.user_id == 1).first()
    if request.is_read is not None:
        message.is_read = request.is_read
    if request.is_starred is not None:
        message.is_starred = request.is_starred
    if request.is_important is not None:
        message.is_important = request.is_important
    session.commit()
    session.refresh(message)
    result = build_message_detail(session, message)
    session.close()
    return result


@app.post("/api/messages/{message_id}/move", response_model=MessageDetailResponse, summary="Move a message", description="Move a message to the inbox, archive it, put it in Trash or report it as spam.", tags=["messages"], operation_id="move_message")
async def move_message(request: MoveRequest, message_id: int = Path(..., description="Message ID")):
    session = SessionLocal()
    message = session.query(Message).filter(Message.id == message_id, Message.user_id == 1).first()
    message.mailbox = request.mailbox
    session.commit()
    session.refresh(message)
    result = build_message_detail(session, message)
    session.close()
    return result


@app.delete("/api/messages/{message_id}", response_model=ActionResponse, summary="Delete a message forever", description="Permanently delete a message that is in Trash or Spam.", tags=["messages"], operation_id="delete_message")
async def delete_message(message_id: int = Path(..., description="Message ID")):
    session = SessionLocal()
    message = session.query(Message).filter(Message.id == message_id, Message.user_id == 1, Message.mailbox.in_(["trash", "spam"])).first()
    subject = message.subject
    delete_messages(session, [message.id])
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Message '{subject}' deleted forever")


@app.post("/api/messages/{message_id}/labels", response_model=MessageDetailResponse, summary="Label a message", description="Apply one of the user's labels to a message.", tags=["messages"], operation_id="add_label_to_message")
async def add_label_to_message(request: LabelIdRequest, message_id: int = Path(..., description="Message ID")):
    session = SessionLocal()
    message = session.query(Message).filter(Message.id == message_id, Message.user_id == 1).first()
    label = session.query(Label).filter(Label.id == request.label_id, Label.user_id == 1).first()
    apply_label(session, message.id, label.id)
    session.commit()
    result = build_message_detail(session, message)
    session.close()
    return result


@app.delete("/api/messages/{message_id}/labels/{label_id}", response_model=MessageDetailResponse, summary="Remove a label from a message", description="Take a label off a message.", tags=["messages"], operation_id="remove_label_from_message")
async def remove_label_from_message(message_id: int = Path(..., description="Message ID"), label_id: int = Path(..., description="Label ID")):
    session = SessionLocal()
    message = session.query(Message).filter(Message.id == message_id, Message.user_id == 1).first()
    session.query(MessageLabel).filter(MessageLabel.message_id == message.id, MessageLabel.label_id == label_id).delete(synchronize_session=False)
    session.commit()
    result = build_message_detail(session, message)
    session.close()
    return result


@app.post("/api/messages/batch-modify", response_model=BatchModifyResponse, summary="Modify many messages", description="Add or remove labels, move, and set read/starred/important flags on several messages at once.", tags=["messages"], operation_id="batch_modify_messages")
async def batch_modify_messages(request: BatchModifyRequest):
    session = SessionLocal()
    messages = session.query(Message).filter(Message.user_id == 1, Message.id.in_(request.message_ids)).order_by(Message.id).all()
    add_ids = [row[0] for row in session.query(Label.id).filter(Label.user_id == 1, Label.id.in_(request.add_label_ids)).all()]
    for message in messages:
        for label_id in add_ids:
            apply_label(session, message.id, label_id)
        if request.remove_label_ids:
            session.query(MessageLabel).filter(MessageLabel.message_id == message.id, MessageLabel.label_id.in_(request.remove_label_ids)).delete(synchronize_session=False)
        if request.mailbox is not None:
            message.mailbox = request.mailbox
        if request.is_read is not None:
            message.is_read = request.is_read
        if request.is_starred is not None:
            message.is_starred = request.is_starred
        if request.is_important is not None:
            message.is_important = request.is_important
    session.commit()
    result = BatchModifyResponse(updated_count=len(messages), message_ids=[message.id for message in messages])
    session.close()
    return result


@app.get("/api/messages/{message_id}/attachments", response_model=List[AttachmentResponse], summary="List message attachments", description="List the files attached to a message with their sizes.", tags=["messages"], operation_id="list_message_attachments")
async def list_message_attachments(message_id: int = Path(..., description="Message ID")):
    session = SessionLocal()
    message = session.query(Message).filter(Message.id == message_id, Message.user_id == 1).first()
    items = session.query(Attachment).filter(Attachment.message_id == message.id).order_by(Attachment.id).all()
    result = [AttachmentResponse.model_validate(item) for item in items]
    session.close()
    return result


@app.get("/api/threads", response_model=List[ThreadSummaryResponse], summary="List conversations", description="List conversations, newest activity first; without a mailbox filter, Trash and Spam are excluded.", tags=["threads"], operation_id="list_threads")
async def list_threads(q: Optional[str] = Query(None, description="Text matched against the conversation subject"), mailbox: Optional[str] = Query(None, description="Only conversations with a message in inbox, archive, sent, trash or spam"), label_id: Optional[int] = Query(None, description="Only conversations with a message carrying this label"), is_unread: Optional[bool] = Query(None, description="Only conversations with (true) or without (false) unread messages"), limit: int = Query(20, description="Maximum number of conversations", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Message.thread_id).filter(Message.user_id == 1)
    if mailbox:
        query = query.filter(Message.mailbox == mailbox)
    else:
        query = query.filter(Message.mailbox.notin_(["trash", "spam"]))
    if label_id is not None:
        labelled_ids = [row[0] for row in session.query(MessageLabel.message_id).filter(MessageLabel.label_id == label_id).all()]
        query = query.filter(Message.id.in_(labelled_ids))
    thread_ids = [row[0] for row in query.distinct().all()]
    thread_query = session.query(Thread).filter(Thread.user_id == 1, Thread.id.in_(thread_ids))
    if q:
        thread_query = thread_query.filter(Thread.subject.ilike(f"%{q}%"))
    summaries = []
    for thread in thread_query.all():
        messages = session.query(Message).filter(Message.thread_id == thread.id, Message.user_id == 1).order_by(Message.sent_at, Message.id).all()
        summary = build_thread_summary(session, thread, messages)
        if is_unread is None or (summary.unread_count > 0) == is_unread:
            summaries.append(summary)
    summaries.sort(key=lambda item: (item.last_message_at, item.id), reverse=True)
    result = summaries[:limit]
    session.close()
    return result


@app.get("/api/threads/{thread_id}", response_model=ThreadDetailResponse, summary="Get a conversation", description="Return a conversation with every message, oldest first.", tags=["threads"], operation_id="get_thread")
async def get_thread(thread_id: int = Path(..., description="Conversation ID")):
    session = SessionLocal()
    thread = session.query(Thread).filter(Thread.id == thread_id, Thread.user_id == 1).first()
    messages = session.query(Message).filter(Message.thread_id == thread.id, Message.user_id == 1).order_by(Message.sent_at, Message.id).all()
    result = ThreadDetailResponse(id=thread.id, subject=thread.subject, is_muted=thread.is_muted, created_at=thread.created_at, messages=[build_message_detail(session, message) for message in messages])
    session.close()
    return result


@app.patch("/api/threads/{thread_id}", response_model=ThreadSummaryResponse, summary="Update a conversation", description="Mark all messages read/unread or important, mute it, or move its received messages (Sent copies stay).", tags=["threads"], operation_id="update_thread")
async def update_thread(request: ThreadUpdateRequest, thread_id: int = Path(..., description="Conversation ID")):
    session = SessionLocal()
    thread = session.query(Thread).filter(Thread.id == thread_id, Thread.user_id == 1).first()
    messages = session.query(Message).filter(Message.thread_id == thread.id, Message.user_id == 1).order_by(Message.sent_at, Message.id).all()
    for message in messages:
        if request.is_read is not None:
            message.is_read = request.is_read
        if request.is_important is not None:
            message.is_important = request.is_important
        if request.mailbox is not None and message.mailbox != "sent":
            message.mailbox = request.mailbox
    if request.is_muted is not None:
        thread.is_muted = request.is_muted
    session.commit()
    result = build_thread_summary(session, thread, messages)
    session.close()
    return result


@app.post("/api/threads/{thread_id}/labels", response_model=ThreadSummaryResponse, summary="Label a conversation", description="Apply one of the user's labels to every message in a conversation.", tags=["threads"], operation_id="add_label_to_thread")
async def add_label_to_thread(request: LabelIdRequest, thread_id: int = Path(..., description="Conversation ID")):
    session = SessionLocal()
    thread = session.query(Thread).filter(Thread.id == thread_id, Thread.user_id == 1).first()
    label = session.query(Label).filter(Label.id == request.label_id, Label.user_id == 1).first()
    messages = session.query(Message).filter(Message.thread_id == thread.id, Message.user_id == 1).order_by(Message.sent_at, Message.id).all()
    for message in messages:
        apply_label(session, message.id, label.id)
    session.commit()
    result = build_thread_summary(session, thread, messages)
    session.close()
    return result


@app.delete("/api/mailbox/trash", response_model=ActionResponse, summary="Empty Trash", description="Permanently delete every message in Trash.", tags=["mailbox"], operation_id="empty_trash")
async def empty_trash():
    session = SessionLocal()
    ids = [row[0] for row in session.query(Message.id).filter(Message.user_id == 1, Message.mailbox == "trash").all()]
    deleted = delete_messages(session, ids)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Deleted {deleted} messages from Trash")


@app.delete("/api/mailbox/spam", response_model=ActionResponse, summary="Empty Spam", description="Permanently delete every message in Spam.", tags=["mailbox"], operation_id="empty_spam")
async def empty_spam():
    session = SessionLocal()
    ids = [row[0] for row in session.query(Message.id).filter(Message.user_id == 1, Message.mailbox == "spam").all()]
    deleted = delete_messages(session, ids)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Deleted {deleted} messages from Spam")


@app.get("/api/drafts", response_model=List[DraftResponse], summary="List drafts", description="List the user's drafts with recipients and full text, most recently edited first.", tags=["drafts"], operation_id="list_drafts")
async def list_drafts():
    session = SessionLocal()
    drafts = session.query(Draft).filter(Draft.user_id == 1).order_by(Draft.updated_at.desc(), Draft.id.desc()).all()
    result = [build_draft(session, draft) for draft in drafts]
    session.close()
    return result


@app.post("/api/drafts", response_model=DraftResponse, summary="Create a draft", description="Save a new draft; pass in_reply_to_id to draft a reply inside that message's conversation.", tags=["drafts"], operation_id="create_draft")
async def create_draft(request: DraftCreateRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    thread_id = None
    if request.in_reply_to_id is not None:
        original = session.query(Message).filter(Message.id == request.in_reply_to_id, Message.user_id == 1).first()
        thread_id = original.thread_id
    draft = Draft(user_id=1, thread_id=thread_id, in_reply_to_id=request.in_reply_to_id, subject=request.subject, body=request.body, created_at=now, updated_at=now)
    session.add(draft)
    session.flush()
    replace_draft_recipients(session, draft.id, request.to, "to")
    replace_draft_recipients(session, draft.id, request.cc, "cc")
    replace_draft_recipients(session, draft.id, request.bcc, "bcc")
    session.commit()
    result = build_draft(session, draft)
    session.close()
    return result


@app.patch("/api/drafts/{draft_id}", response_model=DraftResponse, summary="Update a draft", description="Edit a draft; a recipient list that is given replaces the old list, omitted fields stay.", tags=["drafts"], operation_id="update_draft")
async def update_draft(request: DraftUpdateRequest, draft_id: int = Path(..., description="Draft ID")):
    session = SessionLocal()
    draft = session.query(Draft).filter(Draft.id == draft_id, Draft.user_id == 1).first()
    if request.to is not None:
        replace_draft_recipients(session, draft.id, request.to, "to")
    if request.cc is not None:
        replace_draft_recipients(session, draft.id, request.cc, "cc")
    if request.bcc is not None:
        replace_draft_recipients(session, draft.id, request.bcc, "bcc")
    if request.subject is not None:
        draft.subject = request.subject
    if request.body is not None:
        draft.body = request.body
    draft.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(draft)
    result = build_draft(session, draft)
    session.close()
    return result


@app.delete("/api/drafts/{draft_id}", response_model=ActionResponse, summary="Discard a draft", description="Delete a draft without sending it.", tags=["drafts"], operation_id="delete_draft")
async def delete_draft(draft_id: int = Path(..., description="Draft ID")):
    session = SessionLocal()
    draft = session.query(Draft).filter(Draft.id == draft_id, Draft.user_id == 1).first()
    subject = draft.subject
    session.query(DraftRecipient).filter(DraftRecipient.draft_id == draft.id).delete(synchronize_session=False)
    session.delete(draft)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Draft '{subject}' discarded")


@app.post("/api/drafts/{draft_id}/send", response_model=MessageDetailResponse, summary="Send a draft", description="Send a draft as it is now; it becomes a message in Sent and the draft is removed.", tags=["drafts"], operation_id="send_draft")
async def send_draft(draft_id: int = Path(..., description="Draft ID")):
    session = SessionLocal()
    me = get_me(session)
    draft = session.query(Draft).filter(Draft.id == draft_id, Draft.user_id == 1).first()
    now = datetime.utcnow()
    thread_id = draft.thread_id
    if thread_id is None:
        thread = Thread(user_id=1, subject=draft.subject, is_muted=False, created_at=now)
        session.add(thread)
        session.flush()
        thread_id = thread.id
    message = Message(thread_id=thread_id, user_id=1, from_address=me.email, from_name=me.display_name, subject=draft.subject, body=draft.body, sent_at=now, mailbox="sent", is_read=True, is_starred=False, is_important=False, in_reply_to_id=draft.in_reply_to_id)
    session.add(message)
    session.flush()
    rows = session.query(DraftRecipient).filter(DraftRecipient.draft_id == draft.id).order_by(DraftRecipient.id).all()
    taken = set()
    for recipient_type in ["to", "cc", "bcc"]:
        add_message_recipients(session, message.id, [row.address for row in rows if row.recipient_type == recipient_type], recipient_type, taken)
    session.query(DraftRecipient).filter(DraftRecipient.draft_id == draft.id).delete(synchronize_session=False)
    session.delete(draft)
    session.commit()
    result = build_message_detail(session, message)
    session.close()
    return result


@app.get("/api/contacts", response_model=List[ContactResponse], summary="Search contacts", description="Search the address book by name, email or company, optionally within a contact group.", tags=["contacts"], operation_id="search_contacts")
async def search_contacts(q: Optional[str] = Query(None, description="Text matched against name, email and company"), group_id: Optional[int] = Query(None, description="Only members of this contact group"), limit: int = Query(50, description="Maximum number of contacts", ge=1, le=200)):
    session = SessionLocal()
    query = session.query(Contact).filter(Contact.owner_id == 1)
    if q:
        pattern = f"%{q}%"
        query = query.filter(or_(Contact.name.ilike(pattern), Contact.email.ilike(pattern), Contact.company.ilike(pattern)))
    if group_id is not None:
        member_ids = [row[0] for row in session.query(ContactGroupMember.contact_id).filter(ContactGroupMember.group_id == group_id).all()]
        query = query.filter(Contact.id.in_(member_ids))
    contacts = query.order_by(Contact.name, Contact.id).limit(limit).all()
    result = [build_contact(session, contact) for contact in contacts]
    session.close()
    return result


@app.get("/api/contacts/{contact_id}", response_model=ContactResponse, summary="Get a contact", description="Return one contact with the groups it belongs to.", tags=["contacts"], operation_id="get_contact")
async def get_contact(contact_id: int = Path(..., description="Contact ID")):
    session = SessionLocal()
    contact = session.query(Contact).filter(Contact.id == contact_id, Contact.owner_id == 1).first()
    result = build_contact(session, contact)
    session.close()
    return result


@app.post("/api/contacts", response_model=ContactResponse, summary="Create a contact", description="Add a person to the address book.", tags=["contacts"], operation_id="create_contact")
async def create_contact(request: ContactCreateRequest):
    session = SessionLocal()
    existing = session.query(Contact).filter(Contact.owner_id == 1, Contact.email == request.email.strip()).first()
    if existing is not None:
        result = build_contact(session, existing)
        session.close()
        return result
    contact = Contact(owner_id=1, name=request.name.strip(), email=request.email.strip(), phone=request.phone, company=request.company, job_title=request.job_title, notes=request.notes, is_favorite=request.is_favorite, created_at=datetime.utcnow())
    session.add(contact)
    session.commit()
    session.refresh(contact)
    result = build_contact(session, contact)
    session.close()
    return result


@app.patch("/api/contacts/{contact_id}", response_model=ContactResponse, summary="Update a contact", description="Change a contact's details; omitted fields keep their value.", tags=["contacts"], operation_id="update_contact")
async def update_contact(request: ContactUpdateRequest, contact_id: int = Path(..., description="Contact ID")):
    session = SessionLocal()
    contact = session.query(Contact).filter(Contact.id == contact_id, Contact.owner_id == 1).first()
    if request.name is not None:
        contact.name = request.name
    if request.email is not None:
        contact.email = request.email
    if request.phone is not None:
        contact.phone = request.phone
    if request.company is not None:
        contact.company = request.company
    if request.job_title is not None:
        contact.job_title = request.job_title
    if request.notes is not None:
        contact.notes = request.notes
    if request.is_favorite is not None:
        contact.is_favorite = request.is_favorite
    session.commit()
    session.refresh(contact)
    result = build_contact(session, contact)
    session.close()
    return result


@app.delete("/api/contacts/{contact_id}", response_model=ActionResponse, summary="Delete a contact", description="Remove a contact from the address book and from its groups.", tags=["contacts"], operation_id="delete_contact")
async def delete_contact(contact_id: int = Path(..., description="Contact ID")):
    session = SessionLocal()
    contact = session.query(Contact).filter(Contact.id == contact_id, Contact.owner_id == 1).first()
    name = contact.name
    session.query(ContactGroupMember).filter(ContactGroupMember.contact_id == contact.id).delete(synchronize_session=False)
    session.delete(contact)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Contact '{name}' deleted")


@app.get("/api/contact-groups", response_model=List[ContactGroupResponse], summary="List contact groups", description="List the user's contact groups with member counts.", tags=["contacts"], operation_id="list_contact_groups")
async def list_contact_groups():
    session = SessionLocal()
    groups = session.query(ContactGroup).filter(ContactGroup.owner_id == 1).order_by(ContactGroup.name).all()
    result = [ContactGroupResponse(id=group.id, name=group.name, member_count=session.query(func.count(ContactGroupMember.contact_id)).filter(ContactGroupMember.group_id == group.id).scalar(), created_at=group.created_at) for group in groups]
    session.close()
    return result


@app.post("/api/contact-groups/{group_id}/members", response_model=GroupMembershipResponse, summary="Add a contact to a group", description="Put one of the user's contacts into one of the user's contact groups.", tags=["contacts"], operation_id="add_contact_to_group")
async def add_contact_to_group(request: ContactIdRequest, group_id: int = Path(..., description="Contact group ID")):
    session = SessionLocal()
    group = session.query(ContactGroup).filter(ContactGroup.id == group_id, ContactGroup.owner_id == 1).first()
    contact = session.query(Contact).filter(Contact.id == request.contact_id, Contact.owner_id == 1).first()
    member = session.query(ContactGroupMember).filter(ContactGroupMember.group_id == group.id, ContactGroupMember.contact_id == contact.id).first()
    if member is None:
        member = ContactGroupMember(group_id=group.id, contact_id=contact.id, added_at=datetime.utcnow())
        session.add(member)
        session.commit()
    result = GroupMembershipResponse(group_id=group.id, group_name=group.name, contact_id=contact.id, contact_name=contact.name, added_at=member.added_at)
    session.close()
    return result


@app.get("/api/filters", response_model=List[FilterResponse], summary="List filters", description="List the user's mail filters with their criteria and actions.", tags=["filters"], operation_id="list_filters")
async def list_filters():
    session = SessionLocal()
    filters = session.query(MailFilter).filter(MailFilter.user_id == 1).order_by(MailFilter.id).all()
    result = [build_filter(session, mail_filter) for mail_filter in filters]
    session.close()
    return result


@app.post("/api/filters", response_model=FilterResponse, summary="Create a filter", description="Create a filter for incoming mail; at least one criterion is required. Existing mail is not changed.", tags=["filters"], operation_id="create_filter")
async def create_filter(request: FilterCreateRequest):
    session = SessionLocal()
    label_id = None
    if request.label_id is not None:
        label = session.query(Label).filter(Label.id == request.label_id, Label.user_id == 1).first()
        label_id = label.id
    mail_filter = MailFilter(user_id=1, from_contains=request.from_contains, to_contains=request.to_contains, subject_contains=request.subject_contains, has_words=request.has_words, has_attachment=request.has_attachment, label_id=label_id, should_archive=request.should_archive, should_mark_read=request.should_mark_read, should_star=request.should_star, should_mark_important=request.should_mark_important, should_trash=request.should_trash, forward_to=request.forward_to, is_enabled=True, created_at=datetime.utcnow())
    session.add(mail_filter)
    session.commit()
    session.refresh(mail_filter)
    result = build_filter(session, mail_filter)
    session.close()
    return result


@app.delete("/api/filters/{filter_id}", response_model=ActionResponse, summary="Delete a filter", description="Delete a mail filter; mail it already sorted stays where it is.", tags=["filters"], operation_id="delete_filter")
async def delete_filter(filter_id: int = Path(..., description="Filter ID")):
    session = SessionLocal()
    deleted = session.query(MailFilter).filter(MailFilter.id == filter_id, MailFilter.user_id == 1).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Filter {filter_id} deleted" if deleted else f"Filter {filter_id} not found")


@app.post("/api/filters/{filter_id}/apply", response_model=FilterApplyResponse, summary="Apply a filter to existing mail", description="Run a filter's actions on matching messages already in the inbox or archive.", tags=["filters"], operation_id="apply_filter")
async def apply_filter(filter_id: int = Path(..., description="Filter ID")):
    session = SessionLocal()
    mail_filter = session.query(MailFilter).filter(MailFilter.id == filter_id, MailFilter.user_id == 1).first()
    candidates = session.query(Message).filter(Message.user_id == 1, Message.mailbox.in_(["inbox", "archive"])).order_by(Message.id).all()
    matched = [message for message in candidates if filter_matches(session, mail_filter, message)]
    for message in matched:
        if mail_filter.label_id is not None:
            apply_label(session, message.id, mail_filter.label_id)
        if mail_filter.should_archive and message.mailbox == "inbox":
            message.mailbox = "archive"
        if mail_filter.should_mark_read:
            message.is_read = True
        if mail_filter.should_star:
            message.is_starred = True
        if mail_filter.should_mark_important:
            message.is_important = True
        if mail_filter.should_trash:
            message.mailbox = "trash"
    session.commit()
    result = FilterApplyResponse(filter_id=mail_filter.id, matched_count=len(matched), message_ids=[message.id for message in matched])
    session.close()
    return result


if __name__ == "__main__":
    import uvicorn
    host = os.getenv("HOST", "127.0.0.1")
    port = int(os.getenv("PORT", "8000"))
    uvicorn.run(app, host=host, port=port)
