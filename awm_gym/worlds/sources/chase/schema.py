"""SQLite schema of the chase world (the `db_schema.tables` of gen_db.jsonl).

Each entry is {"name", "ddl", "indexes"}; tables are listed in foreign-key-safe order. Money is
integer US cents. A checking or savings account's balance is the money in it (never negative);
a credit card account's balance is the amount owed. Transaction amounts are signed from the
customer's side: negative = money out or a card purchase, positive = money in or a card credit.
"""

TABLES = [
    {
        "name": "customers",
        "ddl": "CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, phone TEXT, address_line TEXT NOT NULL, city TEXT NOT NULL, state TEXT NOT NULL CHECK (length(state) = 2), zip TEXT NOT NULL, date_of_birth TEXT NOT NULL, customer_since TEXT NOT NULL);",
        "indexes": ["CREATE INDEX idx_customers_last_name ON customers(last_name);"],
    },
    {
        "name": "branches",
        "ddl": "CREATE TABLE branches (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, address TEXT NOT NULL, city TEXT NOT NULL, state TEXT NOT NULL, routing_number TEXT NOT NULL CHECK (length(routing_number) = 9), phone TEXT);",
        "indexes": [],
    },
    {
        "name": "categories",
        "ddl": "CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, is_spending BOOLEAN NOT NULL DEFAULT 1);",
        "indexes": [],
    },
    {
        "name": "merchants",
        "ddl": "CREATE TABLE merchants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, category_id INTEGER NOT NULL REFERENCES categories(id), city TEXT, mcc TEXT CHECK (mcc IS NULL OR length(mcc) = 4));",
        "indexes": ["CREATE INDEX idx_merchants_category_id ON merchants(category_id);"],
    },
    {
        "name": "accounts",
        "ddl": "CREATE TABLE accounts (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), branch_id INTEGER REFERENCES branches(id), account_type TEXT NOT NULL CHECK (account_type IN ('checking', 'savings', 'credit_card')), nickname TEXT NOT NULL, account_last4 TEXT NOT NULL CHECK (length(account_last4) = 4), status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'frozen', 'closed')), balance_cents INTEGER NOT NULL DEFAULT 0, credit_limit_cents INTEGER, rate_bps INTEGER NOT NULL DEFAULT 0 CHECK (rate_bps >= 0), opened_on TEXT NOT NULL, CHECK (account_type = 'credit_card' OR balance_cents >= 0), CHECK ((account_type = 'credit_card') = (credit_limit_cents IS NOT NULL)));",
        "indexes": ["CREATE INDEX idx_accounts_customer_id ON accounts(customer_id);"],
    },
    {
        "name": "cards",
        "ddl": "CREATE TABLE cards (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), card_type TEXT NOT NULL CHECK (card_type IN ('debit', 'credit')), last4 TEXT NOT NULL CHECK (length(last4) = 4), cardholder_name TEXT NOT NULL, expiry TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'replaced', 'closed')), is_locked BOOLEAN NOT NULL DEFAULT 0, daily_limit_cents INTEGER CHECK (daily_limit_cents IS NULL OR daily_limit_cents > 0), contactless_enabled BOOLEAN NOT NULL DEFAULT 1, international_enabled BOOLEAN NOT NULL DEFAULT 0, issued_on TEXT NOT NULL);",
        "indexes": ["CREATE INDEX idx_cards_account_id ON cards(account_id);"],
    },
    {
        "name": "transactions",
        "ddl": "CREATE TABLE transactions (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), card_id INTEGER REFERENCES cards(id), merchant_id INTEGER REFERENCES merchants(id), category_id INTEGER REFERENCES categories(id), transaction_type TEXT NOT NULL CHECK (transaction_type IN ('purchase', 'refund', 'deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'bill_payment', 'card_payment', 'zelle_in', 'zelle_out', 'interest', 'fee', 'dispute_credit')), amount_cents INTEGER NOT NULL CHECK (amount_cents <> 0), description TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'posted' CHECK (status IN ('pending', 'posted')), posted_at DATETIME NOT NULL);",
        "indexes": [
            "CREATE INDEX idx_transactions_account_posted ON transactions(account_id, posted_at);",
            "CREATE INDEX idx_transactions_merchant_id ON transactions(merchant_id);",
        ],
    },
    {
        "name": "payees",
        "ddl": "CREATE TABLE payees (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), name TEXT NOT NULL, category TEXT NOT NULL CHECK (category IN ('utilities', 'telecom', 'rent', 'insurance', 'loan', 'credit_card', 'other')), account_ref TEXT NOT NULL, nickname TEXT, address TEXT, is_active BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL, UNIQUE (customer_id, name, account_ref));",
        "indexes": ["CREATE INDEX idx_payees_customer_id ON payees(customer_id);"],
    },
    {
        "name": "ebills",
        "ddl": "CREATE TABLE ebills (id INTEGER PRIMARY KEY, payee_id INTEGER NOT NULL REFERENCES payees(id), statement_date TEXT NOT NULL, amount_due_cents INTEGER NOT NULL CHECK (amount_due_cents > 0), due_date TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'unpaid' CHECK (status IN ('unpaid', 'scheduled', 'paid')), UNIQUE (payee_id, statement_date));",
        "indexes": ["CREATE INDEX idx_ebills_payee_id ON ebills(payee_id);"],
    },
    {
        "name": "bill_payments",
        "ddl": "CREATE TABLE bill_payments (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), payee_id INTEGER NOT NULL REFERENCES payees(id), from_account_id INTEGER NOT NULL REFERENCES accounts(id), ebill_id INTEGER REFERENCES ebills(id), amount_cents INTEGER NOT NULL CHECK (amount_cents > 0), send_on TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('scheduled', 'paid', 'cancelled')), memo TEXT, created_at DATETIME NOT NULL, paid_at DATETIME);",
        "indexes": ["CREATE INDEX idx_bill_payments_customer_payee ON bill_payments(customer_id, payee_id);"],
    },
    {
        "name": "transfers",
        "ddl": "CREATE TABLE transfers (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), from_account_id INTEGER NOT NULL REFERENCES accounts(id), to_account_id INTEGER NOT NULL REFERENCES accounts(id), amount_cents INTEGER NOT NULL CHECK (amount_cents > 0), frequency TEXT NOT NULL DEFAULT 'once' CHECK (frequency IN ('once', 'weekly', 'monthly')), send_on TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled')), memo TEXT, created_at DATETIME NOT NULL, CHECK (from_account_id <> to_account_id));",
        "indexes": ["CREATE INDEX idx_transfers_customer_status ON transfers(customer_id, status);"],
    },
    {
        "name": "autopays",
        "ddl": "CREATE TABLE autopays (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), card_account_id INTEGER NOT NULL UNIQUE REFERENCES accounts(id), from_account_id INTEGER NOT NULL REFERENCES accounts(id), amount_type TEXT NOT NULL CHECK (amount_type IN ('minimum_due', 'statement_balance', 'fixed')), fixed_amount_cents INTEGER, is_active BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL, CHECK (amount_type <> 'fixed' OR fixed_amount_cents > 0));",
        "indexes": [],
    },
    {
        "name": "zelle_contacts",
        "ddl": "CREATE TABLE zelle_contacts (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), name TEXT NOT NULL, email TEXT, phone TEXT, is_favorite BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL, CHECK (email IS NOT NULL OR phone IS NOT NULL));",
        "indexes": ["CREATE INDEX idx_zelle_contacts_customer_id ON zelle_contacts(customer_id);"],
    },
    {
        "name": "zelle_payments",
        "ddl": "CREATE TABLE zelle_payments (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), contact_id INTEGER NOT NULL REFERENCES zelle_contacts(id), account_id INTEGER NOT NULL REFERENCES accounts(id), direction TEXT NOT NULL CHECK (direction IN ('sent', 'received', 'requested')), amount_cents INTEGER NOT NULL CHECK (amount_cents > 0), memo TEXT, status TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled', 'declined')), created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_zelle_payments_customer_contact ON zelle_payments(customer_id, contact_id);"],
    },
    {
        "name": "alerts",
        "ddl": "CREATE TABLE alerts (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), account_id INTEGER NOT NULL REFERENCES accounts(id), alert_type TEXT NOT NULL CHECK (alert_type IN ('low_balance', 'large_purchase', 'payment_due', 'deposit_received', 'international', 'card_not_present')), channel TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'push')), threshold_cents INTEGER CHECK (threshold_cents IS NULL OR threshold_cents > 0), is_enabled BOOLEAN NOT NULL DEFAULT 1, UNIQUE (account_id, alert_type, channel));",
        "indexes": ["CREATE INDEX idx_alerts_customer_id ON alerts(customer_id);"],
    },
    {
        "name": "statements",
        "ddl": "CREATE TABLE statements (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), period_start TEXT NOT NULL, period_end TEXT NOT NULL, opening_balance_cents INTEGER NOT NULL, closing_balance_cents INTEGER NOT NULL, total_debits_cents INTEGER NOT NULL DEFAULT 0, total_credits_cents INTEGER NOT NULL DEFAULT 0, interest_cents INTEGER NOT NULL DEFAULT 0, minimum_due_cents INTEGER, due_date TEXT, UNIQUE (account_id, period_end), CHECK (period_end > period_start));",
        "indexes": [],
    },
    {
        "name": "disputes",
        "ddl": "CREATE TABLE disputes (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), transaction_id INTEGER NOT NULL UNIQUE REFERENCES transactions(id), reason TEXT NOT NULL CHECK (reason IN ('unauthorized', 'duplicate', 'not_received', 'incorrect_amount', 'defective', 'other')), amount_cents INTEGER NOT NULL CHECK (amount_cents > 0), description TEXT, status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'under_review', 'resolved_customer', 'resolved_merchant', 'withdrawn')), provisional_credit_cents INTEGER NOT NULL DEFAULT 0, created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_disputes_customer_id ON disputes(customer_id);"],
    },
    {
        "name": "travel_notices",
        "ddl": "CREATE TABLE travel_notices (id INTEGER PRIMARY KEY, card_id INTEGER NOT NULL REFERENCES cards(id), destination TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT NOT NULL, created_at DATETIME NOT NULL, CHECK (end_date >= start_date));",
        "indexes": ["CREATE INDEX idx_travel_notices_card_id ON travel_notices(card_id);"],
    },
    {
        "name": "savings_goals",
        "ddl": "CREATE TABLE savings_goals (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id), name TEXT NOT NULL, target_cents INTEGER NOT NULL CHECK (target_cents > 0), target_date TEXT, created_at DATETIME NOT NULL, UNIQUE (account_id, name));",
        "indexes": [],
    },
]
