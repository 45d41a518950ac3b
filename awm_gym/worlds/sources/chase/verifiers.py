"""Code-mode verifiers of the chase world, one per task (gen_verifier.pure_code.jsonl).

`verifier_<i>` is task i's verifier. The assembler stores each function's source text with the
name rewritten to `verify_task_completion`, AWM's entry-point name. Each function imports only
sqlite3, json and re, reads both databases, derives what the task requires from the initial
state, and returns {"result": "complete"} only when the task is certainly done (balances exact
to the cent, nothing else touched), else {"result": "others"}. Money answers are accepted as
dollars ("$1,079.55", "1079.55") or as cents ("107955 cents"). VERIFIER_META gives the rest of
AWM's raw response (reasoning, verification_strategy, key_checks) in task order.
"""


def verifier_0(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    rows = conn.execute("SELECT m.name, -SUM(t.amount_cents) FROM transactions t JOIN accounts a ON a.id = t.account_id JOIN categories c ON c.id = t.category_id JOIN merchants m ON m.id = t.merchant_id WHERE a.customer_id = 1 AND c.name = 'Dining' AND t.status = 'posted' AND t.transaction_type IN ('purchase', 'refund') AND t.posted_at >= '2025-12-01' AND t.posted_at < '2026-01-01' GROUP BY m.name ORDER BY 2 DESC").fetchall()
    conn.close()
    if not rows or (len(rows) > 1 and rows[0][1] == rows[1][1]):
        return {"result": "others"}
    total = sum(row[1] for row in rows)
    compact = re.sub(r"(?<=\d)[,\u00a0\u202f](?=\d{3}(?!\d))", "", final_answer)
    dollars, cents = divmod(total, 100)
    money = str(dollars) + (r"(?:\.00?)?(?!\.?\d)" if cents == 0 else r"\." + "%02d" % cents + r"(?!\d)")
    if not re.search(r"(?<![\d.])" + money, compact) and not re.search(r"(?<![\d.])" + str(total) + r"\s*(?:us\s*)?cents", compact, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(re.escape(rows[0][0]), final_answer, re.IGNORECASE):
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

    checking = init.execute("SELECT id FROM accounts WHERE customer_id = 1 AND nickname = 'Total Checking' AND status = 'open'").fetchall()
    cabin = init.execute("SELECT e.id, e.payee_id, e.amount_due_cents FROM ebills e JOIN payees p ON p.id = e.payee_id WHERE p.customer_id = 1 AND p.name = 'Bay Power & Gas' AND p.nickname = 'Tahoe Cabin' AND e.status = 'unpaid'").fetchall()
    water = init.execute("SELECT e.id, e.payee_id, e.amount_due_cents, e.due_date FROM ebills e JOIN payees p ON p.id = e.payee_id WHERE p.customer_id = 1 AND p.name = 'City Water Utility' AND e.status = 'unpaid'").fetchall()
    tables = {}
    for table in ["accounts", "bill_payments", "ebills", "transactions"]:
        tables[table] = (rows(init, table), rows(final, table))
    init.close()
    final.close()
    if len(checking) != 1 or len(cabin) != 1 or len(water) != 1:
        return {"result": "others"}
    account_id = checking[0][0]
    cabin_bill, cabin_payee, cabin_amount = cabin[0]
    water_bill, water_payee, water_amount, water_due = water[0]
    before, after = tables["bill_payments"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    new_payments = sorted((row[2], row[3], row[4], row[5], row[6], row[7]) for key, row in after.items() if key not in before)
    expected = [(cabin_payee, account_id, cabin_bill, cabin_amount, "paid"), (water_payee, account_id, water_bill, water_amount, "scheduled")]
    if len(new_payments) != 2 or sorted(row[:4] + (row[5],) for row in new_payments) != sorted(expected):
        return {"result": "others"}
    if [row[4] for row in new_payments if row[0] == water_payee] != [water_due]:
        return {"result": "others"}
    before, after = tables["ebills"]
    for key, row in before.items():
        status = "paid" if key == cabin_bill else "scheduled" if key == water_bill else row[5]
        if after.get(key) != row[:5] + (status,):
            return {"result": "others"}
    before, after = tables["accounts"]
    for key, row in before.items():
        expected_row = row[:7] + (row[7] - cabin_amount,) + row[8:] if key == account_id else row
        if after.get(key) != expected_row:
            return {"result": "others"}
    before, after = tables["transactions"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    new_transactions = [(row[1], row[5], row[6], row[8]) for key, row in after.items() if key not in before]
    if new_transactions != [(account_id, "bill_payment", -cabin_amount, "posted")]:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_2(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)

    def rows(conn, table):
        cursor = conn.execute("SELECT * FROM " + table + " ORDER BY id")
        return {row[0]: row for row in cursor.fetchall()}

    checking = init.execute("SELECT id FROM accounts WHERE customer_id = 1 AND nickname = 'Total Checking' AND status = 'open'").fetchall()
    vacation = init.execute("SELECT id FROM accounts WHERE customer_id = 1 AND nickname = 'Vacation Fund' AND status = 'open'").fetchall()
    tables = {}
    for table in ["accounts", "transfers", "transactions"]:
        tables[table] = (rows(init, table), rows(final, table))
    init.close()
    final.close()
    if len(checking) != 1 or len(vacation) != 1:
        return {"result": "others"}
    checking_id, vacation_id = checking[0][0], vacation[0][0]
    before, after = tables["transfers"]
    old = [key for key, row in before.items() if row[1] == 1 and row[2] == checking_id and row[3] == vacation_id and row[5] == "monthly" and row[7] == "scheduled" and row[4] == 20000]
    if len(old) != 1:
        return {"result": "others"}
    for key, row in before.items():
        expected = row[:7] + ("cancelled",) + row[8:] if key == old[0] else row
        if after.get(key) != expected:
            return {"result": "others"}
    new_transfers = sorted((row[1], row[2], row[3], row[4], row[5], row[7]) for key, row in after.items() if key not in before)
    expected_new = sorted([(1, vacation_id, checking_id, 50000, "once", "completed"), (1, checking_id, vacation_id, 25000, "monthly", "scheduled")])
    if new_transfers != expected_new:
        return {"result": "others"}
    if [row[6] for key, row in after.items() if key not in before and row[5] == "monthly"] != ["2026-02-01"]:
        return {"result": "others"}
    before, after = tables["accounts"]
    for key, row in before.items():
        change = 50000 if key == checking_id else -50000 if key == vacation_id else 0
        if after.get(key) != row[:7] + (row[7] + change,) + row[8:]:
            return {"result": "others"}
    before, after = tables["transactions"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    new_transactions = sorted((row[1], row[5], row[6]) for key, row in after.items() if key not in before)
    if new_transactions != sorted([(vacation_id, "transfer_out", -50000), (checking_id, "transfer_in", 50000)]):
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

    lost = init.execute("SELECT c.id FROM cards c JOIN accounts a ON a.id = c.account_id WHERE a.customer_id = 1 AND a.nickname = 'Total Checking' AND c.card_type = 'debit' AND c.status = 'active'").fetchall()
    freedom = init.execute("SELECT c.id FROM cards c JOIN accounts a ON a.id = c.account_id WHERE a.customer_id = 1 AND a.nickname = 'Freedom Unlimited' AND c.status = 'active'").fetchall()
    cards = (rows(init, "cards"), rows(final, "cards"))
    init.close()
    final.close()
    if len(lost) != 1 or len(freedom) != 1:
        return {"result": "others"}
    lost_id, freedom_id = lost[0][0], freedom[0][0]
    before, after = cards
    old = before[lost_id]
    for key, row in before.items():
        if key == lost_id:
            expected = row[:6] + ("replaced", 1) + row[8:]
        elif key == freedom_id:
            expected = row[:7] + (1,) + row[8:]
        else:
            expected = row
        if after.get(key) != expected:
            return {"result": "others"}
    new_cards = [row for key, row in after.items() if key not in before]
    if len(new_cards) != 1:
        return {"result": "others"}
    card = new_cards[0]
    if (card[1], card[2], card[4], card[6], card[7], card[8], card[9], card[10]) != (old[1], "debit", old[4], "active", 0, 100000, old[9], old[10]):
        return {"result": "others"}
    if card[3] == old[3]:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_4(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    latest = []
    for account_id, nickname in conn.execute("SELECT id, nickname FROM accounts WHERE customer_id = 1 AND account_type = 'credit_card' AND status = 'open'").fetchall():
        row = conn.execute("SELECT closing_balance_cents, minimum_due_cents FROM statements WHERE account_id = ? ORDER BY period_end DESC LIMIT 1", (account_id,)).fetchone()
        if row is not None:
            latest.append((row[0], row[1], nickname))
    conn.close()
    latest.sort(reverse=True)
    if len(latest) < 2 or latest[0][0] == latest[1][0]:
        return {"result": "others"}
    closing, minimum, nickname = latest[0]
    compact = re.sub(r"(?<=\d)[,\u00a0\u202f](?=\d{3}(?!\d))", "", final_answer)
    for amount in (closing, minimum):
        dollars, cents = divmod(amount, 100)
        money = str(dollars) + (r"(?:\.00?)?(?!\.?\d)" if cents == 0 else r"\." + "%02d" % cents + r"(?!\d)")
        if not re.search(r"(?<![\d.])" + money, compact) and not re.search(r"(?<![\d.])" + str(amount) + r"\s*(?:us\s*)?cents", compact, re.IGNORECASE):
            return {"result": "others"}
    if not re.search(re.escape(nickname.split()[0]), final_answer, re.IGNORECASE):
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

    charges = init.execute("SELECT t.id, t.account_id, t.amount_cents FROM transactions t JOIN accounts a ON a.id = t.account_id JOIN merchants m ON m.id = t.merchant_id WHERE a.customer_id = 1 AND a.nickname = 'Sapphire Preferred' AND m.name = 'Lumen Electronics' AND t.transaction_type = 'purchase' AND t.amount_cents = -8450 AND t.posted_at LIKE '2025-12-18%' ORDER BY t.posted_at DESC, t.id DESC").fetchall()
    tables = {}
    for table in ["accounts", "disputes", "transactions"]:
        tables[table] = (rows(init, table), rows(final, table))
    init.close()
    final.close()
    if len(charges) != 2:
        return {"result": "others"}
    target_id, account_id, amount = charges[0]
    before, after = tables["disputes"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    new_disputes = [row for key, row in after.items() if key not in before]
    if len(new_disputes) != 1:
        return {"result": "others"}
    dispute = new_disputes[0]
    if (dispute[1], dispute[2], dispute[3], dispute[4], dispute[6], dispute[7]) != (1, target_id, "duplicate", -amount, "open", -amount):
        return {"result": "others"}
    before, after = tables["accounts"]
    for key, row in before.items():
        expected = row[:7] + (row[7] + amount,) + row[8:] if key == account_id else row
        if after.get(key) != expected:
            return {"result": "others"}
    before, after = tables["transactions"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    if [(row[1], row[5], row[6]) for key, row in after.items() if key not in before] != [(account_id, "dispute_credit", -amount)]:
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

    bills = init.execute("SELECT b.amount_cents FROM bill_payments b JOIN payees p ON p.id = b.payee_id WHERE b.customer_id = 1 AND p.name = 'Xfinet Internet' AND b.status = 'paid' AND b.send_on LIKE '2025-12%'").fetchall()
    contact = init.execute("SELECT id FROM zelle_contacts WHERE customer_id = 1 AND name = 'Maya Chen'").fetchall()
    checking = init.execute("SELECT id FROM accounts WHERE customer_id = 1 AND nickname = 'Total Checking' AND status = 'open'").fetchall()
    tables = {}
    for table in ["accounts", "zelle_payments", "transactions"]:
        tables[table] = (rows(init, table), rows(final, table))
    init.close()
    final.close()
    if len(bills) != 1 or bills[0][0] % 2 or len(contact) != 1 or len(checking) != 1:
        return {"result": "others"}
    half = bills[0][0] // 2
    account_id = checking[0][0]
    before, after = tables["zelle_payments"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    new_payments = [row for key, row in after.items() if key not in before]
    if len(new_payments) != 1:
        return {"result": "others"}
    payment = new_payments[0]
    if (payment[1], payment[2], payment[3], payment[4], payment[5], payment[7]) != (1, contact[0][0], account_id, "sent", half, "completed"):
        return {"result": "others"}
    if re.sub(r"\s+", " ", (payment[6] or "").strip().strip("'\"").strip()).lower() != "internet dec":
        return {"result": "others"}
    before, after = tables["accounts"]
    for key, row in before.items():
        expected = row[:7] + (row[7] - half,) + row[8:] if key == account_id else row
        if after.get(key) != expected:
            return {"result": "others"}
    before, after = tables["transactions"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    if [(row[1], row[5], row[6]) for key, row in after.items() if key not in before] != [(account_id, "zelle_out", -half)]:
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

    mine = init.execute("SELECT c.id, c.account_id FROM cards c JOIN accounts a ON a.id = c.account_id JOIN customers u ON u.id = a.customer_id WHERE a.customer_id = 1 AND a.nickname = 'Sapphire Preferred' AND c.status = 'active' AND c.cardholder_name = upper(u.first_name || ' ' || u.last_name)").fetchall()
    tables = {}
    for table in ["cards", "travel_notices", "alerts"]:
        tables[table] = (rows(init, table), rows(final, table))
    init.close()
    final.close()
    if len(mine) != 1:
        return {"result": "others"}
    card_id, account_id = mine[0]
    before, after = tables["cards"]
    for key, row in before.items():
        expected = row[:10] + (1,) + row[11:] if key == card_id else row
        if after.get(key) != expected:
            return {"result": "others"}
    if set(after) != set(before):
        return {"result": "others"}
    before, after = tables["travel_notices"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    notices = [row for key, row in after.items() if key not in before]
    if len(notices) != 1 or (notices[0][1], notices[0][2].strip().lower(), notices[0][3], notices[0][4]) != (card_id, "japan", "2026-03-28", "2026-04-06"):
        return {"result": "others"}
    before, after = tables["alerts"]
    targets = [key for key, row in before.items() if row[2] == account_id and row[3] == "international" and row[4] == "sms"]
    if len(targets) != 1:
        return {"result": "others"}
    for key, row in before.items():
        expected = row[:6] + (1,) if key == targets[0] else row
        if after.get(key) != expected:
            return {"result": "others"}
    if set(after) != set(before):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_8(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    payments = conn.execute("SELECT z.amount_cents FROM zelle_payments z JOIN zelle_contacts c ON c.id = z.contact_id WHERE z.customer_id = 1 AND c.name = 'Sam Ortiz' AND z.direction = 'sent' AND z.status = 'completed' AND z.created_at >= '2025-01-01' AND z.created_at < '2026-01-01'").fetchall()
    conn.close()
    if not payments:
        return {"result": "others"}
    total = sum(row[0] for row in payments)
    count = len(payments)
    compact = re.sub(r"(?<=\d)[,\u00a0\u202f](?=\d{3}(?!\d))", "", final_answer)
    dollars, cents = divmod(total, 100)
    money = str(dollars) + (r"(?:\.00?)?(?!\.?\d)" if cents == 0 else r"\." + "%02d" % cents + r"(?!\d)")
    if not re.search(r"(?<![\d.])" + money, compact) and not re.search(r"(?<![\d.])" + str(total) + r"\s*(?:us\s*)?cents", compact, re.IGNORECASE):
        return {"result": "others"}
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    number = r"(?:(?<![\d.$])" + str(count) + r"(?!\d|[.,]\d)|\b" + words.get(count, str(count)) + r"\b)"
    noun = r"(?:payments?|transfers?|transactions?|times|sends?)"
    if not re.search(number + r"(?:\s+[\w-]+){0,2}\s+" + noun, compact, re.IGNORECASE) and not re.search(noun + r"\s*(?:in total|total|count)?\s*[:=]?\s*" + number, compact, re.IGNORECASE):
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

    checking = init.execute("SELECT id FROM accounts WHERE customer_id = 1 AND nickname = 'Total Checking' AND status = 'open'").fetchall()
    card = init.execute("SELECT id FROM accounts WHERE customer_id = 1 AND nickname = 'Freedom Unlimited' AND account_type = 'credit_card'").fetchall()
    statement = init.execute("SELECT s.closing_balance_cents FROM statements s JOIN accounts a ON a.id = s.account_id WHERE a.customer_id = 1 AND a.nickname = 'Freedom Unlimited' ORDER BY s.period_end DESC LIMIT 1").fetchone()
    tables = {}
    for table in ["accounts", "transfers", "transactions", "autopays"]:
        tables[table] = (rows(init, table), rows(final, table))
    init.close()
    final.close()
    if len(checking) != 1 or len(card) != 1 or statement is None:
        return {"result": "others"}
    checking_id, card_id, amount = checking[0][0], card[0][0], statement[0]
    before, after = tables["transfers"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    if [(row[1], row[2], row[3], row[4], row[5], row[7]) for key, row in after.items() if key not in before] != [(1, checking_id, card_id, amount, "once", "completed")]:
        return {"result": "others"}
    before, after = tables["accounts"]
    for key, row in before.items():
        expected = row[:7] + (row[7] - amount,) + row[8:] if key in (checking_id, card_id) else row
        if after.get(key) != expected:
            return {"result": "others"}
    before, after = tables["transactions"]
    if any(after.get(key) != row for key, row in before.items()):
        return {"result": "others"}
    new_transactions = sorted((row[1], row[5], row[6]) for key, row in after.items() if key not in before)
    if new_transactions != sorted([(checking_id, "transfer_out", -amount), (card_id, "card_payment", amount)]):
        return {"result": "others"}
    before, after = tables["autopays"]
    if set(after) != set(before):
        return {"result": "others"}
    for key, row in before.items():
        if row[2] == card_id:
            expected = row[:4] + ("statement_balance", None, 1) + row[7:]
        else:
            expected = row
        if after[key] != expected:
            return {"result": "others"}
    return {"result": "complete"}


VERIFIER_META = [
    {"verification_strategy": "query_based", "reasoning": "Pure lookup over customer 1's posted Dining purchases and refunds dated in December 2025 on all her accounts: the answer must give their net total and the merchant with the largest total (not the largest single charge; November and pending charges excluded).", "key_checks": ["final_answer contains the December 2025 Dining total", "final_answer names the merchant with the largest December Dining total"]},
    {"verification_strategy": "modification_based", "reasoning": "The unpaid Tahoe Cabin Bay Power & Gas eBill must be paid in full now from Total Checking (eBill paid, balance and one bill-pay transaction exact) and the unpaid City Water Utility eBill scheduled in full from Total Checking on its due date (eBill scheduled, no money moved); the Home Bay Power & Gas eBill and everything else stay untouched.", "key_checks": ["exactly two new bill payments: cabin eBill paid now, water eBill scheduled on its due date, both from Total Checking for the full amounts", "cabin eBill paid, water eBill scheduled, other eBills unchanged", "Total Checking balance reduced by the cabin amount only", "exactly one new transaction, the cabin bill payment"]},
    {"verification_strategy": "modification_based", "reasoning": "A one-time $500 transfer from Vacation Fund to Total Checking must be completed (both balances and both transactions exact), the existing monthly $200 Total Checking to Vacation Fund transfer cancelled, and a new monthly $250 transfer scheduled for 2026-02-01; the monthly transfer to Premier Savings stays.", "key_checks": ["new completed one-time transfer of 50000 cents Vacation Fund -> Total Checking", "old monthly 20000 transfer cancelled, other transfers unchanged", "new scheduled monthly 25000 transfer Total Checking -> Vacation Fund starting 2026-02-01", "balances and transfer transactions exact"]},
    {"verification_strategy": "modification_based", "reasoning": "The active Total Checking debit card must be replaced and locked, exactly one new active unlocked debit card with a new number on the same account must carry a $1,000 daily limit and the old card's other settings, and the Freedom Unlimited card must be locked; no other card changes.", "key_checks": ["old debit card status replaced and locked", "one new debit card on the same account, active, unlocked, daily limit 100000, new last4", "Freedom Unlimited card locked", "all other cards unchanged"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup over the latest statement of each of customer 1's credit cards: the answer must name the card with the larger statement balance and give that statement's closing balance and minimum due (not the current balance).", "key_checks": ["final_answer names the card with the larger latest statement balance", "final_answer contains that statement balance", "final_answer contains that statement's minimum payment due"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new open dispute must target the later of the two identical $84.50 Lumen Electronics charges on Sapphire Preferred with reason duplicate and a provisional credit of the full amount, lowering the card balance by exactly that amount with one dispute-credit transaction; the earlier charge, the Freedom charge and other disputes are untouched.", "key_checks": ["one new dispute on the later duplicate charge, reason duplicate, status open", "provisional credit equals the charge amount", "Sapphire balance reduced by the amount; other accounts unchanged", "exactly one new dispute_credit transaction"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new completed Zelle payment must send customer 1's contact Maya Chen half of the December 2025 Xfinet Internet bill payment from Total Checking with memo 'Internet Dec', with the checking balance and one zelle_out transaction exact.", "key_checks": ["one new sent Zelle payment to customer 1's Maya Chen from Total Checking", "amount = half of the December Xfinet payment", "memo 'Internet Dec'", "checking balance and transactions exact; nothing else changed"]},
    {"verification_strategy": "modification_based", "reasoning": "Customer 1's own active Sapphire Preferred card (not the authorized-user card) must get exactly one new Japan travel notice for 2026-03-28 to 2026-04-06 and international transactions enabled, and the account's international SMS alert must be on; the email international alert and everything else stay unchanged.", "key_checks": ["one new travel notice on her own Sapphire card with destination Japan and the dates", "that card international_enabled = 1, other cards unchanged", "Sapphire international SMS alert enabled, all other alerts unchanged"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup over customer 1's Zelle activity: completed payments sent to Sam Ortiz (not Sam Ortega) created in 2025; the answer must give their total and their count (pending, cancelled, received and 2024 payments excluded).", "key_checks": ["final_answer contains the total of completed 2025 payments sent to Sam Ortiz", "final_answer contains the number of those payments"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one completed one-time transfer from Total Checking must pay the Freedom Unlimited card the closing balance of its latest statement (not the current balance or the minimum), with both balances and both transactions exact, and the card's autopay must switch to statement_balance with its source account and on-state unchanged.", "key_checks": ["one new completed transfer Total Checking -> Freedom Unlimited for the latest statement balance", "balances and transfer transactions exact", "Freedom autopay amount_type statement_balance, still active, same source", "other autopays unchanged"]},
]
