import os
from datetime import datetime, timedelta, timezone
from typing import List, Optional

from fastapi import FastAPI, Query, Path
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Text, Boolean, DateTime, ForeignKey, UniqueConstraint, func, or_
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///google_calendar.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    email = Column(String, nullable=False, unique=True)
    display_name = Column(String, nullable=False)
    organization = Column(String)
    job_title = Column(String)
    is_external = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class UserSettings(Base):
    __tablename__ = "user_settings"
    user_id = Column(Integer, ForeignKey("users.id"), primary_key=True)
    time_zone = Column(String, nullable=False, default="UTC")
    week_start = Column(Integer, nullable=False, default=1)
    default_event_minutes = Column(Integer, nullable=False, default=30)
    show_declined_events = Column(Boolean, nullable=False, default=False)
    show_weekends = Column(Boolean, nullable=False, default=True)
    date_format = Column(String, nullable=False, default="YYYY-MM-DD")
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Color(Base):
    __tablename__ = "colors"
    __table_args__ = (UniqueConstraint("kind", "name"),)
    id = Column(Integer, primary_key=True)
    kind = Column(String, nullable=False)
    name = Column(String, nullable=False)
    background = Column(String, nullable=False)
    foreground = Column(String, nullable=False, default="#ffffff")


class Calendar(Base):
    __tablename__ = "calendars"
    id = Column(Integer, primary_key=True)
    owner_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    summary = Column(String, nullable=False)
    description = Column(Text)
    time_zone = Column(String, nullable=False, default="UTC")
    color_id = Column(Integer, ForeignKey("colors.id"))
    is_primary = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class CalendarAcl(Base):
    __tablename__ = "calendar_acl"
    __table_args__ = (UniqueConstraint("calendar_id", "user_id"),)
    id = Column(Integer, primary_key=True)
    calendar_id = Column(Integer, ForeignKey("calendars.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    role = Column(String, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class CalendarListEntry(Base):
    __tablename__ = "calendar_list_entries"
    __table_args__ = (UniqueConstraint("user_id", "calendar_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    calendar_id = Column(Integer, ForeignKey("calendars.id"), nullable=False)
    color_override_id = Column(Integer, ForeignKey("colors.id"))
    is_hidden = Column(Boolean, nullable=False, default=False)
    is_selected = Column(Boolean, nullable=False, default=True)
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class DefaultReminder(Base):
    __tablename__ = "default_reminders"
    __table_args__ = (UniqueConstraint("calendar_id", "method", "minutes_before"),)
    id = Column(Integer, primary_key=True)
    calendar_id = Column(Integer, ForeignKey("calendars.id"), nullable=False)
    method = Column(String, nullable=False)
    minutes_before = Column(Integer, nullable=False)


class Event(Base):
    __tablename__ = "events"
    id = Column(Integer, primary_key=True)
    calendar_id = Column(Integer, ForeignKey("calendars.id"), nullable=False)
    organizer_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    title = Column(String, nullable=False)
    description = Column(Text)
    location = Column(String)
    start_time = Column(String, nullable=False)
    end_time = Column(String, nullable=False)
    time_zone = Column(String, nullable=False, default="UTC")
    is_all_day = Column(Boolean, nullable=False, default=False)
    status = Column(String, nullable=False, default="confirmed")
    visibility = Column(String, nullable=False, default="default")
    transparency = Column(String, nullable=False, default="opaque")
    event_type = Column(String, nullable=False, default="default")
    color_id = Column(Integer, ForeignKey("colors.id"))
    use_default_reminders = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class RecurrenceRule(Base):
    __tablename__ = "recurrence_rules"
    id = Column(Integer, primary_key=True)
    event_id = Column(Integer, ForeignKey("events.id"), nullable=False, unique=True)
    frequency = Column(String, nullable=False)
    repeat_interval = Column(Integer, nullable=False, default=1)
    by_day = Column(String)
    until_date = Column(String)


class EventException(Base):
    __tablename__ = "event_exceptions"
    __table_args__ = (UniqueConstraint("event_id", "original_start"),)
    id = Column(Integer, primary_key=True)
    event_id = Column(Integer, ForeignKey("events.id"), nullable=False)
    original_start = Column(String, nullable=False)
    exception_type = Column(String, nullable=False)
    new_start = Column(String)
    new_end = Column(String)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class EventAttendee(Base):
    __tablename__ = "event_attendees"
    __table_args__ = (UniqueConstraint("event_id", "email"),)
    id = Column(Integer, primary_key=True)
    event_id = Column(Integer, ForeignKey("events.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"))
    email = Column(String, nullable=False)
    display_name = Column(String)
    response_status = Column(String, nullable=False, default="needsAction")
    is_optional = Column(Boolean, nullable=False, default=False)
    is_organizer = Column(Boolean, nullable=False, default=False)
    comment = Column(Text)
    responded_at = Column(DateTime)


class Reminder(Base):
    __tablename__ = "reminders"
    id = Column(Integer, primary_key=True)
    event_id = Column(Integer, ForeignKey("events.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    method = Column(String, nullable=False)
    minutes_before = Column(Integer, nullable=False)


class EventAttachment(Base):
    __tablename__ = "event_attachments"
    id = Column(Integer, primary_key=True)
    event_id = Column(Integer, ForeignKey("events.id"), nullable=False)
    title = Column(String, nullable=False)
    file_url = Column(String, nullable=False)
    mime_type = Column(String, nullable=False)
    added_by = Column(Integer, ForeignKey("users.id"))
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Building(Base):
    __tablename__ = "buildings"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)
    address = Column(String, nullable=False)
    city = Column(String, nullable=False)
    time_zone = Column(String, nullable=False)


class Resource(Base):
    __tablename__ = "resources"
    __table_args__ = (UniqueConstraint("building_id", "name"),)
    id = Column(Integer, primary_key=True)
    building_id = Column(Integer, ForeignKey("buildings.id"), nullable=False)
    name = Column(String, nullable=False)
    resource_type = Column(String, nullable=False, default="room")
    floor = Column(Integer)
    capacity = Column(Integer)
    has_video = Column(Boolean, nullable=False, default=False)
    has_whiteboard = Column(Boolean, nullable=False, default=False)
    email = Column(String, nullable=False, unique=True)


class RoomBooking(Base):
    __tablename__ = "room_bookings"
    __table_args__ = (UniqueConstraint("resource_id", "event_id"),)
    id = Column(Integer, primary_key=True)
    resource_id = Column(Integer, ForeignKey("resources.id"), nullable=False)
    event_id = Column(Integer, ForeignKey("events.id"), nullable=False)
    start_time = Column(String, nullable=False)
    end_time = Column(String, nullable=False)
    status = Column(String, nullable=False, default="accepted")
    booked_by = Column(Integer, ForeignKey("users.id"))
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class WorkingHours(Base):
    __tablename__ = "working_hours"
    __table_args__ = (UniqueConstraint("user_id", "day_of_week"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    day_of_week = Column(Integer, nullable=False)
    start_time = Column(String, nullable=False)
    end_time = Column(String, nullable=False)


class OutOfOffice(Base):
    __tablename__ = "out_of_office"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    start_time = Column(String, nullable=False)
    end_time = Column(String, nullable=False)
    message = Column(Text)
    auto_decline = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


Base.metadata.create_all(bind=engine)


class UserResponse(BaseModel):
    id: int = Field(..., description="User ID", example=2)
    email: str = Field(..., description="Email address", example="priya.raman@northwind.io")
    display_name: str = Field(..., description="Full name", example="Priya Raman")
    organization: Optional[str] = Field(None, description="Company", example="Northwind")
    job_title: Optional[str] = Field(None, description="Job title", example="Engineering Manager")
    is_external: bool = Field(..., description="Whether the person is outside the Northwind domain", example=False)
    time_zone: Optional[str] = Field(None, description="The person's time zone (IANA name)", example="Europe/London")


class SettingsResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    user_id: int = Field(..., description="User ID", example=1)
    time_zone: str = Field(..., description="Account time zone (IANA name)", example="Europe/London")
    week_start: int = Field(..., description="First day of the week: 1 Monday, 6 Saturday, 7 Sunday", example=1)
    default_event_minutes: int = Field(..., description="Default length of new events in minutes", example=30)
    show_declined_events: bool = Field(..., description="Show events the user declined", example=False)
    show_weekends: bool = Field(..., description="Show Saturday and Sunday in week view", example=True)
    date_format: str = Field(..., description="YYYY-MM-DD, DD/MM/YYYY or MM/DD/YYYY", example="DD/MM/YYYY")
    updated_at: datetime = Field(..., description="Last change", example="2025-11-03T09:00:00")


class ColorResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Color ID", example=11)
    kind: str = Field(..., description="calendar or event: event colors apply to events, calendar colors to calendars", example="event")
    name: str = Field(..., description="Color name", example="Tomato")
    background: str = Field(..., description="Background hex code", example="#d50000")
    foreground: str = Field(..., description="Foreground hex code", example="#ffffff")


class DefaultReminderResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    method: str = Field(..., description="popup or email", example="popup")
    minutes_before: int = Field(..., description="Minutes before the event start", example=10)


class CalendarResponse(BaseModel):
    id: int = Field(..., description="Calendar ID", example=2)
    summary: str = Field(..., description="Calendar name", example="Work Projects")
    description: Optional[str] = Field(None, description="Calendar description", example="Product meetings, reviews and planning")
    time_zone: str = Field(..., description="Calendar time zone (IANA name)", example="Europe/London")
    owner_id: int = Field(..., description="Owner user ID", example=1)
    owner_name: str = Field(..., description="Owner name", example="Jordan Ellis")
    is_primary: bool = Field(..., description="Whether this is the owner's primary calendar", example=False)
    color_id: Optional[int] = Field(None, description="Calendar color ID", example=15)
    color_name: Optional[str] = Field(None, description="Calendar color name", example="Pumpkin")
    access_role: str = Field(..., description="The current user's role: owner, writer, reader, freeBusyReader or none", example="owner")
    default_reminders: List[DefaultReminderResponse] = Field(..., description="Default notifications of the calendar", example=[{"method": "popup", "minutes_before": 10}])


class CalendarListEntryResponse(BaseModel):
    calendar_id: int = Field(..., description="Calendar ID", example=3)
    summary: str = Field(..., description="Calendar name", example="Family")
    description: Optional[str] = Field(None, description="Calendar description", example="Family plans shared with Emma, Tom and Mum")
    owner_id: int = Field(..., description="Owner user ID", example=1)
    owner_name: str = Field(..., description="Owner name", example="Jordan Ellis")
    is_primary: bool = Field(..., description="Owner's primary calendar", example=False)
    access_role: str = Field(..., description="The current user's role on the calendar", example="owner")
    time_zone: str = Field(..., description="Calendar time zone", example="Europe/London")
    color_id: Optional[int] = Field(None, description="Color shown for the calendar (override or calendar color)", example=17)
    color_name: Optional[str] = Field(None, description="Name of that color", example="Eucalyptus")
    is_hidden: bool = Field(..., description="Hidden from the calendar list", example=False)
    is_selected: bool = Field(..., description="Events shown in the calendar view", example=True)


class AclRuleResponse(BaseModel):
    id: int = Field(..., description="ACL rule ID", example=26)
    calendar_id: int = Field(..., description="Calendar ID", example=3)
    user_id: int = Field(..., description="Grantee user ID", example=9)
    email: str = Field(..., description="Grantee email", example="tom.ellis@gmail.com")
    display_name: str = Field(..., description="Grantee name", example="Tom Ellis")
    role: str = Field(..., description="freeBusyReader, reader, writer or owner", example="writer")


class RecurrenceResponse(BaseModel):
    frequency: str = Field(..., description="DAILY, WEEKLY or MONTHLY", example="WEEKLY")
    repeat_interval: int = Field(..., description="Repeat every N days, weeks or months", example=1)
    by_day: Optional[str] = Field(None, description="Weekdays for weekly rules, e.g. MO,WE,FR", example="MO,WE,FR")
    until_date: Optional[str] = Field(None, description="Last possible date (YYYY-MM-DD), none for no end", example="2026-03-27")


class EventResponse(BaseModel):
    id: int = Field(..., description="Event ID", example=10)
    calendar_id: int = Field(..., description="Calendar ID", example=2)
    calendar_name: str = Field(..., description="Calendar name", example="Work Projects")
    organizer_id: int = Field(..., description="Organizer user ID", example=1)
    organizer_name: str = Field(..., description="Organizer name", example="Jordan Ellis")
    organizer_email: str = Field(..., description="Organizer email", example="jordan.ellis@northwind.io")
    title: str = Field(..., description="Event title", example="Q1 Roadmap Review")
    description: Optional[str] = Field(None, description="Event description", example="Agree the Q1 roadmap.")
    location: Optional[str] = Field(None, description="Location", example="London HQ - Thames")
    start_time: str = Field(..., description="Start (UTC, YYYY-MM-DD HH:MM:SS); for a recurring event, the first occurrence", example="2026-01-08 14:00:00")
    end_time: str = Field(..., description="End (UTC, YYYY-MM-DD HH:MM:SS)", example="2026-01-08 15:00:00")
    time_zone: str = Field(..., description="Time zone the event was created in", example="Europe/London")
    is_all_day: bool = Field(..., description="All-day event", example=False)
    status: str = Field(..., description="confirmed, tentative or cancelled", example="confirmed")
    visibility: str = Field(..., description="default, public or private", example="default")
    transparency: str = Field(..., description="opaque (busy) or transparent (free)", example="opaque")
    event_type: str = Field(..., description="default, focusTime or workingLocation", example="default")
    color_id: Optional[int] = Field(None, description="Event color ID", example=5)
    color_name: Optional[str] = Field(None, description="Event color name", example="Banana")
    use_default_reminders: bool = Field(..., description="Whether the calendar's default reminders apply", example=True)
    recurrence: Optional[RecurrenceResponse] = Field(None, description="Recurrence rule when the event repeats", example=None)
    my_response_status: Optional[str] = Field(None, description="The current user's RSVP if invited: needsAction, accepted, declined or tentative", example="accepted")
    attendee_count: int = Field(..., description="Number of attendees including the organizer", example=7)
    created_at: datetime = Field(..., description="Creation time", example="2025-12-18T11:00:00")
    updated_at: datetime = Field(..., description="Last modification time", example="2025-12-18T11:00:00")


class AttendeeResponse(BaseModel):
    id: int = Field(..., description="Attendee record ID", example=7)
    event_id: int = Field(..., description="Event ID", example=10)
    user_id: Optional[int] = Field(None, description="User ID when the attendee has an account", example=3)
    email: str = Field(..., description="Attendee email", example="marcus.webb@northwind.io")
    display_name: Optional[str] = Field(None, description="Attendee name", example="Marcus Webb")
    response_status: str = Field(..., description="needsAction, accepted, declined or tentative", example="needsAction")
    is_optional: bool = Field(..., description="Optional attendee", example=False)
    is_organizer: bool = Field(..., description="Whether this attendee organizes the event", example=False)
    comment: Optional[str] = Field(None, description="Comment left with the RSVP", example=None)


class RoomBookingResponse(BaseModel):
    id: int = Field(..., description="Booking ID", example=1)
    resource_id: int = Field(..., description="Room or equipment ID", example=1)
    resource_name: str = Field(..., description="Room or equipment name", example="Thames")
    building_name: str = Field(..., description="Building name", example="London HQ")
    event_id: int = Field(..., description="Event ID", example=10)
    event_title: str = Field(..., description="Event title (shown to all, as on a room display)", example="Q1 Roadmap Review")
    start_time: str = Field(..., description="Start (UTC)", example="2026-01-08 14:00:00")
    end_time: str = Field(..., description="End (UTC)", example="2026-01-08 15:00:00")
    status: str = Field(..., description="accepted, declined (room was busy) or cancelled", example="accepted")


class AttachmentResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Attachment ID", example=1)
    title: str = Field(..., description="File title", example="Q1 roadmap draft.pdf")
    file_url: str = Field(..., description="Link to the file", example="https://drive.northwind.io/files/q1-roadmap-draft.pdf")
    mime_type: str = Field(..., description="MIME type", example="application/pdf")


class ExceptionResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Exception ID", example=1)
    event_id: int = Field(..., description="Recurring event ID", example=13)
    original_start: str = Field(..., description="Start of the occurrence as the rule places it (UTC)", example="2026-01-16 09:30:00")
    exception_type: str = Field(..., description="cancelled or modified", example="modified")
    new_start: Optional[str] = Field(None, description="New start of a modified occurrence", example="2026-01-16 10:00:00")
    new_end: Optional[str] = Field(None, description="New end of a modified occurrence", example="2026-01-16 10:15:00")


class ReminderResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Reminder ID", example=1)
    event_id: int = Field(..., description="Event ID", example=1)
    method: str = Field(..., description="popup or email", example="popup")
    minutes_before: int = Field(..., description="Minutes before the event start", example=60)


class EventDetailResponse(EventResponse):
    attendees: List[AttendeeResponse] = Field(..., description="Guests with their RSVP", example=[])
    rooms: List[RoomBookingResponse] = Field(..., description="Rooms and equipment booked for the event", example=[])
    attachments: List[AttachmentResponse] = Field(..., description="Attached files", example=[])
    exceptions: List[ExceptionResponse] = Field(..., description="Changed or cancelled occurrences of a recurring event", example=[])
    my_reminders: List[ReminderResponse] = Field(..., description="The current user's own reminders on the event", example=[])


class OccurrenceResponse(BaseModel):
    event_id: int = Field(..., description="Event ID of the series", example=13)
    title: str = Field(..., description="Event title", example="Team Standup")
    original_start: str = Field(..., description="Start the recurrence rule gives this occurrence (UTC); identifies it", example="2026-01-19 09:30:00")
    start_time: str = Field(..., description="Actual start (UTC)", example="2026-01-19 09:30:00")
    end_time: str = Field(..., description="Actual end (UTC)", example="2026-01-19 09:45:00")
    status: str = Field(..., description="confirmed or cancelled", example="confirmed")
    is_exception: bool = Field(..., description="Whether this occurrence was changed or cancelled individually", example=False)


class BuildingResponse(BaseModel):
    id: int = Field(..., description="Building ID", example=1)
    name: str = Field(..., description="Building name", example="London HQ")
    address: str = Field(..., description="Street address", example="1 Bankside, London SE1 9JT")
    city: str = Field(..., description="City", example="London")
    time_zone: str = Field(..., description="Local time zone", example="Europe/London")
    resource_count: int = Field(..., description="Rooms and equipment in the building", example=6)


class RoomResponse(BaseModel):
    id: int = Field(..., description="Room or equipment ID", example=2)
    building_id: int = Field(..., description="Building ID", example=1)
    building_name: str = Field(..., description="Building name", example="London HQ")
    name: str = Field(..., description="Room name", example="Kew")
    resource_type: str = Field(..., description="room or equipment", example="room")
    floor: Optional[int] = Field(None, description="Floor number", example=2)
    capacity: Optional[int] = Field(None, description="Seats (rooms only)", example=6)
    has_video: bool = Field(..., description="Video-conferencing equipment", example=True)
    has_whiteboard: bool = Field(..., description="Whiteboard", example=False)
    email: str = Field(..., description="Resource email used as the attendee address", example="kew.london@rooms.northwind.io")


class BusyIntervalResponse(BaseModel):
    start_time: str = Field(..., description="Busy from (UTC)", example="2026-01-14 10:00:00")
    end_time: str = Field(..., description="Busy until (UTC)", example="2026-01-14 11:00:00")
    kind: str = Field(..., description="event or out_of_office", example="event")


class FreeBusyResponse(BaseModel):
    user_id: int = Field(..., description="User ID", example=3)
    email: str = Field(..., description="Email", example="marcus.webb@northwind.io")
    display_name: str = Field(..., description="Name", example="Marcus Webb")
    time_zone: str = Field(..., description="The person's time zone", example="America/New_York")
    busy: List[BusyIntervalResponse] = Field(..., description="Busy intervals inside the window, in time order", example=[])


class WorkingDayResponse(BaseModel):
    day_of_week: int = Field(..., description="1 Monday ... 7 Sunday", example=5)
    day_name: str = Field(..., description="Weekday name", example="Friday")
    start_time: str = Field(..., description="Start of the working day (HH:MM, the person's own time zone)", example="09:00")
    end_time: str = Field(..., description="End of the working day (HH:MM, the person's own time zone)", example="17:30")


class WorkingHoursResponse(BaseModel):
    user_id: int = Field(..., description="User ID", example=5)
    display_name: str = Field(..., description="Name", example="Kenji Sato")
    time_zone: str = Field(..., description="Time zone the hours are expressed in", example="Asia/Tokyo")
    days: List[WorkingDayResponse] = Field(..., description="Working days; days not listed are non-working", example=[])


class OutOfOfficeResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Out-of-office ID", example=3)
    user_id: int = Field(..., description="User ID", example=5)
    start_time: str = Field(..., description="Start (UTC)", example="2026-01-19 00:00:00")
    end_time: str = Field(..., description="End (UTC)", example="2026-01-23 23:59:00")
    message: Optional[str] = Field(None, description="Auto-reply message", example="Visiting family in Osaka.")
    auto_decline: bool = Field(..., description="Decline new invitations that arrive for the period", example=True)
    created_at: datetime = Field(..., description="Creation time", example="2025-12-10T02:00:00")


class ActionResponse(BaseModel):
    success: bool = Field(..., description="Whether the action succeeded", example=True)
    message: str = Field(..., description="Human-readable result", example="Event 12 cancelled")


class SettingsUpdateRequest(BaseModel):
    time_zone: Optional[str] = Field(None, description="IANA time zone name", example="America/New_York")
    week_start: Optional[int] = Field(None, description="1 Monday, 6 Saturday or 7 Sunday", example=1, ge=1, le=7)
    default_event_minutes: Optional[int] = Field(None, description="Default event length in minutes", example=30, ge=5, le=480)
    show_declined_events: Optional[bool] = Field(None, description="Show declined events", example=False)
    show_weekends: Optional[bool] = Field(None, description="Show weekends", example=True)
    date_format: Optional[str] = Field(None, description="YYYY-MM-DD, DD/MM/YYYY or MM/DD/YYYY", example="DD/MM/YYYY", pattern="^(YYYY-MM-DD|DD/MM/YYYY|MM/DD/YYYY)$")


class CalendarListEntryUpdateRequest(BaseModel):
    color_override_id: Optional[int] = Field(None, description="Calendar color to show this calendar in", example=14)
    is_hidden: Optional[bool] = Field(None, description="Hide from the list", example=False)
    is_selected: Optional[bool] = Field(None, description="Show its events", example=True)


class CalendarCreateRequest(BaseModel):
    summary: str = Field(..., description="Calendar name", example="Side Projects")
    description: Optional[str] = Field(None, description="Description", example="Evening and weekend projects")
    time_zone: Optional[str] = Field(None, description="IANA time zone; the account time zone when omitted", example="Europe/London")
    color_id: Optional[int] = Field(None, description="Calendar color ID", example=17)


class CalendarUpdateRequest(BaseModel):
    summary: Optional[str] = Field(None, description="New name", example="Work Projects")
    description: Optional[str] = Field(None, description="New description", example="Product meetings")
    time_zone: Optional[str] = Field(None, description="New IANA time zone", example="America/New_York")
    color_id: Optional[int] = Field(None, description="New calendar color ID", example=18)


class ShareCalendarRequest(BaseModel):
    email: str = Field(..., description="Email of the person to share with", example="grace.kim@gmail.com")
    role: str = Field(..., description="freeBusyReader, reader or writer", example="reader", pattern="^(freeBusyReader|reader|writer)$")


class AclUpdateRequest(BaseModel):
    role: str = Field(..., description="freeBusyReader, reader or writer", example="reader", pattern="^(freeBusyReader|reader|writer)$")


class EventCreateRequest(BaseModel):
    title: str = Field(..., description="Event title", example="Vendor Sync")
    start_time: str = Field(..., description="Start, ISO 8601 (UTC unless an offset is given)", example="2026-01-13T14:00:00")
    end_time: str = Field(..., description="End, ISO 8601 (UTC unless an offset is given)", example="2026-01-13T14:45:00")
    description: Optional[str] = Field(None, description="Description", example="Quarterly vendor check-in")
    location: Optional[str] = Field(None, description="Location", example="London HQ - Kew")
    time_zone: Optional[str] = Field(None, description="IANA time zone label; the calendar's when omitted", example="Europe/London")
    is_all_day: bool = Field(False, description="All-day event", example=False)
    visibility: str = Field("default", description="default, public or private", example="default", pattern="^(default|public|private)$")
    transparency: str = Field("opaque", description="opaque (busy) or transparent (free)", example="opaque", pattern="^(opaque|transparent)$")
    event_type: str = Field("default", description="default, focusTime or workingLocation", example="default", pattern="^(default|focusTime|workingLocation)$")
    color_id: Optional[int] = Field(None, description="Event color ID", example=None)
    use_default_reminders: bool = Field(True, description="Apply the calendar's default reminders", example=True)
    attendee_emails: Optional[List[str]] = Field(None, description="Guests to invite by email", example=["priya.raman@northwind.io"])


class EventUpdateRequest(BaseModel):
    title: Optional[str] = Field(None, description="New title", example="Q1 Roadmap Review")
    description: Optional[str] = Field(None, description="New description", example="Agenda attached")
    location: Optional[str] = Field(None, description="New location", example="London HQ - Thames")
    start_time: Optional[str] = Field(None, description="New start, ISO 8601", example="2026-01-08T14:30:00")
    end_time: Optional[str] = Field(None, description="New end, ISO 8601", example="2026-01-08T15:30:00")
    time_zone: Optional[str] = Field(None, description="New time zone label", example="Europe/London")
    status: Optional[str] = Field(None, description="confirmed or tentative", example="confirmed", pattern="^(confirmed|tentative)$")
    visibility: Optional[str] = Field(None, description="default, public or private", example="private", pattern="^(default|public|private)$")
    transparency: Optional[str] = Field(None, description="opaque or transparent", example="opaque", pattern="^(opaque|transparent)$")
    color_id: Optional[int] = Field(None, description="Event color ID (an event color, see list_colors)", example=11)
    use_default_reminders: Optional[bool] = Field(None, description="Apply the calendar's default reminders", example=False)


class MoveEventRequest(BaseModel):
    destination_calendar_id: int = Field(..., description="Calendar to move the event to", example=1)


class RecurrenceRequest(BaseModel):
    frequency: str = Field(..., description="DAILY, WEEKLY or MONTHLY", example="WEEKLY", pattern="^(DAILY|WEEKLY|MONTHLY)$")
    repeat_interval: int = Field(1, description="Every N days, weeks or months", example=1, ge=1, le=52)
    by_day: Optional[str] = Field(None, description="Weekly only: comma-separated MO,TU,WE,TH,FR,SA,SU", example="MO,WE,FR", pattern="^(MO|TU|WE|TH|FR|SA|SU)(,(MO|TU|WE|TH|FR|SA|SU))*$")
    until_date: Optional[str] = Field(None, description="Last date YYYY-MM-DD (inclusive); none for no end", example="2026-03-27", pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


class CancelInstanceRequest(BaseModel):
    original_start: str = Field(..., description="original_start of the occurrence (see list_event_instances)", example="2026-01-19T09:30:00")


class RescheduleInstanceRequest(BaseModel):
    original_start: str = Field(..., description="original_start of the occurrence (see list_event_instances)", example="2026-01-21T09:30:00")
    new_start: str = Field(..., description="New start, ISO 8601", example="2026-01-21T11:00:00")
    new_end: str = Field(..., description="New end, ISO 8601", example="2026-01-21T11:15:00")


class AddAttendeeRequest(BaseModel):
    email: str = Field(..., description="Guest email", example="priya.ramesh@acmepartners.com")
    is_optional: bool = Field(False, description="Optional guest", example=False)


class RsvpRequest(BaseModel):
    response_status: str = Field(..., description="accepted, declined or tentative", example="declined", pattern="^(accepted|declined|tentative)$")
    comment: Optional[str] = Field(None, description="Note for the organizer", example="Out of office that day")


class ReminderCreateRequest(BaseModel):
    method: str = Field(..., description="popup or email", example="email", pattern="^(popup|email)$")
    minutes_before: int = Field(..., description="Minutes before the start (1440 = one day)", example=1440, ge=0, le=40320)


class BookRoomRequest(BaseModel):
    room_id: int = Field(..., description="Room or equipment ID", example=2)


class FreeBusyRequest(BaseModel):
    emails: List[str] = Field(..., description="Email addresses of the people to check", example=["priya.raman@northwind.io", "marcus.webb@northwind.io"])
    time_min: str = Field(..., description="Window start, ISO 8601", example="2026-01-14T00:00:00")
    time_max: str = Field(..., description="Window end, ISO 8601", example="2026-01-15T00:00:00")


class WorkingDayRequest(BaseModel):
    start_time: str = Field(..., description="Start HH:MM (24-hour, account time zone)", example="09:00", pattern="^([01][0-9]|2[0-3]):[0-5][0-9]$")
    end_time: str = Field(..., description="End HH:MM (24-hour, account time zone)", example="17:30", pattern="^([01][0-9]|2[0-3]):[0-5][0-9]$")


class OutOfOfficeCreateRequest(BaseModel):
    start_time: str = Field(..., description="Start, ISO 8601", example="2026-01-09T00:00:00")
    end_time: str = Field(..., description="End, ISO 8601", example="2026-01-10T00:00:00")
    message: Optional[str] = Field(None, description="Auto-reply message", example="Travelling, back on Monday.")
    auto_decline: bool = Field(True, description="Decline invitations that arrive later for the period; existing ones are not changed", example=True)


app = FastAPI(
    title="Google Calendar API",
    description="Calendars, sharing, events with guests and RSVPs, recurring events, reminders, rooms, free/busy, working hours and out-of-office for the logged-in user.",
    version="1.0.0",
)

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
DAY_CODES = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def normalize_time(value):
    moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime(TIME_FORMAT)


def parse_time(value):
    return datetime.strptime(value, TIME_FORMAT)


def user_time_zone(session, user_id):
    settings = session.query(UserSettings).filter(UserSettings.user_id == user_id).first()
    return settings.time_zone if settings else "UTC"


def calendar_role(session, calendar):
    if calendar.owner_id == 1:
        return "owner"
    rule = session.query(CalendarAcl).filter(CalendarAcl.calendar_id == calendar.id, CalendarAcl.user_id == 1).first()
    return rule.role if rule else "none"


def calendar_ids_with_role(session, roles):
    owned = [row.id for row in session.query(Calendar).filter(Calendar.owner_id == 1).all()]
    shared = [row.calendar_id for row in session.query(CalendarAcl).filter(CalendarAcl.user_id == 1, CalendarAcl.role.in_(roles)).all()]
    return sorted(set(owned + shared))


def readable_calendar_ids(session):
    return calendar_ids_with_role(session, ["reader", "writer", "owner"])


def writable_calendar_ids(session):
    return calendar_ids_with_role(session, ["writer", "owner"])


def visible_event(session, event_id):
    invited = [row.event_id for row in session.query(EventAttendee).filter(EventAttendee.user_id == 1).all()]
    return session.query(Event).filter(Event.id == event_id).filter(or_(Event.calendar_id.in_(readable_calendar_ids(session)), Event.id.in_(invited))).first()


def editable_event(session, event_id):
    return session.query(Event).filter(Event.id == event_id, Event.calendar_id.in_(writable_calendar_ids(session))).first()


def build_user(session, user):
    return UserResponse(id=user.id, email=user.email, display_name=user.display_name, organization=user.organization, job_title=user.job_title, is_external=user.is_external, time_zone=user_time_zone(session, user.id))


def build_calendar(session, calendar):
    owner = session.query(User).filter(User.id == calendar.owner_id).first()
    color = session.query(Color).filter(Color.id == calendar.color_id).first() if calendar.color_id else None
    defaults = session.query(DefaultReminder).filter(DefaultReminder.calendar_id == calendar.id).order_by(DefaultReminder.minutes_before).all()
    return CalendarResponse(
        id=calendar.id,
        summary=calendar.summary,
        description=calendar.description,
        time_zone=calendar.time_zone,
        owner_id=calendar.owner_id,
        owner_name=owner.display_name,
        is_primary=calendar.is_primary,
        color_id=calendar.color_id,
        color_name=color.name if color else None,
        access_role=calendar_role(session, calendar),
        default_reminders=[DefaultReminderResponse.model_validate(item) for item in defaults],
    )


def build_list_entry(session, entry):
    calendar = session.query(Calendar).filter(Calendar.id == entry.calendar_id).first()
    owner = session.query(User).filter(User.id == calendar.owner_id).first()
    color_id = entry.color_override_id or calendar.color_id
    color = session.query(Color).filter(Color.id == color_id).first() if color_id else None
    return CalendarListEntryResponse(
        calendar_id=calendar.id,
        summary=calendar.summary,
        description=calendar.description,
        owner_id=calendar.owner_id,
        owner_name=owner.display_name,
        is_primary=calendar.is_primary,
        access_role=calendar_role(session, calendar),
        time_zone=calendar.time_zone,
        color_id=color_id,
        color_name=color.name if color else None,
        is_hidden=entry.is_hidden,
        is_selected=entry.is_selected,
    )


def build_acl_rule(session, rule):
    user = session.query(User).filter(User.id == rule.user_id).first()
    return AclRuleResponse(id=rule.id, calendar_id=rule.calendar_id, user_id=rule.user_id, email=user.email, display_name=user.display_name, role=rule.role)


def build_event(session, event):
    calendar = session.query(Calendar).filter(Calendar.id == event.calendar_id).first()
    organizer = session.query(User).filter(User.id == event.organizer_id).first()
    color = session.query(Color).filter(Color.id == event.color_id).first() if event.color_id else None
    rule = session.query(RecurrenceRule).filter(RecurrenceRule.event_id == event.id).first()
    mine = session.query(EventAttendee).filter(EventAttendee.event_id == event.id, EventAttendee.user_id == 1).first()
    attendee_count = session.query(func.count(EventAttendee.id)).filter(EventAttendee.event_id == event.id).scalar()
    return EventResponse(
        id=event.id,
        calendar_id=event.calendar_id,
        calendar_name=calendar.summary,
        organizer_id=event.organizer_id,
        organizer_name=organizer.display_name,
        organizer_email=organizer.email,
        title=event.title,
        description=event.description,
        location=event.location,
        start_time=event.start_time,
        end_time=event.end_time,
        time_zone=event.time_zone,
        is_all_day=event.is_all_day,
        status=event.status,
        visibility=event.visibility,
        transparency=event.transparency,
        event_type=event.event_type,
        color_id=event.color_id,
        color_name=color.name if color else None,
        use_default_reminders=event.use_default_reminders,
        recurrence=RecurrenceResponse(frequency=rule.frequency, repeat_interval=rule.repeat_interval, by_day=rule.by_day, until_date=rule.until_date) if rule else None,
        my_response_status=mine.response_status if mine else None,
        attendee_count=attendee_count,
        created_at=event.created_at,
        updated_at=event.updated_at,
    )


def build_attendee(attendee):
    return AttendeeResponse(id=attendee.id, event_id=attendee.event_id, user_id=attendee.user_id, email=attendee.email, display_name=attendee.display_name, response_status=attendee.response_status, is_optional=attendee.is_optional, is_organizer=attendee.is_organizer, comment=attendee.comment)


def build_booking(session, booking):
    resource = session.query(Resource).filter(Resource.id == booking.resource_id).first()
    building = session.query(Building).filter(Building.id == resource.building_id).first()
    event = session.query(Event).filter(Event.id == booking.event_id).first()
    return RoomBookingResponse(id=booking.id, resource_id=resource.id, resource_name=resource.name, building_name=building.name, event_id=booking.event_id, event_title=event.title, start_time=booking.start_time, end_time=booking.end_time, status=booking.status)


def build_room(session, resource):
    building = session.query(Building).filter(Building.id == resource.building_id).first()
    return RoomResponse(id=resource.id, building_id=resource.building_id, building_name=building.name, name=resource.name, resource_type=resource.resource_type, floor=resource.floor, capacity=resource.capacity, has_video=resource.has_video, has_whiteboard=resource.has_whiteboard, email=resource.email)


def build_working_hours(session, user):
    days = session.query(WorkingHours).filter(WorkingHours.user_id == user.id).order_by(WorkingHours.day_of_week).all()
    return WorkingHoursResponse(
        user_id=user.id,
        display_name=user.display_name,
        time_zone=user_time_zone(session, user.id),
        days=[WorkingDayResponse(day_of_week=day.day_of_week, day_name=DAY_NAMES[day.day_of_week - 1], start_time=day.start_time, end_time=day.end_time) for day in days],
    )


def occurs_on(rule, series_start, day):
    if day < series_start.date():
        return False
    if rule.until_date and day > datetime.strptime(rule.until_date, "%Y-%m-%d").date():
        return False
    if rule.frequency == "DAILY":
        return (day - series_start.date()).days % rule.repeat_interval == 0
    if rule.frequency == "WEEKLY":
        weekdays = [DAY_CODES.index(code.strip()) for code in rule.by_day.split(",")] if rule.by_day else [series_start.weekday()]
        first_monday = series_start.date() - timedelta(days=series_start.weekday())
        return day.weekday() in weekdays and ((day - first_monday).days // 7) % rule.repeat_interval == 0
    months = (day.year - series_start.year) * 12 + day.month - series_start.month
    return day.day == series_start.day and months % rule.repeat_interval == 0


def event_occurrences(session, event, window_start, window_end, include_cancelled=False):
    start = parse_time(event.start_time)
    end = parse_time(event.end_time)
    rule = session.query(RecurrenceRule).filter(RecurrenceRule.event_id == event.id).first()
    if rule is None:
        if start < window_end and end > window_start and (event.status != "cancelled" or include_cancelled):
            return [OccurrenceResponse(event_id=event.id, title=event.title, original_start=event.start_time, start_time=event.start_time, end_time=event.end_time, status=event.status, is_exception=False)]
        return []
    exceptions = {item.original_start: item for item in session.query(EventException).filter(EventException.event_id == event.id).all()}
    duration = end - start
    occurrences = []
    day = max(start.date(), (window_start - timedelta(days=7)).date())
    while day <= window_end.date():
        if occurs_on(rule, start, day):
            original = datetime.combine(day, start.time())
            key = original.strftime(TIME_FORMAT)
            exception = exceptions.get(key)
            occurrence_start, occurrence_end = key, (original + duration).strftime(TIME_FORMAT)
            status = "cancelled" if event.status == "cancelled" else "confirmed"
            if exception is not None and exception.exception_type == "modified":
                occurrence_start, occurrence_end = exception.new_start, exception.new_end
            if exception is not None and exception.exception_type == "cancelled":
                status = "cancelled"
            overlaps = parse_time(occurrence_start) < window_end and parse_time(occurrence_end) > window_start
            if overlaps and (status != "cancelled" or include_cancelled):
                occurrences.append(OccurrenceResponse(event_id=event.id, title=event.title, original_start=key, start_time=occurrence_start, end_time=occurrence_end, status=status, is_exception=exception is not None))
        day = day + timedelta(days=1)
    return occurrences


def events_in_window(session, events, time_min, time_max, include_cancelled):
    if time_min is None and time_max is None:
        return [event for event in events if event.status != "cancelled" or include_cancelled]
    window_start = parse_time(normalize_time(time_min)) if time_min else datetime(1970, 1, 1)
    window_end = parse_time(normalize_time(time_max)) if time_max else datetime(2100, 1, 1)
    return [event for event in events if (event.status != "cancelled" or include_cancelled) and event_occurrences(session, event, window_start, window_end, include_cancelled)]


def busy_intervals(session, user, window_start, window_end):
    own_calendar_ids = [row.id for row in session.query(Calendar).filter(Calendar.owner_id == user.id).all()]
    rows = session.query(EventAttendee).filter(EventAttendee.user_id == user.id).all()
    attending = {row.event_id for row in rows if row.response_status != "declined"}
    listed = {row.event_id for row in rows}
    own_events = {row.id for row in session.query(Event).filter(Event.calendar_id.in_(own_calendar_ids)).all() if row.id not in listed}
    events = session.query(Event).filter(Event.id.in_(sorted(attending | own_events)), Event.status != "cancelled", Event.transparency == "opaque").all()
    intervals = []
    for event in events:
        intervals.extend(BusyIntervalResponse(start_time=item.start_time, end_time=item.end_time, kind="event") for item in event_occurrences(session, event, window_start, window_end))
    absences = session.query(OutOfOffice).filter(OutOfOffice.user_id == user.id, OutOfOffice.start_time < window_end.strftime(TIME_FORMAT), OutOfOffice.end_time > window_start.strftime(TIME_FORMAT)).all()
    intervals.extend(BusyIntervalResponse(start_time=item.start_time, end_time=item.end_time, kind="out_of_office") for item in absences)
    return sorted(intervals, key=lambda item: (item.start_time, item.end_time))


def room_is_free(session, resource_id, start_time, end_time, ignore_event_id=None):
    bookings = session.query(RoomBooking).join(Event, Event.id == RoomBooking.event_id).filter(RoomBooking.resource_id == resource_id, RoomBooking.status == "accepted", Event.status != "cancelled", RoomBooking.start_time < end_time, RoomBooking.end_time > start_time).all()
    return not [booking for booking in bookings if booking.event_id != ignore_event_id]


def add_guest(session, event, email, is_optional):
    if session.query(EventAttendee).filter(EventAttendee.event_id == event.id).count() == 0:
        organizer = session.query(User).filter(User.id == event.organizer_id).first()
        session.add(EventAttendee(event_id=event.id, user_id=organizer.id, email=organizer.email, display_name=organizer.display_name, response_status="accepted", is_optional=False, is_organizer=True, responded_at=datetime.utcnow()))
        session.flush()
    user = session.query(User).filter(func.lower(User.email) == email.strip().lower()).first()
    attendee = EventAttendee(event_id=event.id, user_id=user.id if user else None, email=user.email if user else email.strip().lower(), display_name=user.display_name if user else None, response_status="needsAction", is_optional=is_optional, is_organizer=False)
    session.add(attendee)
    session.flush()
    return attendee


@app.get("/api/me", response_model=UserResponse, summary="Get current user", description="Return the profile of the logged-in user, including their time zone.", tags=["users"], operation_id="get_current_user")
async def get_current_user():
    session = SessionLocal()
    user = session.query(User).filter(User.id == 1).first()
    result = build_user(session, user)
    session.close()
    return result


@app.get("/api/users/search", response_model=List[UserResponse], summary="Search people", description="Search the directory by name or email; use it to find a person's ID and email.", tags=["users"], operation_id="search_users")
async def search_users(q: str = Query(..., description="Text matched against name and email"), limit: int = Query(20, description="Maximum number of results", ge=1, le=100)):
    session = SessionLocal()
    pattern = f"%{q}%"
    users = session.query(User).filter(or_(User.display_name.ilike(pattern), User.email.ilike(pattern))).order_by(User.display_name, User.id).limit(limit).all()
    result = [build_user(session, user) for user in users]
    session.close()
    return result


@app.get("/api/me/settings", response_model=SettingsResponse, summary="Get my settings", description="Return the current user's calendar settings, including the account time zone.", tags=["settings"], operation_id="get_settings")
async def get_settings():
    session = SessionLocal()
    settings = session.query(UserSettings).filter(UserSettings.user_id == 1).first()
    result = SettingsResponse.model_validate(settings)
    session.close()
    return result


@app.patch("/api/me/settings", response_model=SettingsResponse, summary="Update my settings", description="Change the account time zone, week start, default event length, declined-event display, weekends or date format.", tags=["settings"], operation_id="update_settings")
async def update_settings(request: SettingsUpdateRequest):
    session = SessionLocal()
    settings = session.query(UserSettings).filter(UserSettings.user_id == 1).first()
    if request.time_zone is not None:
        settings.time_zone = request.time_zone
    if request.week_start is not None:
        settings.week_start = request.week_start
    if request.default_event_minutes is not None:
        settings.default_event_minutes = request.default_event_minutes
    if request.show_declined_events is not None:
        settings.show_declined_events = request.show_declined_events
    if request.show_weekends is not None:
        settings.show_weekends = request.show_weekends
    if request.date_format is not None:
        settings.date_format = request.date_format
    settings.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(settings)
    result = SettingsResponse.model_validate(settings)
    session.close()
    return result


@app.get("/api/colors", response_model=List[ColorResponse], summary="List colors", description="List the named colors; event colors apply to events and calendar colors to calendars.", tags=["settings"], operation_id="list_colors")
async def list_colors(kind: Optional[str] = Query(None, description="calendar or event", pattern="^(calendar|event)$")):
    session = SessionLocal()
    query = session.query(Color)
    if kind:
        query = query.filter(Color.kind == kind)
    colors = query.order_by(Color.id).all()
    result = [ColorResponse.model_validate(color) for color in colors]
    session.close()
    return result


@app.get("/api/me/calendars", response_model=List[CalendarListEntryResponse], summary="List my calendars", description="List the calendars in the current user's calendar list (owned and shared) with the user's access role.", tags=["calendars"], operation_id="list_my_calendars")
async def list_my_calendars(include_hidden: bool = Query(True, description="Include calendars hidden from the list")):
    session = SessionLocal()
    query = session.query(CalendarListEntry).filter(CalendarListEntry.user_id == 1)
    if not include_hidden:
        query = query.filter(CalendarListEntry.is_hidden == False)
    entries = query.order_by(CalendarListEntry.id).all()
    result = [build_list_entry(session, entry) for entry in entries]
    session.close()
    return result


@app.patch("/api/me/calendars/{calendar_id}", response_model=CalendarListEntryResponse, summary="Update a calendar list entry", description="Change how a calendar shows in the current user's list: color override, hidden, selected.", tags=["calendars"], operation_id="update_calendar_list_entry")
async def update_calendar_list_entry(request: CalendarListEntryUpdateRequest, calendar_id: int = Path(..., description="Calendar ID")):
    session = SessionLocal()
    entry = session.query(CalendarListEntry).filter(CalendarListEntry.user_id == 1, CalendarListEntry.calendar_id == calendar_id).first()
    if request.color_override_id is not None:
        color = session.query(Color).filter(Color.id == request.color_override_id, Color.kind == "calendar").first()
        entry.color_override_id = color.id
    if request.is_hidden is not None:
        entry.is_hidden = request.is_hidden
    if request.is_selected is not None:
        entry.is_selected = request.is_selected
    session.commit()
    result = build_list_entry(session, entry)
    session.close()
    return result


@app.post("/api/calendars", response_model=CalendarResponse, summary="Create a calendar", description="Create a secondary calendar owned by the current user and add it to their list.", tags=["calendars"], operation_id="create_calendar")
async def create_calendar(request: CalendarCreateRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    calendar = Calendar(owner_id=1, summary=request.summary, description=request.description, time_zone=request.time_zone or user_time_zone(session, 1), color_id=request.color_id, is_primary=False, created_at=now)
    session.add(calendar)
    session.flush()
    session.add(CalendarAcl(calendar_id=calendar.id, user_id=1, role="owner", created_at=now))
    session.add(CalendarListEntry(user_id=1, calendar_id=calendar.id, is_hidden=False, is_selected=True, added_at=now))
    session.commit()
    session.refresh(calendar)
    result = build_calendar(session, calendar)
    session.close()
    return result


@app.get("/api/calendars/{calendar_id}", response_model=CalendarResponse, summary="Get a calendar", description="Return a calendar's details, time zone, default reminders and the current user's role.", tags=["calendars"], operation_id="get_calendar")
async def get_calendar(calendar_id: int = Path(..., description="Calendar ID")):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.id.in_(calendar_ids_with_role(session, ["freeBusyReader", "reader", "writer", "owner"]))).first()
    result = build_calendar(session, calendar)
    session.close()
    return result


@app.patch("/api/calendars/{calendar_id}", response_model=CalendarResponse, summary="Update a calendar", description="Rename a calendar the current user owns or change its description, time zone or color.", tags=["calendars"], operation_id="update_calendar")
async def update_calendar(request: CalendarUpdateRequest, calendar_id: int = Path(..., description="Calendar ID")):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.owner_id == 1).first()
    if request.summary is not None:
        calendar.summary = request.summary
    if request.description is not None:
        calendar.description = request.description
    if request.time_zone is not None:
        calendar.time_zone = request.time_zone
    if request.color_id is not None:
        color = session.query(Color).filter(Color.id == request.color_id, Color.kind == "calendar").first()
        calendar.color_id = color.id
    session.commit()
    session.refresh(calendar)
    result = build_calendar(session, calendar)
    session.close()
    return result


@app.delete("/api/calendars/{calendar_id}", response_model=ActionResponse, summary="Delete a calendar", description="Delete a secondary calendar the current user owns, with all its events and sharing rules.", tags=["calendars"], operation_id="delete_calendar")
async def delete_calendar(calendar_id: int = Path(..., description="Calendar ID")):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.owner_id == 1, Calendar.is_primary == False).first()
    name = calendar.summary
    event_ids = [row.id for row in session.query(Event).filter(Event.calendar_id == calendar.id).all()]
    for model in [EventAttendee, Reminder, EventAttachment, RoomBooking, EventException, RecurrenceRule]:
        session.query(model).filter(model.event_id.in_(event_ids)).delete(synchronize_session=False)
    session.query(Event).filter(Event.calendar_id == calendar.id).delete(synchronize_session=False)
    for model in [CalendarAcl, CalendarListEntry, DefaultReminder]:
        session.query(model).filter(model.calendar_id == calendar.id).delete(synchronize_session=False)
    session.delete(calendar)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Calendar '{name}' deleted with {len(event_ids)} events")


@app.get("/api/calendars/{calendar_id}/acl", response_model=List[AclRuleResponse], summary="List sharing rules", description="List who a calendar the current user owns is shared with, and with which role.", tags=["sharing"], operation_id="list_calendar_acl")
async def list_calendar_acl(calendar_id: int = Path(..., description="Calendar ID")):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.owner_id == 1).first()
    rules = session.query(CalendarAcl).filter(CalendarAcl.calendar_id == calendar.id).order_by(CalendarAcl.id).all()
    result = [build_acl_rule(session, rule) for rule in rules]
    session.close()
    return result


@app.post("/api/calendars/{calendar_id}/acl", response_model=AclRuleResponse, summary="Share a calendar", description="Share a calendar the current user owns with a person; an existing rule for that person is updated.", tags=["sharing"], operation_id="share_calendar")
async def share_calendar(request: ShareCalendarRequest, calendar_id: int = Path(..., description="Calendar ID")):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.owner_id == 1).first()
    user = session.query(User).filter(func.lower(User.email) == request.email.strip().lower()).first()
    rule = session.query(CalendarAcl).filter(CalendarAcl.calendar_id == calendar.id, CalendarAcl.user_id == user.id).first()
    if rule is None:
        rule = CalendarAcl(calendar_id=calendar.id, user_id=user.id, role=request.role, created_at=datetime.utcnow())
        session.add(rule)
    else:
        rule.role = request.role
    if session.query(CalendarListEntry).filter(CalendarListEntry.user_id == user.id, CalendarListEntry.calendar_id == calendar.id).first() is None:
        session.add(CalendarListEntry(user_id=user.id, calendar_id=calendar.id, is_hidden=False, is_selected=True, added_at=datetime.utcnow()))
    session.commit()
    session.refresh(rule)
    result = build_acl_rule(session, rule)
    session.close()
    return result


@app.patch("/api/calendars/{calendar_id}/acl/{rule_id}", response_model=AclRuleResponse, summary="Change a sharing role", description="Change the role of one sharing rule on a calendar the current user owns.", tags=["sharing"], operation_id="update_acl_rule")
async def update_acl_rule(request: AclUpdateRequest, calendar_id: int = Path(..., description="Calendar ID"), rule_id: int = Path(..., description="ACL rule ID")):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.owner_id == 1).first()
    rule = session.query(CalendarAcl).filter(CalendarAcl.id == rule_id, CalendarAcl.calendar_id == calendar.id, CalendarAcl.user_id != calendar.owner_id).first()
    rule.role = request.role
    session.commit()
    session.refresh(rule)
    result = build_acl_rule(session, rule)
    session.close()
    return result


@app.delete("/api/calendars/{calendar_id}/acl/{rule_id}", response_model=ActionResponse, summary="Stop sharing with a person", description="Delete one sharing rule from a calendar the current user owns.", tags=["sharing"], operation_id="delete_acl_rule")
async def delete_acl_rule(calendar_id: int = Path(..., description="Calendar ID"), rule_id: int = Path(..., description="ACL rule ID")):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.owner_id == 1).first()
    rule = session.query(CalendarAcl).filter(CalendarAcl.id == rule_id, CalendarAcl.calendar_id == calendar.id, CalendarAcl.user_id != calendar.owner_id).first()
    user_id = rule.user_id
    session.delete(rule)
    session.query(CalendarListEntry).filter(CalendarListEntry.user_id == user_id, CalendarListEntry.calendar_id == calendar.id).delete(synchronize_session=False)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Calendar {calendar_id} is no longer shared with user {user_id}")


@app.get("/api/calendars/{calendar_id}/events", response_model=List[EventResponse], summary="List events of a calendar", description="List a calendar's events; with a window, single events overlapping it and series with an occurrence in it.", tags=["events"], operation_id="list_events")
async def list_events(calendar_id: int = Path(..., description="Calendar ID"), time_min: Optional[str] = Query(None, description="Window start, ISO 8601"), time_max: Optional[str] = Query(None, description="Window end, ISO 8601"), q: Optional[str] = Query(None, description="Text matched against title, description and location"), include_cancelled: bool = Query(False, description="Include cancelled events"), limit: int = Query(50, description="Maximum number of events", ge=1, le=200)):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.id.in_(readable_calendar_ids(session))).first()
    query = session.query(Event).filter(Event.calendar_id == calendar.id)
    if q:
        pattern = f"%{q}%"
        query = query.filter(or_(Event.title.ilike(pattern), Event.description.ilike(pattern), Event.location.ilike(pattern)))
    events = events_in_window(session, query.order_by(Event.start_time, Event.id).all(), time_min, time_max, include_cancelled)[:limit]
    result = [build_event(session, event) for event in events]
    session.close()
    return result


@app.post("/api/calendars/{calendar_id}/events", response_model=EventResponse, summary="Create an event", description="Create an event organized by the current user on a calendar they can write to, optionally inviting guests.", tags=["events"], operation_id="create_event")
async def create_event(request: EventCreateRequest, calendar_id: int = Path(..., description="Calendar ID")):
    session = SessionLocal()
    calendar = session.query(Calendar).filter(Calendar.id == calendar_id, Calendar.id.in_(writable_calendar_ids(session))).first()
    color = session.query(Color).filter(Color.id == request.color_id, Color.kind == "event").first() if request.color_id is not None else None
    now = datetime.utcnow()
    event = Event(calendar_id=calendar.id, organizer_id=1, title=request.title, description=request.description, location=request.location, start_time=normalize_time(request.start_time), end_time=normalize_time(request.end_time), time_zone=request.time_zone or calendar.time_zone, is_all_day=request.is_all_day, status="confirmed", visibility=request.visibility, transparency=request.transparency, event_type=request.event_type, color_id=color.id if request.color_id is not None else None, use_default_reminders=request.use_default_reminders, created_at=now, updated_at=now)
    session.add(event)
    session.flush()
    for email in request.attendee_emails or []:
        add_guest(session, event, email, False)
    session.commit()
    session.refresh(event)
    result = build_event(session, event)
    session.close()
    return result


@app.get("/api/events/search", response_model=List[EventResponse], summary="Search events", description="Search events on every calendar the current user can read and events they are invited to.", tags=["events"], operation_id="search_events")
async def search_events(q: Optional[str] = Query(None, description="Text matched against title, description and location"), time_min: Optional[str] = Query(None, description="Window start, ISO 8601"), time_max: Optional[str] = Query(None, description="Window end, ISO 8601"), include_cancelled: bool = Query(False, description="Include cancelled events"), limit: int = Query(25, description="Maximum number of events", ge=1, le=200)):
    session = SessionLocal()
    invited = [row.event_id for row in session.query(EventAttendee).filter(EventAttendee.user_id == 1).all()]
    query = session.query(Event).filter(or_(Event.calendar_id.in_(readable_calendar_ids(session)), Event.id.in_(invited)))
    if q:
        pattern = f"%{q}%"
        query = query.filter(or_(Event.title.ilike(pattern), Event.description.ilike(pattern), Event.location.ilike(pattern)))
    events = events_in_window(session, query.order_by(Event.start_time, Event.id).all(), time_min, time_max, include_cancelled)[:limit]
    result = [build_event(session, event) for event in events]
    session.close()
    return result


@app.get("/api/events/{event_id}", response_model=EventDetailResponse, summary="Get an event", description="Return an event with guests and RSVPs, booked rooms, attachments, instance exceptions and my reminders.", tags=["events"], operation_id="get_event")
async def get_event(event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = visible_event(session, event_id)
    base = build_event(session, event)
    attendees = session.query(EventAttendee).filter(EventAttendee.event_id == event.id).order_by(EventAttendee.is_organizer.desc(), EventAttendee.id).all()
    bookings = session.query(RoomBooking).filter(RoomBooking.event_id == event.id).order_by(RoomBooking.id).all()
    attachments = session.query(EventAttachment).filter(EventAttachment.event_id == event.id).order_by(EventAttachment.id).all()
    exceptions = session.query(EventException).filter(EventException.event_id == event.id).order_by(EventException.original_start).all()
    reminders = session.query(Reminder).filter(Reminder.event_id == event.id, Reminder.user_id == 1).order_by(Reminder.minutes_before).all()
    result = EventDetailResponse(
        **base.model_dump(),
        attendees=[build_attendee(attendee) for attendee in attendees],
        rooms=[build_booking(session, booking) for booking in bookings],
        attachments=[AttachmentResponse.model_validate(item) for item in attachments],
        exceptions=[ExceptionResponse.model_validate(item) for item in exceptions],
        my_reminders=[ReminderResponse.model_validate(item) for item in reminders],
    )
    session.close()
    return result


@app.patch("/api/events/{event_id}", response_model=EventResponse, summary="Update an event", description="Change an event's title, description, location, times, status, visibility, busy/free or color.", tags=["events"], operation_id="update_event")
async def update_event(request: EventUpdateRequest, event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    if request.title is not None:
        event.title = request.title
    if request.description is not None:
        event.description = request.description
    if request.location is not None:
        event.location = request.location
    if request.start_time is not None:
        event.start_time = normalize_time(request.start_time)
    if request.end_time is not None:
        event.end_time = normalize_time(request.end_time)
    if request.time_zone is not None:
        event.time_zone = request.time_zone
    if request.status is not None:
        event.status = request.status
    if request.visibility is not None:
        event.visibility = request.visibility
    if request.transparency is not None:
        event.transparency = request.transparency
    if request.color_id is not None:
        color = session.query(Color).filter(Color.id == request.color_id, Color.kind == "event").first()
        event.color_id = color.id
    if request.use_default_reminders is not None:
        event.use_default_reminders = request.use_default_reminders
    session.query(RoomBooking).filter(RoomBooking.event_id == event.id).update({RoomBooking.start_time: event.start_time, RoomBooking.end_time: event.end_time}, synchronize_session=False)
    event.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(event)
    result = build_event(session, event)
    session.close()
    return result


@app.delete("/api/events/{event_id}", response_model=ActionResponse, summary="Cancel an event", description="Cancel an event (all occurrences of a series) and release its rooms; guests see it as cancelled.", tags=["events"], operation_id="delete_event")
async def delete_event(event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    event.status = "cancelled"
    event.updated_at = datetime.utcnow()
    session.query(RoomBooking).filter(RoomBooking.event_id == event.id).update({RoomBooking.status: "cancelled"}, synchronize_session=False)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Event {event_id} cancelled")


@app.post("/api/events/{event_id}/move", response_model=EventResponse, summary="Move an event to another calendar", description="Move an event the current user organizes to another calendar they can write to.", tags=["events"], operation_id="move_event")
async def move_event(request: MoveEventRequest, event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = session.query(Event).filter(Event.id == event_id, Event.organizer_id == 1, Event.calendar_id.in_(writable_calendar_ids(session))).first()
    destination = session.query(Calendar).filter(Calendar.id == request.destination_calendar_id, Calendar.id.in_(writable_calendar_ids(session))).first()
    event.calendar_id = destination.id
    event.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(event)
    result = build_event(session, event)
    session.close()
    return result


@app.get("/api/events/{event_id}/instances", response_model=List[OccurrenceResponse], summary="List occurrences of an event", description="Expand a recurring event into its occurrences in a window, applying moved and cancelled instances.", tags=["recurrence"], operation_id="list_event_instances")
async def list_event_instances(event_id: int = Path(..., description="Event ID"), time_min: Optional[str] = Query(None, description="Window start, ISO 8601 (default: the series start)"), time_max: Optional[str] = Query(None, description="Window end, ISO 8601 (default: 60 days after the window start)"), include_cancelled: bool = Query(False, description="Include cancelled occurrences")):
    session = SessionLocal()
    event = visible_event(session, event_id)
    window_start = parse_time(normalize_time(time_min)) if time_min else parse_time(event.start_time)
    window_end = parse_time(normalize_time(time_max)) if time_max else window_start + timedelta(days=60)
    result = event_occurrences(session, event, window_start, window_end, include_cancelled)
    session.close()
    return result


@app.put("/api/events/{event_id}/recurrence", response_model=RecurrenceResponse, summary="Set an event's recurrence", description="Make an event repeat, or change how an existing series repeats.", tags=["recurrence"], operation_id="set_recurrence")
async def set_recurrence(request: RecurrenceRequest, event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    rule = session.query(RecurrenceRule).filter(RecurrenceRule.event_id == event.id).first()
    if rule is None:
        rule = RecurrenceRule(event_id=event.id)
        session.add(rule)
    rule.frequency = request.frequency
    rule.repeat_interval = request.repeat_interval
    rule.by_day = request.by_day if request.frequency == "WEEKLY" else None
    rule.until_date = request.until_date
    event.updated_at = datetime.utcnow()
    session.commit()
    result = RecurrenceResponse(frequency=rule.frequency, repeat_interval=rule.repeat_interval, by_day=rule.by_day, until_date=rule.until_date)
    session.close()
    return result


@app.post("/api/events/{event_id}/instances/cancel", response_model=ExceptionResponse, summary="Cancel one occurrence", description="Cancel a single occurrence of a recurring event; the rest of the series is kept.", tags=["recurrence"], operation_id="cancel_event_instance")
async def cancel_event_instance(request: CancelInstanceRequest, event_id: int = Path(..., description="Recurring event ID")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    key = normalize_time(request.original_start)
    moment = parse_time(key)
    rule = session.query(RecurrenceRule).filter(RecurrenceRule.event_id == event.id).first()
    occurrence = [item for item in event_occurrences(session, event, moment - timedelta(days=1), moment + timedelta(days=1), True) if rule is not None and item.original_start == key][0]
    exception = session.query(EventException).filter(EventException.event_id == event.id, EventException.original_start == occurrence.original_start).first()
    if exception is None:
        exception = EventException(event_id=event.id, original_start=occurrence.original_start, created_at=datetime.utcnow())
        session.add(exception)
    exception.exception_type = "cancelled"
    exception.new_start = None
    exception.new_end = None
    session.commit()
    session.refresh(exception)
    result = ExceptionResponse.model_validate(exception)
    session.close()
    return result


@app.post("/api/events/{event_id}/instances/reschedule", response_model=ExceptionResponse, summary="Reschedule one occurrence", description="Move a single occurrence of a recurring event to new times; the rest of the series is kept.", tags=["recurrence"], operation_id="reschedule_event_instance")
async def reschedule_event_instance(request: RescheduleInstanceRequest, event_id: int = Path(..., description="Recurring event ID")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    key = normalize_time(request.original_start)
    moment = parse_time(key)
    rule = session.query(RecurrenceRule).filter(RecurrenceRule.event_id == event.id).first()
    occurrence = [item for item in event_occurrences(session, event, moment - timedelta(days=1), moment + timedelta(days=1), True) if rule is not None and item.original_start == key][0]
    exception = session.query(EventException).filter(EventException.event_id == event.id, EventException.original_start == occurrence.original_start).first()
    if exception is None:
        exception = EventException(event_id=event.id, original_start=occurrence.original_start, created_at=datetime.utcnow())
        session.add(exception)
    exception.exception_type = "modified"
    exception.new_start = normalize_time(request.new_start)
    exception.new_end = normalize_time(request.new_end)
    session.commit()
    session.refresh(exception)
    result = ExceptionResponse.model_validate(exception)
    session.close()
    return result


@app.get("/api/events/{event_id}/attendees", response_model=List[AttendeeResponse], summary="List guests", description="List an event's guests with their RSVP status, organizer first.", tags=["guests"], operation_id="list_attendees")
async def list_attendees(event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = visible_event(session, event_id)
    attendees = session.query(EventAttendee).filter(EventAttendee.event_id == event.id).order_by(EventAttendee.is_organizer.desc(), EventAttendee.id).all()
    result = [build_attendee(attendee) for attendee in attendees]
    session.close()
    return result


@app.post("/api/events/{event_id}/attendees", response_model=AttendeeResponse, summary="Invite a guest", description="Invite a person to an event by email; their RSVP starts as needsAction.", tags=["guests"], operation_id="add_attendee")
async def add_attendee(request: AddAttendeeRequest, event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    attendee = add_guest(session, event, request.email, request.is_optional)
    event.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(attendee)
    result = build_attendee(attendee)
    session.close()
    return result


@app.delete("/api/events/{event_id}/attendees/{attendee_id}", response_model=ActionResponse, summary="Remove a guest", description="Remove a guest (not the organizer) from an event.", tags=["guests"], operation_id="remove_attendee")
async def remove_attendee(event_id: int = Path(..., description="Event ID"), attendee_id: int = Path(..., description="Attendee record ID (not the user ID)")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    attendee = session.query(EventAttendee).filter(EventAttendee.id == attendee_id, EventAttendee.event_id == event.id, EventAttendee.is_organizer == False).first()
    email = attendee.email
    session.delete(attendee)
    event.updated_at = datetime.utcnow()
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"{email} removed from event {event_id}")


@app.put("/api/events/{event_id}/rsvp", response_model=AttendeeResponse, summary="RSVP to an event", description="Accept, decline or tentatively accept an event the current user is invited to.", tags=["guests"], operation_id="respond_to_event")
async def respond_to_event(request: RsvpRequest, event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    attendee = session.query(EventAttendee).filter(EventAttendee.event_id == event_id, EventAttendee.user_id == 1).first()
    attendee.response_status = request.response_status
    if request.comment is not None:
        attendee.comment = request.comment
    attendee.responded_at = datetime.utcnow()
    session.commit()
    session.refresh(attendee)
    result = build_attendee(attendee)
    session.close()
    return result


@app.get("/api/me/invitations", response_model=List[EventResponse], summary="List my invitations", description="List events organized by others that the current user is invited to, with the user's RSVP.", tags=["guests"], operation_id="list_my_invitations")
async def list_my_invitations(response_status: Optional[str] = Query(None, description="needsAction, accepted, declined or tentative", pattern="^(needsAction|accepted|declined|tentative)$"), time_min: Optional[str] = Query(None, description="Window start, ISO 8601"), time_max: Optional[str] = Query(None, description="Window end, ISO 8601"), include_cancelled: bool = Query(False, description="Include cancelled events")):
    session = SessionLocal()
    query = session.query(EventAttendee).filter(EventAttendee.user_id == 1, EventAttendee.is_organizer == False)
    if response_status:
        query = query.filter(EventAttendee.response_status == response_status)
    event_ids = [row.event_id for row in query.all()]
    candidates = session.query(Event).filter(Event.id.in_(event_ids), Event.organizer_id != 1).order_by(Event.start_time, Event.id).all()
    events = events_in_window(session, candidates, time_min, time_max, include_cancelled)
    result = [build_event(session, event) for event in events]
    session.close()
    return result


@app.get("/api/events/{event_id}/reminders", response_model=List[ReminderResponse], summary="List my reminders on an event", description="List the current user's own reminders on an event.", tags=["reminders"], operation_id="list_event_reminders")
async def list_event_reminders(event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = visible_event(session, event_id)
    reminders = session.query(Reminder).filter(Reminder.event_id == event.id, Reminder.user_id == 1).order_by(Reminder.minutes_before, Reminder.id).all()
    result = [ReminderResponse.model_validate(item) for item in reminders]
    session.close()
    return result


@app.post("/api/events/{event_id}/reminders", response_model=ReminderResponse, summary="Add a reminder", description="Add a popup or email reminder for the current user on an event.", tags=["reminders"], operation_id="add_reminder")
async def add_reminder(request: ReminderCreateRequest, event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = visible_event(session, event_id)
    reminder = Reminder(event_id=event.id, user_id=1, method=request.method, minutes_before=request.minutes_before)
    session.add(reminder)
    session.commit()
    session.refresh(reminder)
    result = ReminderResponse.model_validate(reminder)
    session.close()
    return result


@app.delete("/api/reminders/{reminder_id}", response_model=ActionResponse, summary="Delete a reminder", description="Delete one of the current user's reminders.", tags=["reminders"], operation_id="delete_reminder")
async def delete_reminder(reminder_id: int = Path(..., description="Reminder ID")):
    session = SessionLocal()
    reminder = session.query(Reminder).filter(Reminder.id == reminder_id, Reminder.user_id == 1).first()
    if reminder is None:
        session.close()
        return ActionResponse(success=False, message=f"Reminder {reminder_id} not found")
    session.delete(reminder)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Reminder {reminder_id} deleted")


@app.get("/api/buildings", response_model=List[BuildingResponse], summary="List buildings", description="List office buildings with their city and time zone.", tags=["rooms"], operation_id="list_buildings")
async def list_buildings():
    session = SessionLocal()
    buildings = session.query(Building).order_by(Building.id).all()
    result = [BuildingResponse(id=building.id, name=building.name, address=building.address, city=building.city, time_zone=building.time_zone, resource_count=session.query(Resource).filter(Resource.building_id == building.id).count()) for building in buildings]
    session.close()
    return result


@app.get("/api/rooms", response_model=List[RoomResponse], summary="Search rooms", description="Find rooms and equipment by building, capacity and video; with a window, only those free for all of it.", tags=["rooms"], operation_id="search_rooms")
async def search_rooms(building_id: Optional[int] = Query(None, description="Building ID"), min_capacity: Optional[int] = Query(None, description="Minimum seats", ge=1), has_video: Optional[bool] = Query(None, description="Require (true) or exclude (false) video equipment"), resource_type: Optional[str] = Query(None, description="room or equipment", pattern="^(room|equipment)$"), available_from: Optional[str] = Query(None, description="Free from this time, ISO 8601 (use with available_to)"), available_to: Optional[str] = Query(None, description="Free until this time, ISO 8601"), limit: int = Query(50, description="Maximum number of results", ge=1, le=200)):
    session = SessionLocal()
    query = session.query(Resource)
    if building_id is not None:
        query = query.filter(Resource.building_id == building_id)
    if min_capacity is not None:
        query = query.filter(Resource.capacity >= min_capacity)
    if has_video is not None:
        query = query.filter(Resource.has_video == has_video)
    if resource_type:
        query = query.filter(Resource.resource_type == resource_type)
    resources = query.order_by(Resource.building_id, Resource.name).all()
    if available_from and available_to:
        start, end = normalize_time(available_from), normalize_time(available_to)
        resources = [resource for resource in resources if room_is_free(session, resource.id, start, end)]
    result = [build_room(session, resource) for resource in resources[:limit]]
    session.close()
    return result


@app.get("/api/rooms/{room_id}/bookings", response_model=List[RoomBookingResponse], summary="Get a room's schedule", description="List a room's bookings in a window, in time order; cancelled and declined ones only on request.", tags=["rooms"], operation_id="get_room_schedule")
async def get_room_schedule(room_id: int = Path(..., description="Room or equipment ID"), time_min: Optional[str] = Query(None, description="Window start, ISO 8601"), time_max: Optional[str] = Query(None, description="Window end, ISO 8601"), include_inactive: bool = Query(False, description="Include cancelled and declined bookings")):
    session = SessionLocal()
    query = session.query(RoomBooking).join(Event, Event.id == RoomBooking.event_id).filter(RoomBooking.resource_id == room_id)
    if not include_inactive:
        query = query.filter(RoomBooking.status == "accepted", Event.status != "cancelled")
    if time_min:
        query = query.filter(RoomBooking.end_time > normalize_time(time_min))
    if time_max:
        query = query.filter(RoomBooking.start_time < normalize_time(time_max))
    bookings = query.order_by(RoomBooking.start_time, RoomBooking.id).all()
    result = [build_booking(session, booking) for booking in bookings]
    session.close()
    return result


@app.post("/api/events/{event_id}/rooms", response_model=RoomBookingResponse, summary="Book a room for an event", description="Book a room or equipment for the event's time; the room declines (status declined) if already booked.", tags=["rooms"], operation_id="book_room")
async def book_room(request: BookRoomRequest, event_id: int = Path(..., description="Event ID")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    resource = session.query(Resource).filter(Resource.id == request.room_id).first()
    status = "accepted" if room_is_free(session, resource.id, event.start_time, event.end_time, event.id) else "declined"
    existing = session.query(RoomBooking).filter(RoomBooking.resource_id == resource.id, RoomBooking.event_id == event.id).first()
    if existing is not None:
        result = build_booking(session, existing)
        session.close()
        return result
    booking = RoomBooking(resource_id=resource.id, event_id=event.id, start_time=event.start_time, end_time=event.end_time, status=status, booked_by=1, created_at=datetime.utcnow())
    session.add(booking)
    session.commit()
    session.refresh(booking)
    result = build_booking(session, booking)
    session.close()
    return result


@app.delete("/api/events/{event_id}/rooms/{room_id}", response_model=ActionResponse, summary="Release a room", description="Remove a room or equipment booking from an event.", tags=["rooms"], operation_id="release_room")
async def release_room(event_id: int = Path(..., description="Event ID"), room_id: int = Path(..., description="Room or equipment ID")):
    session = SessionLocal()
    event = editable_event(session, event_id)
    deleted = session.query(RoomBooking).filter(RoomBooking.event_id == event.id, RoomBooking.resource_id == room_id).delete(synchronize_session=False)
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Room {room_id} released from event {event_id}" if deleted else f"Room {room_id} was not booked for event {event_id}")


@app.post("/api/freebusy", response_model=List[FreeBusyResponse], summary="Query free/busy", description="Return when each person is busy in a window (accepted or unanswered events, own events, out of office).", tags=["availability"], operation_id="query_free_busy")
async def query_free_busy(request: FreeBusyRequest):
    session = SessionLocal()
    window_start = parse_time(normalize_time(request.time_min))
    window_end = parse_time(normalize_time(request.time_max))
    result = []
    for email in request.emails:
        user = session.query(User).filter(func.lower(User.email) == email.strip().lower()).first()
        result.append(FreeBusyResponse(user_id=user.id, email=user.email, display_name=user.display_name, time_zone=user_time_zone(session, user.id), busy=busy_intervals(session, user, window_start, window_end)))
    session.close()
    return result


@app.get("/api/users/{user_id}/working-hours", response_model=WorkingHoursResponse, summary="Get working hours", description="Return a person's weekly working hours, expressed in their own time zone.", tags=["availability"], operation_id="get_working_hours")
async def get_working_hours(user_id: int = Path(..., description="User ID")):
    session = SessionLocal()
    user = session.query(User).filter(User.id == user_id).first()
    result = build_working_hours(session, user)
    session.close()
    return result


@app.put("/api/me/working-hours/{day_of_week}", response_model=WorkingHoursResponse, summary="Set my working hours for a day", description="Set the current user's working hours for one weekday (1 Monday ... 7 Sunday).", tags=["availability"], operation_id="set_working_hours")
async def set_working_hours(request: WorkingDayRequest, day_of_week: int = Path(..., description="1 Monday ... 7 Sunday", ge=1, le=7)):
    session = SessionLocal()
    day = session.query(WorkingHours).filter(WorkingHours.user_id == 1, WorkingHours.day_of_week == day_of_week).first()
    if day is None:
        day = WorkingHours(user_id=1, day_of_week=day_of_week)
        session.add(day)
    day.start_time = request.start_time
    day.end_time = request.end_time
    session.commit()
    user = session.query(User).filter(User.id == 1).first()
    result = build_working_hours(session, user)
    session.close()
    return result


@app.get("/api/users/{user_id}/out-of-office", response_model=List[OutOfOfficeResponse], summary="List out-of-office periods", description="List a person's out-of-office periods in start order, optionally only those ending after a time.", tags=["availability"], operation_id="list_out_of_office")
async def list_out_of_office(user_id: int = Path(..., description="User ID"), ends_after: Optional[str] = Query(None, description="Only periods ending after this time, ISO 8601")):
    session = SessionLocal()
    query = session.query(OutOfOffice).filter(OutOfOffice.user_id == user_id)
    if ends_after:
        query = query.filter(OutOfOffice.end_time > normalize_time(ends_after))
    periods = query.order_by(OutOfOffice.start_time, OutOfOffice.id).all()
    result = [OutOfOfficeResponse.model_validate(period) for period in periods]
    session.close()
    return result


@app.post("/api/me/out-of-office", response_model=OutOfOfficeResponse, summary="Create an out-of-office period", description="Mark the current user out of office; only invitations arriving later are auto-declined.", tags=["availability"], operation_id="create_out_of_office")
async def create_out_of_office(request: OutOfOfficeCreateRequest):
    session = SessionLocal()
    period = OutOfOffice(user_id=1, start_time=normalize_time(request.start_time), end_time=normalize_time(request.end_time), message=request.message, auto_decline=request.auto_decline, created_at=datetime.utcnow())
    session.add(period)
    session.commit()
    session.refresh(period)
    result = OutOfOfficeResponse.model_validate(period)
    session.close()
    return result


@app.delete("/api/me/out-of-office/{ooo_id}", response_model=ActionResponse, summary="Delete an out-of-office period", description="Delete one of the current user's out-of-office periods.", tags=["availability"], operation_id="delete_out_of_office")
async def delete_out_of_office(ooo_id: int = Path(..., description="Out-of-office ID")):
    session = SessionLocal()
    deleted = session.query(OutOfOffice).filter(OutOfOffice.id == ooo_id, OutOfOffice.user_id == 1).delete(synchronize_session=False)
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Out-of-office {ooo_id} deleted" if deleted else f"Out-of-office {ooo_id} not found")


if __name__ == "__main__":
    import uvicorn
    host = os.getenv("HOST", "127.0.0.1")
    port = int(os.getenv("PORT", "8000"))
    uvicorn.run(app, host=host, port=port)
