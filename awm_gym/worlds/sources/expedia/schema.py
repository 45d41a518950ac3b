"""SQLite schema of the expedia world (the `db_schema.tables` of gen_db.jsonl).

Each entry is {"name", "ddl", "indexes"}; tables are listed in foreign-key-safe order. Money is
stored as integer US cents; a booking's cash part is its total minus the loyalty points redeemed
(1 point = 1 cent), which a CHECK constraint keeps consistent.
"""

TABLES = [
    {
        "name": "loyalty_tiers",
        "ddl": "CREATE TABLE loyalty_tiers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE CHECK (name IN ('blue', 'silver', 'gold', 'platinum')), points_per_dollar INTEGER NOT NULL CHECK (points_per_dollar > 0), min_qualifying_nights INTEGER NOT NULL DEFAULT 0, perks TEXT);",
        "indexes": [],
    },
    {
        "name": "airports",
        "ddl": "CREATE TABLE airports (id INTEGER PRIMARY KEY, iata_code TEXT NOT NULL UNIQUE CHECK (length(iata_code) = 3), name TEXT NOT NULL, city TEXT NOT NULL, country TEXT NOT NULL, timezone TEXT NOT NULL);",
        "indexes": ["CREATE INDEX idx_airports_city ON airports(city);"],
    },
    {
        "name": "users",
        "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, first_name TEXT NOT NULL, last_name TEXT NOT NULL, phone TEXT, home_airport_id INTEGER REFERENCES airports(id), loyalty_tier_id INTEGER NOT NULL REFERENCES loyalty_tiers(id), points_balance INTEGER NOT NULL DEFAULT 0 CHECK (points_balance >= 0), created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_users_last_name ON users(last_name);"],
    },
    {
        "name": "travelers",
        "ddl": "CREATE TABLE travelers (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), first_name TEXT NOT NULL, last_name TEXT NOT NULL, date_of_birth TEXT NOT NULL, relationship TEXT NOT NULL CHECK (relationship IN ('self', 'spouse', 'child', 'parent', 'sibling', 'friend', 'colleague', 'other')), passport_number TEXT, passport_country TEXT, passport_expiry TEXT, known_traveler_number TEXT, UNIQUE (user_id, first_name, last_name, date_of_birth));",
        "indexes": ["CREATE INDEX idx_travelers_user_id ON travelers(user_id);"],
    },
    {
        "name": "payment_methods",
        "ddl": "CREATE TABLE payment_methods (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), card_brand TEXT NOT NULL CHECK (card_brand IN ('visa', 'mastercard', 'amex', 'discover')), last4 TEXT NOT NULL CHECK (length(last4) = 4), expiry_month INTEGER NOT NULL CHECK (expiry_month BETWEEN 1 AND 12), expiry_year INTEGER NOT NULL, cardholder_name TEXT NOT NULL, nickname TEXT, is_default BOOLEAN NOT NULL DEFAULT 0);",
        "indexes": ["CREATE INDEX idx_payment_methods_user_id ON payment_methods(user_id);"],
    },
    {
        "name": "airlines",
        "ddl": "CREATE TABLE airlines (id INTEGER PRIMARY KEY, iata_code TEXT NOT NULL UNIQUE CHECK (length(iata_code) = 2), name TEXT NOT NULL, alliance TEXT, checked_bag_fee_cents INTEGER NOT NULL DEFAULT 0 CHECK (checked_bag_fee_cents >= 0));",
        "indexes": [],
    },
    {
        "name": "flights",
        "ddl": "CREATE TABLE flights (id INTEGER PRIMARY KEY, airline_id INTEGER NOT NULL REFERENCES airlines(id), flight_number TEXT NOT NULL, origin_airport_id INTEGER NOT NULL REFERENCES airports(id), destination_airport_id INTEGER NOT NULL REFERENCES airports(id), departure_time DATETIME NOT NULL, arrival_time DATETIME NOT NULL, duration_minutes INTEGER NOT NULL CHECK (duration_minutes > 0), aircraft TEXT, status TEXT NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'delayed', 'cancelled', 'departed', 'landed')), UNIQUE (flight_number, departure_time), CHECK (origin_airport_id <> destination_airport_id));",
        "indexes": [
            "CREATE INDEX idx_flights_route_departure ON flights(origin_airport_id, destination_airport_id, departure_time);",
            "CREATE INDEX idx_flights_airline_id ON flights(airline_id);",
        ],
    },
    {
        "name": "flight_fares",
        "ddl": "CREATE TABLE flight_fares (id INTEGER PRIMARY KEY, flight_id INTEGER NOT NULL REFERENCES flights(id), cabin TEXT NOT NULL CHECK (cabin IN ('economy', 'premium_economy', 'business', 'first')), fare_class TEXT NOT NULL CHECK (fare_class IN ('basic', 'standard', 'flex')), price_cents INTEGER NOT NULL CHECK (price_cents > 0), seats_available INTEGER NOT NULL CHECK (seats_available >= 0), refundable BOOLEAN NOT NULL DEFAULT 0, change_fee_cents INTEGER NOT NULL DEFAULT 0 CHECK (change_fee_cents >= 0), checked_bags_included INTEGER NOT NULL DEFAULT 0, UNIQUE (flight_id, cabin, fare_class));",
        "indexes": ["CREATE INDEX idx_flight_fares_flight_id ON flight_fares(flight_id);"],
    },
    {
        "name": "seats",
        "ddl": "CREATE TABLE seats (id INTEGER PRIMARY KEY, flight_id INTEGER NOT NULL REFERENCES flights(id), seat_number TEXT NOT NULL, cabin TEXT NOT NULL CHECK (cabin IN ('economy', 'premium_economy', 'business', 'first')), seat_type TEXT NOT NULL CHECK (seat_type IN ('window', 'middle', 'aisle')), extra_legroom BOOLEAN NOT NULL DEFAULT 0, is_occupied BOOLEAN NOT NULL DEFAULT 0, UNIQUE (flight_id, seat_number));",
        "indexes": ["CREATE INDEX idx_seats_flight_cabin ON seats(flight_id, cabin);"],
    },
    {
        "name": "hotels",
        "ddl": "CREATE TABLE hotels (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL, country TEXT NOT NULL, address TEXT NOT NULL, star_rating INTEGER NOT NULL CHECK (star_rating BETWEEN 1 AND 5), guest_rating REAL NOT NULL CHECK (guest_rating BETWEEN 0 AND 10), chain TEXT, amenities TEXT, check_in_time TEXT NOT NULL DEFAULT '15:00', check_out_time TEXT NOT NULL DEFAULT '11:00');",
        "indexes": [
            "CREATE INDEX idx_hotels_city ON hotels(city);",
            "CREATE INDEX idx_hotels_name ON hotels(name);",
        ],
    },
    {
        "name": "room_types",
        "ddl": "CREATE TABLE room_types (id INTEGER PRIMARY KEY, hotel_id INTEGER NOT NULL REFERENCES hotels(id), name TEXT NOT NULL, bed_configuration TEXT NOT NULL, max_occupancy INTEGER NOT NULL CHECK (max_occupancy > 0), nightly_rate_cents INTEGER NOT NULL CHECK (nightly_rate_cents > 0), refundable BOOLEAN NOT NULL DEFAULT 1, rooms_available INTEGER NOT NULL CHECK (rooms_available >= 0), UNIQUE (hotel_id, name));",
        "indexes": ["CREATE INDEX idx_room_types_hotel_id ON room_types(hotel_id);"],
    },
    {
        "name": "rental_cars",
        "ddl": "CREATE TABLE rental_cars (id INTEGER PRIMARY KEY, company TEXT NOT NULL, airport_id INTEGER NOT NULL REFERENCES airports(id), car_class TEXT NOT NULL CHECK (car_class IN ('economy', 'compact', 'midsize', 'suv', 'luxury', 'minivan')), model TEXT NOT NULL, seats INTEGER NOT NULL CHECK (seats > 0), transmission TEXT NOT NULL CHECK (transmission IN ('automatic', 'manual')), daily_rate_cents INTEGER NOT NULL CHECK (daily_rate_cents > 0), units_available INTEGER NOT NULL CHECK (units_available >= 0));",
        "indexes": ["CREATE INDEX idx_rental_cars_airport_class ON rental_cars(airport_id, car_class);"],
    },
    {
        "name": "itineraries",
        "ddl": "CREATE TABLE itineraries (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'planning' CHECK (status IN ('planning', 'booked', 'completed', 'cancelled')), start_date TEXT, end_date TEXT, notes TEXT, created_at DATETIME NOT NULL, CHECK (end_date IS NULL OR start_date IS NULL OR end_date >= start_date));",
        "indexes": ["CREATE INDEX idx_itineraries_user_id ON itineraries(user_id);"],
    },
    {
        "name": "bookings",
        "ddl": "CREATE TABLE bookings (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), itinerary_id INTEGER REFERENCES itineraries(id), booking_type TEXT NOT NULL CHECK (booking_type IN ('flight', 'hotel', 'car')), confirmation_code TEXT NOT NULL UNIQUE, status TEXT NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed', 'cancelled', 'completed')), total_cents INTEGER NOT NULL CHECK (total_cents >= 0), points_redeemed INTEGER NOT NULL DEFAULT 0 CHECK (points_redeemed >= 0), cash_paid_cents INTEGER NOT NULL CHECK (cash_paid_cents >= 0), points_earned INTEGER NOT NULL DEFAULT 0 CHECK (points_earned >= 0), payment_method_id INTEGER REFERENCES payment_methods(id), booked_at DATETIME NOT NULL, cancelled_at DATETIME, CHECK (cash_paid_cents = total_cents - points_redeemed));",
        "indexes": [
            "CREATE INDEX idx_bookings_user_status ON bookings(user_id, status);",
            "CREATE INDEX idx_bookings_itinerary_id ON bookings(itinerary_id);",
        ],
    },
    {
        "name": "flight_bookings",
        "ddl": "CREATE TABLE flight_bookings (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL UNIQUE REFERENCES bookings(id) ON DELETE CASCADE, flight_id INTEGER NOT NULL REFERENCES flights(id), fare_id INTEGER NOT NULL REFERENCES flight_fares(id));",
        "indexes": ["CREATE INDEX idx_flight_bookings_flight_id ON flight_bookings(flight_id);"],
    },
    {
        "name": "booking_passengers",
        "ddl": "CREATE TABLE booking_passengers (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id) ON DELETE CASCADE, traveler_id INTEGER NOT NULL REFERENCES travelers(id), seat_id INTEGER UNIQUE REFERENCES seats(id), UNIQUE (booking_id, traveler_id));",
        "indexes": ["CREATE INDEX idx_booking_passengers_traveler_id ON booking_passengers(traveler_id);"],
    },
    {
        "name": "hotel_bookings",
        "ddl": "CREATE TABLE hotel_bookings (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL UNIQUE REFERENCES bookings(id) ON DELETE CASCADE, room_type_id INTEGER NOT NULL REFERENCES room_types(id), check_in TEXT NOT NULL, check_out TEXT NOT NULL, rooms INTEGER NOT NULL DEFAULT 1 CHECK (rooms > 0), guests INTEGER NOT NULL CHECK (guests > 0), special_requests TEXT, CHECK (check_out > check_in));",
        "indexes": ["CREATE INDEX idx_hotel_bookings_room_type_id ON hotel_bookings(room_type_id);"],
    },
    {
        "name": "car_bookings",
        "ddl": "CREATE TABLE car_bookings (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL UNIQUE REFERENCES bookings(id) ON DELETE CASCADE, car_id INTEGER NOT NULL REFERENCES rental_cars(id), pickup_date TEXT NOT NULL, dropoff_date TEXT NOT NULL, driver_traveler_id INTEGER NOT NULL REFERENCES travelers(id), CHECK (dropoff_date > pickup_date));",
        "indexes": ["CREATE INDEX idx_car_bookings_car_id ON car_bookings(car_id);"],
    },
    {
        "name": "refunds",
        "ddl": "CREATE TABLE refunds (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id), amount_cents INTEGER NOT NULL CHECK (amount_cents > 0), method TEXT NOT NULL CHECK (method IN ('original_payment', 'travel_credit')), status TEXT NOT NULL DEFAULT 'processed' CHECK (status IN ('pending', 'processed')), created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_refunds_booking_id ON refunds(booking_id);"],
    },
    {
        "name": "travel_credits",
        "ddl": "CREATE TABLE travel_credits (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), airline_id INTEGER NOT NULL REFERENCES airlines(id), source_booking_id INTEGER REFERENCES bookings(id), amount_cents INTEGER NOT NULL CHECK (amount_cents > 0), expires_on TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'used', 'expired')), created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_travel_credits_user_id ON travel_credits(user_id);"],
    },
    {
        "name": "loyalty_transactions",
        "ddl": "CREATE TABLE loyalty_transactions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), booking_id INTEGER REFERENCES bookings(id), points INTEGER NOT NULL CHECK (points <> 0), kind TEXT NOT NULL CHECK (kind IN ('earn', 'redeem', 'refund', 'reversal', 'bonus')), description TEXT NOT NULL, created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_loyalty_transactions_user_created ON loyalty_transactions(user_id, created_at);"],
    },
    {
        "name": "reviews",
        "ddl": "CREATE TABLE reviews (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), hotel_id INTEGER NOT NULL REFERENCES hotels(id), booking_id INTEGER REFERENCES bookings(id), rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 10), title TEXT NOT NULL, body TEXT NOT NULL, created_at DATETIME NOT NULL, UNIQUE (user_id, booking_id));",
        "indexes": ["CREATE INDEX idx_reviews_hotel_id ON reviews(hotel_id);"],
    },
    {
        "name": "saved_trips",
        "ddl": "CREATE TABLE saved_trips (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, destination_city TEXT, notes TEXT, created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_saved_trips_user_id ON saved_trips(user_id);"],
    },
    {
        "name": "saved_trip_items",
        "ddl": "CREATE TABLE saved_trip_items (id INTEGER PRIMARY KEY, saved_trip_id INTEGER NOT NULL REFERENCES saved_trips(id) ON DELETE CASCADE, item_type TEXT NOT NULL CHECK (item_type IN ('hotel', 'flight')), hotel_id INTEGER REFERENCES hotels(id), flight_id INTEGER REFERENCES flights(id), note TEXT, added_at DATETIME NOT NULL, CHECK ((item_type = 'hotel' AND hotel_id IS NOT NULL AND flight_id IS NULL) OR (item_type = 'flight' AND flight_id IS NOT NULL AND hotel_id IS NULL)));",
        "indexes": ["CREATE INDEX idx_saved_trip_items_trip_id ON saved_trip_items(saved_trip_id);"],
    },
    {
        "name": "price_alerts",
        "ddl": "CREATE TABLE price_alerts (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), origin_airport_id INTEGER NOT NULL REFERENCES airports(id), destination_airport_id INTEGER NOT NULL REFERENCES airports(id), cabin TEXT NOT NULL DEFAULT 'economy' CHECK (cabin IN ('economy', 'premium_economy', 'business', 'first')), max_price_cents INTEGER NOT NULL CHECK (max_price_cents > 0), is_active BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL, CHECK (origin_airport_id <> destination_airport_id));",
        "indexes": ["CREATE INDEX idx_price_alerts_user_id ON price_alerts(user_id);"],
    },
]
