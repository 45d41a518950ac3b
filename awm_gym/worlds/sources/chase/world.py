"""The built-in `chase` world: scenario, tasks and reference solutions, plus re-exports.

Sources of truth, assembled into AWM JSONL by scripts/build_builtin_worlds.py:
  schema.py (TABLES), sample.py (SAMPLE), spec.py (SPEC), app.py (full_code),
  verifiers.py (VERIFIERS, extracted from the verifier_<i> functions) and this file.
Solution calls use operation ids and flat arguments exactly as an MCP client would send them.
Ids created while solving are predictable: the seed has 9 cards, so a replacement card gets id 10.
"""

import ast
import os

from .sample import SAMPLE
from .schema import TABLES
from .spec import SPEC
from .verifiers import VERIFIER_META

__all__ = ["SCENARIO", "DESCRIPTION", "TASKS", "TABLES", "SAMPLE", "SPEC", "FULL_CODE", "VERIFIERS", "VERIFIER_META", "SOLUTIONS"]

SCENARIO = "chase"

DESCRIPTION = (
    "Chase is a consumer bank whose online banking lets a customer manage checking, savings and "
    "credit card accounts in one place. Every account shows its balance (for credit cards, the amount "
    "owed, the credit limit and available credit) and a transaction history with merchants, spending "
    "categories, pending and posted items, and monthly spending summaries; credit cards close a "
    "statement each month with a statement balance, minimum payment and due date. Customers move "
    "money between their own accounts now or on a one-time or recurring schedule, pay their cards "
    "manually or through autopay of the minimum due, the statement balance or a fixed amount, and pay "
    "bills to saved payees, settling electronic bills (eBills) right away or on a chosen date. Zelle "
    "sends money to saved contacts by email or phone and records requests and received payments. "
    "Debit and credit cards can be locked and unlocked, given daily limits, allowed or blocked for "
    "international use, covered by travel notices, and reported lost or stolen, which retires the "
    "card and issues a replacement. Customers also configure balance, purchase, payment-due and "
    "international alerts by email, SMS or push, dispute card charges (credit cards get a "
    "provisional credit while a dispute is open) and track savings goals. The simulated bank is seen "
    "from one logged-in customer (customer 1, Priya Raman in San Francisco) among five customers, "
    "with six accounts, five cards and two months of history; the current date is 2026-01-01."
)

TASKS = [
    "How much did I spend on Dining in December 2025 across all my accounts and cards, and at which dining merchant did I spend the most in total?",
    "Pay the unpaid Bay Power & Gas eBill for my Tahoe cabin in full from my Total Checking account now, and schedule the unpaid City Water Utility eBill to be paid in full from Total Checking on its due date.",
    "Move $500 from my Vacation Fund to my Total Checking now, and replace my monthly $200 transfer into the Vacation Fund with a monthly $250 transfer starting 2026-02-01.",
    "I lost my Total Checking debit card: report it lost so a replacement is issued, set the replacement card's daily limit to $1,000, and lock my Freedom Unlimited card until I find my wallet.",
    "Which of my two credit cards had the larger balance on its latest statement, and what were that statement's balance and minimum payment due?",
    "On my Sapphire Preferred card there are two identical $84.50 Lumen Electronics charges on 2025-12-18; dispute the later one as a duplicate charge.",
    "Send my roommate Maya Chen half of what I paid Xfinet Internet in December 2025, via Zelle from my Total Checking, with the memo 'Internet Dec'.",
    "I'm traveling to Japan from 2026-03-28 to 2026-04-06: add a travel notice for Japan on my own Sapphire Preferred card (not my brother's authorized-user card), allow international transactions on it, and turn on the SMS alert for international transactions on that account.",
    "How much money did I send to Sam Ortiz with Zelle during 2025, counting only completed payments, and how many payments was that?",
    "Pay the full balance of my Freedom Unlimited card's latest statement from my Total Checking account now, and switch that card's autopay from the minimum due to the full statement balance.",
]


def _call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


SOLUTIONS = [
    {
        "calls": [
            _call("list_accounts"),
            _call("list_transactions", account_id=1, category="Dining", start_date="2025-12-01", end_date="2025-12-31"),
            _call("list_transactions", account_id=3, category="Dining", start_date="2025-12-01", end_date="2025-12-31"),
            _call("list_transactions", account_id=4, category="Dining", start_date="2025-12-01", end_date="2025-12-31"),
        ],
        "final_answer": "You spent $333.70 on Dining in December 2025 ($98.65 on Total Checking, $222.55 on Sapphire Preferred and $12.50 on Freedom Unlimited). The most went to Nopa Kitchen: $159.70 over two visits.",
    },
    {
        "calls": [
            _call("list_payees"),
            _call("list_ebills", payee_id=4, status="unpaid"),
            _call("list_ebills", payee_id=6, status="unpaid"),
            _call("list_accounts"),
            _call("pay_bill", payee_id=4, from_account_id=1, amount_cents=6411, ebill_id=4),
            _call("pay_bill", payee_id=6, from_account_id=1, amount_cents=4720, ebill_id=7, send_on="2026-01-05"),
        ],
        "final_answer": "Paid the $64.11 Tahoe Cabin Bay Power & Gas eBill from Total Checking, and scheduled the $47.20 City Water Utility eBill for its due date, 2026-01-05.",
    },
    {
        "calls": [
            _call("list_accounts"),
            _call("list_transfers", status="scheduled"),
            _call("create_transfer", from_account_id=5, to_account_id=1, amount_cents=50000),
            _call("cancel_transfer", transfer_id=1),
            _call("create_transfer", from_account_id=1, to_account_id=5, amount_cents=25000, frequency="monthly", send_on="2026-02-01"),
        ],
        "final_answer": "Moved $500.00 from Vacation Fund to Total Checking, cancelled the monthly $200 transfer and set up a monthly $250 transfer to Vacation Fund starting 2026-02-01.",
    },
    {
        "calls": [
            _call("list_cards"),
            _call("report_card_lost", card_id=1, reason="lost"),
            _call("update_card_settings", card_id=10, daily_limit_cents=100000),
            _call("set_card_lock", card_id=3, locked=True),
        ],
        "final_answer": "Your debit card ending 6021 is reported lost; the replacement ending 9190 has a $1,000 daily limit, and your Freedom Unlimited card ending 9930 is locked.",
    },
    {
        "calls": [
            _call("list_accounts"),
            _call("list_statements", account_id=3),
            _call("list_statements", account_id=4),
        ],
        "final_answer": "Sapphire Preferred: its December statement balance was $1,079.55 with a minimum payment due of $41.00 (due 2026-01-15). Freedom Unlimited's statement balance was $245.04.",
    },
    {
        "calls": [
            _call("list_accounts"),
            _call("list_transactions", account_id=3, merchant="Lumen"),
            _call("file_dispute", transaction_id=41, reason="duplicate", description="Charged twice for the same purchase at 14:02 and 14:03"),
        ],
        "final_answer": "Disputed the 14:03 Lumen Electronics charge of $84.50 as a duplicate; a provisional credit of $84.50 was applied to your Sapphire Preferred card.",
    },
    {
        "calls": [
            _call("list_payees"),
            _call("list_bill_payments", payee_id=2, status="paid"),
            _call("list_zelle_contacts"),
            _call("send_zelle_payment", contact_id=1, from_account_id=1, amount_cents=4499, memo="Internet Dec"),
        ],
        "final_answer": "You paid Xfinet Internet $89.98 in December, so I sent Maya Chen $44.99 via Zelle from Total Checking with the memo 'Internet Dec'.",
    },
    {
        "calls": [
            _call("list_cards"),
            _call("create_travel_notice", card_id=2, destination="Japan", start_date="2026-03-28", end_date="2026-04-06"),
            _call("update_card_settings", card_id=2, international_enabled=True),
            _call("list_alerts", account_id=3),
            _call("update_alert", alert_id=5, is_enabled=True),
        ],
        "final_answer": "Added a Japan travel notice (2026-03-28 to 2026-04-06) to your Sapphire card ending 4402, enabled international transactions on it, and turned on the international SMS alert.",
    },
    {
        "calls": [
            _call("list_zelle_contacts"),
            _call("list_zelle_payments", contact_id=2, direction="sent"),
        ],
        "final_answer": "In 2025 you sent Sam Ortiz $185.00 in 2 completed Zelle payments ($125.00 in February and $60.00 in December).",
    },
    {
        "calls": [
            _call("list_accounts"),
            _call("list_statements", account_id=4),
            _call("create_transfer", from_account_id=1, to_account_id=4, amount_cents=24504),
            _call("list_autopays"),
            _call("update_autopay", autopay_id=1, amount_type="statement_balance"),
        ],
        "final_answer": "Paid $245.04, the Freedom Unlimited statement balance, from Total Checking, and switched its autopay to the full statement balance.",
    },
]

# Test data, not assembled into JSONL: plausible but wrong answers for the pure query tasks
# (their final DB equals the initial DB); the verifier must reject each one.
WRONG_ANSWERS = {
    0: [
        "EMPTY RESPONSE FOR TESTING",
        "You spent $427.70 on Dining; most of it at Nopa Kitchen.",
        "You spent $333.70 on Dining; the most went to Sushi Ran.",
        "You spent $222.55 on Dining, mostly at Nopa Kitchen.",
    ],
    4: [
        "EMPTY RESPONSE FOR TESTING",
        "Freedom Unlimited: statement balance $245.04, minimum due $25.00.",
        "Sapphire Preferred: balance $446.65, minimum due $41.00.",
        "Sapphire Preferred: statement balance $1,079.55, minimum due $35.00.",
    ],
    8: [
        "EMPTY RESPONSE FOR TESTING",
        "$265.00 across 3 completed payments.",
        "$227.50 in 3 payments.",
        "$225.00 in 3 payments.",
        "$185.00 in 3 payments.",
    ],
}
# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    1: [
        ("pay_bill", {"payee_id": 3, "from_account_id": 1, "amount_cents": 15872, "ebill_id": 2}),
        ("pay_bill", {"payee_id": 6, "from_account_id": 1, "amount_cents": 4720, "ebill_id": 7, "send_on": "2026-01-05"}),
    ],
    2: [
        ("create_transfer", {"from_account_id": 5, "to_account_id": 1, "amount_cents": 50000}),
        ("create_transfer", {"from_account_id": 1, "to_account_id": 5, "amount_cents": 25000, "frequency": "monthly", "send_on": "2026-02-01"}),
    ],
    3: [
        ("report_card_lost", {"card_id": 1, "reason": "lost"}),
        ("update_card_settings", {"card_id": 1, "daily_limit_cents": 100000}),
        ("set_card_lock", {"card_id": 3, "locked": True}),
    ],
    5: [("file_dispute", {"transaction_id": 40, "reason": "duplicate", "description": "Charged twice"})],
    6: [("send_zelle_payment", {"contact_id": 1, "from_account_id": 1, "amount_cents": 8998, "memo": "Internet Dec"})],
    7: [
        ("create_travel_notice", {"card_id": 5, "destination": "Japan", "start_date": "2026-03-28", "end_date": "2026-04-06"}),
        ("update_card_settings", {"card_id": 2, "international_enabled": True}),
        ("update_alert", {"alert_id": 5, "is_enabled": True}),
    ],
    9: [
        ("create_transfer", {"from_account_id": 1, "to_account_id": 4, "amount_cents": 31735}),
        ("update_autopay", {"autopay_id": 1, "amount_type": "statement_balance"}),
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
