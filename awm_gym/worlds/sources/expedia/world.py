"""The built-in `expedia` world: scenario, tasks and reference solutions, plus re-exports.

Sources of truth, assembled into AWM JSONL by scripts/build_builtin_worlds.py:
  schema.py (TABLES), sample.py (SAMPLE), spec.py (SPEC), app.py (full_code),
  verifiers.py (VERIFIERS, extracted from the verifier_<i> functions) and this file.
Solution calls use operation ids and flat arguments exactly as an MCP client would send them.
Ids created while solving are predictable: the seed has 11 travelers (a new one gets id 12),
26 bookings (a new one gets id 27) and 4 saved trips (a new one gets id 5).
"""

import ast
import os

from .sample import SAMPLE
from .schema import TABLES
from .spec import SPEC
from .verifiers import VERIFIER_META

__all__ = ["SCENARIO", "DESCRIPTION", "TASKS", "TABLES", "SAMPLE", "SPEC", "FULL_CODE", "VERIFIERS", "VERIFIER_META", "SOLUTIONS"]

SCENARIO = "expedia"

DESCRIPTION = (
    "Expedia is an online travel agency where members search and book flights, hotels and rental cars "
    "and organise them into trip itineraries. Flights are sold as fares by cabin (economy, premium "
    "economy, business, first) and fare class: basic fares are neither refundable nor changeable, "
    "standard fares can be exchanged for airline travel credit minus a change fee, and flex fares are "
    "fully refundable. Each flight has a seat map with window, middle and aisle seats and extra-legroom "
    "rows, and passengers are assigned seats after booking. Hotels list star ratings, guest ratings, "
    "amenities and room types with bed set-ups, occupancy limits, nightly rates and refund policies; "
    "rental cars are offered by class at airports with daily rates and limited availability. Members "
    "keep saved traveler profiles with passport details, several payment cards with one default, "
    "itineraries that group bookings, wish-list style saved trips, fare price alerts and hotel "
    "reviews of completed stays. A loyalty program with blue, silver, gold and platinum tiers awards "
    "points per dollar paid in cash; points can pay for part of a booking (one point per cent), and "
    "cancelling a booking returns redeemed points, reverses earned points and issues the refund or "
    "travel credit the fare or room policy allows. The simulated service is seen from one logged-in "
    "gold member (user 1, Maya Thompson, based in Boston) among five members, with thirteen airports, "
    "six airlines, twenty-one flights, sixteen hotels and twelve rental cars; the current date is "
    "2026-01-01."
)

TASKS = [
    "How many nights did I spend in hotels on completed stays that began in 2025, and at which hotel was my longest of those stays?",
    "Add my daughter Emma Thompson (born 2016-05-14) as a traveler, then book her and me on the cheapest refundable economy fare for a flight from Boston (BOS) to Denver (DEN) on 2026-02-20, paying with my Visa ending in 4242 and filing the booking under my 'Denver Ski Trip' itinerary.",
    "For my 'Tokyo Spring 2026' itinerary, what is the total price of the bookings that are still confirmed, how many loyalty points did those bookings earn me, and which card were they charged to?",
    "My Chicago conference is off: cancel every booking that is still confirmed in my 'Chicago Conference' itinerary and mark that itinerary as cancelled.",
    "Which flight from San Francisco (SFO) to New York (JFK) on 2026-02-12 has the cheapest refundable business-class fare, and what is that fare per person?",
    "On my upcoming flight from Boston to Tokyo, seat me and my son Leo in the two free extra-legroom seats of the cabin we booked.",
    "Book 3 nights at the Lisbon hotel with the best guest rating among those with at least 4 stars, checking in on 2026-03-10 and out on 2026-03-13, in its cheapest refundable room that sleeps 2, for 2 guests; apply 15,000 of my loyalty points and charge the rest to my default card.",
    "Rent the cheapest available SUV at Denver airport (DEN) from 2026-02-20 to 2026-02-24 with my husband Daniel as the driver, charge my default card, and add the rental to my 'Denver Ski Trip' itinerary.",
    "Create a saved trip called 'Kyoto Ideas' containing every hotel in Kyoto with a guest rating of 9.0 or higher, and delete my old saved trip 'Paris Ideas 2024'.",
    "Leave a 9/10 review titled 'Great harbor views' with the text 'Friendly staff and a quiet room.' for my completed stay at the Harbor View Inn in Seattle, then delete my price alert for flights from Boston to Seattle.",
]


def _call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


SOLUTIONS = [
    {
        "calls": [
            _call("list_bookings", booking_type="hotel", status="completed"),
            _call("get_booking", booking_id=3),
            _call("get_booking", booking_id=17),
            _call("get_booking", booking_id=18),
            _call("get_booking", booking_id=19),
        ],
        "final_answer": "Your completed stays that began in 2025 add up to 11 nights: 2 at Mile High Lodge (February), 5 at Hotel Rive Gauche (May) and 4 at Harbor View Inn (August). The longest was at Hotel Rive Gauche in Paris.",
    },
    {
        "calls": [
            _call("add_traveler", first_name="Emma", last_name="Thompson", date_of_birth="2016-05-14", relationship="child"),
            _call("search_flights", origin="BOS", destination="DEN", departure_date="2026-02-20", cabin="economy"),
            _call("list_flight_fares", flight_id=10, cabin="economy"),
            _call("list_flight_fares", flight_id=11, cabin="economy"),
            _call("list_flight_fares", flight_id=12, cabin="economy"),
            _call("list_payment_methods"),
            _call("list_itineraries"),
            _call("book_flight", fare_id=29, traveler_ids=[1, 12], payment_method_id=1, itinerary_id=4),
        ],
        "final_answer": "Emma is saved as a traveler, and you are both booked on PC604 (17:50) in the economy flex fare at $229.00 each ($458.00 total) on your Visa ending 4242, filed under 'Denver Ski Trip'. SB212's flex fare was cheaper but had only one seat left.",
    },
    {
        "calls": [
            _call("list_itineraries"),
            _call("get_itinerary", itinerary_id=3),
            _call("get_booking", booking_id=10),
            _call("get_booking", booking_id=11),
            _call("get_booking", booking_id=12),
        ],
        "final_answer": "The three confirmed bookings (TK26F1, TK26H2, TK26F2) total $6,156.00 and earned you 18,468 points; all were charged to your Visa ending in 4242. The cancelled hotel booking TK26H1 is not included.",
    },
    {
        "calls": [
            _call("list_itineraries"),
            _call("get_itinerary", itinerary_id=2),
            _call("cancel_booking", booking_id=5),
            _call("cancel_booking", booking_id=6),
            _call("cancel_booking", booking_id=7),
            _call("cancel_booking", booking_id=8),
            _call("update_itinerary", itinerary_id=2, status="cancelled"),
        ],
        "final_answer": "Cancelled CH26F1 (refund $289.00), CH26F2 ($74.00 Meridian Air credit, 5,000 points returned), CH26H1 (refund $657.00) and CH26C1 (refund $162.00), and marked 'Chicago Conference' as cancelled.",
    },
    {
        "calls": [
            _call("search_flights", origin="SFO", destination="JFK", departure_date="2026-02-12", cabin="business"),
            _call("list_flight_fares", flight_id=5, cabin="business"),
            _call("list_flight_fares", flight_id=6, cabin="business"),
            _call("list_flight_fares", flight_id=7, cabin="business"),
        ],
        "final_answer": "Atlantic Star Airlines flight AT515 (departing 10:30) has the cheapest refundable business fare: the flex fare at $899.00 per person.",
    },
    {
        "calls": [
            _call("list_bookings", booking_type="flight", status="confirmed"),
            _call("get_booking", booking_id=10),
            _call("get_seat_map", flight_id=4, cabin="premium_economy", available_only=True),
            _call("assign_seat", booking_id=10, traveler_id=1, seat_number="20B"),
            _call("assign_seat", booking_id=10, traveler_id=3, seat_number="20C"),
        ],
        "final_answer": "On SH8 to Tokyo you are in 20B and Leo is in 20C, the two free extra-legroom premium economy seats.",
    },
    {
        "calls": [
            _call("search_hotels", city="Lisbon", min_stars=4),
            _call("list_room_types", hotel_id=2, guests=2),
            _call("get_loyalty_summary"),
            _call("list_payment_methods"),
            _call("book_hotel", room_type_id=6, check_in="2026-03-10", check_out="2026-03-13", guests=2, payment_method_id=3, points_to_redeem=15000),
        ],
        "final_answer": "Booked the Standard Double Flexible at Hotel Baixa Lisboa for 2026-03-10 to 2026-03-13: $504.00 total, 15,000 points applied and $354.00 charged to your Amex ending 1005.",
    },
    {
        "calls": [
            _call("search_cars", airport_code="DEN", car_class="suv"),
            _call("list_travelers"),
            _call("list_payment_methods"),
            _call("list_itineraries"),
            _call("book_car", car_id=2, pickup_date="2026-02-20", dropoff_date="2026-02-24", driver_traveler_id=2, payment_method_id=3, itinerary_id=4),
        ],
        "final_answer": "Booked a Toyota RAV4 from Summit Rentals at DEN for 2026-02-20 to 2026-02-24 ($288.00) with Daniel Thompson driving, on your Amex, in 'Denver Ski Trip'. The cheaper Ford Explorer was sold out.",
    },
    {
        "calls": [
            _call("search_hotels", city="Kyoto", min_guest_rating=9.0),
            _call("create_saved_trip", name="Kyoto Ideas", destination_city="Kyoto"),
            _call("add_saved_trip_item", saved_trip_id=5, hotel_id=7),
            _call("add_saved_trip_item", saved_trip_id=5, hotel_id=9),
            _call("list_saved_trips"),
            _call("delete_saved_trip", saved_trip_id=1),
        ],
        "final_answer": "Created 'Kyoto Ideas' with Gion Garden Ryokan (9.3) and Arashiyama Bamboo Retreat (9.0), and deleted 'Paris Ideas 2024'.",
    },
    {
        "calls": [
            _call("list_bookings", booking_type="hotel", status="completed"),
            _call("get_booking", booking_id=3),
            _call("create_review", hotel_id=5, booking_id=3, rating=9, title="Great harbor views", body="Friendly staff and a quiet room."),
            _call("list_price_alerts"),
            _call("delete_price_alert", alert_id=1),
        ],
        "final_answer": "Posted your 9/10 review of Harbor View Inn for stay HV4481 and deleted the BOS-SEA price alert (the SEA-BOS alert is still active).",
    },
]

# Test data, not assembled into JSONL: plausible but wrong answers for the pure query tasks
# (their final DB equals the initial DB); the verifier must reject each one.
WRONG_ANSWERS = {
    0: [
        "EMPTY RESPONSE FOR TESTING",
        "You spent 18 nights in hotels; the longest stay was at Mile High Lodge (7 nights).",
        "14 nights in total, and the longest stay was at Hotel Rive Gauche.",
        "11 nights in total; the longest stay was at Harbor View Inn.",
    ],
    2: [
        "EMPTY RESPONSE FOR TESTING",
        "The Tokyo bookings total $7,916.00 and earned 23,748 points, charged to your Visa ending 4242.",
        "The confirmed bookings total $6,156.00 and earned 23,748 points, charged to your Visa ending 4242.",
        "The confirmed bookings total $6,156.00 and earned 18,468 points, charged to your Mastercard ending 4242.",
    ],
    4: [
        "EMPTY RESPONSE FOR TESTING",
        "SkyBridge Airways SB330 at $649.00.",
        "Pacific Crest PC222 has a refundable business fare for $859.00.",
        "Atlantic Star AT515 for $719.00.",
        "AT516 at $799.00 per person.",
    ],
}
# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    1: [
        ("add_traveler", {"first_name": "Emma", "last_name": "Thompson", "date_of_birth": "2016-05-14", "relationship": "child"}),
        ("book_flight", {"fare_id": 22, "traveler_ids": [1, 12], "payment_method_id": 1, "itinerary_id": 4}),
    ],
    3: [("cancel_booking", {"booking_id": b}) for b in (5, 6, 7)] + [("update_itinerary", {"itinerary_id": 2, "status": "cancelled"})],
    5: [
        ("assign_seat", {"booking_id": 10, "traveler_id": 1, "seat_number": "30A"}),
        ("assign_seat", {"booking_id": 10, "traveler_id": 3, "seat_number": "30B"}),
    ],
    6: [("book_hotel", {"room_type_id": 6, "check_in": "2026-03-10", "check_out": "2026-03-13", "guests": 2, "payment_method_id": 3})],
    7: [("book_car", {"car_id": 2, "pickup_date": "2026-02-20", "dropoff_date": "2026-02-24", "driver_traveler_id": 4, "payment_method_id": 3, "itinerary_id": 4})],
    8: [
        ("create_saved_trip", {"name": "Kyoto Ideas", "destination_city": "Kyoto"}),
        ("add_saved_trip_item", {"saved_trip_id": 5, "hotel_id": 7}),
        ("add_saved_trip_item", {"saved_trip_id": 5, "hotel_id": 9}),
        ("add_saved_trip_item", {"saved_trip_id": 5, "hotel_id": 16}),
        ("delete_saved_trip", {"saved_trip_id": 1}),
    ],
    9: [
        ("create_review", {"hotel_id": 5, "booking_id": 3, "rating": 9, "title": "Great harbor views", "body": "Friendly staff and a quiet room."}),
        ("delete_price_alert", {"alert_id": 3}),
    ],
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
