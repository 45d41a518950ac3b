import os
from datetime import datetime, timedelta
from typing import List, Optional

from fastapi import FastAPI, Query, Path
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Text, Boolean, Float, DateTime, ForeignKey, UniqueConstraint, func, or_
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///expedia.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class LoyaltyTier(Base):
    __tablename__ = "loyalty_tiers"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)
    points_per_dollar = Column(Integer, nullable=False)
    min_qualifying_nights = Column(Integer, nullable=False, default=0)
    perks = Column(Text)


class Airport(Base):
    __tablename__ = "airports"
    id = Column(Integer, primary_key=True)
    iata_code = Column(String, nullable=False, unique=True)
    name = Column(String, nullable=False)
    city = Column(String, nullable=False)
    country = Column(String, nullable=False)
    timezone = Column(String, nullable=False)


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    email = Column(String, nullable=False, unique=True)
    first_name = Column(String, nullable=False)
    last_name = Column(String, nullable=False)
    phone = Column(String)
    home_airport_id = Column(Integer, ForeignKey("airports.id"))
    loyalty_tier_id = Column(Integer, ForeignKey("loyalty_tiers.id"), nullable=False)
    points_balance = Column(Integer, nullable=False, default=0)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Traveler(Base):
    __tablename__ = "travelers"
    __table_args__ = (UniqueConstraint("user_id", "first_name", "last_name", "date_of_birth"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    first_name = Column(String, nullable=False)
    last_name = Column(String, nullable=False)
    date_of_birth = Column(String, nullable=False)
    relationship = Column(String, nullable=False)
    passport_number = Column(String)
    passport_country = Column(String)
    passport_expiry = Column(String)
    known_traveler_number = Column(String)


class PaymentMethod(Base):
    __tablename__ = "payment_methods"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    card_brand = Column(String, nullable=False)
    last4 = Column(String, nullable=False)
    expiry_month = Column(Integer, nullable=False)
    expiry_year = Column(Integer, nullable=False)
    cardholder_name = Column(String, nullable=False)
    nickname = Column(String)
    is_default = Column(Boolean, nullable=False, default=False)


class Airline(Base):
    __tablename__ = "airlines"
    id = Column(Integer, primary_key=True)
    iata_code = Column(String, nullable=False, unique=True)
    name = Column(String, nullable=False)
    alliance = Column(String)
    checked_bag_fee_cents = Column(Integer, nullable=False, default=0)


class Flight(Base):
    __tablename__ = "flights"
    __table_args__ = (UniqueConstraint("flight_number", "departure_time"),)
    id = Column(Integer, primary_key=True)
    airline_id = Column(Integer, ForeignKey("airlines.id"), nullable=False)
    flight_number = Column(String, nullable=False)
    origin_airport_id = Column(Integer, ForeignKey("airports.id"), nullable=False)
    destination_airport_id = Column(Integer, ForeignKey("airports.id"), nullable=False)
    departure_time = Column(DateTime, nullable=False)
    arrival_time = Column(DateTime, nullable=False)
    duration_minutes = Column(Integer, nullable=False)
    aircraft = Column(String)
    status = Column(String, nullable=False, default="scheduled")


class FlightFare(Base):
    __tablename__ = "flight_fares"
    __table_args__ = (UniqueConstraint("flight_id", "cabin", "fare_class"),)
    id = Column(Integer, primary_key=True)
    flight_id = Column(Integer, ForeignKey("flights.id"), nullable=False)
    cabin = Column(String, nullable=False)
    fare_class = Column(String, nullable=False)
    price_cents = Column(Integer, nullable=False)
    seats_available = Column(Integer, nullable=False)
    refundable = Column(Boolean, nullable=False, default=False)
    change_fee_cents = Column(Integer, nullable=False, default=0)
    checked_bags_included = Column(Integer, nullable=False, default=0)


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("flight_id", "seat_number"),)
    id = Column(Integer, primary_key=True)
    flight_id = Column(Integer, ForeignKey("flights.id"), nullable=False)
    seat_number = Column(String, nullable=False)
    cabin = Column(String, nullable=False)
    seat_type = Column(String, nullable=False)
    extra_legroom = Column(Boolean, nullable=False, default=False)
    is_occupied = Column(Boolean, nullable=False, default=False)


class Hotel(Base):
    __tablename__ = "hotels"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)
    city = Column(String, nullable=False)
    country = Column(String, nullable=False)
    address = Column(String, nullable=False)
    star_rating = Column(Integer, nullable=False)
    guest_rating = Column(Float, nullable=False)
    chain = Column(String)
    amenities = Column(Text)
    check_in_time = Column(String, nullable=False, default="15:00")
    check_out_time = Column(String, nullable=False, default="11:00")


class RoomType(Base):
    __tablename__ = "room_types"
    __table_args__ = (UniqueConstraint("hotel_id", "name"),)
    id = Column(Integer, primary_key=True)
    hotel_id = Column(Integer, ForeignKey("hotels.id"), nullable=False)
    name = Column(String, nullable=False)
    bed_configuration = Column(String, nullable=False)
    max_occupancy = Column(Integer, nullable=False)
    nightly_rate_cents = Column(Integer, nullable=False)
    refundable = Column(Boolean, nullable=False, default=True)
    rooms_available = Column(Integer, nullable=False)


class RentalCar(Base):
    __tablename__ = "rental_cars"
    id = Column(Integer, primary_key=True)
    company = Column(String, nullable=False)
    airport_id = Column(Integer, ForeignKey("airports.id"), nullable=False)
    car_class = Column(String, nullable=False)
    model = Column(String, nullable=False)
    seats = Column(Integer, nullable=False)
    transmission = Column(String, nullable=False)
    daily_rate_cents = Column(Integer, nullable=False)
    units_available = Column(Integer, nullable=False)


class Itinerary(Base):
    __tablename__ = "itineraries"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    name = Column(String, nullable=False)
    status = Column(String, nullable=False, default="planning")
    start_date = Column(String)
    end_date = Column(String)
    notes = Column(Text)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Booking(Base):
    __tablename__ = "bookings"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    itinerary_id = Column(Integer, ForeignKey("itineraries.id"))
    booking_type = Column(String, nullable=False)
    confirmation_code = Column(String, nullable=False, unique=True)
    status = Column(String, nullable=False, default="confirmed")
    total_cents = Column(Integer, nullable=False)
    points_redeemed = Column(Integer, nullable=False, default=0)
    cash_paid_cents = Column(Integer, nullable=False)
    points_earned = Column(Integer, nullable=False, default=0)
    payment_method_id = Column(Integer, ForeignKey("payment_methods.id"))
    booked_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    cancelled_at = Column(DateTime)


class FlightBooking(Base):
    __tablename__ = "flight_bookings"
    id = Column(Integer, primary_key=True)
    booking_id = Column(Integer, ForeignKey("bookings.id"), nullable=False, unique=True)
    flight_id = Column(Integer, ForeignKey("flights.id"), nullable=False)
    fare_id = Column(Integer, ForeignKey("flight_fares.id"), nullable=False)


class BookingPassenger(Base):
    __tablename__ = "booking_passengers"
    __table_args__ = (UniqueConstraint("booking_id", "traveler_id"),)
    id = Column(Integer, primary_key=True)
    booking_id = Column(Integer, ForeignKey("bookings.id"), nullable=False)
    traveler_id = Column(Integer, ForeignKey("travelers.id"), nullable=False)
    seat_id = Column(Integer, ForeignKey("seats.id"), unique=True)


class HotelBooking(Base):
    __tablename__ = "hotel_bookings"
    id = Column(Integer, primary_key=True)
    booking_id = Column(Integer, ForeignKey("bookings.id"), nullable=False, unique=True)
    room_type_id = Column(Integer, ForeignKey("room_types.id"), nullable=False)
    check_in = Column(String, nullable=False)
    check_out = Column(String, nullable=False)
    rooms = Column(Integer, nullable=False, default=1)
    guests = Column(Integer, nullable=False)
    special_requests = Column(Text)


class CarBooking(Base):
    __tablename__ = "car_bookings"
    id = Column(Integer, primary_key=True)
    booking_id = Column(Integer, ForeignKey("bookings.id"), nullable=False, unique=True)
    car_id = Column(Integer, ForeignKey("rental_cars.id"), nullable=False)
    pickup_date = Column(String, nullable=False)
    dropoff_date = Column(String, nullable=False)
    driver_traveler_id = Column(Integer, ForeignKey("travelers.id"), nullable=False)


class Refund(Base):
    __tablename__ = "refunds"
    id = Column(Integer, primary_key=True)
    booking_id = Column(Integer, ForeignKey("bookings.id"), nullable=False)
    amount_cents = Column(Integer, nullable=False)
    method = Column(String, nullable=False)
    status = Column(String, nullable=False, default="processed")
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class TravelCredit(Base):
    __tablename__ = "travel_credits"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    airline_id = Column(Integer, ForeignKey("airlines.id"), nullable=False)
    source_booking_id = Column(Integer, ForeignKey("bookings.id"))
    amount_cents = Column(Integer, nullable=False)
    expires_on = Column(String, nullable=False)
    status = Column(String, nullable=False, default="active")
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class LoyaltyTransaction(Base):
    __tablename__ = "loyalty_transactions"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    booking_id = Column(Integer, ForeignKey("bookings.id"))
    points = Column(Integer, nullable=False)
    kind = Column(String, nullable=False)
    description = Column(String, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Review(Base):
    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("user_id", "booking_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    hotel_id = Column(Integer, ForeignKey("hotels.id"), nullable=False)
    booking_id = Column(Integer, ForeignKey("bookings.id"))
    rating = Column(Integer, nullable=False)
    title = Column(String, nullable=False)
    body = Column(Text, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class SavedTrip(Base):
    __tablename__ = "saved_trips"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    name = Column(String, nullable=False)
    destination_city = Column(String)
    notes = Column(Text)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class SavedTripItem(Base):
    __tablename__ = "saved_trip_items"
    id = Column(Integer, primary_key=True)
    saved_trip_id = Column(Integer, ForeignKey("saved_trips.id"), nullable=False)
    item_type = Column(String, nullable=False)
    hotel_id = Column(Integer, ForeignKey("hotels.id"))
    flight_id = Column(Integer, ForeignKey("flights.id"))
    note = Column(Text)
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class PriceAlert(Base):
    __tablename__ = "price_alerts"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    origin_airport_id = Column(Integer, ForeignKey("airports.id"), nullable=False)
    destination_airport_id = Column(Integer, ForeignKey("airports.id"), nullable=False)
    cabin = Column(String, nullable=False, default="economy")
    max_price_cents = Column(Integer, nullable=False)
    is_active = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


Base.metadata.create_all(bind=engine)


class UserResponse(BaseModel):
    id: int = Field(..., description="User ID", example=1)
    email: str = Field(..., description="Email address", example="maya.thompson@example.com")
    first_name: str = Field(..., description="First name", example="Maya")
    last_name: str = Field(..., description="Last name", example="Thompson")
    phone: Optional[str] = Field(None, description="Phone number", example="+1-617-555-0142")
    home_airport_code: Optional[str] = Field(None, description="IATA code of the home airport", example="BOS")
    loyalty_tier: str = Field(..., description="Loyalty tier: blue, silver, gold or platinum", example="gold")
    points_balance: int = Field(..., description="Loyalty points available (1 point = 1 cent)", example=48250)
    created_at: datetime = Field(..., description="Member since", example="2017-06-03T10:15:00")


class TravelerResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Traveler ID", example=2)
    first_name: str = Field(..., description="First name as on the passport", example="Daniel")
    last_name: str = Field(..., description="Last name as on the passport", example="Thompson")
    date_of_birth: str = Field(..., description="Date of birth (YYYY-MM-DD)", example="1986-11-02")
    relationship: str = Field(..., description="self, spouse, child, parent, sibling, friend, colleague or other", example="spouse")
    passport_number: Optional[str] = Field(None, description="Passport number", example="X5502841")
    passport_country: Optional[str] = Field(None, description="Passport issuing country", example="US")
    passport_expiry: Optional[str] = Field(None, description="Passport expiry date (YYYY-MM-DD)", example="2029-09-15")
    known_traveler_number: Optional[str] = Field(None, description="Known Traveler Number", example="TT8812345")


class PaymentMethodResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Payment method ID", example=1)
    card_brand: str = Field(..., description="visa, mastercard, amex or discover", example="visa")
    last4: str = Field(..., description="Last four digits", example="4242")
    expiry_month: int = Field(..., description="Expiry month", example=8)
    expiry_year: int = Field(..., description="Expiry year", example=2028)
    cardholder_name: str = Field(..., description="Name on the card", example="Maya Thompson")
    nickname: Optional[str] = Field(None, description="Card nickname", example="Travel Visa")
    is_default: bool = Field(..., description="Whether this is the default card", example=False)


class LoyaltySummaryResponse(BaseModel):
    tier: str = Field(..., description="Current tier", example="gold")
    points_per_dollar: int = Field(..., description="Points earned per whole US dollar paid in cash", example=3)
    points_balance: int = Field(..., description="Points available (1 point = 1 cent)", example=48250)
    lifetime_points_earned: int = Field(..., description="Sum of all earn transactions", example=47409)
    perks: Optional[str] = Field(None, description="Tier perks", example="Room upgrades when available")
    next_tier: Optional[str] = Field(None, description="Next tier, if any", example="platinum")


class LoyaltyTransactionResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Transaction ID", example=20)
    booking_id: Optional[int] = Field(None, description="Related booking ID", example=5)
    points: int = Field(..., description="Points added (positive) or removed (negative)", example=867)
    kind: str = Field(..., description="earn, redeem, refund, reversal or bonus", example="earn")
    description: str = Field(..., description="What the transaction was for", example="Flight MR410 BOS-ORD")
    created_at: datetime = Field(..., description="When it was posted", example="2025-12-02T14:20:00")


class TravelCreditResponse(BaseModel):
    id: int = Field(..., description="Travel credit ID", example=1)
    airline_code: str = Field(..., description="Airline the credit can be used with", example="SB")
    airline_name: str = Field(..., description="Airline name", example="SkyBridge Airways")
    source_booking_id: Optional[int] = Field(None, description="Booking the credit came from", example=2)
    amount_cents: int = Field(..., description="Credit amount in US cents", example=5000)
    expires_on: str = Field(..., description="Expiry date (YYYY-MM-DD)", example="2026-08-18")
    status: str = Field(..., description="active, used or expired", example="active")


class AirportResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Airport ID", example=1)
    iata_code: str = Field(..., description="Three-letter IATA code", example="BOS")
    name: str = Field(..., description="Airport name", example="Boston Logan International Airport")
    city: str = Field(..., description="City served", example="Boston")
    country: str = Field(..., description="Country code", example="US")
    timezone: str = Field(..., description="IANA time zone", example="America/New_York")


class AirlineResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Airline ID", example=3)
    iata_code: str = Field(..., description="Two-letter airline code", example="AT")
    name: str = Field(..., description="Airline name", example="Atlantic Star Airlines")
    alliance: Optional[str] = Field(None, description="Alliance", example="Horizon Alliance")
    checked_bag_fee_cents: int = Field(..., description="Fee per checked bag beyond the fare allowance, in cents", example=3500)


class FlightResponse(BaseModel):
    id: int = Field(..., description="Flight ID", example=6)
    flight_number: str = Field(..., description="Flight number including the airline code", example="AT515")
    airline_code: str = Field(..., description="Airline code", example="AT")
    airline_name: str = Field(..., description="Airline name", example="Atlantic Star Airlines")
    origin: str = Field(..., description="Origin airport code", example="SFO")
    origin_city: str = Field(..., description="Origin city", example="San Francisco")
    destination: str = Field(..., description="Destination airport code", example="JFK")
    destination_city: str = Field(..., description="Destination city", example="New York")
    departure_time: datetime = Field(..., description="Local departure time", example="2026-02-12T10:30:00")
    arrival_time: datetime = Field(..., description="Local arrival time", example="2026-02-12T19:02:00")
    duration_minutes: int = Field(..., description="Flight duration in minutes", example=332)
    aircraft: Optional[str] = Field(None, description="Aircraft type", example="Boeing 757-200")
    status: str = Field(..., description="scheduled, delayed, cancelled, departed or landed", example="scheduled")
    lowest_fare_cents: Optional[int] = Field(None, description="Cheapest fare with seats left (in the requested cabin, if any), in cents", example=27900)


class FareResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Fare ID (used to book)", example=15)
    flight_id: int = Field(..., description="Flight ID", example=6)
    cabin: str = Field(..., description="economy, premium_economy, business or first", example="business")
    fare_class: str = Field(..., description="basic (no refund, no changes), standard (no refund, change fee) or flex (refundable)", example="flex")
    price_cents: int = Field(..., description="Price per passenger in US cents", example=89900)
    seats_available: int = Field(..., description="Seats left at this fare", example=2)
    refundable: bool = Field(..., description="Whether the fare is refundable to the original payment", example=True)
    change_fee_cents: int = Field(..., description="Change fee per passenger in cents", example=0)
    checked_bags_included: int = Field(..., description="Checked bags included per passenger", example=2)


class SeatResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Seat ID", example=4)
    seat_number: str = Field(..., description="Seat number", example="20B")
    cabin: str = Field(..., description="Cabin of the seat", example="premium_economy")
    seat_type: str = Field(..., description="window, middle or aisle", example="middle")
    extra_legroom: bool = Field(..., description="Whether the seat has extra legroom", example=True)
    is_occupied: bool = Field(..., description="Whether the seat is taken", example=False)


class HotelResponse(BaseModel):
    id: int = Field(..., description="Hotel ID", example=2)
    name: str = Field(..., description="Hotel name", example="Hotel Baixa Lisboa")
    city: str = Field(..., description="City", example="Lisbon")
    country: str = Field(..., description="Country code", example="PT")
    address: str = Field(..., description="Street address", example="Rua Augusta 140, Lisbon")
    star_rating: int = Field(..., description="Official star rating (1-5)", example=4)
    guest_rating: float = Field(..., description="Average guest rating out of 10", example=9.4)
    chain: Optional[str] = Field(None, description="Hotel chain", example=None)
    amenities: Optional[str] = Field(None, description="Comma-separated amenities", example="breakfast, wifi, bar")
    check_in_time: str = Field(..., description="Check-in time", example="14:00")
    check_out_time: str = Field(..., description="Check-out time", example="11:00")
    lowest_nightly_rate_cents: Optional[int] = Field(None, description="Cheapest nightly room rate in cents", example=9900)


class RoomTypeResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Room type ID (used to book)", example=6)
    hotel_id: int = Field(..., description="Hotel ID", example=2)
    name: str = Field(..., description="Room type name", example="Standard Double Flexible")
    bed_configuration: str = Field(..., description="Beds", example="1 double")
    max_occupancy: int = Field(..., description="Maximum guests per room", example=2)
    nightly_rate_cents: int = Field(..., description="Price per room per night in cents", example=16800)
    refundable: bool = Field(..., description="Whether a cancellation is refunded", example=True)
    rooms_available: int = Field(..., description="Rooms left", example=5)


class ReviewResponse(BaseModel):
    id: int = Field(..., description="Review ID", example=1)
    hotel_id: int = Field(..., description="Hotel ID", example=5)
    reviewer_name: str = Field(..., description="Reviewer first name and last initial", example="Tom B.")
    booking_id: Optional[int] = Field(None, description="Stay being reviewed", example=26)
    rating: int = Field(..., description="Rating from 1 to 10", example=8)
    title: str = Field(..., description="Review title", example="Cozy and convenient")
    body: str = Field(..., description="Review body", example="Small room but a great location near the ferries.")
    created_at: datetime = Field(..., description="When the review was posted", example="2025-07-04T18:00:00")


class CarResponse(BaseModel):
    id: int = Field(..., description="Rental car ID (used to book)", example=2)
    company: str = Field(..., description="Rental company", example="Summit Rentals")
    airport_code: str = Field(..., description="Pick-up airport code", example="DEN")
    car_class: str = Field(..., description="economy, compact, midsize, suv, luxury or minivan", example="suv")
    model: str = Field(..., description="Car model or similar", example="Toyota RAV4")
    seats: int = Field(..., description="Number of seats", example=5)
    transmission: str = Field(..., description="automatic or manual", example="automatic")
    daily_rate_cents: int = Field(..., description="Price per day in cents", example=7200)
    units_available: int = Field(..., description="Cars of this kind still available", example=3)


class BookingSummaryResponse(BaseModel):
    id: int = Field(..., description="Booking ID", example=5)
    confirmation_code: str = Field(..., description="Confirmation code", example="CH26F1")
    booking_type: str = Field(..., description="flight, hotel or car", example="flight")
    status: str = Field(..., description="confirmed, cancelled or completed", example="confirmed")
    itinerary_id: Optional[int] = Field(None, description="Itinerary the booking belongs to", example=2)
    total_cents: int = Field(..., description="Total price in cents (cash plus points)", example=28900)
    points_earned: int = Field(..., description="Loyalty points earned by the booking", example=867)
    booked_at: datetime = Field(..., description="When the booking was made", example="2025-12-02T14:20:00")


class PassengerResponse(BaseModel):
    traveler_id: int = Field(..., description="Traveler ID", example=1)
    first_name: str = Field(..., description="First name", example="Maya")
    last_name: str = Field(..., description="Last name", example="Thompson")
    seat_number: Optional[str] = Field(None, description="Assigned seat, if any", example="12A")


class FlightBookingDetail(BaseModel):
    flight: FlightResponse = Field(..., description="The flight", example={"id": 3, "flight_number": "MR410"})
    fare: FareResponse = Field(..., description="The fare booked", example={"id": 4, "cabin": "economy"})
    passengers: List[PassengerResponse] = Field(..., description="Passengers on the booking", example=[{"traveler_id": 1, "seat_number": "12A"}])


class HotelBookingDetail(BaseModel):
    hotel_id: int = Field(..., description="Hotel ID", example=12)
    hotel_name: str = Field(..., description="Hotel name", example="Lakeshore Conference Hotel")
    city: str = Field(..., description="City", example="Chicago")
    room_type_id: int = Field(..., description="Room type ID", example=22)
    room_name: str = Field(..., description="Room type name", example="Deluxe King Flexible")
    refundable: bool = Field(..., description="Whether cancellation is refunded", example=True)
    check_in: str = Field(..., description="Check-in date (YYYY-MM-DD)", example="2026-01-26")
    check_out: str = Field(..., description="Check-out date (YYYY-MM-DD)", example="2026-01-29")
    nights: int = Field(..., description="Number of nights", example=3)
    rooms: int = Field(..., description="Number of rooms", example=1)
    guests: int = Field(..., description="Number of guests", example=1)
    special_requests: Optional[str] = Field(None, description="Requests sent to the hotel", example="Quiet room")


class CarBookingDetail(BaseModel):
    car: CarResponse = Field(..., description="The rental car", example={"id": 8, "model": "Toyota Camry"})
    pickup_date: str = Field(..., description="Pick-up date (YYYY-MM-DD)", example="2026-01-26")
    dropoff_date: str = Field(..., description="Drop-off date (YYYY-MM-DD)", example="2026-01-29")
    days: int = Field(..., description="Rental days", example=3)
    driver_traveler_id: int = Field(..., description="Traveler ID of the driver", example=1)
    driver_name: str = Field(..., description="Driver name", example="Maya Thompson")


class RefundResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Refund ID", example=1)
    booking_id: int = Field(..., description="Booking refunded", example=13)
    amount_cents: int = Field(..., description="Refunded amount in cents", example=176000)
    method: str = Field(..., description="original_payment or travel_credit", example="original_payment")
    status: str = Field(..., description="pending or processed", example="processed")
    created_at: datetime = Field(..., description="When the refund was issued", example="2025-10-16T08:20:00")


class BookingDetailResponse(BaseModel):
    id: int = Field(..., description="Booking ID", example=7)
    confirmation_code: str = Field(..., description="Confirmation code", example="CH26H1")
    booking_type: str = Field(..., description="flight, hotel or car", example="hotel")
    status: str = Field(..., description="confirmed, cancelled or completed", example="confirmed")
    itinerary_id: Optional[int] = Field(None, description="Itinerary ID", example=2)
    itinerary_name: Optional[str] = Field(None, description="Itinerary name", example="Chicago Conference")
    total_cents: int = Field(..., description="Total price in cents", example=65700)
    points_redeemed: int = Field(..., description="Points applied to the price", example=0)
    cash_paid_cents: int = Field(..., description="Amount charged to the card in cents", example=65700)
    points_earned: int = Field(..., description="Loyalty points earned", example=1971)
    payment_card: Optional[str] = Field(None, description="Card charged", example="amex ending 1005")
    booked_at: datetime = Field(..., description="When the booking was made", example="2025-12-03T09:10:00")
    cancelled_at: Optional[datetime] = Field(None, description="When it was cancelled", example=None)
    flight: Optional[FlightBookingDetail] = Field(None, description="Flight details for flight bookings", example=None)
    hotel: Optional[HotelBookingDetail] = Field(None, description="Stay details for hotel bookings", example={"hotel_name": "Lakeshore Conference Hotel", "nights": 3})
    car: Optional[CarBookingDetail] = Field(None, description="Rental details for car bookings", example=None)
    refunds: List[RefundResponse] = Field(..., description="Refunds issued for this booking", example=[])


class CancellationResponse(BaseModel):
    booking_id: int = Field(..., description="Booking ID", example=7)
    confirmation_code: str = Field(..., description="Confirmation code", example="CH26H1")
    status: str = Field(..., description="Booking status after the request", example="cancelled")
    refund_cents: int = Field(..., description="Amount refunded in cents", example=65700)
    refund_method: str = Field(..., description="original_payment, travel_credit or none", example="original_payment")
    points_returned: int = Field(..., description="Redeemed points given back", example=0)
    points_reversed: int = Field(..., description="Earned points taken back", example=1971)
    message: str = Field(..., description="Human-readable result", example="Booking CH26H1 cancelled")


class ItineraryResponse(BaseModel):
    id: int = Field(..., description="Itinerary ID", example=2)
    name: str = Field(..., description="Itinerary name", example="Chicago Conference")
    status: str = Field(..., description="planning, booked, completed or cancelled", example="booked")
    start_date: Optional[str] = Field(None, description="First day (YYYY-MM-DD)", example="2026-01-26")
    end_date: Optional[str] = Field(None, description="Last day (YYYY-MM-DD)", example="2026-01-29")
    notes: Optional[str] = Field(None, description="Notes", example="RetailTech Summit")
    booking_count: int = Field(..., description="Number of bookings in the itinerary", example=5)
    created_at: datetime = Field(..., description="Created at", example="2025-11-18T09:00:00")


class ItineraryDetailResponse(BaseModel):
    id: int = Field(..., description="Itinerary ID", example=2)
    name: str = Field(..., description="Itinerary name", example="Chicago Conference")
    status: str = Field(..., description="planning, booked, completed or cancelled", example="booked")
    start_date: Optional[str] = Field(None, description="First day (YYYY-MM-DD)", example="2026-01-26")
    end_date: Optional[str] = Field(None, description="Last day (YYYY-MM-DD)", example="2026-01-29")
    notes: Optional[str] = Field(None, description="Notes", example="RetailTech Summit")
    created_at: datetime = Field(..., description="Created at", example="2025-11-18T09:00:00")
    bookings: List[BookingSummaryResponse] = Field(..., description="Bookings in the itinerary, any status", example=[{"id": 5, "confirmation_code": "CH26F1"}])


class SavedTripItemResponse(BaseModel):
    id: int = Field(..., description="Saved item ID", example=4)
    item_type: str = Field(..., description="hotel or flight", example="hotel")
    hotel_id: Optional[int] = Field(None, description="Saved hotel ID", example=1)
    hotel_name: Optional[str] = Field(None, description="Saved hotel name", example="Alfama Grand Hotel")
    flight_id: Optional[int] = Field(None, description="Saved flight ID", example=None)
    flight_number: Optional[str] = Field(None, description="Saved flight number", example=None)
    note: Optional[str] = Field(None, description="Note", example="Splurge option")
    added_at: datetime = Field(..., description="When it was saved", example="2025-12-18T22:12:00")


class SavedTripResponse(BaseModel):
    id: int = Field(..., description="Saved trip ID", example=3)
    name: str = Field(..., description="Saved trip name", example="Lisbon Shortlist")
    destination_city: Optional[str] = Field(None, description="Destination city", example="Lisbon")
    notes: Optional[str] = Field(None, description="Notes", example=None)
    created_at: datetime = Field(..., description="Created at", example="2025-12-18T22:10:00")
    items: List[SavedTripItemResponse] = Field(..., description="Saved hotels and flights", example=[{"id": 4, "item_type": "hotel"}])


class PriceAlertResponse(BaseModel):
    id: int = Field(..., description="Price alert ID", example=1)
    origin: str = Field(..., description="Origin airport code", example="BOS")
    destination: str = Field(..., description="Destination airport code", example="SEA")
    cabin: str = Field(..., description="Cabin watched", example="economy")
    max_price_cents: int = Field(..., description="Alert when a fare drops to this price or below, in cents", example=25000)
    is_active: bool = Field(..., description="Whether the alert is active", example=True)
    created_at: datetime = Field(..., description="Created at", example="2025-04-10T08:00:00")


class ActionResponse(BaseModel):
    success: bool = Field(..., description="Whether the action succeeded", example=True)
    message: str = Field(..., description="Human-readable result", example="Saved trip 1 deleted")


class TravelerCreateRequest(BaseModel):
    first_name: str = Field(..., description="First name as on the passport", example="Emma")
    last_name: str = Field(..., description="Last name as on the passport", example="Thompson")
    date_of_birth: str = Field(..., description="Date of birth (YYYY-MM-DD)", example="2016-05-14", pattern=r"^\d{4}-\d{2}-\d{2}$")
    relationship: str = Field(..., description="self, spouse, child, parent, sibling, friend, colleague or other", example="child", pattern="^(self|spouse|child|parent|sibling|friend|colleague|other)$")
    passport_number: Optional[str] = Field(None, description="Passport number", example=None)
    passport_country: Optional[str] = Field(None, description="Passport issuing country code", example=None)
    passport_expiry: Optional[str] = Field(None, description="Passport expiry (YYYY-MM-DD)", example=None)
    known_traveler_number: Optional[str] = Field(None, description="Known Traveler Number", example=None)


class TravelerUpdateRequest(BaseModel):
    first_name: Optional[str] = Field(None, description="New first name", example=None)
    last_name: Optional[str] = Field(None, description="New last name", example=None)
    passport_number: Optional[str] = Field(None, description="New passport number", example="P98765432")
    passport_country: Optional[str] = Field(None, description="New passport country code", example="US")
    passport_expiry: Optional[str] = Field(None, description="New passport expiry (YYYY-MM-DD)", example="2035-08-31")
    known_traveler_number: Optional[str] = Field(None, description="New Known Traveler Number", example=None)


class FlightBookingRequest(BaseModel):
    fare_id: int = Field(..., description="Fare to book (from list_flight_fares)", example=29)
    traveler_ids: List[int] = Field(..., description="Saved traveler IDs of every passenger", example=[1, 2], min_length=1)
    payment_method_id: Optional[int] = Field(None, description="Card to charge; the default card when omitted", example=1)
    itinerary_id: Optional[int] = Field(None, description="Itinerary to file the booking under", example=4)
    points_to_redeem: int = Field(0, description="Loyalty points to apply (1 point = 1 cent)", example=0, ge=0)


class HotelBookingRequest(BaseModel):
    room_type_id: int = Field(..., description="Room type to book (from list_room_types)", example=6)
    check_in: str = Field(..., description="Check-in date (YYYY-MM-DD)", example="2026-03-10", pattern=r"^\d{4}-\d{2}-\d{2}$")
    check_out: str = Field(..., description="Check-out date (YYYY-MM-DD)", example="2026-03-13", pattern=r"^\d{4}-\d{2}-\d{2}$")
    rooms: int = Field(1, description="Number of rooms", example=1, ge=1)
    guests: int = Field(..., description="Number of guests", example=2, ge=1)
    payment_method_id: Optional[int] = Field(None, description="Card to charge; the default card when omitted", example=3)
    itinerary_id: Optional[int] = Field(None, description="Itinerary to file the booking under", example=None)
    points_to_redeem: int = Field(0, description="Loyalty points to apply (1 point = 1 cent)", example=15000, ge=0)
    special_requests: Optional[str] = Field(None, description="Requests for the hotel", example=None)


class CarBookingRequest(BaseModel):
    car_id: int = Field(..., description="Rental car to book (from search_cars)", example=2)
    pickup_date: str = Field(..., description="Pick-up date (YYYY-MM-DD)", example="2026-02-20", pattern=r"^\d{4}-\d{2}-\d{2}$")
    dropoff_date: str = Field(..., description="Drop-off date (YYYY-MM-DD)", example="2026-02-24", pattern=r"^\d{4}-\d{2}-\d{2}$")
    driver_traveler_id: int = Field(..., description="Saved traveler ID of the driver", example=2)
    payment_method_id: Optional[int] = Field(None, description="Card to charge; the default card when omitted", example=3)
    itinerary_id: Optional[int] = Field(None, description="Itinerary to file the booking under", example=4)
    points_to_redeem: int = Field(0, description="Loyalty points to apply (1 point = 1 cent)", example=0, ge=0)


class SeatAssignRequest(BaseModel):
    traveler_id: int = Field(..., description="Passenger to seat", example=1)
    seat_number: str = Field(..., description="Seat number on the booked flight", example="20B")


class HotelBookingUpdateRequest(BaseModel):
    special_requests: Optional[str] = Field(None, description="New requests for the hotel", example="Late arrival around 23:00")
    guests: Optional[int] = Field(None, description="New number of guests", example=2, ge=1)


class BookingItineraryRequest(BaseModel):
    itinerary_id: Optional[int] = Field(None, description="Itinerary to move the booking to; null removes it from any itinerary", example=4)


class ItineraryCreateRequest(BaseModel):
    name: str = Field(..., description="Itinerary name", example="Kyoto Autumn")
    start_date: Optional[str] = Field(None, description="First day (YYYY-MM-DD)", example="2026-11-02", pattern=r"^\d{4}-\d{2}-\d{2}$")
    end_date: Optional[str] = Field(None, description="Last day (YYYY-MM-DD)", example="2026-11-09", pattern=r"^\d{4}-\d{2}-\d{2}$")
    notes: Optional[str] = Field(None, description="Notes", example=None)


class ItineraryUpdateRequest(BaseModel):
    name: Optional[str] = Field(None, description="New name", example=None)
    status: Optional[str] = Field(None, description="planning, booked, completed or cancelled", example="cancelled", pattern="^(planning|booked|completed|cancelled)$")
    start_date: Optional[str] = Field(None, description="New first day (YYYY-MM-DD)", example=None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    end_date: Optional[str] = Field(None, description="New last day (YYYY-MM-DD)", example=None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    notes: Optional[str] = Field(None, description="New notes", example=None)


class SavedTripCreateRequest(BaseModel):
    name: str = Field(..., description="Saved trip name", example="Kyoto Ideas")
    destination_city: Optional[str] = Field(None, description="Destination city", example="Kyoto")
    notes: Optional[str] = Field(None, description="Notes", example=None)


class SavedTripItemRequest(BaseModel):
    hotel_id: Optional[int] = Field(None, description="Hotel to save", example=7)
    flight_id: Optional[int] = Field(None, description="Flight to save (used when hotel_id is omitted)", example=None)
    note: Optional[str] = Field(None, description="Note", example=None)


class ReviewCreateRequest(BaseModel):
    booking_id: int = Field(..., description="Completed hotel booking being reviewed", example=3)
    rating: int = Field(..., description="Rating from 1 to 10", example=9, ge=1, le=10)
    title: str = Field(..., description="Review title", example="Great harbor views")
    body: str = Field(..., description="Review body", example="Friendly staff and a quiet room.")


class PriceAlertCreateRequest(BaseModel):
    origin_code: str = Field(..., description="Origin airport IATA code", example="BOS")
    destination_code: str = Field(..., description="Destination airport IATA code", example="SFO")
    cabin: str = Field("economy", description="economy, premium_economy, business or first", example="economy", pattern="^(economy|premium_economy|business|first)$")
    max_price_cents: int = Field(..., description="Alert threshold in cents", example=35000, ge=1)


app = FastAPI(
    title="Expedia API",
    description="Travel booking for the logged-in member: flights with fares and seats, hotels, rental cars, itineraries, cancellations and refunds, loyalty points, saved trips, reviews and price alerts.",
    version="1.0.0",
)


def build_user(session, user):
    airport = session.query(Airport).filter(Airport.id == user.home_airport_id).first()
    tier = session.query(LoyaltyTier).filter(LoyaltyTier.id == user.loyalty_tier_id).first()
    return UserResponse(
        id=user.id,
        email=user.email,
        first_name=user.first_name,
        last_name=user.last_name,
        phone=user.phone,
        home_airport_code=airport.iata_code if airport else None,
        loyalty_tier=tier.name,
        points_balance=user.points_balance,
        created_at=user.created_at,
    )


def build_flight(session, flight, cabin=None):
    airline = session.query(Airline).filter(Airline.id == flight.airline_id).first()
    origin = session.query(Airport).filter(Airport.id == flight.origin_airport_id).first()
    destination = session.query(Airport).filter(Airport.id == flight.destination_airport_id).first()
    fares = session.query(func.min(FlightFare.price_cents)).filter(FlightFare.flight_id == flight.id, FlightFare.seats_available > 0)
    if cabin:
        fares = fares.filter(FlightFare.cabin == cabin)
    return FlightResponse(
        id=flight.id,
        flight_number=flight.flight_number,
        airline_code=airline.iata_code,
        airline_name=airline.name,
        origin=origin.iata_code,
        origin_city=origin.city,
        destination=destination.iata_code,
        destination_city=destination.city,
        departure_time=flight.departure_time,
        arrival_time=flight.arrival_time,
        duration_minutes=flight.duration_minutes,
        aircraft=flight.aircraft,
        status=flight.status,
        lowest_fare_cents=fares.scalar(),
    )


def build_hotel(session, hotel):
    lowest = session.query(func.min(RoomType.nightly_rate_cents)).filter(RoomType.hotel_id == hotel.id).scalar()
    return HotelResponse(
        id=hotel.id,
        name=hotel.name,
        city=hotel.city,
        country=hotel.country,
        address=hotel.address,
        star_rating=hotel.star_rating,
        guest_rating=hotel.guest_rating,
        chain=hotel.chain,
        amenities=hotel.amenities,
        check_in_time=hotel.check_in_time,
        check_out_time=hotel.check_out_time,
        lowest_nightly_rate_cents=lowest,
    )


def build_car(session, car):
    airport = session.query(Airport).filter(Airport.id == car.airport_id).first()
    return CarResponse(
        id=car.id,
        company=car.company,
        airport_code=airport.iata_code,
        car_class=car.car_class,
        model=car.model,
        seats=car.seats,
        transmission=car.transmission,
        daily_rate_cents=car.daily_rate_cents,
        units_available=car.units_available,
    )


def build_review(session, review):
    user = session.query(User).filter(User.id == review.user_id).first()
    return ReviewResponse(
        id=review.id,
        hotel_id=review.hotel_id,
        reviewer_name=f"{user.first_name} {user.last_name[:1]}.",
        booking_id=review.booking_id,
        rating=review.rating,
        title=review.title,
        body=review.body,
        created_at=review.created_at,
    )


def build_booking_summary(booking):
    return BookingSummaryResponse(
        id=booking.id,
        confirmation_code=booking.confirmation_code,
        booking_type=booking.booking_type,
        status=booking.status,
        itinerary_id=booking.itinerary_id,
        total_cents=booking.total_cents,
        points_earned=booking.points_earned,
        booked_at=booking.booked_at,
    )


def build_passengers(session, booking_id):
    entries = session.query(BookingPassenger).filter(BookingPassenger.booking_id == booking_id).order_by(BookingPassenger.id).all()
    result = []
    for entry in entries:
        traveler = session.query(Traveler).filter(Traveler.id == entry.traveler_id).first()
        seat = session.query(Seat).filter(Seat.id == entry.seat_id).first() if entry.seat_id else None
        result.append(PassengerResponse(traveler_id=traveler.id, first_name=traveler.first_name, last_name=traveler.last_name, seat_number=seat.seat_number if seat else None))
    return result


def build_booking_detail(session, booking):
    itinerary = session.query(Itinerary).filter(Itinerary.id == booking.itinerary_id).first() if booking.itinerary_id else None
    card = session.query(PaymentMethod).filter(PaymentMethod.id == booking.payment_method_id).first() if booking.payment_method_id else None
    flight_detail = None
    hotel_detail = None
    car_detail = None
    if booking.booking_type == "flight":
        flight_booking = session.query(FlightBooking).filter(FlightBooking.booking_id == booking.id).first()
        flight = session.query(Flight).filter(Flight.id == flight_booking.flight_id).first()
        fare = session.query(FlightFare).filter(FlightFare.id == flight_booking.fare_id).first()
        flight_detail = FlightBookingDetail(flight=build_flight(session, flight), fare=FareResponse.model_validate(fare), passengers=build_passengers(session, booking.id))
    if booking.booking_type == "hotel":
        stay = session.query(HotelBooking).filter(HotelBooking.booking_id == booking.id).first()
        room = session.query(RoomType).filter(RoomType.id == stay.room_type_id).first()
        hotel = session.query(Hotel).filter(Hotel.id == room.hotel_id).first()
        nights = (datetime.strptime(stay.check_out, "%Y-%m-%d") - datetime.strptime(stay.check_in, "%Y-%m-%d")).days
        hotel_detail = HotelBookingDetail(hotel_id=hotel.id, hotel_name=hotel.name, city=hotel.city, room_type_id=room.id, room_name=room.name, refundable=room.refundable, check_in=stay.check_in, check_out=stay.check_out, nights=nights, rooms=stay.rooms, guests=stay.guests, special_requests=stay.special_requests)
    if booking.booking_type == "car":
        rental = session.query(CarBooking).filter(CarBooking.booking_id == booking.id).first()
        car = session.query(RentalCar).filter(RentalCar.id == rental.car_id).first()
        driver = session.query(Traveler).filter(Traveler.id == rental.driver_traveler_id).first()
        days = (datetime.strptime(rental.dropoff_date, "%Y-%m-%d") - datetime.strptime(rental.pickup_date, "%Y-%m-%d")).days
        car_detail = CarBookingDetail(car=build_car(session, car), pickup_date=rental.pickup_date, dropoff_date=rental.dropoff_date, days=days, driver_traveler_id=driver.id, driver_name=f"{driver.first_name} {driver.last_name}")
    refunds = session.query(Refund).filter(Refund.booking_id == booking.id).order_by(Refund.id).all()
    return BookingDetailResponse(
        id=booking.id,
        confirmation_code=booking.confirmation_code,
        booking_type=booking.booking_type,
        status=booking.status,
        itinerary_id=booking.itinerary_id,
        itinerary_name=itinerary.name if itinerary else None,
        total_cents=booking.total_cents,
        points_redeemed=booking.points_redeemed,
        cash_paid_cents=booking.cash_paid_cents,
        points_earned=booking.points_earned,
        payment_card=f"{card.card_brand} ending {card.last4}" if card else None,
        booked_at=booking.booked_at,
        cancelled_at=booking.cancelled_at,
        flight=flight_detail,
        hotel=hotel_detail,
        car=car_detail,
        refunds=[RefundResponse.model_validate(refund) for refund in refunds],
    )


def build_itinerary(session, itinerary):
    count = session.query(func.count(Booking.id)).filter(Booking.itinerary_id == itinerary.id).scalar()
    return ItineraryResponse(id=itinerary.id, name=itinerary.name, status=itinerary.status, start_date=itinerary.start_date, end_date=itinerary.end_date, notes=itinerary.notes, booking_count=count, created_at=itinerary.created_at)


def build_saved_trip(session, trip):
    items = session.query(SavedTripItem).filter(SavedTripItem.saved_trip_id == trip.id).order_by(SavedTripItem.id).all()
    result = []
    for item in items:
        hotel = session.query(Hotel).filter(Hotel.id == item.hotel_id).first() if item.hotel_id else None
        flight = session.query(Flight).filter(Flight.id == item.flight_id).first() if item.flight_id else None
        result.append(SavedTripItemResponse(id=item.id, item_type=item.item_type, hotel_id=item.hotel_id, hotel_name=hotel.name if hotel else None, flight_id=item.flight_id, flight_number=flight.flight_number if flight else None, note=item.note, added_at=item.added_at))
    return SavedTripResponse(id=trip.id, name=trip.name, destination_city=trip.destination_city, notes=trip.notes, created_at=trip.created_at, items=result)


def build_price_alert(session, alert):
    origin = session.query(Airport).filter(Airport.id == alert.origin_airport_id).first()
    destination = session.query(Airport).filter(Airport.id == alert.destination_airport_id).first()
    return PriceAlertResponse(id=alert.id, origin=origin.iata_code, destination=destination.iata_code, cabin=alert.cabin, max_price_cents=alert.max_price_cents, is_active=alert.is_active, created_at=alert.created_at)


def create_booking(session, booking_type, total_cents, payment_method_id, itinerary_id, points_to_redeem, description):
    user = session.query(User).filter(User.id == 1).first()
    tier = session.query(LoyaltyTier).filter(LoyaltyTier.id == user.loyalty_tier_id).first()
    if payment_method_id is not None:
        card = session.query(PaymentMethod).filter(PaymentMethod.id == payment_method_id, PaymentMethod.user_id == 1).first()
    else:
        card = session.query(PaymentMethod).filter(PaymentMethod.user_id == 1, PaymentMethod.is_default == True).first()
    itinerary = None
    if itinerary_id is not None:
        itinerary = session.query(Itinerary).filter(Itinerary.id == itinerary_id, Itinerary.user_id == 1).first()
    redeemed = min(points_to_redeem, user.points_balance, total_cents)
    cash = total_cents - redeemed
    earned = (cash // 100) * tier.points_per_dollar
    next_id = (session.query(func.max(Booking.id)).scalar() or 0) + 1
    now = datetime.utcnow()
    booking = Booking(user_id=1, itinerary_id=itinerary.id if itinerary else None, booking_type=booking_type, confirmation_code=f"EXP{next_id:05d}", status="confirmed", total_cents=total_cents, points_redeemed=redeemed, cash_paid_cents=cash, points_earned=earned, payment_method_id=card.id, booked_at=now)
    session.add(booking)
    session.flush()
    if redeemed > 0:
        session.add(LoyaltyTransaction(user_id=1, booking_id=booking.id, points=-redeemed, kind="redeem", description=f"Points applied to booking {booking.confirmation_code}", created_at=now))
    if earned > 0:
        session.add(LoyaltyTransaction(user_id=1, booking_id=booking.id, points=earned, kind="earn", description=description, created_at=now))
    user.points_balance = user.points_balance - redeemed + earned
    return booking


@app.get("/api/me", response_model=UserResponse, summary="Get my profile", description="Return the logged-in member's profile, loyalty tier and points balance.", tags=["account"], operation_id="get_current_user")
async def get_current_user():
    session = SessionLocal()
    user = session.query(User).filter(User.id == 1).first()
    result = build_user(session, user)
    session.close()
    return result


@app.get("/api/me/travelers", response_model=List[TravelerResponse], summary="List my saved travelers", description="List the traveler profiles saved on the account, including the member's own.", tags=["account"], operation_id="list_travelers")
async def list_travelers():
    session = SessionLocal()
    travelers = session.query(Traveler).filter(Traveler.user_id == 1).order_by(Traveler.id).all()
    result = [TravelerResponse.model_validate(traveler) for traveler in travelers]
    session.close()
    return result


@app.post("/api/me/travelers", response_model=TravelerResponse, summary="Add a traveler", description="Save a new traveler profile (name, date of birth, relationship, passport) on the account.", tags=["account"], operation_id="add_traveler")
async def add_traveler(request: TravelerCreateRequest):
    session = SessionLocal()
    existing = session.query(Traveler).filter(Traveler.user_id == 1, Traveler.first_name == request.first_name, Traveler.last_name == request.last_name, Traveler.date_of_birth == request.date_of_birth).first()
    if existing is not None:
        result = TravelerResponse.model_validate(existing)
        session.close()
        return result
    traveler = Traveler(user_id=1, first_name=request.first_name, last_name=request.last_name, date_of_birth=request.date_of_birth, relationship=request.relationship, passport_number=request.passport_number, passport_country=request.passport_country, passport_expiry=request.passport_expiry, known_traveler_number=request.known_traveler_number)
    session.add(traveler)
    session.commit()
    session.refresh(traveler)
    result = TravelerResponse.model_validate(traveler)
    session.close()
    return result


@app.patch("/api/me/travelers/{traveler_id}", response_model=TravelerResponse, summary="Update a traveler", description="Change the name, passport details or Known Traveler Number of a saved traveler.", tags=["account"], operation_id="update_traveler")
async def update_traveler(request: TravelerUpdateRequest, traveler_id: int = Path(..., description="Traveler ID")):
    session = SessionLocal()
    traveler = session.query(Traveler).filter(Traveler.id == traveler_id, Traveler.user_id == 1).first()
    if request.first_name is not None:
        traveler.first_name = request.first_name
    if request.last_name is not None:
        traveler.last_name = request.last_name
    if request.passport_number is not None:
        traveler.passport_number = request.passport_number
    if request.passport_country is not None:
        traveler.passport_country = request.passport_country
    if request.passport_expiry is not None:
        traveler.passport_expiry = request.passport_expiry
    if request.known_traveler_number is not None:
        traveler.known_traveler_number = request.known_traveler_number
    session.commit()
    session.refresh(traveler)
    result = TravelerResponse.model_validate(traveler)
    session.close()
    return result


@app.get("/api/me/payment-methods", response_model=List[PaymentMethodResponse], summary="List my payment cards", description="List the cards saved on the account and which one is the default.", tags=["account"], operation_id="list_payment_methods")
async def list_payment_methods():
    session = SessionLocal()
    cards = session.query(PaymentMethod).filter(PaymentMethod.user_id == 1).order_by(PaymentMethod.id).all()
    result = [PaymentMethodResponse.model_validate(card) for card in cards]
    session.close()
    return result


@app.get("/api/me/loyalty", response_model=LoyaltySummaryResponse, summary="Get my loyalty summary", description="Return the member's tier, earn rate per dollar, points balance and lifetime points earned.", tags=["loyalty"], operation_id="get_loyalty_summary")
async def get_loyalty_summary():
    session = SessionLocal()
    user = session.query(User).filter(User.id == 1).first()
    tier = session.query(LoyaltyTier).filter(LoyaltyTier.id == user.loyalty_tier_id).first()
    next_tier = session.query(LoyaltyTier).filter(LoyaltyTier.points_per_dollar > tier.points_per_dollar).order_by(LoyaltyTier.points_per_dollar).first()
    lifetime = session.query(func.coalesce(func.sum(LoyaltyTransaction.points), 0)).filter(LoyaltyTransaction.user_id == 1, LoyaltyTransaction.kind == "earn").scalar()
    result = LoyaltySummaryResponse(tier=tier.name, points_per_dollar=tier.points_per_dollar, points_balance=user.points_balance, lifetime_points_earned=lifetime, perks=tier.perks, next_tier=next_tier.name if next_tier else None)
    session.close()
    return result


@app.get("/api/me/loyalty/transactions", response_model=List[LoyaltyTransactionResponse], summary="List my loyalty transactions", description="List points earned, redeemed, returned and reversed, newest first.", tags=["loyalty"], operation_id="list_loyalty_transactions")
async def list_loyalty_transactions(kind: Optional[str] = Query(None, description="Filter by earn, redeem, refund, reversal or bonus"), limit: int = Query(50, description="Maximum number of transactions", ge=1, le=200)):
    session = SessionLocal()
    query = session.query(LoyaltyTransaction).filter(LoyaltyTransaction.user_id == 1)
    if kind:
        query = query.filter(LoyaltyTransaction.kind == kind)
    transactions = query.order_by(LoyaltyTransaction.created_at.desc(), LoyaltyTransaction.id.desc()).limit(limit).all()
    result = [LoyaltyTransactionResponse.model_validate(item) for item in transactions]
    session.close()
    return result


@app.get("/api/me/travel-credits", response_model=List[TravelCreditResponse], summary="List my travel credits", description="List airline travel credits from cancelled non-refundable flights and goodwill gestures.", tags=["loyalty"], operation_id="list_travel_credits")
async def list_travel_credits():
    session = SessionLocal()
    credits = session.query(TravelCredit).filter(TravelCredit.user_id == 1).order_by(TravelCredit.id).all()
    result = []
    for credit in credits:
        airline = session.query(Airline).filter(Airline.id == credit.airline_id).first()
        result.append(TravelCreditResponse(id=credit.id, airline_code=airline.iata_code, airline_name=airline.name, source_booking_id=credit.source_booking_id, amount_cents=credit.amount_cents, expires_on=credit.expires_on, status=credit.status))
    session.close()
    return result


@app.get("/api/airports/search", response_model=List[AirportResponse], summary="Search airports", description="Find airports by IATA code, city or name.", tags=["flights"], operation_id="search_airports")
async def search_airports(q: str = Query(..., description="Text matched against code, city and airport name")):
    session = SessionLocal()
    pattern = f"%{q}%"
    airports = session.query(Airport).filter(or_(Airport.iata_code.ilike(pattern), Airport.city.ilike(pattern), Airport.name.ilike(pattern))).order_by(Airport.iata_code).all()
    result = [AirportResponse.model_validate(airport) for airport in airports]
    session.close()
    return result


@app.get("/api/airlines", response_model=List[AirlineResponse], summary="List airlines", description="List airlines with their codes, alliances and checked bag fees.", tags=["flights"], operation_id="list_airlines")
async def list_airlines():
    session = SessionLocal()
    airlines = session.query(Airline).order_by(Airline.name).all()
    result = [AirlineResponse.model_validate(airline) for airline in airlines]
    session.close()
    return result


@app.get("/api/flights/search", response_model=List[FlightResponse], summary="Search flights", description="Find nonstop flights between two airports on a date (cancelled flights excluded), earliest departure first.", tags=["flights"], operation_id="search_flights")
async def search_flights(origin: str = Query(..., description="Origin airport IATA code"), destination: str = Query(..., description="Destination airport IATA code"), departure_date: str = Query(..., description="Departure date (YYYY-MM-DD)"), cabin: Optional[str] = Query(None, description="Only flights selling this cabin: economy, premium_economy, business or first"), airline_code: Optional[str] = Query(None, description="Only this airline (two-letter code)")):
    session = SessionLocal()
    origin_airport = session.query(Airport).filter(Airport.iata_code == origin.upper()).first()
    destination_airport = session.query(Airport).filter(Airport.iata_code == destination.upper()).first()
    query = session.query(Flight).filter(Flight.origin_airport_id == origin_airport.id, Flight.destination_airport_id == destination_airport.id, Flight.departure_time.like(f"{departure_date}%"), Flight.status != "cancelled")
    if airline_code:
        airline = session.query(Airline).filter(Airline.iata_code == airline_code.upper()).first()
        query = query.filter(Flight.airline_id == (airline.id if airline else -1))
    if cabin:
        query = query.filter(Flight.id.in_(session.query(FlightFare.flight_id).filter(FlightFare.cabin == cabin)))
    flights = query.order_by(Flight.departure_time, Flight.id).all()
    result = [build_flight(session, flight, cabin) for flight in flights]
    session.close()
    return result


@app.get("/api/flights/{flight_id}", response_model=FlightResponse, summary="Get a flight", description="Return one flight's schedule, aircraft, status and lowest fare.", tags=["flights"], operation_id="get_flight")
async def get_flight(flight_id: int = Path(..., description="Flight ID")):
    session = SessionLocal()
    flight = session.query(Flight).filter(Flight.id == flight_id).first()
    result = build_flight(session, flight)
    session.close()
    return result


@app.get("/api/flights/{flight_id}/fares", response_model=List[FareResponse], summary="List fares for a flight", description="List a flight's fares by cabin and fare class with price, seats left and refund rules, cheapest first.", tags=["flights"], operation_id="list_flight_fares")
async def list_flight_fares(flight_id: int = Path(..., description="Flight ID"), cabin: Optional[str] = Query(None, description="Only this cabin: economy, premium_economy, business or first")):
    session = SessionLocal()
    query = session.query(FlightFare).filter(FlightFare.flight_id == flight_id)
    if cabin:
        query = query.filter(FlightFare.cabin == cabin)
    fares = query.order_by(FlightFare.price_cents, FlightFare.id).all()
    result = [FareResponse.model_validate(fare) for fare in fares]
    session.close()
    return result


@app.get("/api/flights/{flight_id}/seats", response_model=List[SeatResponse], summary="Get a flight's seat map", description="List a flight's seats with cabin, type, extra legroom and whether each is taken.", tags=["flights"], operation_id="get_seat_map")
async def get_seat_map(flight_id: int = Path(..., description="Flight ID"), cabin: Optional[str] = Query(None, description="Only this cabin"), available_only: bool = Query(False, description="Only seats that are free")):
    session = SessionLocal()
    query = session.query(Seat).filter(Seat.flight_id == flight_id)
    if cabin:
        query = query.filter(Seat.cabin == cabin)
    if available_only:
        query = query.filter(Seat.is_occupied == False)
    seats = query.order_by(Seat.id).all()
    result = [SeatResponse.model_validate(seat) for seat in seats]
    session.close()
    return result


@app.get("/api/hotels/search", response_model=List[HotelResponse], summary="Search hotels", description="Find hotels by city or name with minimum stars and guest rating, best guest rating first.", tags=["hotels"], operation_id="search_hotels")
async def search_hotels(city: Optional[str] = Query(None, description="City (exact match, case-insensitive)"), q: Optional[str] = Query(None, description="Text matched against the hotel name"), min_stars: Optional[int] = Query(None, description="Minimum star rating (1-5)"), min_guest_rating: Optional[float] = Query(None, description="Minimum guest rating out of 10"), limit: int = Query(20, description="Maximum number of hotels", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Hotel)
    if city:
        query = query.filter(func.lower(Hotel.city) == city.lower())
    if q:
        query = query.filter(Hotel.name.ilike(f"%{q}%"))
    if min_stars is not None:
        query = query.filter(Hotel.star_rating >= min_stars)
    if min_guest_rating is not None:
        query = query.filter(Hotel.guest_rating >= min_guest_rating)
    hotels = query.order_by(Hotel.guest_rating.desc(), Hotel.id).limit(limit).all()
    result = [build_hotel(session, hotel) for hotel in hotels]
    session.close()
    return result


@app.get("/api/hotels/{hotel_id}", response_model=HotelResponse, summary="Get a hotel", description="Return one hotel's address, ratings, amenities and check-in times.", tags=["hotels"], operation_id="get_hotel")
async def get_hotel(hotel_id: int = Path(..., description="Hotel ID")):
    session = SessionLocal()
    hotel = session.query(Hotel).filter(Hotel.id == hotel_id).first()
    result = build_hotel(session, hotel)
    session.close()
    return result


@app.get("/api/hotels/{hotel_id}/rooms", response_model=List[RoomTypeResponse], summary="List a hotel's room types", description="List room types with beds, occupancy, nightly rate and refund policy, cheapest first.", tags=["hotels"], operation_id="list_room_types")
async def list_room_types(hotel_id: int = Path(..., description="Hotel ID"), guests: Optional[int] = Query(None, description="Only rooms that sleep at least this many guests")):
    session = SessionLocal()
    query = session.query(RoomType).filter(RoomType.hotel_id == hotel_id)
    if guests is not None:
        query = query.filter(RoomType.max_occupancy >= guests)
    rooms = query.order_by(RoomType.nightly_rate_cents, RoomType.id).all()
    result = [RoomTypeResponse.model_validate(room) for room in rooms]
    session.close()
    return result


@app.get("/api/hotels/{hotel_id}/reviews", response_model=List[ReviewResponse], summary="List a hotel's reviews", description="List guest reviews of a hotel, newest first.", tags=["hotels"], operation_id="list_hotel_reviews")
async def list_hotel_reviews(hotel_id: int = Path(..., description="Hotel ID")):
    session = SessionLocal()
    reviews = session.query(Review).filter(Review.hotel_id == hotel_id).order_by(Review.created_at.desc(), Review.id.desc()).all()
    result = [build_review(session, review) for review in reviews]
    session.close()
    return result


@app.post("/api/hotels/{hotel_id}/reviews", response_model=ReviewResponse, summary="Review a hotel stay", description="Post a review of a completed stay at this hotel, linked to the booking.", tags=["hotels"], operation_id="create_review")
async def create_review(request: ReviewCreateRequest, hotel_id: int = Path(..., description="Hotel ID")):
    session = SessionLocal()
    hotel = session.query(Hotel).filter(Hotel.id == hotel_id).first()
    booking = session.query(Booking).filter(Booking.id == request.booking_id, Booking.user_id == 1, Booking.booking_type == "hotel", Booking.status == "completed").first()
    existing = session.query(Review).filter(Review.user_id == 1, Review.booking_id == booking.id).first()
    if existing is not None:
        result = build_review(session, existing)
        session.close()
        return result
    review = Review(user_id=1, hotel_id=hotel.id, booking_id=booking.id, rating=request.rating, title=request.title, body=request.body, created_at=datetime.utcnow())
    session.add(review)
    session.commit()
    session.refresh(review)
    result = build_review(session, review)
    session.close()
    return result


@app.get("/api/cars/search", response_model=List[CarResponse], summary="Search rental cars", description="Find rental cars at an airport, optionally by class, cheapest daily rate first.", tags=["cars"], operation_id="search_cars")
async def search_cars(airport_code: str = Query(..., description="Pick-up airport IATA code"), car_class: Optional[str] = Query(None, description="economy, compact, midsize, suv, luxury or minivan"), available_only: bool = Query(False, description="Only cars with units available")):
    session = SessionLocal()
    airport = session.query(Airport).filter(Airport.iata_code == airport_code.upper()).first()
    query = session.query(RentalCar).filter(RentalCar.airport_id == airport.id)
    if car_class:
        query = query.filter(RentalCar.car_class == car_class)
    if available_only:
        query = query.filter(RentalCar.units_available > 0)
    cars = query.order_by(RentalCar.daily_rate_cents, RentalCar.id).all()
    result = [build_car(session, car) for car in cars]
    session.close()
    return result


@app.get("/api/cars/{car_id}", response_model=CarResponse, summary="Get a rental car", description="Return one rental car offer.", tags=["cars"], operation_id="get_car")
async def get_car(car_id: int = Path(..., description="Rental car ID")):
    session = SessionLocal()
    car = session.query(RentalCar).filter(RentalCar.id == car_id).first()
    result = build_car(session, car)
    session.close()
    return result


@app.get("/api/me/bookings", response_model=List[BookingSummaryResponse], summary="List my bookings", description="List the member's bookings (summary only), newest first; use get_booking for details.", tags=["bookings"], operation_id="list_bookings")
async def list_bookings(booking_type: Optional[str] = Query(None, description="flight, hotel or car"), status: Optional[str] = Query(None, description="confirmed, cancelled or completed"), itinerary_id: Optional[int] = Query(None, description="Only bookings in this itinerary")):
    session = SessionLocal()
    query = session.query(Booking).filter(Booking.user_id == 1)
    if booking_type:
        query = query.filter(Booking.booking_type == booking_type)
    if status:
        query = query.filter(Booking.status == status)
    if itinerary_id is not None:
        query = query.filter(Booking.itinerary_id == itinerary_id)
    bookings = query.order_by(Booking.booked_at.desc(), Booking.id.desc()).all()
    result = [build_booking_summary(booking) for booking in bookings]
    session.close()
    return result


@app.get("/api/bookings/{booking_id}", response_model=BookingDetailResponse, summary="Get a booking", description="Return a booking's full details: flight, fare, passengers and seats, hotel stay or car rental, payment and refunds.", tags=["bookings"], operation_id="get_booking")
async def get_booking(booking_id: int = Path(..., description="Booking ID")):
    session = SessionLocal()
    booking = session.query(Booking).filter(Booking.id == booking_id, Booking.user_id == 1).first()
    result = build_booking_detail(session, booking)
    session.close()
    return result


@app.get("/api/bookings/by-code/{confirmation_code}", response_model=BookingDetailResponse, summary="Find a booking by confirmation code", description="Return the full details of the member's booking with this confirmation code.", tags=["bookings"], operation_id="get_booking_by_code")
async def get_booking_by_code(confirmation_code: str = Path(..., description="Confirmation code")):
    session = SessionLocal()
    booking = session.query(Booking).filter(Booking.confirmation_code == confirmation_code.upper(), Booking.user_id == 1).first()
    result = build_booking_detail(session, booking)
    session.close()
    return result


@app.post("/api/bookings/flights", response_model=BookingDetailResponse, summary="Book a flight", description="Book a fare for saved travelers; points can pay part of the price and the rest is charged to the card.", tags=["bookings"], operation_id="book_flight")
async def book_flight(request: FlightBookingRequest):
    session = SessionLocal()
    fare = session.query(FlightFare).filter(FlightFare.id == request.fare_id).first()
    flight = session.query(Flight).filter(Flight.id == fare.flight_id).first()
    travelers = [session.query(Traveler).filter(Traveler.id == traveler_id, Traveler.user_id == 1).first() for traveler_id in request.traveler_ids]
    traveler_ids = [traveler.id for traveler in travelers]
    total = fare.price_cents * len(traveler_ids)
    origin = session.query(Airport).filter(Airport.id == flight.origin_airport_id).first()
    destination = session.query(Airport).filter(Airport.id == flight.destination_airport_id).first()
    booking = create_booking(session, "flight", total, request.payment_method_id, request.itinerary_id, request.points_to_redeem, f"Flight {flight.flight_number} {origin.iata_code}-{destination.iata_code}")
    session.add(FlightBooking(booking_id=booking.id, flight_id=flight.id, fare_id=fare.id))
    for traveler_id in traveler_ids:
        session.add(BookingPassenger(booking_id=booking.id, traveler_id=traveler_id, seat_id=None))
    fare.seats_available = fare.seats_available - len(traveler_ids)
    session.commit()
    session.refresh(booking)
    result = build_booking_detail(session, booking)
    session.close()
    return result


@app.post("/api/bookings/hotels", response_model=BookingDetailResponse, summary="Book a hotel room", description="Book a room type for a date range; points can pay part of the price and the rest is charged to the card.", tags=["bookings"], operation_id="book_hotel")
async def book_hotel(request: HotelBookingRequest):
    session = SessionLocal()
    room = session.query(RoomType).filter(RoomType.id == request.room_type_id).first()
    hotel = session.query(Hotel).filter(Hotel.id == room.hotel_id).first()
    nights = (datetime.strptime(request.check_out, "%Y-%m-%d") - datetime.strptime(request.check_in, "%Y-%m-%d")).days
    total = room.nightly_rate_cents * nights * request.rooms
    booking = create_booking(session, "hotel", total, request.payment_method_id, request.itinerary_id, request.points_to_redeem, f"Stay at {hotel.name}")
    session.add(HotelBooking(booking_id=booking.id, room_type_id=room.id, check_in=request.check_in, check_out=request.check_out, rooms=request.rooms, guests=request.guests, special_requests=request.special_requests))
    room.rooms_available = room.rooms_available - request.rooms
    session.commit()
    session.refresh(booking)
    result = build_booking_detail(session, booking)
    session.close()
    return result


@app.post("/api/bookings/cars", response_model=BookingDetailResponse, summary="Book a rental car", description="Rent a car for a date range with a saved traveler as the driver; priced per day.", tags=["bookings"], operation_id="book_car")
async def book_car(request: CarBookingRequest):
    session = SessionLocal()
    car = session.query(RentalCar).filter(RentalCar.id == request.car_id).first()
    airport = session.query(Airport).filter(Airport.id == car.airport_id).first()
    driver = session.query(Traveler).filter(Traveler.id == request.driver_traveler_id, Traveler.user_id == 1).first()
    days = (datetime.strptime(request.dropoff_date, "%Y-%m-%d") - datetime.strptime(request.pickup_date, "%Y-%m-%d")).days
    total = car.daily_rate_cents * days
    booking = create_booking(session, "car", total, request.payment_method_id, request.itinerary_id, request.points_to_redeem, f"Car rental at {airport.iata_code}")
    session.add(CarBooking(booking_id=booking.id, car_id=car.id, pickup_date=request.pickup_date, dropoff_date=request.dropoff_date, driver_traveler_id=driver.id))
    car.units_available = car.units_available - 1
    session.commit()
    session.refresh(booking)
    result = build_booking_detail(session, booking)
    session.close()
    return result


@app.post("/api/bookings/{booking_id}/cancel", response_model=CancellationResponse, summary="Cancel a booking", description="Cancel a confirmed booking; the refund follows the fare or room policy, redeemed points come back and earned points are reversed.", tags=["bookings"], operation_id="cancel_booking")
async def cancel_booking(booking_id: int = Path(..., description="Booking ID")):
    session = SessionLocal()
    booking = session.query(Booking).filter(Booking.id == booking_id, Booking.user_id == 1).first()
    if booking.status != "confirmed":
        result = CancellationResponse(booking_id=booking.id, confirmation_code=booking.confirmation_code, status=booking.status, refund_cents=0, refund_method="none", points_returned=0, points_reversed=0, message=f"Booking {booking.confirmation_code} is {booking.status} and cannot be cancelled")
        session.close()
        return result
    now = datetime.utcnow()
    refund_cents = booking.cash_paid_cents
    refund_method = "original_payment"
    if booking.booking_type == "flight":
        flight_booking = session.query(FlightBooking).filter(FlightBooking.booking_id == booking.id).first()
        fare = session.query(FlightFare).filter(FlightFare.id == flight_booking.fare_id).first()
        flight = session.query(Flight).filter(Flight.id == flight_booking.flight_id).first()
        passengers = session.query(BookingPassenger).filter(BookingPassenger.booking_id == booking.id).all()
        if not fare.refundable:
            refund_method = "travel_credit"
            refund_cents = max(booking.cash_paid_cents - fare.change_fee_cents * len(passengers), 0)
            if fare.fare_class == "basic":
                refund_cents = 0
        for passenger in passengers:
            if passenger.seat_id:
                seat = session.query(Seat).filter(Seat.id == passenger.seat_id).first()
                seat.is_occupied = False
                passenger.seat_id = None
        fare.seats_available = fare.seats_available + len(passengers)
        if refund_method == "travel_credit" and refund_cents > 0:
            session.add(TravelCredit(user_id=1, airline_id=flight.airline_id, source_booking_id=booking.id, amount_cents=refund_cents, expires_on=(now + timedelta(days=365)).strftime("%Y-%m-%d"), status="active", created_at=now))
    if booking.booking_type == "hotel":
        stay = session.query(HotelBooking).filter(HotelBooking.booking_id == booking.id).first()
        room = session.query(RoomType).filter(RoomType.id == stay.room_type_id).first()
        if not room.refundable:
            refund_cents = 0
        room.rooms_available = room.rooms_available + stay.rooms
    if booking.booking_type == "car":
        rental = session.query(CarBooking).filter(CarBooking.booking_id == booking.id).first()
        car = session.query(RentalCar).filter(RentalCar.id == rental.car_id).first()
        car.units_available = car.units_available + 1
    if refund_cents > 0:
        session.add(Refund(booking_id=booking.id, amount_cents=refund_cents, method=refund_method, status="processed", created_at=now))
    else:
        refund_method = "none"
    user = session.query(User).filter(User.id == 1).first()
    if booking.points_redeemed > 0:
        session.add(LoyaltyTransaction(user_id=1, booking_id=booking.id, points=booking.points_redeemed, kind="refund", description=f"Points returned for booking {booking.confirmation_code}", created_at=now))
    if booking.points_earned > 0:
        session.add(LoyaltyTransaction(user_id=1, booking_id=booking.id, points=-booking.points_earned, kind="reversal", description=f"Booking {booking.confirmation_code} cancelled", created_at=now))
    user.points_balance = user.points_balance + booking.points_redeemed - booking.points_earned
    booking.status = "cancelled"
    booking.cancelled_at = now
    session.commit()
    result = CancellationResponse(booking_id=booking.id, confirmation_code=booking.confirmation_code, status=booking.status, refund_cents=refund_cents, refund_method=refund_method, points_returned=booking.points_redeemed, points_reversed=booking.points_earned, message=f"Booking {booking.confirmation_code} cancelled")
    session.close()
    return result


@app.put("/api/bookings/{booking_id}/seats", response_model=List[PassengerResponse], summary="Assign a seat", description="Seat a passenger of a flight booking in a free seat on that flight; any previous seat is released.", tags=["bookings"], operation_id="assign_seat")
async def assign_seat(request: SeatAssignRequest, booking_id: int = Path(..., description="Flight booking ID")):
    session = SessionLocal()
    booking = session.query(Booking).filter(Booking.id == booking_id, Booking.user_id == 1, Booking.booking_type == "flight", Booking.status == "confirmed").first()
    flight_booking = session.query(FlightBooking).filter(FlightBooking.booking_id == booking.id).first()
    passenger = session.query(BookingPassenger).filter(BookingPassenger.booking_id == booking.id, BookingPassenger.traveler_id == request.traveler_id).first()
    seat = session.query(Seat).filter(Seat.flight_id == flight_booking.flight_id, Seat.seat_number == request.seat_number.upper(), Seat.is_occupied == False).first()
    if passenger.seat_id:
        old_seat = session.query(Seat).filter(Seat.id == passenger.seat_id).first()
        old_seat.is_occupied = False
    seat.is_occupied = True
    passenger.seat_id = seat.id
    session.commit()
    result = build_passengers(session, booking.id)
    session.close()
    return result


@app.patch("/api/bookings/{booking_id}/hotel", response_model=BookingDetailResponse, summary="Update a hotel booking", description="Change the special requests or number of guests of a confirmed hotel booking.", tags=["bookings"], operation_id="update_hotel_booking")
async def update_hotel_booking(request: HotelBookingUpdateRequest, booking_id: int = Path(..., description="Hotel booking ID")):
    session = SessionLocal()
    booking = session.query(Booking).filter(Booking.id == booking_id, Booking.user_id == 1, Booking.booking_type == "hotel", Booking.status == "confirmed").first()
    stay = session.query(HotelBooking).filter(HotelBooking.booking_id == booking.id).first()
    if request.special_requests is not None:
        stay.special_requests = request.special_requests
    if request.guests is not None:
        stay.guests = request.guests
    session.commit()
    result = build_booking_detail(session, booking)
    session.close()
    return result


@app.put("/api/bookings/{booking_id}/itinerary", response_model=BookingSummaryResponse, summary="Move a booking to an itinerary", description="File a booking under one of the member's itineraries, or remove it from any itinerary.", tags=["bookings"], operation_id="move_booking_to_itinerary")
async def move_booking_to_itinerary(request: BookingItineraryRequest, booking_id: int = Path(..., description="Booking ID")):
    session = SessionLocal()
    booking = session.query(Booking).filter(Booking.id == booking_id, Booking.user_id == 1).first()
    if request.itinerary_id is None:
        booking.itinerary_id = None
    else:
        itinerary = session.query(Itinerary).filter(Itinerary.id == request.itinerary_id, Itinerary.user_id == 1).first()
        booking.itinerary_id = itinerary.id
    session.commit()
    session.refresh(booking)
    result = build_booking_summary(booking)
    session.close()
    return result


@app.get("/api/me/refunds", response_model=List[RefundResponse], summary="List my refunds", description="List refunds issued for the member's cancelled bookings, newest first.", tags=["bookings"], operation_id="list_refunds")
async def list_refunds():
    session = SessionLocal()
    refunds = session.query(Refund).join(Booking, Booking.id == Refund.booking_id).filter(Booking.user_id == 1).order_by(Refund.created_at.desc(), Refund.id.desc()).all()
    result = [RefundResponse.model_validate(refund) for refund in refunds]
    session.close()
    return result


@app.get("/api/me/itineraries", response_model=List[ItineraryResponse], summary="List my itineraries", description="List the member's trip itineraries with status, dates and booking counts.", tags=["itineraries"], operation_id="list_itineraries")
async def list_itineraries(status: Optional[str] = Query(None, description="planning, booked, completed or cancelled")):
    session = SessionLocal()
    query = session.query(Itinerary).filter(Itinerary.user_id == 1)
    if status:
        query = query.filter(Itinerary.status == status)
    itineraries = query.order_by(Itinerary.start_date, Itinerary.id).all()
    result = [build_itinerary(session, itinerary) for itinerary in itineraries]
    session.close()
    return result


@app.get("/api/itineraries/{itinerary_id}", response_model=ItineraryDetailResponse, summary="Get an itinerary", description="Return an itinerary with a summary of every booking in it, whatever its status.", tags=["itineraries"], operation_id="get_itinerary")
async def get_itinerary(itinerary_id: int = Path(..., description="Itinerary ID")):
    session = SessionLocal()
    itinerary = session.query(Itinerary).filter(Itinerary.id == itinerary_id, Itinerary.user_id == 1).first()
    bookings = session.query(Booking).filter(Booking.itinerary_id == itinerary.id).order_by(Booking.id).all()
    result = ItineraryDetailResponse(id=itinerary.id, name=itinerary.name, status=itinerary.status, start_date=itinerary.start_date, end_date=itinerary.end_date, notes=itinerary.notes, created_at=itinerary.created_at, bookings=[build_booking_summary(booking) for booking in bookings])
    session.close()
    return result


@app.post("/api/itineraries", response_model=ItineraryResponse, summary="Create an itinerary", description="Create a new empty itinerary in planning status.", tags=["itineraries"], operation_id="create_itinerary")
async def create_itinerary(request: ItineraryCreateRequest):
    session = SessionLocal()
    itinerary = Itinerary(user_id=1, name=request.name, status="planning", start_date=request.start_date, end_date=request.end_date, notes=request.notes, created_at=datetime.utcnow())
    session.add(itinerary)
    session.commit()
    session.refresh(itinerary)
    result = build_itinerary(session, itinerary)
    session.close()
    return result


@app.patch("/api/itineraries/{itinerary_id}", response_model=ItineraryResponse, summary="Update an itinerary", description="Rename an itinerary, change its dates or notes, or set its status.", tags=["itineraries"], operation_id="update_itinerary")
async def update_itinerary(request: ItineraryUpdateRequest, itinerary_id: int = Path(..., description="Itinerary ID")):
    session = SessionLocal()
    itinerary = session.query(Itinerary).filter(Itinerary.id == itinerary_id, Itinerary.user_id == 1).first()
    if request.name is not None:
        itinerary.name = request.name
    if request.status is not None:
        itinerary.status = request.status
    if request.start_date is not None:
        itinerary.start_date = request.start_date
    if request.end_date is not None:
        itinerary.end_date = request.end_date
    if request.notes is not None:
        itinerary.notes = request.notes
    session.commit()
    session.refresh(itinerary)
    result = build_itinerary(session, itinerary)
    session.close()
    return result


@app.get("/api/me/saved-trips", response_model=List[SavedTripResponse], summary="List my saved trips", description="List the member's saved trips (wish lists) with the hotels and flights saved in each.", tags=["saved_trips"], operation_id="list_saved_trips")
async def list_saved_trips():
    session = SessionLocal()
    trips = session.query(SavedTrip).filter(SavedTrip.user_id == 1).order_by(SavedTrip.id).all()
    result = [build_saved_trip(session, trip) for trip in trips]
    session.close()
    return result


@app.post("/api/saved-trips", response_model=SavedTripResponse, summary="Create a saved trip", description="Create a new empty saved trip (wish list).", tags=["saved_trips"], operation_id="create_saved_trip")
async def create_saved_trip(request: SavedTripCreateRequest):
    session = SessionLocal()
    trip = SavedTrip(user_id=1, name=request.name, destination_city=request.destination_city, notes=request.notes, created_at=datetime.utcnow())
    session.add(trip)
    session.commit()
    session.refresh(trip)
    result = build_saved_trip(session, trip)
    session.close()
    return result


@app.post("/api/saved-trips/{saved_trip_id}/items", response_model=SavedTripResponse, summary="Save a hotel or flight to a saved trip", description="Add a hotel (or, without hotel_id, a flight) to one of the member's saved trips.", tags=["saved_trips"], operation_id="add_saved_trip_item")
async def add_saved_trip_item(request: SavedTripItemRequest, saved_trip_id: int = Path(..., description="Saved trip ID")):
    session = SessionLocal()
    trip = session.query(SavedTrip).filter(SavedTrip.id == saved_trip_id, SavedTrip.user_id == 1).first()
    if request.hotel_id is not None:
        hotel = session.query(Hotel).filter(Hotel.id == request.hotel_id).first()
        item = SavedTripItem(saved_trip_id=trip.id, item_type="hotel", hotel_id=hotel.id, flight_id=None, note=request.note, added_at=datetime.utcnow())
    else:
        flight = session.query(Flight).filter(Flight.id == request.flight_id).first()
        item = SavedTripItem(saved_trip_id=trip.id, item_type="flight", hotel_id=None, flight_id=flight.id, note=request.note, added_at=datetime.utcnow())
    session.add(item)
    session.commit()
    result = build_saved_trip(session, trip)
    session.close()
    return result


@app.delete("/api/saved-trips/{saved_trip_id}/items/{item_id}", response_model=ActionResponse, summary="Remove an item from a saved trip", description="Remove one saved hotel or flight (by saved item ID) from a saved trip.", tags=["saved_trips"], operation_id="remove_saved_trip_item")
async def remove_saved_trip_item(saved_trip_id: int = Path(..., description="Saved trip ID"), item_id: int = Path(..., description="Saved item ID (not the hotel or flight ID)")):
    session = SessionLocal()
    trip = session.query(SavedTrip).filter(SavedTrip.id == saved_trip_id, SavedTrip.user_id == 1).first()
    deleted = session.query(SavedTripItem).filter(SavedTripItem.id == item_id, SavedTripItem.saved_trip_id == trip.id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Item {item_id} removed from saved trip {saved_trip_id}" if deleted else f"Item {item_id} is not in saved trip {saved_trip_id}")


@app.delete("/api/saved-trips/{saved_trip_id}", response_model=ActionResponse, summary="Delete a saved trip", description="Delete one of the member's saved trips together with its saved items.", tags=["saved_trips"], operation_id="delete_saved_trip")
async def delete_saved_trip(saved_trip_id: int = Path(..., description="Saved trip ID")):
    session = SessionLocal()
    trip = session.query(SavedTrip).filter(SavedTrip.id == saved_trip_id, SavedTrip.user_id == 1).first()
    if trip is None:
        session.close()
        return ActionResponse(success=False, message=f"Saved trip {saved_trip_id} not found")
    name = trip.name
    session.query(SavedTripItem).filter(SavedTripItem.saved_trip_id == trip.id).delete()
    session.delete(trip)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Saved trip '{name}' deleted")


@app.get("/api/me/price-alerts", response_model=List[PriceAlertResponse], summary="List my price alerts", description="List the member's fare price alerts by route and cabin.", tags=["price_alerts"], operation_id="list_price_alerts")
async def list_price_alerts():
    session = SessionLocal()
    alerts = session.query(PriceAlert).filter(PriceAlert.user_id == 1).order_by(PriceAlert.id).all()
    result = [build_price_alert(session, alert) for alert in alerts]
    session.close()
    return result


@app.post("/api/price-alerts", response_model=PriceAlertResponse, summary="Create a price alert", description="Watch a route and cabin and get alerted when a fare drops to the threshold or below.", tags=["price_alerts"], operation_id="create_price_alert")
async def create_price_alert(request: PriceAlertCreateRequest):
    session = SessionLocal()
    origin = session.query(Airport).filter(Airport.iata_code == request.origin_code.upper()).first()
    destination = session.query(Airport).filter(Airport.iata_code == request.destination_code.upper()).first()
    alert = PriceAlert(user_id=1, origin_airport_id=origin.id, destination_airport_id=destination.id, cabin=request.cabin, max_price_cents=request.max_price_cents, is_active=True, created_at=datetime.utcnow())
    session.add(alert)
    session.commit()
    session.refresh(alert)
    result = build_price_alert(session, alert)
    session.close()
    return result


@app.delete("/api/price-alerts/{alert_id}", response_model=ActionResponse, summary="Delete a price alert", description="Delete one of the member's price alerts.", tags=["price_alerts"], operation_id="delete_price_alert")
async def delete_price_alert(alert_id: int = Path(..., description="Price alert ID")):
    session = SessionLocal()
    deleted = session.query(PriceAlert).filter(PriceAlert.id == alert_id, PriceAlert.user_id == 1).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Price alert {alert_id} deleted" if deleted else f"Price alert {alert_id} not found")


if __name__ == "__main__":
    import uvicorn
    host = os.getenv("HOST", "127.0.0.1")
    port = int(os.getenv("PORT", "8000"))
    uvicorn.run(app, host=host, port=port)
