"""The built-in `doordash` world: scenario, tasks and reference solutions, plus re-exports.

Sources of truth, assembled into AWM JSONL by scripts/build_builtin_worlds.py:
  schema.py (TABLES), sample.py (SAMPLE), spec.py (SPEC), app.py (full_code),
  verifiers.py (VERIFIERS, extracted from the verifier_<i> functions) and this file.
Solution calls use operation ids and flat arguments exactly as an MCP client would send them.
Ids created while solving are predictable: the seed has 14 orders, so a new one gets id 15.
"""

import ast
import os

from .sample import SAMPLE
from .schema import TABLES
from .spec import SPEC
from .verifiers import VERIFIER_META

__all__ = ["SCENARIO", "DESCRIPTION", "TASKS", "TABLES", "SAMPLE", "SPEC", "FULL_CODE", "VERIFIERS", "VERIFIER_META", "SOLUTIONS"]

SCENARIO = "doordash"

DESCRIPTION = (
    "DoorDash is a food delivery marketplace where customers search local restaurants by name, "
    "cuisine, city, rating, delivery fee and whether they are open right now, browse menus organised "
    "in sections, and customise dishes through option groups such as size, protein, spice level and "
    "paid add-ons. The cart holds dishes from one restaurant at a time; checkout sends it to one of the "
    "customer's saved addresses, charges a saved card, adds a Dasher tip, and applies a promo code "
    "whose rules may depend on the restaurant, a minimum subtotal, a cap or DashPass membership. "
    "DashPass members pay no delivery fee and a reduced service fee at eligible restaurants on orders "
    "of $12 or more; small orders carry a fee and sales tax is added. Orders move from placed to "
    "confirmed, preparing, picked up and delivered with a status history and an assigned Dasher; "
    "customers can cancel before the restaurant confirms, change the tip, reorder a past order, and "
    "rate the restaurant and the Dasher after delivery. Customers also keep favorite restaurants, "
    "manage addresses with drop-off instructions and cards, and switch, pause or cancel their DashPass "
    "plan. The simulated service is seen from one logged-in DashPass member in Austin (user 1, Jordan "
    "Alvarez) among five customers, with fourteen restaurants, fifty-three dishes and fourteen orders."
)

TASKS = [
    "At the highest-rated Thai restaurant in Austin that is open right now, which vegetarian dish in the 'Curries' section is the cheapest one currently available, and how much does it cost?",
    "Empty my cart, then add one Large Pepperoni Pizza with Extra Cheese and two orders of Garlic Knots from Tony's Slice House.",
    "Check out my current cart for delivery to my 'Work' address, paying with my American Express card, with a $6 tip and whichever available promo code gives the biggest discount on this order; then tell me which code you used and the order total.",
    "Which Dasher has delivered the most of my orders, and how much have I tipped that Dasher in total across those deliveries?",
    "Rate my most recent delivered order 5 stars for the restaurant and 4 stars for the Dasher with the comment 'Still hot on arrival', and add that restaurant to my favorites.",
    "Cancel my Burger Barn order that the restaurant hasn't confirmed yet, then reorder my most recent delivered order from Pho Saigon so its items are in my cart.",
    "Switch my DashPass to the annual plan billed to my Visa ending in 1234, and make that Visa my default payment method.",
    "How much would one Large 'Build Your Own Pizza' with pepperoni, mushrooms and extra cheese cost at Tony's Slice House, before fees and tax?",
    "Change the drop-off instructions on my Home address to 'Leave at the side door, dog in the yard' and raise the tip on my order that is being prepared right now to $8.",
    "Replace whatever is in my cart with 2 orders of Pad Thai with chicken and medium spice from the open Austin restaurant that sells Pad Thai at the lowest base price.",
]


def _call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


SOLUTIONS = [
    {
        "calls": [
            _call("list_cuisines"),
            _call("search_restaurants", cuisine_id=3, city="Austin", open_now=True, sort="rating"),
            _call("get_restaurant_menu", restaurant_id=4),
        ],
        "final_answer": "Bangkok Garden is the best-rated open Thai restaurant in Austin; its cheapest available vegetarian curry is the Green Curry at $13.95 (the Panang Curry is sold out).",
    },
    {
        "calls": [
            _call("search_restaurants", q="Tony's Slice House"),
            _call("get_restaurant_menu", restaurant_id=1),
            _call("get_menu_item", menu_item_id=2),
            _call("clear_cart"),
            _call("add_cart_item", menu_item_id=2, quantity=1, option_ids=[2, 4]),
            _call("add_cart_item", menu_item_id=5, quantity=2),
        ],
        "final_answer": "Your cart now has a Large Pepperoni Pizza with Extra Cheese and two Garlic Knots from Tony's Slice House.",
    },
    {
        "calls": [
            _call("get_cart"),
            _call("list_addresses"),
            _call("list_payment_methods"),
            _call("list_promotions", restaurant_id=3),
            _call("place_order", address_id=2, payment_method_id=3, tip_amount=6.0, promo_code="SUSHI20"),
        ],
        "final_answer": "Placed your Sakura Sushi Bar order to Work on your Amex with a $6 tip using SUSHI20 ($7.99 off); the order total is $43.26.",
    },
    {
        "calls": [
            _call("list_orders", status="delivered"),
            _call("get_order", order_id=6),
            _call("get_order", order_id=5),
            _call("get_order", order_id=4),
            _call("get_order", order_id=3),
            _call("get_order", order_id=2),
            _call("get_order", order_id=1),
        ],
        "final_answer": "Carlos M. delivered the most of your orders (3), and you tipped him $12.00 in total.",
    },
    {
        "calls": [
            _call("list_orders", status="delivered", limit=3),
            _call("get_order", order_id=6),
            _call("rate_order", order_id=6, restaurant_rating=5, driver_rating=4, comment="Still hot on arrival"),
            _call("add_favorite", restaurant_id=10),
        ],
        "final_answer": "Rated your Spice Route order 5 stars (Dasher 4 stars) and added Spice Route to your favorites.",
    },
    {
        "calls": [
            _call("list_orders", status="placed"),
            _call("cancel_order", order_id=8, reason="Changed my mind"),
            _call("list_orders", restaurant_id=7, status="delivered"),
            _call("reorder", order_id=4),
        ],
        "final_answer": "Cancelled your Burger Barn order and put two Pho Ga and a Lemongrass Tofu Banh Mi from your last Pho Saigon order in your cart.",
    },
    {
        "calls": [
            _call("get_dashpass"),
            _call("list_payment_methods"),
            _call("update_dashpass", plan="annual", payment_method_id=2),
            _call("update_payment_method", payment_method_id=2, is_default=True),
        ],
        "final_answer": "Your DashPass is now on the annual plan ($96.00) billed to your Visa ending in 1234, which is also your default card.",
    },
    {
        "calls": [
            _call("search_restaurants", q="Tony's Slice House"),
            _call("get_restaurant_menu", restaurant_id=1),
            _call("get_menu_item", menu_item_id=4),
        ],
        "final_answer": "A Large Build Your Own Pizza with pepperoni, mushrooms and extra cheese costs $23.24 before fees and tax.",
    },
    {
        "calls": [
            _call("list_addresses"),
            _call("update_address", address_id=1, dropoff_instructions="Leave at the side door, dog in the yard"),
            _call("list_orders", status="preparing"),
            _call("update_order_tip", order_id=9, tip_amount=8.0),
        ],
        "final_answer": "Updated your Home drop-off instructions and raised the tip on your Sakura Sushi Bar order to $8.00.",
    },
    {
        "calls": [
            _call("search_menu_items", q="Pad Thai", city="Austin"),
            _call("get_menu_item", menu_item_id=27),
            _call("clear_cart"),
            _call("add_cart_item", menu_item_id=27, quantity=2, option_ids=[38, 41]),
        ],
        "final_answer": "Your cart now holds 2 Pad Thai (chicken, medium spice) from Siam Street Eats at $11.95 each.",
    },
]

# Test data, not assembled into JSONL: plausible but wrong answers for the pure query tasks
# (their final DB equals the initial DB); the verifier must reject each one.
WRONG_ANSWERS = {
    0: ["EMPTY RESPONSE FOR TESTING", "The Panang Curry at $12.95.", "The Red Curry, $13.45.", "Thai Orchid Kitchen's Yellow Curry for $11.95.", "Green Curry at $12.95."],
    3: ["EMPTY RESPONSE FOR TESTING", "Carlos M., with $22.00 in tips.", "Aisha K., $13.00 in total.", "Carlos M. - $11.50.", "Ben T., $12.00."],
    7: ["EMPTY RESPONSE FOR TESTING", "$19.24", "$13.99", "$24.74", "It would be $21.24."],
}
# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    1: [("clear_cart", {}), ("add_cart_item", {"menu_item_id": 2, "quantity": 1, "option_ids": [1, 4]}), ("add_cart_item", {"menu_item_id": 5, "quantity": 2})],
    2: [("place_order", {"address_id": 2, "payment_method_id": 3, "tip_amount": 6.0, "promo_code": "DASH15"})],
    4: [("rate_order", {"order_id": 6, "restaurant_rating": 4, "driver_rating": 5, "comment": "Still hot on arrival"}), ("add_favorite", {"restaurant_id": 10})],
    5: [("cancel_order", {"order_id": 8, "reason": "Changed my mind"}), ("reorder", {"order_id": 1})],
    6: [("update_dashpass", {"plan": "annual", "payment_method_id": 4}), ("update_payment_method", {"payment_method_id": 4, "is_default": True})],
    8: [("update_address", {"address_id": 1, "dropoff_instructions": "Leave at the side door, dog in the yard"}), ("update_order_tip", {"order_id": 8, "tip_amount": 8.0})],
    9: [("clear_cart", {}), ("add_cart_item", {"menu_item_id": 18, "quantity": 2, "option_ids": [26, 29]})],
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
