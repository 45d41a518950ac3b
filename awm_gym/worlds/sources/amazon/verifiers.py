"""Code-mode verifiers of the amazon world, one per task (gen_verifier.pure_code.jsonl).

`verifier_<i>` is task i's verifier. The assembler stores each function's source text with the
name rewritten to `verify_task_completion`, AWM's entry-point name. Each function imports only
sqlite3, json and re, reads both databases, and returns {"result": "complete"} only when the
task is certainly done, else {"result": "others"}. VERIFIER_META gives the rest of AWM's raw
response (reasoning, verification_strategy, key_checks) in task order.
"""


def verifier_0(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    rows = conn.execute("SELECT s.name, o.price FROM offers o JOIN product_variants v ON v.id = o.variant_id JOIN products p ON p.id = v.product_id JOIN sellers s ON s.id = o.seller_id WHERE p.title = 'AuraSound ANC 700 Wireless Headphones' AND v.color = 'Midnight Black' AND o.condition = 'new' AND o.stock_qty > 0 ORDER BY o.price, o.id LIMIT 2").fetchall()
    conn.close()
    if not rows or (len(rows) > 1 and abs(rows[0][1] - rows[1][1]) < 0.005):
        return {"result": "others"}
    seller, price = rows[0]
    if not re.search(r"(?<![A-Za-z])" + re.escape(seller) + r"(?![A-Za-z])", final_answer, re.IGNORECASE):
        return {"result": "others"}
    compact = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", final_answer)
    if not re.search(r"(?<![\d.])" + re.escape("%.2f" % price) + r"(?!\d)", compact):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_1(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    targets = init.execute("SELECT DISTINCT o.id, oi.variant_id FROM orders o JOIN order_items oi ON oi.order_id = o.id JOIN product_variants v ON v.id = oi.variant_id JOIN products p ON p.id = v.product_id WHERE o.user_id = 1 AND o.status IN ('pending', 'processing') AND p.title = 'Trailblazer 2-Person Tent'").fetchall()
    wishlist = init.execute("SELECT id FROM wishlists WHERE user_id = 1 AND name = 'Camping Trip'").fetchone()
    init_orders = dict(init.execute("SELECT id, status FROM orders").fetchall())
    final_orders = dict(final.execute("SELECT id, status FROM orders").fetchall())
    init_items = set(init.execute("SELECT wishlist_id, variant_id FROM wishlist_items").fetchall())
    final_items = set(final.execute("SELECT wishlist_id, variant_id FROM wishlist_items").fetchall())
    init.close()
    final.close()
    if len(targets) != 1 or wishlist is None:
        return {"result": "others"}
    order_id, variant_id = targets[0]
    if final_orders.get(order_id) != "cancelled":
        return {"result": "others"}
    if set(final_orders) != set(init_orders):
        return {"result": "others"}
    if any(final_orders[oid] != status for oid, status in init_orders.items() if oid != order_id):
        return {"result": "others"}
    if final_items - init_items != {(wishlist[0], variant_id)} or init_items - final_items:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_2(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    case_offers = {r[0] for r in init.execute("SELECT o.id FROM offers o JOIN product_variants v ON v.id = o.variant_id JOIN products p ON p.id = v.product_id WHERE p.title = 'ArmorShell Slim Phone Case'").fetchall()}
    init_cart = init.execute("SELECT id, user_id, offer_id, quantity, saved_for_later FROM cart_items ORDER BY id").fetchall()
    final_cart = final.execute("SELECT id, user_id, offer_id, quantity, saved_for_later FROM cart_items ORDER BY id").fetchall()
    prices = dict(init.execute("SELECT id, price FROM offers").fetchall())
    office = init.execute("SELECT full_name, street, city, state, postal_code FROM addresses WHERE user_id = 1 AND label = 'Office'").fetchone()
    visa = init.execute("SELECT id FROM payment_methods WHERE user_id = 1 AND card_brand = 'Visa' AND last4 = '4242'").fetchone()
    coupon = init.execute("SELECT id, discount_type, discount_value FROM coupons WHERE code = 'SAVE10'").fetchone()
    init_orders = dict((r[0], r[1:]) for r in init.execute("SELECT id, status, ship_to_street FROM orders").fetchall())
    final_orders = final.execute("SELECT id, user_id, payment_method_id, coupon_id, ship_to_name, ship_to_street, ship_to_city, ship_to_state, ship_to_postal_code, subtotal, discount FROM orders").fetchall()
    new_orders = [r for r in final_orders if r[0] not in init_orders]
    new_items = final.execute("SELECT offer_id, quantity, unit_price FROM order_items WHERE order_id = ? ORDER BY offer_id", (new_orders[0][0] if new_orders else -1,)).fetchall()
    kept_orders = dict((r[0], r[1:]) for r in final.execute("SELECT id, status, ship_to_street FROM orders").fetchall() if r[0] in init_orders)
    init.close()
    final.close()
    if office is None or visa is None or coupon is None or not case_offers:
        return {"result": "others"}
    mine = [r for r in init_cart if r[1] == 1]
    if not any(r[2] in case_offers and not r[4] for r in mine):
        return {"result": "others"}
    expected = sorted((r[2], r[3]) for r in mine if not r[4] and r[2] not in case_offers)
    if len(new_orders) != 1 or not expected:
        return {"result": "others"}
    order = new_orders[0]
    if order[1] != 1 or order[2] != visa[0] or order[3] != coupon[0]:
        return {"result": "others"}
    if tuple(order[4:9]) != tuple(office):
        return {"result": "others"}
    if sorted((r[0], r[1]) for r in new_items) != expected:
        return {"result": "others"}
    subtotal = round(sum(prices[offer_id] * quantity for offer_id, quantity in expected), 2)
    discount = round(subtotal * coupon[2] / 100, 2) if coupon[1] == "percent" else min(coupon[2], subtotal)
    if abs(order[9] - subtotal) > 0.011 or abs(order[10] - discount) > 0.011:
        return {"result": "others"}
    if [r for r in final_cart if r[1] == 1] != [r for r in mine if r[4]]:
        return {"result": "others"}
    if [r for r in final_cart if r[1] != 1] != [r for r in init_cart if r[1] != 1]:
        return {"result": "others"}
    if kept_orders != init_orders:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_3(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    row = conn.execute("SELECT COUNT(*), SUM(oi.quantity * oi.unit_price) FROM order_items oi JOIN orders o ON o.id = oi.order_id JOIN sellers s ON s.id = oi.seller_id WHERE o.user_id = 1 AND o.status = 'delivered' AND s.name = 'TechHaven'").fetchone()
    conn.close()
    if not row or not row[0]:
        return {"result": "others"}
    expected = "%.2f" % round(row[1], 2)
    compact = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", final_answer)
    if not re.search(r"(?<![\d.])" + re.escape(expected) + r"(?!\d)", compact):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_4(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    target = init.execute("SELECT oi.id, oi.unit_price, oi.quantity FROM order_items oi JOIN orders o ON o.id = oi.order_id JOIN product_variants v ON v.id = oi.variant_id JOIN products p ON p.id = v.product_id WHERE o.user_id = 1 AND o.status = 'delivered' AND p.title = 'ThermoSip Smart Mug 2' ORDER BY o.delivered_at DESC, o.id DESC LIMIT 1").fetchone()
    columns = "id, user_id, order_item_id, quantity, reason, resolution, status, refund_amount"
    init_rows = {r[0]: r for r in init.execute("SELECT " + columns + " FROM return_requests").fetchall()}
    final_rows = {r[0]: r for r in final.execute("SELECT " + columns + " FROM return_requests").fetchall()}
    init.close()
    final.close()
    if target is None or target[2] < 2:
        return {"result": "others"}
    item_id, unit_price = target[0], target[1]
    if any(final_rows.get(rid) != row for rid, row in init_rows.items()):
        return {"result": "others"}
    new_rows = [row for rid, row in final_rows.items() if rid not in init_rows]
    if len(new_rows) != 1:
        return {"result": "others"}
    row = new_rows[0]
    if row[1] != 1 or row[2] != item_id or row[3] != 1 or row[4] != "defective" or row[5] != "refund" or row[6] == "cancelled":
        return {"result": "others"}
    if abs(row[7] - unit_price) > 0.005:
        return {"result": "others"}
    compact = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", final_answer)
    if not re.search(r"(?<![\d.])" + re.escape("%.2f" % unit_price) + r"(?!\d)", compact):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_5(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    kettle = init.execute("SELECT id FROM products WHERE title = 'Brewmaster Pour-Over Kettle'").fetchone()
    mat_review = init.execute("SELECT r.id FROM reviews r JOIN products p ON p.id = r.product_id WHERE r.user_id = 1 AND p.title = 'Nimbus Yoga Mat'").fetchone()
    columns = "id, product_id, user_id, rating, title, body"
    init_rows = {r[0]: r for r in init.execute("SELECT " + columns + " FROM reviews").fetchall()}
    final_rows = {r[0]: r for r in final.execute("SELECT " + columns + " FROM reviews").fetchall()}
    init.close()
    final.close()
    if kettle is None or mat_review is None:
        return {"result": "others"}
    if any(r[1] == kettle[0] and r[2] == 1 for r in init_rows.values()):
        return {"result": "others"}
    if mat_review[0] in final_rows:
        return {"result": "others"}
    if any(final_rows.get(rid) != row for rid, row in init_rows.items() if rid != mat_review[0]):
        return {"result": "others"}
    new_rows = [row for rid, row in final_rows.items() if rid not in init_rows]
    if len(new_rows) != 1:
        return {"result": "others"}
    row = new_rows[0]

    def norm(value):
        return re.sub(r"[^a-z0-9]+", " ", (value or "").lower()).strip()

    if row[1] != kettle[0] or row[2] != 1 or row[3] != 4:
        return {"result": "others"}
    if norm(row[4]) != "great pour control":
        return {"result": "others"}
    if norm(row[5]) != "heats evenly and the spout gives precise control":
        return {"result": "others"}
    return {"result": "complete"}


def verifier_6(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    by_title = "SELECT s.id FROM subscriptions s JOIN offers o ON o.id = s.offer_id JOIN product_variants v ON v.id = o.variant_id JOIN products p ON p.id = v.product_id WHERE s.user_id = 1 AND s.status = 'active' AND p.title = ?"
    coffee = init.execute(by_title, ("Highland Roast Whole Bean Coffee",)).fetchall()
    towels = init.execute(by_title, ("PureSoft Paper Towels, 12 Double Rolls",)).fetchall()
    best = init.execute("SELECT o.id FROM offers o JOIN product_variants v ON v.id = o.variant_id JOIN products p ON p.id = v.product_id WHERE p.title = 'NutHarvest Trail Mix Variety Pack' AND o.is_prime_eligible = 1 AND o.stock_qty > 0 ORDER BY o.price, o.id LIMIT 1").fetchone()
    columns = "id, user_id, offer_id, quantity, frequency_weeks, status"
    init_rows = {r[0]: r for r in init.execute("SELECT " + columns + " FROM subscriptions").fetchall()}
    final_rows = {r[0]: r for r in final.execute("SELECT " + columns + " FROM subscriptions").fetchall()}
    init.close()
    final.close()
    if len(coffee) != 1 or len(towels) != 1 or best is None:
        return {"result": "others"}
    coffee_id, towels_id = coffee[0][0], towels[0][0]
    if any(rid not in final_rows for rid in init_rows):
        return {"result": "others"}
    old, new = init_rows[coffee_id], final_rows[coffee_id]
    if new[4] != 2 or new[5] != "active" or new[:4] != old[:4]:
        return {"result": "others"}
    old, new = init_rows[towels_id], final_rows[towels_id]
    if new[5] != "paused" or new[:5] != old[:5]:
        return {"result": "others"}
    if any(final_rows[rid] != row for rid, row in init_rows.items() if rid not in (coffee_id, towels_id)):
        return {"result": "others"}
    new_rows = [row for rid, row in final_rows.items() if rid not in init_rows]
    if len(new_rows) != 1:
        return {"result": "others"}
    if new_rows[0][1:] != (1, best[0], 1, 4, "active"):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_7(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    items = conn.execute("SELECT v.id, p.title, p.avg_rating FROM wishlists w JOIN wishlist_items wi ON wi.wishlist_id = w.id JOIN product_variants v ON v.id = wi.variant_id JOIN products p ON p.id = v.product_id WHERE w.user_id = 1 AND w.name = 'Birthday Ideas' ORDER BY p.avg_rating DESC, v.id LIMIT 2").fetchall()
    price = conn.execute("SELECT MIN(price) FROM offers WHERE variant_id = ? AND condition = 'new' AND stock_qty > 0", (items[0][0] if items else -1,)).fetchone()
    titles = [r[0] for r in conn.execute("SELECT title FROM products").fetchall()]
    conn.close()
    if not items or (len(items) > 1 and items[0][2] == items[1][2]) or price is None or price[0] is None:
        return {"result": "others"}
    title = items[0][1]
    short = " ".join(title.split()[:2])
    name = short if sum(1 for t in titles if t.lower().startswith(short.lower())) == 1 else title
    if not re.search(re.escape(name), final_answer, re.IGNORECASE):
        return {"result": "others"}
    compact = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", final_answer)
    if not re.search(r"(?<![\d.])" + re.escape("%.2f" % price[0]) + r"(?!\d)", compact):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_8(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    columns = "id, user_id, label, full_name, street, city, state, postal_code, country, phone, delivery_instructions, is_default"
    init_addresses = {r[0]: r for r in init.execute("SELECT " + columns + " FROM addresses").fetchall()}
    final_addresses = {r[0]: r for r in final.execute("SELECT " + columns + " FROM addresses").fetchall()}
    old_home = [r[0] for r in init_addresses.values() if r[1] == 1 and r[2] == "Home"]
    unshipped = {r[0] for r in init.execute("SELECT id FROM orders WHERE user_id = 1 AND status IN ('pending', 'processing')").fetchall()}
    ship_columns = "id, status, ship_to_name, ship_to_street, ship_to_city, ship_to_state, ship_to_postal_code"
    init_orders = {r[0]: r for r in init.execute("SELECT " + ship_columns + " FROM orders").fetchall()}
    final_orders = {r[0]: r for r in final.execute("SELECT " + ship_columns + " FROM orders").fetchall()}
    init.close()
    final.close()
    if len(old_home) != 1 or not unshipped:
        return {"result": "others"}
    if old_home[0] in final_addresses:
        return {"result": "others"}
    if any(final_addresses.get(aid) != row for aid, row in init_addresses.items() if aid != old_home[0] and row[1] != 1):
        return {"result": "others"}
    if any(final_addresses.get(aid) is None or final_addresses[aid][:11] != row[:11] for aid, row in init_addresses.items() if aid != old_home[0] and row[1] == 1):
        return {"result": "others"}
    new_rows = [row for aid, row in final_addresses.items() if aid not in init_addresses]
    if len(new_rows) != 1:
        return {"result": "others"}
    new = new_rows[0]
    if new[1] != 1 or new[2].strip().lower() != "home" or not new[11]:
        return {"result": "others"}
    if not re.match(r"^\s*742\s+maple\s+(avenue|ave\.?)\s*$", new[4], re.IGNORECASE):
        return {"result": "others"}
    if new[5].strip().lower() != "portland" or new[6].strip().upper() != "OR" or new[7].strip() != "97205":
        return {"result": "others"}
    if re.sub(r"\D", "", new[9] or "") != "5035550142":
        return {"result": "others"}
    if [aid for aid, row in final_addresses.items() if row[1] == 1 and row[11]] != [new[0]]:
        return {"result": "others"}
    if set(final_orders) != set(init_orders):
        return {"result": "others"}
    for oid, row in init_orders.items():
        if oid in unshipped:
            if final_orders[oid][1] != row[1] or tuple(final_orders[oid][3:]) != (new[4], new[5], new[6], new[7]):
                return {"result": "others"}
        elif final_orders[oid] != row:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_9(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    candidates = init.execute("SELECT p.id, p.avg_rating, o.id, o.price FROM offers o JOIN product_variants v ON v.id = o.variant_id JOIN products p ON p.id = v.product_id JOIN categories c ON c.id = p.category_id WHERE c.name = 'Headphones' AND o.condition = 'new' AND o.is_prime_eligible = 1 AND o.stock_qty >= 2 AND o.price < 100 ORDER BY p.avg_rating DESC, o.price, o.id").fetchall()
    columns = "id, user_id, offer_id, quantity, saved_for_later"
    init_cart = {r[0]: r for r in init.execute("SELECT " + columns + " FROM cart_items").fetchall()}
    final_cart = {r[0]: r for r in final.execute("SELECT " + columns + " FROM cart_items").fetchall()}
    init.close()
    final.close()
    if not candidates:
        return {"result": "others"}
    top_rating = candidates[0][1]
    if len({r[0] for r in candidates if r[1] == top_rating}) != 1:
        return {"result": "others"}
    best = [r for r in candidates if r[0] == candidates[0][0]]
    if len(best) > 1 and abs(best[0][3] - best[1][3]) < 0.005:
        return {"result": "others"}
    offer_id = best[0][2]
    if any(r[2] == offer_id and r[1] == 1 for r in init_cart.values()):
        return {"result": "others"}
    if any(final_cart.get(cid) != row for cid, row in init_cart.items()):
        return {"result": "others"}
    new_rows = [row for cid, row in final_cart.items() if cid not in init_cart]
    if len(new_rows) != 1 or new_rows[0][1:] != (1, offer_id, 2, 0):
        return {"result": "others"}
    return {"result": "complete"}


VERIFIER_META = [
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: among in-stock new offers for the Midnight Black variant of the AuraSound ANC 700 (not the Lite model, not the Silver Mist colour), the cheapest seller and price are read from the DB; the out-of-stock BrightDeals offer and the renewed/used offers must not count.", "key_checks": ["final_answer names the seller of the cheapest in-stock new Midnight Black offer", "final_answer states that offer's price"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's unshipped order containing the Trailblazer 2-Person Tent must be cancelled with every other order's status unchanged, and exactly the ordered tent variant must be added to user 1's 'Camping Trip' wishlist with no other wishlist change.", "key_checks": ["the pending/processing tent order is cancelled", "no other order changed status and no order was created", "Camping Trip gains exactly the ordered tent variant", "no other wishlist item added or removed"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new order for user 1 must hold the active cart items except the ArmorShell case, ship to user 1's Office address, be paid with user 1's Visa ending 4242 (not user 2's) and carry the SAVE10 discount; saved-for-later items stay in the cart, other carts and orders are untouched.", "key_checks": ["one new order with the non-case active cart items and quantities", "ship_to equals the Office address", "payment method is user 1's Visa 4242", "coupon SAVE10 applied with a 10% discount", "user 1's cart holds only the saved-for-later rows", "other users' carts and existing orders unchanged"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: the sum of quantity x unit price over user 1's delivered-order items sold by exactly 'TechHaven' (not 'Tech Haven Outlet', not shipped or cancelled orders) must appear in the answer.", "key_checks": ["final_answer contains the TechHaven delivered-order spend to the cent"]},
    {"verification_strategy": "combined", "reasoning": "One new return must exist for the mug line of user 1's most recently delivered order containing the ThermoSip Smart Mug 2 (not the older order with the same mug), for one unit, reason defective, resolution refund; existing returns stay unchanged and the answer must state the refund (the unit price paid).", "key_checks": ["exactly one new return_requests row", "it targets the newest delivered mug line with quantity 1", "reason defective and resolution refund", "refund_amount equals the unit price", "final_answer contains the refund amount"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1 must have exactly one new review, on the Brewmaster Pour-Over Kettle (not the electric gooseneck kettle), 4 stars with the given headline and text, and her Nimbus Yoga Mat review must be deleted while user 4's review of the same mat and all other reviews stay unchanged.", "key_checks": ["one new review by user 1 on the pour-over kettle with rating 4", "headline and body match the task", "user 1's Nimbus Yoga Mat review deleted", "all other reviews unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "The coffee subscription must move to every 2 weeks and stay active, the paper towel subscription must be paused, and exactly one new active subscription for 1 unit every 4 weeks must use the cheapest in-stock Prime-eligible trail mix offer (FreshCart, not the cheaper non-Prime BrightDeals or Amazon's offer); every other subscription, including the cancelled trail mix one, is unchanged.", "key_checks": ["coffee subscription frequency_weeks = 2, status active", "paper towel subscription status paused", "one new subscription on the cheapest Prime trail mix offer, quantity 1, every 4 weeks", "other subscriptions unchanged"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: the best-rated product in user 1's 'Birthday Ideas' list (not user 3's list of the same name) and the lowest in-stock new offer price for the exact variant on the list (not the used offer or the other colour) must appear in the answer.", "key_checks": ["final_answer names the top-rated product on user 1's Birthday Ideas list", "final_answer states the lowest in-stock new price for that listed variant"]},
    {"verification_strategy": "modification_based", "reasoning": "A single new default 'Home' address at 742 Maple Avenue, Portland, OR 97205 with the given phone must exist for user 1, the old Seattle Home address must be deleted, user 1's other addresses keep their data, and every pending or processing order of user 1 must now ship to the new street while all other orders keep their shipping details.", "key_checks": ["one new user 1 address with the given street, city, state, ZIP and phone", "it is the only default address of user 1", "old Home address deleted; other addresses unchanged", "every unshipped user 1 order ships to the new address", "shipped/delivered orders and other users' orders unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "The target is the highest-rated product in the Headphones category that has an in-stock, new, Prime-eligible offer under $100 (excluding better-rated products whose only cheap offers are used or not Prime); its cheapest such offer must be newly added to user 1's cart with quantity 2 and nothing else in any cart may change.", "key_checks": ["exactly one new cart row for user 1", "it holds the cheapest qualifying offer of the top-rated qualifying headphones", "quantity 2, not saved for later", "existing cart rows unchanged"]},
]
