"""Code-mode verifiers of the doordash world, one per task (gen_verifier.pure_code.jsonl).

`verifier_<i>` is task i's verifier. The assembler stores each function's source text with the
name rewritten to `verify_task_completion`, AWM's entry-point name. Each function imports only
sqlite3, json and re, reads both databases, and returns {"result": "complete"} only when the
task is certainly done, else {"result": "others"}. VERIFIER_META gives the rest of AWM's raw
response (reasoning, verification_strategy, key_checks) in task order. Where "now" matters
(promo expiry) it is read from the new order's placed_at, so no verifier depends on the clock.
"""


def verifier_0(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    top = conn.execute("SELECT r.id, r.rating FROM restaurants r JOIN cuisines c ON c.id = r.cuisine_id WHERE c.name = 'Thai' AND r.city = 'Austin' AND r.is_open = 1 ORDER BY r.rating DESC, r.id LIMIT 2").fetchall()
    dishes = conn.execute("SELECT mi.name, mi.price FROM menu_items mi JOIN menu_categories mc ON mc.id = mi.category_id WHERE mi.restaurant_id = ? AND mc.name = 'Curries' AND mi.is_vegetarian = 1 AND mi.is_available = 1 ORDER BY mi.price, mi.id LIMIT 2", (top[0][0] if top else -1,)).fetchall()
    conn.close()
    if not top or (len(top) > 1 and top[0][1] == top[1][1]):
        return {"result": "others"}
    if not dishes or (len(dishes) > 1 and abs(dishes[0][1] - dishes[1][1]) < 0.005):
        return {"result": "others"}
    name, price = dishes[0]
    if not re.search(re.escape(name), final_answer, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(r"(?<![\d.])" + re.escape("%.2f" % price) + r"(?!\d)", final_answer):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_1(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def cart_of(conn, user_id):
        cart = {}
        for cart_id, item_id, quantity in conn.execute("SELECT id, menu_item_id, quantity FROM cart_items WHERE user_id = ?", (user_id,)).fetchall():
            options = tuple(sorted(r[0] for r in conn.execute("SELECT option_id FROM cart_item_options WHERE cart_item_id = ?", (cart_id,)).fetchall()))
            cart[(item_id, options)] = cart.get((item_id, options), 0) + quantity
        return cart

    def option_id(conn, item_id, group, name):
        row = conn.execute("SELECT o.id FROM item_options o JOIN item_option_groups g ON g.id = o.group_id WHERE g.menu_item_id = ? AND g.name = ? AND o.name = ?", (item_id, group, name)).fetchone()
        return row[0] if row else None

    shop = init.execute("SELECT id FROM restaurants WHERE name = 'Tony''s Slice House'").fetchall()
    pizza = init.execute("SELECT id FROM menu_items WHERE restaurant_id = ? AND name = 'Pepperoni Pizza'", (shop[0][0] if len(shop) == 1 else -1,)).fetchone()
    knots = init.execute("SELECT id FROM menu_items WHERE restaurant_id = ? AND name = 'Garlic Knots'", (shop[0][0] if len(shop) == 1 else -1,)).fetchone()
    large = option_id(init, pizza[0], "Size", "Large") if pizza else None
    cheese = option_id(init, pizza[0], "Extra Toppings", "Extra Cheese") if pizza else None
    others = {r[0] for r in init.execute("SELECT user_id FROM cart_items WHERE user_id <> 1").fetchall()} | {r[0] for r in final.execute("SELECT user_id FROM cart_items WHERE user_id <> 1").fetchall()}
    init_cart, final_cart = cart_of(init, 1), cart_of(final, 1)
    others_kept = all(cart_of(init, uid) == cart_of(final, uid) for uid in others)
    init.close()
    final.close()
    if knots is None or large is None or cheese is None:
        return {"result": "others"}
    expected = {(pizza[0], tuple(sorted((large, cheese)))): 1, (knots[0], ()): 2}
    if init_cart == expected or final_cart != expected or not others_kept:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_2(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def cart_lines(conn, user_id):
        lines = {}
        for cart_id, item_id, quantity in conn.execute("SELECT id, menu_item_id, quantity FROM cart_items WHERE user_id = ?", (user_id,)).fetchall():
            options = tuple(sorted(r[0] for r in conn.execute("SELECT option_id FROM cart_item_options WHERE cart_item_id = ?", (cart_id,)).fetchall()))
            lines[(item_id, options)] = lines.get((item_id, options), 0) + quantity
        return lines

    cart = cart_lines(init, 1)
    restaurants = {r[0] for r in init.execute("SELECT DISTINCT restaurant_id FROM cart_items WHERE user_id = 1").fetchall()}
    if not cart or len(restaurants) != 1:
        init.close()
        final.close()
        return {"result": "others"}
    restaurant_id = restaurants.pop()
    prices = dict(init.execute("SELECT id, price FROM menu_items").fetchall())
    deltas = dict(init.execute("SELECT id, price_delta FROM item_options").fetchall())
    subtotal = round(sum((prices[item_id] + sum(deltas[o] for o in options)) * quantity for (item_id, options), quantity in cart.items()), 2)
    eligible, fee = init.execute("SELECT dashpass_eligible, delivery_fee FROM restaurants WHERE id = ?", (restaurant_id,)).fetchone()
    has_dashpass = init.execute("SELECT COUNT(*) FROM dashpass_subscriptions WHERE user_id = 1 AND status = 'active'").fetchone()[0] > 0
    applies = has_dashpass and eligible and subtotal >= 12
    delivery_fee = 0.0 if applies else fee
    service_fee = round(subtotal * (0.05 if applies else 0.15), 2)
    small_order_fee = 2.5 if subtotal < 10 else 0.0
    work = init.execute("SELECT street, unit, city, state, postal_code FROM addresses WHERE user_id = 1 AND label = 'Work'").fetchone()
    amex = init.execute("SELECT id FROM payment_methods WHERE user_id = 1 AND card_brand = 'American Express'").fetchall()
    init_orders = {r[0]: r[1:] for r in init.execute("SELECT id, status, tip, total FROM orders").fetchall()}
    final_orders = {r[0]: r[1:] for r in final.execute("SELECT id, status, tip, total FROM orders").fetchall()}
    new_ids = [oid for oid in final_orders if oid not in init_orders]
    if work is None or len(amex) != 1 or len(new_ids) != 1:
        init.close()
        final.close()
        return {"result": "others"}
    order = final.execute("SELECT user_id, restaurant_id, payment_method_id, promotion_id, delivery_street, delivery_unit, delivery_city, delivery_state, delivery_postal_code, subtotal, discount, tip, total, placed_at FROM orders WHERE id = ?", (new_ids[0],)).fetchone()
    promos = init.execute("SELECT id, code, restaurant_id, discount_type, discount_value, max_discount, min_subtotal, dashpass_only FROM promotions WHERE is_active = 1 AND expires_at > ?", (order[13],)).fetchall()
    best = {}
    for pid, code, rid, kind, value, cap, minimum, dashpass_only in promos:
        if (rid is not None and rid != restaurant_id) or minimum > subtotal or (dashpass_only and not has_dashpass):
            continue
        if kind == "percent":
            amount = round(subtotal * value / 100, 2)
            amount = min(amount, cap) if cap is not None else amount
        elif kind == "fixed":
            amount = min(value, subtotal)
        else:
            amount = delivery_fee
        best[pid] = (round(amount, 2), code)
    ordered = {}
    for order_item_id, item_id, quantity in final.execute("SELECT id, menu_item_id, quantity FROM order_items WHERE order_id = ?", (new_ids[0],)).fetchall():
        options = tuple(sorted(r[0] for r in final.execute("SELECT option_id FROM order_item_options WHERE order_item_id = ?", (order_item_id,)).fetchall()))
        ordered[(item_id, options)] = ordered.get((item_id, options), 0) + quantity
    final_cart = cart_lines(final, 1)
    others_kept = init.execute("SELECT id, user_id, menu_item_id, quantity FROM cart_items WHERE user_id <> 1 ORDER BY id").fetchall() == final.execute("SELECT id, user_id, menu_item_id, quantity FROM cart_items WHERE user_id <> 1 ORDER BY id").fetchall()
    init.close()
    final.close()
    if not best:
        return {"result": "others"}
    top = max(amount for amount, code in best.values())
    if order[0] != 1 or order[1] != restaurant_id or order[2] != amex[0][0]:
        return {"result": "others"}
    if order[3] not in best or abs(best[order[3]][0] - top) > 0.005 or abs(order[10] - top) > 0.011:
        return {"result": "others"}
    if tuple(order[4:9]) != tuple(work):
        return {"result": "others"}
    if abs(order[11] - 6.0) > 0.005 or abs(order[9] - subtotal) > 0.011:
        return {"result": "others"}
    expected_total = round(subtotal + delivery_fee + service_fee + small_order_fee - top + round(subtotal * 0.0825, 2) + 6.0, 2)
    if abs(order[12] - expected_total) > 0.021:
        return {"result": "others"}
    if ordered != cart or final_cart or not others_kept:
        return {"result": "others"}
    if any(final_orders.get(oid) != row for oid, row in init_orders.items()):
        return {"result": "others"}
    code = best[order[3]][1]
    if not re.search(r"(?<![A-Za-z0-9])" + re.escape(code) + r"(?![A-Za-z0-9])", final_answer, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(r"(?<![\d.])" + re.escape("%.2f" % order[12]) + r"(?!\d)", final_answer):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_3(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    rows = conn.execute("SELECT d.name, COUNT(*) AS deliveries, SUM(o.tip) FROM orders o JOIN drivers d ON d.id = o.driver_id WHERE o.user_id = 1 AND o.status = 'delivered' GROUP BY d.id ORDER BY deliveries DESC, d.id LIMIT 2").fetchall()
    first_names = [r[0].split()[0] for r in conn.execute("SELECT name FROM drivers").fetchall()]
    conn.close()
    if not rows or (len(rows) > 1 and rows[0][1] == rows[1][1]):
        return {"result": "others"}
    name, count, tips = rows[0]
    first = name.split()[0]
    if first_names.count(first) != 1:
        return {"result": "others"}
    if not re.search(r"\b" + re.escape(first) + r"\b", final_answer, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(r"(?<![\d.])" + re.escape("%.2f" % round(tips, 2)) + r"(?!\d)", final_answer):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_4(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    target = init.execute("SELECT id, restaurant_id FROM orders WHERE user_id = 1 AND status = 'delivered' ORDER BY delivered_at DESC, id DESC LIMIT 1").fetchone()
    columns = "id, order_id, user_id, restaurant_id, driver_id, restaurant_rating, driver_rating, comment"
    init_ratings = {r[0]: r for r in init.execute("SELECT " + columns + " FROM ratings").fetchall()}
    final_ratings = {r[0]: r for r in final.execute("SELECT " + columns + " FROM ratings").fetchall()}
    init_favorites = set(init.execute("SELECT user_id, restaurant_id FROM favorites").fetchall())
    final_favorites = set(final.execute("SELECT user_id, restaurant_id FROM favorites").fetchall())
    init.close()
    final.close()
    if target is None or any(r[1] == target[0] for r in init_ratings.values()):
        return {"result": "others"}
    if any(final_ratings.get(rid) != row for rid, row in init_ratings.items()):
        return {"result": "others"}
    new_rows = [row for rid, row in final_ratings.items() if rid not in init_ratings]
    if len(new_rows) != 1:
        return {"result": "others"}
    row = new_rows[0]
    if row[1] != target[0] or row[2] != 1 or row[5] != 5 or row[6] != 4:
        return {"result": "others"}
    if re.sub(r"[^a-z0-9]+", " ", (row[7] or "").lower()).strip() != "still hot on arrival":
        return {"result": "others"}
    if final_favorites - init_favorites != {(1, target[1])} or init_favorites - final_favorites:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_5(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def cart_of(conn, user_id):
        cart = {}
        for cart_id, item_id, quantity in conn.execute("SELECT id, menu_item_id, quantity FROM cart_items WHERE user_id = ?", (user_id,)).fetchall():
            options = tuple(sorted(r[0] for r in conn.execute("SELECT option_id FROM cart_item_options WHERE cart_item_id = ?", (cart_id,)).fetchall()))
            cart[(item_id, options)] = cart.get((item_id, options), 0) + quantity
        return cart

    burger = init.execute("SELECT o.id FROM orders o JOIN restaurants r ON r.id = o.restaurant_id WHERE o.user_id = 1 AND r.name = 'Burger Barn' AND o.status IN ('placed', 'confirmed')").fetchall()
    pho = init.execute("SELECT o.id FROM orders o JOIN restaurants r ON r.id = o.restaurant_id WHERE o.user_id = 1 AND r.name = 'Pho Saigon' AND o.status = 'delivered' ORDER BY o.delivered_at DESC, o.id DESC LIMIT 1").fetchone()
    if len(burger) != 1 or pho is None:
        return {"result": "others"}
    expected = {}
    for order_item_id, item_id, quantity in init.execute("SELECT oi.id, oi.menu_item_id, oi.quantity FROM order_items oi JOIN menu_items mi ON mi.id = oi.menu_item_id WHERE oi.order_id = ? AND mi.is_available = 1", (pho[0],)).fetchall():
        options = tuple(sorted(r[0] for r in init.execute("SELECT oio.option_id FROM order_item_options oio JOIN item_options io ON io.id = oio.option_id WHERE oio.order_item_id = ? AND io.is_available = 1", (order_item_id,)).fetchall()))
        expected[(item_id, options)] = expected.get((item_id, options), 0) + quantity
    init_orders = dict(init.execute("SELECT id, status FROM orders").fetchall())
    final_orders = dict(final.execute("SELECT id, status FROM orders").fetchall())
    others = {r[0] for r in init.execute("SELECT user_id FROM cart_items WHERE user_id <> 1").fetchall()} | {r[0] for r in final.execute("SELECT user_id FROM cart_items WHERE user_id <> 1").fetchall()}
    ok_carts = cart_of(final, 1) == expected and all(cart_of(init, uid) == cart_of(final, uid) for uid in others)
    changed_init_cart = cart_of(init, 1) != expected
    init.close()
    final.close()
    if not expected or not changed_init_cart or not ok_carts:
        return {"result": "others"}
    if set(final_orders) != set(init_orders) or final_orders[burger[0][0]] != "cancelled":
        return {"result": "others"}
    if any(final_orders[oid] != status for oid, status in init_orders.items() if oid != burger[0][0]):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_6(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    visa = init.execute("SELECT id FROM payment_methods WHERE user_id = 1 AND card_brand = 'Visa' AND last4 = '1234'").fetchall()
    columns = "id, user_id, card_brand, last4, exp_month, exp_year, nickname, is_default"
    init_methods = {r[0]: r for r in init.execute("SELECT " + columns + " FROM payment_methods").fetchall()}
    final_methods = {r[0]: r for r in final.execute("SELECT " + columns + " FROM payment_methods").fetchall()}
    init_dashpass = {r[0]: r for r in init.execute("SELECT user_id, plan, price, status, payment_method_id FROM dashpass_subscriptions").fetchall()}
    final_dashpass = {r[0]: r for r in final.execute("SELECT user_id, plan, price, status, payment_method_id FROM dashpass_subscriptions").fetchall()}
    init.close()
    final.close()
    if len(visa) != 1 or 1 not in init_dashpass or 1 not in final_dashpass:
        return {"result": "others"}
    visa_id = visa[0][0]
    if init_dashpass[1][1] == "annual" and init_dashpass[1][4] == visa_id:
        return {"result": "others"}
    if final_dashpass[1][1:] != ("annual", 96.0, "active", visa_id):
        return {"result": "others"}
    if any(final_dashpass.get(uid) != row for uid, row in init_dashpass.items() if uid != 1):
        return {"result": "others"}
    if set(final_methods) != set(init_methods):
        return {"result": "others"}
    if [mid for mid, row in final_methods.items() if row[1] == 1 and row[7]] != [visa_id]:
        return {"result": "others"}
    for mid, row in init_methods.items():
        if row[1] != 1 and final_methods[mid] != row:
            return {"result": "others"}
        if row[1] == 1 and final_methods[mid][:7] != row[:7]:
            return {"result": "others"}
    return {"result": "complete"}


def verifier_7(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    item = conn.execute("SELECT mi.id, mi.price FROM menu_items mi JOIN restaurants r ON r.id = mi.restaurant_id WHERE r.name = 'Tony''s Slice House' AND mi.name = 'Build Your Own Pizza'").fetchall()
    if len(item) != 1:
        conn.close()
        return {"result": "others"}
    wanted = [("Size", "Large"), ("Toppings", "Pepperoni"), ("Toppings", "Mushrooms"), ("Toppings", "Extra Cheese")]
    deltas = [conn.execute("SELECT o.price_delta FROM item_options o JOIN item_option_groups g ON g.id = o.group_id WHERE g.menu_item_id = ? AND g.name = ? AND o.name = ? AND o.is_available = 1", (item[0][0], group, name)).fetchone() for group, name in wanted]
    conn.close()
    if any(delta is None for delta in deltas):
        return {"result": "others"}
    price = round(item[0][1] + sum(delta[0] for delta in deltas), 2)
    if not re.search(r"(?<![\d.])" + re.escape("%.2f" % price) + r"(?!\d)", final_answer):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_8(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    columns = "id, user_id, label, street, unit, city, state, postal_code, dropoff_instructions, is_default"
    init_addresses = {r[0]: r for r in init.execute("SELECT " + columns + " FROM addresses").fetchall()}
    final_addresses = {r[0]: r for r in final.execute("SELECT " + columns + " FROM addresses").fetchall()}
    home = [aid for aid, row in init_addresses.items() if row[1] == 1 and row[2] == "Home"]
    order_columns = "id, user_id, status, subtotal, delivery_fee, service_fee, discount, tax, tip, total, delivery_street"
    init_orders = {r[0]: r for r in init.execute("SELECT " + order_columns + " FROM orders").fetchall()}
    final_orders = {r[0]: r for r in final.execute("SELECT " + order_columns + " FROM orders").fetchall()}
    init.close()
    final.close()
    preparing = [oid for oid, row in init_orders.items() if row[1] == 1 and row[2] == "preparing"]
    if len(home) != 1 or len(preparing) != 1 or set(final_addresses) != set(init_addresses) or set(final_orders) != set(init_orders):
        return {"result": "others"}
    new_home = final_addresses[home[0]]
    if re.sub(r"[^a-z0-9]+", " ", (new_home[8] or "").lower()).strip() != "leave at the side door dog in the yard":
        return {"result": "others"}
    if new_home[:8] != init_addresses[home[0]][:8] or new_home[9] != init_addresses[home[0]][9]:
        return {"result": "others"}
    if any(final_addresses[aid] != row for aid, row in init_addresses.items() if aid != home[0]):
        return {"result": "others"}
    old, new = init_orders[preparing[0]], final_orders[preparing[0]]
    if abs(new[8] - 8.0) > 0.005 or abs(new[9] - (old[9] - old[8] + 8.0)) > 0.011 or new[:8] != old[:8] or new[10] != old[10]:
        return {"result": "others"}
    if any(final_orders[oid] != row for oid, row in init_orders.items() if oid != preparing[0]):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_9(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def cart_of(conn, user_id):
        cart = {}
        for cart_id, item_id, quantity in conn.execute("SELECT id, menu_item_id, quantity FROM cart_items WHERE user_id = ?", (user_id,)).fetchall():
            options = tuple(sorted(r[0] for r in conn.execute("SELECT option_id FROM cart_item_options WHERE cart_item_id = ?", (cart_id,)).fetchall()))
            cart[(item_id, options)] = cart.get((item_id, options), 0) + quantity
        return cart

    dishes = init.execute("SELECT mi.id, mi.price FROM menu_items mi JOIN restaurants r ON r.id = mi.restaurant_id WHERE mi.name = 'Pad Thai' AND r.city = 'Austin' AND r.is_open = 1 AND mi.is_available = 1 ORDER BY mi.price, mi.id LIMIT 2").fetchall()
    if not dishes or (len(dishes) > 1 and abs(dishes[0][1] - dishes[1][1]) < 0.005):
        return {"result": "others"}
    item_id = dishes[0][0]
    picks = [init.execute("SELECT o.id FROM item_options o JOIN item_option_groups g ON g.id = o.group_id WHERE g.menu_item_id = ? AND g.name = ? AND o.name = ?", (item_id, group, name)).fetchone() for group, name in [("Protein", "Chicken"), ("Spice Level", "Medium")]]
    if any(pick is None for pick in picks):
        return {"result": "others"}
    expected = {(item_id, tuple(sorted(pick[0] for pick in picks))): 2}
    others = {r[0] for r in init.execute("SELECT user_id FROM cart_items WHERE user_id <> 1").fetchall()} | {r[0] for r in final.execute("SELECT user_id FROM cart_items WHERE user_id <> 1").fetchall()}
    result = cart_of(init, 1) != expected and cart_of(final, 1) == expected and all(cart_of(init, uid) == cart_of(final, uid) for uid in others)
    init.close()
    final.close()
    return {"result": "complete"} if result else {"result": "others"}


VERIFIER_META = [
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: the highest-rated open Thai restaurant in Austin is found from the DB (the better-rated Thai Orchid Kitchen is closed and the other Bangkok Garden is in Dallas); among its available vegetarian dishes in the 'Curries' section the cheapest name and price must appear in the answer (the sold-out Panang Curry does not count).", "key_checks": ["final_answer names the cheapest available vegetarian curry of that restaurant", "final_answer states its price"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's cart must end up holding exactly one Tony's Slice House Pepperoni Pizza with the Large size and Extra Cheese options and two Garlic Knots without options (the old sushi items gone, not Tony's Pizzeria Express dishes); other users' carts are unchanged.", "key_checks": ["cart holds only the two expected lines", "pizza has exactly the Large and Extra Cheese options", "garlic knots quantity 2", "other carts unchanged"]},
    {"verification_strategy": "combined", "reasoning": "Exactly one new order must contain the initial cart, ship to user 1's Work address, be charged to user 1's Amex with a $6 tip and use the promo code with the largest discount among codes valid for this cart at order time (restaurant, minimum, DashPass, expiry); the total must follow the fee rules, the cart must be empty, other orders and carts unchanged, and the answer must name the code and the total.", "key_checks": ["one new order with the cart's items and options", "Work address snapshot and Amex payment", "tip 6.00 and the best valid promo applied", "total matches the fee rules", "cart emptied; other orders and carts unchanged", "final_answer contains the promo code and the order total"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup over user 1's delivered orders: the Dasher with the most deliveries and the sum of the tips on those orders (user 2's order with the same Dasher excluded) must appear in the answer.", "key_checks": ["final_answer names the Dasher with the most deliveries", "final_answer states the tip total for those deliveries"]},
    {"verification_strategy": "modification_based", "reasoning": "One new rating must exist for user 1's most recently delivered order (5 restaurant stars, 4 Dasher stars, the given comment), existing ratings unchanged, and exactly that order's restaurant must be added to user 1's favorites.", "key_checks": ["one new rating on the newest delivered order", "restaurant 5, driver 4, comment 'Still hot on arrival'", "existing ratings unchanged", "favorites gain exactly that restaurant"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's unconfirmed Burger Barn order must be cancelled (user 2's placed Burger Barn order and every other order keep their status) and user 1's cart must hold exactly the available items and options of the most recently delivered Pho Saigon order (not the older one); other carts unchanged.", "key_checks": ["the placed Burger Barn order of user 1 is cancelled", "no other order changed status", "cart equals the newest delivered Pho Saigon order's items", "other carts unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's DashPass must be active on the annual plan at $96.00 billed to her Visa ending 1234 (not the Visa ending 9876 or user 2's card), that Visa must be her only default card, and no other card or subscription data may change.", "key_checks": ["DashPass plan annual, price 96.00, status active, billed to Visa 1234", "Visa 1234 is the only default card of user 1", "other cards and subscriptions unchanged"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: base price of Tony's Slice House 'Build Your Own Pizza' plus the Large size and the Pepperoni, Mushrooms and Extra Cheese topping deltas, read from the option tables, must appear in the answer.", "key_checks": ["final_answer contains the computed price to the cent"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's Home address must carry the new drop-off instructions with all other fields unchanged, and the single order of user 1 in 'preparing' status must have an $8.00 tip with its total adjusted by the tip difference; every other address and order is unchanged.", "key_checks": ["Home dropoff_instructions updated", "other address fields and addresses unchanged", "preparing order tip = 8.00 and total adjusted", "other orders unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "Among dishes named exactly 'Pad Thai' at open Austin restaurants (not the closed Thai Orchid Kitchen, the Dallas Bangkok Garden or the 'Pad Thai Salad Bowl'), the cheapest one must be the only line in user 1's cart, quantity 2, with the Chicken protein and Medium spice options; other carts unchanged.", "key_checks": ["cart holds only the cheapest qualifying Pad Thai", "quantity 2 with Chicken and Medium options", "other carts unchanged"]},
]
