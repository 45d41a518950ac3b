"""Code-mode verifiers of the expedia world, one per task (gen_verifier.pure_code.jsonl).

`verifier_<i>` is task i's verifier. The assembler stores each function's source text with the
name rewritten to `verify_task_completion`, AWM's entry-point name. Each function imports only
sqlite3, json and re, reads both databases, derives what the task requires from the initial
state, and returns {"result": "complete"} only when the task is certainly done (and nothing it
forbids happened), else {"result": "others"}. Money answers are accepted as dollars ("$6,156",
"6156.00") or as cents ("615600 cents"). VERIFIER_META gives the rest of AWM's raw response
(reasoning, verification_strategy, key_checks) in task order.
"""


def verifier_0(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    stays = conn.execute("SELECT h.name, CAST(julianday(hb.check_out) - julianday(hb.check_in) AS INTEGER) FROM bookings b JOIN hotel_bookings hb ON hb.booking_id = b.id JOIN room_types rt ON rt.id = hb.room_type_id JOIN hotels h ON h.id = rt.hotel_id WHERE b.user_id = 1 AND b.booking_type = 'hotel' AND b.status = 'completed' AND hb.check_in >= '2025-01-01' AND hb.check_in < '2026-01-01' ORDER BY 2 DESC").fetchall()
    conn.close()
    if not stays or (len(stays) > 1 and stays[0][1] == stays[1][1]):
        return {"result": "others"}
    total = sum(nights for _, nights in stays)
    compact = re.sub(r"(?<=\d)[,\u00a0\u202f](?=\d{3}(?!\d))", "", final_answer)
    if not re.search(r"(?<![\d.])" + str(total) + r"(?![\d])", compact):
        return {"result": "others"}
    if not re.search(re.escape(stays[0][0]), final_answer, re.IGNORECASE):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_1(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def rows(conn, table):
        cursor = conn.execute("SELECT * FROM " + table + " ORDER BY id")
        return {row[0]: row for row in cursor.fetchall()}

    fares = init.execute("SELECT ff.id, ff.price_cents FROM flight_fares ff JOIN flights f ON f.id = ff.flight_id JOIN airports o ON o.id = f.origin_airport_id JOIN airports d ON d.id = f.destination_airport_id WHERE o.iata_code = 'BOS' AND d.iata_code = 'DEN' AND f.departure_time LIKE '2026-02-20%' AND f.status <> 'cancelled' AND ff.cabin = 'economy' AND ff.refundable = 1 AND ff.seats_available >= 2 ORDER BY ff.price_cents, ff.id").fetchall()
    me = init.execute("SELECT id FROM travelers WHERE user_id = 1 AND relationship = 'self'").fetchone()
    card = init.execute("SELECT id FROM payment_methods WHERE user_id = 1 AND card_brand = 'visa' AND last4 = '4242'").fetchone()
    trip = init.execute("SELECT id FROM itineraries WHERE user_id = 1 AND name = 'Denver Ski Trip'").fetchone()
    rate = init.execute("SELECT t.points_per_dollar FROM users u JOIN loyalty_tiers t ON t.id = u.loyalty_tier_id WHERE u.id = 1").fetchone()[0]
    balance = (init.execute("SELECT points_balance FROM users WHERE id = 1").fetchone()[0], final.execute("SELECT points_balance FROM users WHERE id = 1").fetchone()[0])
    travelers = (rows(init, "travelers"), rows(final, "travelers"))
    bookings = (rows(init, "bookings"), rows(final, "bookings"))
    fare_rows = (rows(init, "flight_fares"), rows(final, "flight_fares"))
    flight_bookings = final.execute("SELECT booking_id, fare_id FROM flight_bookings").fetchall()
    passengers = final.execute("SELECT booking_id, traveler_id FROM booking_passengers").fetchall()
    init.close()
    final.close()
    if not fares or me is None or card is None or trip is None:
        return {"result": "others"}
    if len(fares) > 1 and fares[0][1] == fares[1][1]:
        return {"result": "others"}
    fare_id, price = fares[0]
    new_travelers = [row for key, row in travelers[1].items() if key not in travelers[0]]
    if len(new_travelers) != 1:
        return {"result": "others"}
    emma = new_travelers[0]
    if emma[1] != 1 or emma[2].strip().lower() != "emma" or emma[3].strip().lower() != "thompson" or emma[4] != "2016-05-14" or emma[5] != "child":
        return {"result": "others"}
    if any(travelers[1].get(key) != row for key, row in travelers[0].items()):
        return {"result": "others"}
    if any(bookings[1].get(key) != row for key, row in bookings[0].items()):
        return {"result": "others"}
    new_bookings = [row for key, row in bookings[1].items() if key not in bookings[0]]
    if len(new_bookings) != 1:
        return {"result": "others"}
    booking = new_bookings[0]
    booking_id, user_id, itinerary_id, booking_type, _, status, total, redeemed, cash, earned, payment_id = booking[:11]
    if (user_id, itinerary_id, booking_type, status, payment_id) != (1, trip[0], "flight", "confirmed", card[0]):
        return {"result": "others"}
    if total != price * 2 or redeemed != 0 or cash != total or earned != (cash // 100) * rate:
        return {"result": "others"}
    if [row[1] for row in flight_bookings if row[0] == booking_id] != [fare_id]:
        return {"result": "others"}
    if sorted(row[1] for row in passengers if row[0] == booking_id) != sorted([me[0], emma[0]]):
        return {"result": "others"}
    if balance[1] != balance[0] + earned:
        return {"result": "others"}
    for key, row in fare_rows[0].items():
        expected = row if key != fare_id else row[:5] + (row[5] - 2,) + row[6:]
        if fare_rows[1].get(key) != expected:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_2(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    bookings = conn.execute("SELECT b.total_cents, b.points_earned, pm.card_brand, pm.last4 FROM bookings b JOIN itineraries i ON i.id = b.itinerary_id JOIN payment_methods pm ON pm.id = b.payment_method_id WHERE i.user_id = 1 AND i.name = 'Tokyo Spring 2026' AND b.status = 'confirmed'").fetchall()
    conn.close()
    if not bookings or len({(row[2], row[3]) for row in bookings}) != 1:
        return {"result": "others"}
    total = sum(row[0] for row in bookings)
    points = sum(row[1] for row in bookings)
    brand, last4 = bookings[0][2], bookings[0][3]
    compact = re.sub(r"(?<=\d)[,\u00a0\u202f](?=\d{3}(?!\d))", "", final_answer)
    dollars, cents = divmod(total, 100)
    money = str(dollars) + (r"(?:\.00?)?(?!\.?\d)" if cents == 0 else r"\." + "%02d" % cents + r"(?!\d)")
    if not re.search(r"(?<![\d.])" + money, compact) and not re.search(r"(?<![\d.])" + str(total) + r"\s*(?:us\s*)?cents", compact, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(r"(?<![\d.])" + str(points) + r"(?![\d])", compact):
        return {"result": "others"}
    if not re.search(re.escape(brand), final_answer, re.IGNORECASE) or not re.search(r"(?<!\d)" + last4 + r"(?!\d)", final_answer):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_3(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def rows(conn, table):
        cursor = conn.execute("SELECT * FROM " + table + " ORDER BY id")
        return {row[0]: row for row in cursor.fetchall()}

    trip = init.execute("SELECT id FROM itineraries WHERE user_id = 1 AND name = 'Chicago Conference'").fetchone()
    if trip is None:
        init.close()
        final.close()
        return {"result": "others"}
    targets = init.execute("SELECT id, booking_type, cash_paid_cents, points_redeemed, points_earned FROM bookings WHERE itinerary_id = ? AND status = 'confirmed'", (trip[0],)).fetchall()
    expected_refunds = set()
    expected_credits = set()
    seat_changes = {}
    fare_changes = {}
    room_changes = {}
    car_changes = {}
    for booking_id, booking_type, cash, _, _ in targets:
        if booking_type == "flight":
            fare_id, refundable, fare_class, fee, airline_id = init.execute("SELECT ff.id, ff.refundable, ff.fare_class, ff.change_fee_cents, f.airline_id FROM flight_bookings fb JOIN flight_fares ff ON ff.id = fb.fare_id JOIN flights f ON f.id = fb.flight_id WHERE fb.booking_id = ?", (booking_id,)).fetchone()
            seats = [row[0] for row in init.execute("SELECT seat_id FROM booking_passengers WHERE booking_id = ?", (booking_id,)).fetchall()]
            fare_changes[fare_id] = fare_changes.get(fare_id, 0) + len(seats)
            for seat_id in seats:
                if seat_id is not None:
                    seat_changes[seat_id] = 0
            if refundable:
                expected_refunds.add((booking_id, cash, "original_payment"))
            elif fare_class != "basic" and cash - fee * len(seats) > 0:
                expected_refunds.add((booking_id, cash - fee * len(seats), "travel_credit"))
                expected_credits.add((1, airline_id, booking_id, cash - fee * len(seats)))
        if booking_type == "hotel":
            room_id, refundable, rooms = init.execute("SELECT rt.id, rt.refundable, hb.rooms FROM hotel_bookings hb JOIN room_types rt ON rt.id = hb.room_type_id WHERE hb.booking_id = ?", (booking_id,)).fetchone()
            room_changes[room_id] = room_changes.get(room_id, 0) + rooms
            if refundable and cash > 0:
                expected_refunds.add((booking_id, cash, "original_payment"))
        if booking_type == "car":
            car_id = init.execute("SELECT car_id FROM car_bookings WHERE booking_id = ?", (booking_id,)).fetchone()[0]
            car_changes[car_id] = car_changes.get(car_id, 0) + 1
            if cash > 0:
                expected_refunds.add((booking_id, cash, "original_payment"))
    balance = (init.execute("SELECT points_balance FROM users WHERE id = 1").fetchone()[0], final.execute("SELECT points_balance FROM users WHERE id = 1").fetchone()[0])
    tables = {}
    for table in ["bookings", "itineraries", "refunds", "travel_credits", "seats", "flight_fares", "room_types", "rental_cars", "booking_passengers", "users"]:
        tables[table] = (rows(init, table), rows(final, table))
    init.close()
    final.close()
    if not targets:
        return {"result": "others"}
    target_ids = {row[0] for row in targets}
    before, after = tables["bookings"]
    for key, row in before.items():
        if key in target_ids:
            if after[key][5] != "cancelled" or after[key][12] is None or after[key][:5] + after[key][6:12] != row[:5] + row[6:12]:
                return {"result": "others"}
        elif after.get(key) != row:
            return {"result": "others"}
    before, after = tables["itineraries"]
    for key, row in before.items():
        expected = row[:3] + ("cancelled",) + row[4:] if key == trip[0] else row
        if after.get(key) != expected:
            return {"result": "others"}
    before, after = tables["refunds"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    if sorted((row[1], row[2], row[3]) for key, row in after.items() if key not in before) != sorted(expected_refunds):
        return {"result": "others"}
    before, after = tables["travel_credits"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    if sorted((row[1], row[2], row[3], row[4]) for key, row in after.items() if key not in before) != sorted(expected_credits):
        return {"result": "others"}
    before, after = tables["seats"]
    for key, row in before.items():
        if after.get(key) != (row[:6] + (seat_changes[key],) if key in seat_changes else row):
            return {"result": "others"}
    before, after = tables["booking_passengers"]
    for key, row in before.items():
        if after.get(key) != (row[:3] + (None,) if row[1] in target_ids else row):
            return {"result": "others"}
    for table, changes, column in [("flight_fares", fare_changes, 5), ("room_types", room_changes, 7), ("rental_cars", car_changes, 8)]:
        before, after = tables[table]
        for key, row in before.items():
            expected = row[:column] + (row[column] + changes[key],) + row[column + 1:] if key in changes else row
            if after.get(key) != expected:
                return {"result": "others"}
    if balance[1] != balance[0] + sum(row[3] for row in targets) - sum(row[4] for row in targets):
        return {"result": "others"}
    before, after = tables["users"]
    if any(after.get(key) != row for key, row in before.items() if key != 1):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_4(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    fares = conn.execute("SELECT f.flight_number, ff.price_cents FROM flight_fares ff JOIN flights f ON f.id = ff.flight_id JOIN airports o ON o.id = f.origin_airport_id JOIN airports d ON d.id = f.destination_airport_id WHERE o.iata_code = 'SFO' AND d.iata_code = 'JFK' AND f.departure_time LIKE '2026-02-12%' AND f.status <> 'cancelled' AND ff.cabin = 'business' AND ff.refundable = 1 AND ff.seats_available > 0 ORDER BY ff.price_cents").fetchall()
    conn.close()
    if not fares or (len(fares) > 1 and fares[0][1] == fares[1][1]):
        return {"result": "others"}
    flight_number, price = fares[0]
    letters, digits = re.match(r"([A-Z]+)(\d+)", flight_number).groups()
    if not re.search(r"(?<![A-Za-z0-9])" + letters + r"\s*-?\s*" + digits + r"(?!\d)", final_answer, re.IGNORECASE):
        return {"result": "others"}
    compact = re.sub(r"(?<=\d)[,\u00a0\u202f](?=\d{3}(?!\d))", "", final_answer)
    dollars, cents = divmod(price, 100)
    money = str(dollars) + (r"(?:\.00?)?(?!\.?\d)" if cents == 0 else r"\." + "%02d" % cents + r"(?!\d)")
    if not re.search(r"(?<![\d.])" + money, compact) and not re.search(r"(?<![\d.])" + str(price) + r"\s*(?:us\s*)?cents", compact, re.IGNORECASE):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_5(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def rows(conn, table):
        cursor = conn.execute("SELECT * FROM " + table + " ORDER BY id")
        return {row[0]: row for row in cursor.fetchall()}

    flights = init.execute("SELECT b.id, fb.flight_id, ff.cabin FROM bookings b JOIN flight_bookings fb ON fb.booking_id = b.id JOIN flight_fares ff ON ff.id = fb.fare_id JOIN flights f ON f.id = fb.flight_id JOIN airports o ON o.id = f.origin_airport_id JOIN airports d ON d.id = f.destination_airport_id WHERE b.user_id = 1 AND b.status = 'confirmed' AND o.city = 'Boston' AND d.city = 'Tokyo'").fetchall()
    if len(flights) != 1:
        init.close()
        final.close()
        return {"result": "others"}
    booking_id, flight_id, cabin = flights[0]
    people = init.execute("SELECT bp.id FROM booking_passengers bp JOIN travelers t ON t.id = bp.traveler_id WHERE bp.booking_id = ? AND t.user_id = 1 AND (t.relationship = 'self' OR (t.relationship = 'child' AND t.first_name = 'Leo'))", (booking_id,)).fetchall()
    free = {row[0] for row in init.execute("SELECT id FROM seats WHERE flight_id = ? AND cabin = ? AND extra_legroom = 1 AND is_occupied = 0", (flight_id, cabin)).fetchall()}
    seats = (rows(init, "seats"), rows(final, "seats"))
    passengers = (rows(init, "booking_passengers"), rows(final, "booking_passengers"))
    bookings = (rows(init, "bookings"), rows(final, "bookings"))
    init.close()
    final.close()
    if len(people) != 2 or len(free) != 2 or bookings[0] != bookings[1]:
        return {"result": "others"}
    people_ids = {row[0] for row in people}
    if set(passengers[1]) != set(passengers[0]):
        return {"result": "others"}
    for key, row in passengers[0].items():
        if key in people_ids:
            if passengers[1][key][:3] != row[:3]:
                return {"result": "others"}
        elif passengers[1][key] != row:
            return {"result": "others"}
    if {passengers[1][key][3] for key in people_ids} != free:
        return {"result": "others"}
    released = {passengers[0][key][3] for key in people_ids} - {None}
    for key, row in seats[0].items():
        if key in free:
            expected = row[:6] + (1,)
        elif key in released:
            expected = row[:6] + (0,)
        else:
            expected = row
        if seats[1].get(key) != expected:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_6(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def rows(conn, table):
        cursor = conn.execute("SELECT * FROM " + table + " ORDER BY id")
        return {row[0]: row for row in cursor.fetchall()}

    hotels = init.execute("SELECT id, guest_rating FROM hotels WHERE city = 'Lisbon' AND star_rating >= 4 ORDER BY guest_rating DESC, id").fetchall()
    rooms = init.execute("SELECT id, nightly_rate_cents FROM room_types WHERE hotel_id = ? AND refundable = 1 AND max_occupancy >= 2 ORDER BY nightly_rate_cents, id", (hotels[0][0] if hotels else -1,)).fetchall()
    card = init.execute("SELECT id FROM payment_methods WHERE user_id = 1 AND is_default = 1").fetchone()
    rate = init.execute("SELECT t.points_per_dollar FROM users u JOIN loyalty_tiers t ON t.id = u.loyalty_tier_id WHERE u.id = 1").fetchone()[0]
    balance = (init.execute("SELECT points_balance FROM users WHERE id = 1").fetchone()[0], final.execute("SELECT points_balance FROM users WHERE id = 1").fetchone()[0])
    bookings = (rows(init, "bookings"), rows(final, "bookings"))
    room_rows = (rows(init, "room_types"), rows(final, "room_types"))
    stays = final.execute("SELECT booking_id, room_type_id, check_in, check_out, rooms, guests FROM hotel_bookings").fetchall()
    init.close()
    final.close()
    if not hotels or (len(hotels) > 1 and hotels[0][1] == hotels[1][1]) or not rooms or card is None:
        return {"result": "others"}
    if len(rooms) > 1 and rooms[0][1] == rooms[1][1]:
        return {"result": "others"}
    room_id, nightly = rooms[0]
    if any(bookings[1].get(key) != row for key, row in bookings[0].items()):
        return {"result": "others"}
    new_bookings = [row for key, row in bookings[1].items() if key not in bookings[0]]
    if len(new_bookings) != 1:
        return {"result": "others"}
    booking_id, user_id, _, booking_type, _, status, total, redeemed, cash, earned, payment_id = new_bookings[0][:11]
    if (user_id, booking_type, status, payment_id) != (1, "hotel", "confirmed", card[0]):
        return {"result": "others"}
    if total != nightly * 3 or redeemed != 15000 or cash != total - 15000 or earned != (cash // 100) * rate:
        return {"result": "others"}
    if [row[1:] for row in stays if row[0] == booking_id] != [(room_id, "2026-03-10", "2026-03-13", 1, 2)]:
        return {"result": "others"}
    if balance[1] != balance[0] - 15000 + earned:
        return {"result": "others"}
    for key, row in room_rows[0].items():
        expected = row[:7] + (row[7] - 1,) if key == room_id else row
        if room_rows[1].get(key) != expected:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_7(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def rows(conn, table):
        cursor = conn.execute("SELECT * FROM " + table + " ORDER BY id")
        return {row[0]: row for row in cursor.fetchall()}

    cars = init.execute("SELECT rc.id, rc.daily_rate_cents FROM rental_cars rc JOIN airports a ON a.id = rc.airport_id WHERE a.iata_code = 'DEN' AND rc.car_class = 'suv' AND rc.units_available > 0 ORDER BY rc.daily_rate_cents, rc.id").fetchall()
    driver = init.execute("SELECT id FROM travelers WHERE user_id = 1 AND relationship = 'spouse' AND first_name = 'Daniel'").fetchall()
    card = init.execute("SELECT id FROM payment_methods WHERE user_id = 1 AND is_default = 1").fetchone()
    trip = init.execute("SELECT id FROM itineraries WHERE user_id = 1 AND name = 'Denver Ski Trip'").fetchone()
    rate = init.execute("SELECT t.points_per_dollar FROM users u JOIN loyalty_tiers t ON t.id = u.loyalty_tier_id WHERE u.id = 1").fetchone()[0]
    balance = (init.execute("SELECT points_balance FROM users WHERE id = 1").fetchone()[0], final.execute("SELECT points_balance FROM users WHERE id = 1").fetchone()[0])
    bookings = (rows(init, "bookings"), rows(final, "bookings"))
    car_rows = (rows(init, "rental_cars"), rows(final, "rental_cars"))
    rentals = final.execute("SELECT booking_id, car_id, pickup_date, dropoff_date, driver_traveler_id FROM car_bookings").fetchall()
    init.close()
    final.close()
    if not cars or len(driver) != 1 or card is None or trip is None:
        return {"result": "others"}
    if len(cars) > 1 and cars[0][1] == cars[1][1]:
        return {"result": "others"}
    car_id, daily = cars[0]
    if any(bookings[1].get(key) != row for key, row in bookings[0].items()):
        return {"result": "others"}
    new_bookings = [row for key, row in bookings[1].items() if key not in bookings[0]]
    if len(new_bookings) != 1:
        return {"result": "others"}
    booking_id, user_id, itinerary_id, booking_type, _, status, total, redeemed, cash, earned, payment_id = new_bookings[0][:11]
    if (user_id, itinerary_id, booking_type, status, payment_id) != (1, trip[0], "car", "confirmed", card[0]):
        return {"result": "others"}
    if total != daily * 4 or redeemed != 0 or cash != total or earned != (cash // 100) * rate:
        return {"result": "others"}
    if [row[1:] for row in rentals if row[0] == booking_id] != [(car_id, "2026-02-20", "2026-02-24", driver[0][0])]:
        return {"result": "others"}
    if balance[1] != balance[0] + earned:
        return {"result": "others"}
    for key, row in car_rows[0].items():
        expected = row[:8] + (row[8] - 1,) if key == car_id else row
        if car_rows[1].get(key) != expected:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_8(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def rows(conn, table):
        cursor = conn.execute("SELECT * FROM " + table + " ORDER BY id")
        return {row[0]: row for row in cursor.fetchall()}

    expected_hotels = sorted(row[0] for row in init.execute("SELECT id FROM hotels WHERE city = 'Kyoto' AND guest_rating >= 9.0").fetchall())
    old = init.execute("SELECT id FROM saved_trips WHERE user_id = 1 AND name = 'Paris Ideas 2024'").fetchall()
    trips = (rows(init, "saved_trips"), rows(final, "saved_trips"))
    items = (rows(init, "saved_trip_items"), rows(final, "saved_trip_items"))
    init.close()
    final.close()
    if len(old) != 1 or not expected_hotels:
        return {"result": "others"}
    old_id = old[0][0]
    if old_id in trips[1] or any(row[1] == old_id for row in items[1].values()):
        return {"result": "others"}
    for key, row in trips[0].items():
        if key != old_id and trips[1].get(key) != row:
            return {"result": "others"}
    for key, row in items[0].items():
        if row[1] != old_id and items[1].get(key) != row:
            return {"result": "others"}
    new_trips = [row for key, row in trips[1].items() if key not in trips[0]]
    if len(new_trips) != 1 or new_trips[0][1] != 1 or new_trips[0][2].strip().lower() != "kyoto ideas":
        return {"result": "others"}
    new_items = [row for key, row in items[1].items() if key not in items[0]]
    if any(row[1] != new_trips[0][0] for row in new_items):
        return {"result": "others"}
    if any(row[2] != "hotel" for row in new_items) or sorted(row[3] for row in new_items) != expected_hotels:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_9(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def rows(conn, table):
        cursor = conn.execute("SELECT * FROM " + table + " ORDER BY id")
        return {row[0]: row for row in cursor.fetchall()}

    stays = init.execute("SELECT b.id, h.id FROM bookings b JOIN hotel_bookings hb ON hb.booking_id = b.id JOIN room_types rt ON rt.id = hb.room_type_id JOIN hotels h ON h.id = rt.hotel_id WHERE b.user_id = 1 AND b.status = 'completed' AND h.name = 'Harbor View Inn' AND h.city = 'Seattle'").fetchall()
    alerts_to_drop = {row[0] for row in init.execute("SELECT pa.id FROM price_alerts pa JOIN airports o ON o.id = pa.origin_airport_id JOIN airports d ON d.id = pa.destination_airport_id WHERE pa.user_id = 1 AND o.iata_code = 'BOS' AND d.iata_code = 'SEA'").fetchall()}
    reviews = (rows(init, "reviews"), rows(final, "reviews"))
    alerts = (rows(init, "price_alerts"), rows(final, "price_alerts"))
    init.close()
    final.close()
    if len(stays) != 1 or not alerts_to_drop:
        return {"result": "others"}
    booking_id, hotel_id = stays[0]
    if any(reviews[1].get(key) != row for key, row in reviews[0].items()):
        return {"result": "others"}
    new_reviews = [row for key, row in reviews[1].items() if key not in reviews[0]]
    if len(new_reviews) != 1:
        return {"result": "others"}

    def norm(value):
        return re.sub(r"\s+", " ", (value or "").strip().strip("'\"").strip()).rstrip(".").lower()

    _, user_id, review_hotel, review_booking, rating, title, body = new_reviews[0][:7]
    if (user_id, review_hotel, review_booking, rating) != (1, hotel_id, booking_id, 9):
        return {"result": "others"}
    if norm(title) != "great harbor views" or norm(body) != "friendly staff and a quiet room":
        return {"result": "others"}
    if set(alerts[1]) != set(alerts[0]) - alerts_to_drop:
        return {"result": "others"}
    if any(alerts[1][key] != row for key, row in alerts[0].items() if key in alerts[1]):
        return {"result": "others"}
    return {"result": "complete"}


VERIFIER_META = [
    {"verification_strategy": "query_based", "reasoning": "Pure lookup over user 1's completed hotel bookings whose check-in falls in 2025: the answer must give the summed nights and name the hotel of the single longest stay (cancelled stays and the December 2024 stay excluded).", "key_checks": ["final_answer contains the total number of nights of completed 2025 stays", "final_answer names the hotel of the longest such stay"]},
    {"verification_strategy": "modification_based", "reasoning": "A new child traveler Emma Thompson born 2016-05-14 must exist for user 1, and exactly one new confirmed flight booking must hold the cheapest refundable economy BOS-DEN fare on 2026-02-20 with at least two seats, for user 1 and Emma, charged to the Visa ending 4242, filed under 'Denver Ski Trip', with exact price, points and seat inventory.", "key_checks": ["one new traveler: Emma Thompson, 2016-05-14, relationship child", "one new booking with the expected fare, passengers {self, Emma}, Visa 4242 and the Denver Ski Trip itinerary", "total = 2 x fare price, paid in cash, points earned at the tier rate and added to the balance", "fare seats_available reduced by 2; no other booking, traveler or fare changed"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup over the confirmed bookings of user 1's 'Tokyo Spring 2026' itinerary (the cancelled hotel excluded): the answer must give their summed total price, their summed points earned, and the card brand and last four digits they were charged to.", "key_checks": ["final_answer contains the summed total price of the confirmed bookings", "final_answer contains the summed points earned", "final_answer names the card brand and its last four digits"]},
    {"verification_strategy": "modification_based", "reasoning": "Every booking that was confirmed in user 1's 'Chicago Conference' itinerary must be cancelled with the refund its fare or room policy gives (flex fare, refundable room and car to the original payment; standard fare as airline credit minus the change fee), seats released, inventory restored, redeemed points returned and earned points reversed; the itinerary must be cancelled and nothing else (user 3's itinerary of the same name, other bookings) may change.", "key_checks": ["each previously confirmed booking in the itinerary is cancelled, other bookings untouched", "new refunds and travel credits equal the policy amounts exactly", "seats released, fare seats, room and car inventory restored", "points balance = initial + redeemed - earned of the cancelled bookings", "itinerary status cancelled, other itineraries unchanged"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: among refundable business fares on SFO-JFK flights departing 2026-02-12 (not cancelled, seats left) the cheapest one decides; the answer must name its flight number and price, so the cheaper non-refundable fare, the next-day flight and the reverse-direction flight are rejected.", "key_checks": ["final_answer contains the flight number of the cheapest refundable business fare", "final_answer contains that fare's price"]},
    {"verification_strategy": "modification_based", "reasoning": "On user 1's confirmed Boston-Tokyo booking, user 1 and her son Leo must hold exactly the two free extra-legroom seats of the booked cabin; those seats become occupied, any previously held seats are released, and no other seat, passenger or booking changes (the economy exit row and the return flight stay untouched).", "key_checks": ["the two passengers' seats equal the two free extra-legroom seats of the booked cabin", "those seats are occupied in the final state", "no other seat or passenger row changed", "bookings unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new confirmed hotel booking must hold the cheapest refundable room for two at the best-rated Lisbon hotel with 4+ stars, for 2026-03-10 to 2026-03-13, 1 room, 2 guests, with 15,000 points redeemed, the rest charged to the default card, points earned on the cash part and the balance updated exactly.", "key_checks": ["one new hotel booking with the expected room type, dates, rooms and guests", "total = 3 nights x rate, 15,000 points redeemed, cash = total - 15,000, default card", "points balance = initial - 15,000 + points earned", "room inventory reduced by 1; no other booking or room type changed"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new confirmed car booking must hold the cheapest SUV with units available at DEN for 2026-02-20 to 2026-02-24, driven by user 1's husband Daniel Thompson (not colleague Daniel Okafor), charged to the default card and filed under 'Denver Ski Trip', with exact price, points and inventory.", "key_checks": ["one new car booking with the expected car, dates and driver", "default card and Denver Ski Trip itinerary", "total = 4 days x daily rate, points earned and added to the balance", "car units reduced by 1; no other booking or car changed"]},
    {"verification_strategy": "modification_based", "reasoning": "A new saved trip 'Kyoto Ideas' of user 1 must hold exactly the Kyoto hotels rated 9.0 or higher (not the Osaka hotel named after Kyoto, not the 8.9 one), and user 1's 'Paris Ideas 2024' must be deleted with its items, leaving 'Paris Ideas' and user 3's trip of the same name untouched.", "key_checks": ["one new saved trip named Kyoto Ideas for user 1", "its items are exactly the expected hotels", "user 1's Paris Ideas 2024 and its items are gone", "all other saved trips and items unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new review by user 1 must be linked to her completed Harbor View Inn booking and hotel with rating 9 and the requested title and text, and her BOS-SEA price alert must be deleted while the SEA-BOS alert and user 2's BOS-SEA alert remain.", "key_checks": ["one new review: user 1, Harbor View Inn, the completed booking, rating 9", "title and text match the request", "user 1's BOS-SEA alert deleted", "all other reviews and alerts unchanged"]},
]
