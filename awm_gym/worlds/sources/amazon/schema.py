"""SQLite schema of the amazon world (the `db_schema.tables` of gen_db.jsonl).

Each entry is {"name", "ddl", "indexes"}; tables are listed in foreign-key-safe order.
Orders keep a snapshot of the shipping address (as a real order does), so deleting an address
never leaves an order pointing at nothing.
"""

TABLES = [
    {
        "name": "users",
        "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, phone TEXT, is_prime BOOLEAN NOT NULL DEFAULT 0, prime_member_since TEXT, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_users_name ON users(name);"],
    },
    {
        "name": "addresses",
        "ddl": "CREATE TABLE addresses (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), label TEXT NOT NULL, full_name TEXT NOT NULL, street TEXT NOT NULL, city TEXT NOT NULL, state TEXT NOT NULL, postal_code TEXT NOT NULL, country TEXT NOT NULL DEFAULT 'US', phone TEXT, delivery_instructions TEXT, is_default BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_addresses_user_id ON addresses(user_id);"],
    },
    {
        "name": "payment_methods",
        "ddl": "CREATE TABLE payment_methods (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), method_type TEXT NOT NULL CHECK (method_type IN ('card', 'gift_card', 'bank_account')), card_brand TEXT, last4 TEXT NOT NULL CHECK (length(last4) = 4), holder_name TEXT NOT NULL, exp_month INTEGER CHECK (exp_month IS NULL OR exp_month BETWEEN 1 AND 12), exp_year INTEGER, nickname TEXT, is_default BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_payment_methods_user_id ON payment_methods(user_id);"],
    },
    {
        "name": "categories",
        "ddl": "CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES categories(id), description TEXT);",
        "indexes": ["CREATE INDEX idx_categories_parent_id ON categories(parent_id);"],
    },
    {
        "name": "sellers",
        "ddl": "CREATE TABLE sellers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, is_amazon BOOLEAN NOT NULL DEFAULT 0, rating REAL NOT NULL DEFAULT 0 CHECK (rating BETWEEN 0 AND 5), rating_count INTEGER NOT NULL DEFAULT 0, ships_from TEXT NOT NULL DEFAULT 'US', joined_at DATETIME NOT NULL);",
        "indexes": [],
    },
    {
        "name": "products",
        "ddl": "CREATE TABLE products (id INTEGER PRIMARY KEY, title TEXT NOT NULL, brand TEXT NOT NULL, category_id INTEGER NOT NULL REFERENCES categories(id), description TEXT, avg_rating REAL NOT NULL DEFAULT 0 CHECK (avg_rating BETWEEN 0 AND 5), review_count INTEGER NOT NULL DEFAULT 0 CHECK (review_count >= 0), is_active BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [
            "CREATE INDEX idx_products_title ON products(title);",
            "CREATE INDEX idx_products_category_id ON products(category_id);",
            "CREATE INDEX idx_products_brand ON products(brand);",
        ],
    },
    {
        "name": "product_variants",
        "ddl": "CREATE TABLE product_variants (id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE, sku TEXT NOT NULL UNIQUE, variant_name TEXT NOT NULL, color TEXT, size TEXT, list_price REAL NOT NULL CHECK (list_price >= 0));",
        "indexes": ["CREATE INDEX idx_product_variants_product_id ON product_variants(product_id);"],
    },
    {
        "name": "offers",
        "ddl": "CREATE TABLE offers (id INTEGER PRIMARY KEY, variant_id INTEGER NOT NULL REFERENCES product_variants(id), seller_id INTEGER NOT NULL REFERENCES sellers(id), condition TEXT NOT NULL DEFAULT 'new' CHECK (condition IN ('new', 'used', 'renewed')), price REAL NOT NULL CHECK (price > 0), stock_qty INTEGER NOT NULL DEFAULT 0 CHECK (stock_qty >= 0), is_prime_eligible BOOLEAN NOT NULL DEFAULT 0, delivery_days INTEGER NOT NULL DEFAULT 3 CHECK (delivery_days >= 1), UNIQUE (variant_id, seller_id, condition));",
        "indexes": [
            "CREATE INDEX idx_offers_variant_price ON offers(variant_id, price);",
            "CREATE INDEX idx_offers_seller_id ON offers(seller_id);",
        ],
    },
    {
        "name": "cart_items",
        "ddl": "CREATE TABLE cart_items (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), offer_id INTEGER NOT NULL REFERENCES offers(id), quantity INTEGER NOT NULL DEFAULT 1 CHECK (quantity >= 1), saved_for_later BOOLEAN NOT NULL DEFAULT 0, added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, offer_id));",
        "indexes": ["CREATE INDEX idx_cart_items_user_id ON cart_items(user_id);"],
    },
    {
        "name": "coupons",
        "ddl": "CREATE TABLE coupons (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, description TEXT NOT NULL, discount_type TEXT NOT NULL CHECK (discount_type IN ('percent', 'fixed')), discount_value REAL NOT NULL CHECK (discount_value > 0), min_order_amount REAL NOT NULL DEFAULT 0, expires_at DATETIME NOT NULL, is_active BOOLEAN NOT NULL DEFAULT 1);",
        "indexes": [],
    },
    {
        "name": "orders",
        "ddl": "CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), order_number TEXT NOT NULL UNIQUE, status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'shipped', 'delivered', 'cancelled')), payment_method_id INTEGER NOT NULL REFERENCES payment_methods(id), coupon_id INTEGER REFERENCES coupons(id), ship_to_name TEXT NOT NULL, ship_to_street TEXT NOT NULL, ship_to_city TEXT NOT NULL, ship_to_state TEXT NOT NULL, ship_to_postal_code TEXT NOT NULL, subtotal REAL NOT NULL CHECK (subtotal >= 0), shipping_fee REAL NOT NULL DEFAULT 0, discount REAL NOT NULL DEFAULT 0, tax REAL NOT NULL DEFAULT 0, total REAL NOT NULL CHECK (total >= 0), placed_at DATETIME NOT NULL, estimated_delivery_date DATE, delivered_at DATETIME, cancelled_reason TEXT);",
        "indexes": [
            "CREATE INDEX idx_orders_user_placed_at ON orders(user_id, placed_at);",
            "CREATE INDEX idx_orders_status ON orders(status);",
        ],
    },
    {
        "name": "order_items",
        "ddl": "CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE, offer_id INTEGER NOT NULL REFERENCES offers(id), variant_id INTEGER NOT NULL REFERENCES product_variants(id), seller_id INTEGER NOT NULL REFERENCES sellers(id), quantity INTEGER NOT NULL CHECK (quantity >= 1), unit_price REAL NOT NULL CHECK (unit_price >= 0));",
        "indexes": [
            "CREATE INDEX idx_order_items_order_id ON order_items(order_id);",
            "CREATE INDEX idx_order_items_variant_id ON order_items(variant_id);",
        ],
    },
    {
        "name": "order_events",
        "ddl": "CREATE TABLE order_events (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE, status TEXT NOT NULL CHECK (status IN ('ordered', 'shipped', 'in_transit', 'out_for_delivery', 'delivered', 'cancelled', 'address_updated')), description TEXT NOT NULL, location TEXT, occurred_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_order_events_order_time ON order_events(order_id, occurred_at);"],
    },
    {
        "name": "return_requests",
        "ddl": "CREATE TABLE return_requests (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), order_item_id INTEGER NOT NULL REFERENCES order_items(id), quantity INTEGER NOT NULL CHECK (quantity >= 1), reason TEXT NOT NULL CHECK (reason IN ('defective', 'damaged', 'wrong_item', 'not_as_described', 'no_longer_needed', 'better_price')), resolution TEXT NOT NULL CHECK (resolution IN ('refund', 'replacement')), status TEXT NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'approved', 'received', 'refunded', 'rejected', 'cancelled')), refund_amount REAL NOT NULL DEFAULT 0, comments TEXT, created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL);",
        "indexes": [
            "CREATE INDEX idx_return_requests_user_id ON return_requests(user_id);",
            "CREATE INDEX idx_return_requests_order_item_id ON return_requests(order_item_id);",
        ],
    },
    {
        "name": "reviews",
        "ddl": "CREATE TABLE reviews (id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products(id), user_id INTEGER NOT NULL REFERENCES users(id), rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5), title TEXT NOT NULL, body TEXT NOT NULL, verified_purchase BOOLEAN NOT NULL DEFAULT 0, helpful_votes INTEGER NOT NULL DEFAULT 0 CHECK (helpful_votes >= 0), created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL, UNIQUE (product_id, user_id));",
        "indexes": [
            "CREATE INDEX idx_reviews_product_id ON reviews(product_id);",
            "CREATE INDEX idx_reviews_user_id ON reviews(user_id);",
        ],
    },
    {
        "name": "wishlists",
        "ddl": "CREATE TABLE wishlists (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, is_private BOOLEAN NOT NULL DEFAULT 1, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, name));",
        "indexes": [],
    },
    {
        "name": "wishlist_items",
        "ddl": "CREATE TABLE wishlist_items (id INTEGER PRIMARY KEY, wishlist_id INTEGER NOT NULL REFERENCES wishlists(id) ON DELETE CASCADE, variant_id INTEGER NOT NULL REFERENCES product_variants(id), quantity_desired INTEGER NOT NULL DEFAULT 1 CHECK (quantity_desired >= 1), priority TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('high', 'medium', 'low')), note TEXT, added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (wishlist_id, variant_id));",
        "indexes": ["CREATE INDEX idx_wishlist_items_wishlist_id ON wishlist_items(wishlist_id);"],
    },
    {
        "name": "subscriptions",
        "ddl": "CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), offer_id INTEGER NOT NULL REFERENCES offers(id), quantity INTEGER NOT NULL DEFAULT 1 CHECK (quantity BETWEEN 1 AND 10), frequency_weeks INTEGER NOT NULL CHECK (frequency_weeks BETWEEN 1 AND 26), status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'cancelled')), next_delivery_date DATE, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_subscriptions_user_id ON subscriptions(user_id);"],
    },
]
