"""The built-in `amazon` world: scenario, tasks and reference solutions, plus re-exports.

Sources of truth, assembled into AWM JSONL by scripts/build_builtin_worlds.py:
  schema.py (TABLES), sample.py (SAMPLE), spec.py (SPEC), app.py (full_code),
  verifiers.py (VERIFIERS, extracted from the verifier_<i> functions) and this file.
Solution calls use operation ids and flat arguments exactly as an MCP client would send them.
Ids created while solving are predictable: the seed has 9 addresses, so a new one gets id 10.
"""

import ast
import os

from .sample import SAMPLE
from .schema import TABLES
from .spec import SPEC
from .verifiers import VERIFIER_META

__all__ = ["SCENARIO", "DESCRIPTION", "TASKS", "TABLES", "SAMPLE", "SPEC", "FULL_CODE", "VERIFIERS", "VERIFIER_META", "SOLUTIONS"]

SCENARIO = "amazon"

DESCRIPTION = (
    "Amazon is an online marketplace where customers search a catalog of products from many brands, "
    "each sold in variants such as colour or size and offered by several sellers (Amazon itself and "
    "third-party merchants) at different prices, conditions (new, used, renewed), stock levels and "
    "Prime eligibility. Shoppers compare offers, read and write product reviews, keep wishlists, and "
    "fill a cart whose items can be saved for later. Checkout turns the active cart into an order "
    "shipped to one of the customer's saved addresses, paid with a saved card, gift card or bank "
    "account, optionally discounted by a coupon code, with free shipping for Prime members and sales "
    "tax added. Orders move through pending, processing, shipped and delivered, with a tracking "
    "history; unshipped orders can be cancelled or redirected to another address, and delivered items "
    "can be returned within 30 days for a refund or replacement. Subscribe & Save schedules recurring "
    "deliveries of household staples every few weeks, which customers can pause, change or cancel. "
    "Customers also manage their address book and default payment method. The simulated store is seen "
    "from one logged-in Prime member (user 1, Priya Raman) among six customers, with twenty-two "
    "products in twelve categories, thirty-one variants, fifty-seven seller offers and fourteen orders."
)

TASKS = [
    "Which seller currently offers the lowest price on a new, in-stock 'AuraSound ANC 700 Wireless Headphones' in Midnight Black, and what is that price?",
    "Cancel my order for the 'Trailblazer 2-Person Tent' that hasn't shipped yet, and add that same tent (same colour) to my 'Camping Trip' wishlist instead.",
    "Remove the ArmorShell phone case from my cart, then check out the rest of my cart (leave saved-for-later items alone), shipping to my 'Office' address, paying with my Visa ending in 4242, and applying coupon code SAVE10.",
    "How much have I spent in total on items sold by the seller 'TechHaven' across all of my delivered orders?",
    "One of the two ThermoSip Smart Mug 2 mugs in my most recently delivered order with that mug is defective: request a return for one unit with reason 'defective' and a refund, and tell me the refund amount.",
    "Write a 4-star review of the 'Brewmaster Pour-Over Kettle' titled 'Great pour control' with the text 'Heats evenly and the spout gives precise control.', and delete my old review of the 'Nimbus Yoga Mat'.",
    "Change my Highland Roast coffee Subscribe & Save delivery to every 2 weeks, pause my paper towel subscription, and start a new subscription for 1 'NutHarvest Trail Mix Variety Pack' every 4 weeks using its cheapest Prime-eligible offer.",
    "Which product on my 'Birthday Ideas' wishlist has the highest customer rating, and what is the lowest price currently available for a new, in-stock unit of the exact variant on my list?",
    "I've moved: add a new default address labelled 'Home' for Priya Raman at 742 Maple Avenue, Portland, OR 97205, phone 503-555-0142, delete my old Home address in Seattle, and send every order of mine that hasn't shipped yet to the new address.",
    "Add 2 units of the highest-rated headphones (Headphones category) that can be bought new and Prime-eligible for under $100 to my cart, choosing the cheapest such offer.",
]


def _call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


SOLUTIONS = [
    {
        "calls": [
            _call("search_products", q="AuraSound ANC 700"),
            _call("list_product_variants", product_id=1),
            _call("list_variant_offers", variant_id=1, condition="new"),
        ],
        "final_answer": "TechHaven has the lowest price on a new, in-stock AuraSound ANC 700 in Midnight Black: $264.99 (BrightDeals lists it at $259.00 but is out of stock).",
    },
    {
        "calls": [
            _call("list_orders", status="processing"),
            _call("get_order", order_id=8),
            _call("cancel_order", order_id=8, reason="Changed my mind"),
            _call("list_wishlists"),
            _call("add_wishlist_item", wishlist_id=2, variant_id=22),
        ],
        "final_answer": "Cancelled order 112-5530981-1146620 for the Trailblazer 2-Person Tent (Forest Green) and added that tent to your 'Camping Trip' wishlist.",
    },
    {
        "calls": [
            _call("get_cart"),
            _call("remove_cart_item", cart_item_id=1),
            _call("list_addresses"),
            _call("list_payment_methods"),
            _call("get_coupon", code="SAVE10"),
            _call("checkout", address_id=2, payment_method_id=2, coupon_code="SAVE10"),
        ],
        "final_answer": "Removed the phone case and placed order 114-0000015-0118785: two bags of Highland Roast coffee and the IronCraft skillet, shipped to your Office with your Visa ending in 4242; SAVE10 took $6.79 off, total $65.98.",
    },
    {
        "calls": [
            _call("list_orders", status="delivered"),
            _call("get_order", order_id=5),
            _call("get_order", order_id=4),
            _call("get_order", order_id=3),
            _call("get_order", order_id=2),
            _call("get_order", order_id=1),
        ],
        "final_answer": "Across your delivered orders you spent $169.97 at TechHaven: $109.99 on the KeyNest keyboard and $59.98 on two GlidePro mice.",
    },
    {
        "calls": [
            _call("list_orders", status="delivered"),
            _call("get_order", order_id=5),
            _call("create_return", order_item_id=10, quantity=1, reason="defective", resolution="refund"),
        ],
        "final_answer": "Return requested for one ThermoSip Smart Mug 2 from order 112-2209586-4471630; your refund will be $129.95.",
    },
    {
        "calls": [
            _call("search_products", q="Brewmaster Pour-Over Kettle"),
            _call("create_review", product_id=11, rating=4, title="Great pour control", body="Heats evenly and the spout gives precise control."),
            _call("list_my_reviews"),
            _call("delete_review", review_id=2),
        ],
        "final_answer": "Posted your 4-star review of the Brewmaster Pour-Over Kettle and deleted your Nimbus Yoga Mat review.",
    },
    {
        "calls": [
            _call("list_subscriptions"),
            _call("update_subscription", subscription_id=1, frequency_weeks=2),
            _call("update_subscription", subscription_id=2, status="paused"),
            _call("search_products", q="NutHarvest Trail Mix"),
            _call("list_product_variants", product_id=21),
            _call("list_variant_offers", variant_id=30, prime_only=True),
            _call("create_subscription", offer_id=53, quantity=1, frequency_weeks=4),
        ],
        "final_answer": "Coffee now arrives every 2 weeks, paper towels are paused, and a new 4-weekly subscription for 1 NutHarvest Trail Mix Variety Pack from FreshCart Grocers ($21.75, Prime) has started.",
    },
    {
        "calls": [
            _call("list_wishlists"),
            _call("list_wishlist_items", wishlist_id=1),
            _call("list_variant_offers", variant_id=7, condition="new", in_stock_only=True),
        ],
        "final_answer": "The Vibe Studio Over-Ear Headphones (White) are the best rated item on your Birthday Ideas list at 4.7 stars; the lowest new in-stock price is $91.50 from BrightDeals.",
    },
    {
        "calls": [
            _call("list_addresses"),
            _call("add_address", label="Home", full_name="Priya Raman", street="742 Maple Avenue", city="Portland", state="OR", postal_code="97205", phone="503-555-0142", is_default=True),
            _call("delete_address", address_id=1),
            _call("list_orders"),
            _call("update_order_address", order_id=9, address_id=10),
            _call("update_order_address", order_id=8, address_id=10),
        ],
        "final_answer": "Added 742 Maple Avenue, Portland as your default Home address, deleted the old Seattle one, and redirected your two unshipped orders there.",
    },
    {
        "calls": [
            _call("list_categories"),
            _call("search_products", category_id=2, max_price=100, condition="new", prime_only=True, sort="rating"),
            _call("list_product_variants", product_id=4),
            _call("list_variant_offers", variant_id=6, condition="new", prime_only=True),
            _call("list_variant_offers", variant_id=7, condition="new", prime_only=True),
            _call("add_to_cart", offer_id=13, quantity=2),
        ],
        "final_answer": "Added 2 Vibe Studio Over-Ear Headphones (Black) from TechHaven at $84.50 each, new and Prime-eligible, to your cart.",
    },
]

# Test data, not assembled into JSONL: plausible but wrong answers for the pure query tasks
# (their final DB equals the initial DB); the verifier must reject each one.
WRONG_ANSWERS = {
    0: ["EMPTY RESPONSE FOR TESTING", "BrightDeals has the lowest price at $259.00.", "Renewed Electronics Hub sells it for $189.99.", "TechHaven, at $249.99.", "Amazon.com at $279.99."],
    3: ["EMPTY RESPONSE FOR TESTING", "You spent $189.96 at TechHaven.", "You spent $229.96 at TechHaven.", "$254.47 in total.", "$139.97"],
    7: ["EMPTY RESPONSE FOR TESTING", "The Summit Insulated Water Bottle 32 oz, at $32.00.", "Vibe Studio Over-Ear Headphones, lowest price $72.00.", "Vibe Studio Over-Ear Headphones for $79.00.", "The Quiet Orbit at $18.40."],
}
# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    1: [("cancel_order", {"order_id": 8, "reason": "Changed my mind"}), ("add_wishlist_item", {"wishlist_id": 2, "variant_id": 23})],
    2: [("checkout", {"address_id": 2, "payment_method_id": 2, "coupon_code": "SAVE10"})],
    4: [("create_return", {"order_item_id": 9, "quantity": 1, "reason": "defective", "resolution": "refund"})],
    5: [("create_review", {"product_id": 11, "rating": 4, "title": "Great pour control", "body": "Heats evenly and the spout gives precise control."}), ("update_review", {"review_id": 2, "rating": 1})],
    6: [("update_subscription", {"subscription_id": 1, "frequency_weeks": 2}), ("update_subscription", {"subscription_id": 2, "status": "paused"}), ("create_subscription", {"offer_id": 52, "quantity": 1, "frequency_weeks": 4})],
    8: [("add_address", {"label": "Home", "full_name": "Priya Raman", "street": "742 Maple Avenue", "city": "Portland", "state": "OR", "postal_code": "97205", "phone": "503-555-0142", "is_default": True}), ("delete_address", {"address_id": 1}), ("update_order_address", {"order_id": 8, "address_id": 10})],
    9: [("add_to_cart", {"offer_id": 14, "quantity": 2})],
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
