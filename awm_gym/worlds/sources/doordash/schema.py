"""SQLite schema of the doordash world (the `db_schema.tables` of gen_db.jsonl).

Each entry is {"name", "ddl", "indexes"}; tables are listed in foreign-key-safe order.
Orders keep snapshots of the delivery address, item names, option names and prices, as a real
order receipt does, so later menu or address edits never rewrite past orders.
"""

TABLES = [
    {
        "name": "users",
        "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, phone TEXT, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [],
    },
    {
        "name": "addresses",
        "ddl": "CREATE TABLE addresses (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), label TEXT NOT NULL, street TEXT NOT NULL, unit TEXT, city TEXT NOT NULL, state TEXT NOT NULL, postal_code TEXT NOT NULL, dropoff_instructions TEXT, is_default BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_addresses_user_id ON addresses(user_id);"],
    },
    {
        "name": "payment_methods",
        "ddl": "CREATE TABLE payment_methods (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), card_brand TEXT NOT NULL CHECK (card_brand IN ('Visa', 'Mastercard', 'American Express', 'Discover')), last4 TEXT NOT NULL CHECK (length(last4) = 4), exp_month INTEGER NOT NULL CHECK (exp_month BETWEEN 1 AND 12), exp_year INTEGER NOT NULL, nickname TEXT, is_default BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_payment_methods_user_id ON payment_methods(user_id);"],
    },
    {
        "name": "cuisines",
        "ddl": "CREATE TABLE cuisines (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
        "indexes": [],
    },
    {
        "name": "restaurants",
        "ddl": "CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, cuisine_id INTEGER NOT NULL REFERENCES cuisines(id), street TEXT NOT NULL, city TEXT NOT NULL, state TEXT NOT NULL, phone TEXT, rating REAL NOT NULL DEFAULT 0 CHECK (rating BETWEEN 0 AND 5), rating_count INTEGER NOT NULL DEFAULT 0 CHECK (rating_count >= 0), price_level INTEGER NOT NULL DEFAULT 2 CHECK (price_level BETWEEN 1 AND 4), delivery_fee REAL NOT NULL DEFAULT 0 CHECK (delivery_fee >= 0), avg_prep_minutes INTEGER NOT NULL DEFAULT 20 CHECK (avg_prep_minutes > 0), is_open BOOLEAN NOT NULL DEFAULT 1, dashpass_eligible BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [
            "CREATE INDEX idx_restaurants_name ON restaurants(name);",
            "CREATE INDEX idx_restaurants_cuisine_city ON restaurants(cuisine_id, city);",
        ],
    },
    {
        "name": "menu_categories",
        "ddl": "CREATE TABLE menu_categories (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id) ON DELETE CASCADE, name TEXT NOT NULL, sort_order INTEGER NOT NULL DEFAULT 0, UNIQUE (restaurant_id, name));",
        "indexes": [],
    },
    {
        "name": "menu_items",
        "ddl": "CREATE TABLE menu_items (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id) ON DELETE CASCADE, category_id INTEGER NOT NULL REFERENCES menu_categories(id), name TEXT NOT NULL, description TEXT, price REAL NOT NULL CHECK (price >= 0), calories INTEGER CHECK (calories IS NULL OR calories >= 0), is_vegetarian BOOLEAN NOT NULL DEFAULT 0, is_popular BOOLEAN NOT NULL DEFAULT 0, is_available BOOLEAN NOT NULL DEFAULT 1);",
        "indexes": [
            "CREATE INDEX idx_menu_items_restaurant_id ON menu_items(restaurant_id);",
            "CREATE INDEX idx_menu_items_name ON menu_items(name);",
        ],
    },
    {
        "name": "item_option_groups",
        "ddl": "CREATE TABLE item_option_groups (id INTEGER PRIMARY KEY, menu_item_id INTEGER NOT NULL REFERENCES menu_items(id) ON DELETE CASCADE, name TEXT NOT NULL, min_select INTEGER NOT NULL DEFAULT 0 CHECK (min_select >= 0), max_select INTEGER NOT NULL DEFAULT 1, CHECK (max_select >= min_select AND max_select >= 1));",
        "indexes": ["CREATE INDEX idx_item_option_groups_menu_item_id ON item_option_groups(menu_item_id);"],
    },
    {
        "name": "item_options",
        "ddl": "CREATE TABLE item_options (id INTEGER PRIMARY KEY, group_id INTEGER NOT NULL REFERENCES item_option_groups(id) ON DELETE CASCADE, name TEXT NOT NULL, price_delta REAL NOT NULL DEFAULT 0 CHECK (price_delta >= 0), is_available BOOLEAN NOT NULL DEFAULT 1);",
        "indexes": ["CREATE INDEX idx_item_options_group_id ON item_options(group_id);"],
    },
    {
        "name": "drivers",
        "ddl": "CREATE TABLE drivers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, vehicle TEXT NOT NULL, rating REAL NOT NULL DEFAULT 5 CHECK (rating BETWEEN 0 AND 5), rating_count INTEGER NOT NULL DEFAULT 0, deliveries_completed INTEGER NOT NULL DEFAULT 0, is_active BOOLEAN NOT NULL DEFAULT 1);",
        "indexes": [],
    },
    {
        "name": "promotions",
        "ddl": "CREATE TABLE promotions (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, description TEXT NOT NULL, restaurant_id INTEGER REFERENCES restaurants(id), discount_type TEXT NOT NULL CHECK (discount_type IN ('percent', 'fixed', 'free_delivery')), discount_value REAL NOT NULL DEFAULT 0 CHECK (discount_value >= 0), max_discount REAL, min_subtotal REAL NOT NULL DEFAULT 0, dashpass_only BOOLEAN NOT NULL DEFAULT 0, expires_at DATETIME NOT NULL, is_active BOOLEAN NOT NULL DEFAULT 1);",
        "indexes": ["CREATE INDEX idx_promotions_restaurant_id ON promotions(restaurant_id);"],
    },
    {
        "name": "dashpass_subscriptions",
        "ddl": "CREATE TABLE dashpass_subscriptions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL UNIQUE REFERENCES users(id), plan TEXT NOT NULL CHECK (plan IN ('monthly', 'annual')), price REAL NOT NULL CHECK (price > 0), status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'cancelled')), payment_method_id INTEGER NOT NULL REFERENCES payment_methods(id), started_at DATETIME NOT NULL, renews_at DATETIME);",
        "indexes": [],
    },
    {
        "name": "favorites",
        "ddl": "CREATE TABLE favorites (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), restaurant_id INTEGER NOT NULL REFERENCES restaurants(id), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, restaurant_id));",
        "indexes": [],
    },
    {
        "name": "cart_items",
        "ddl": "CREATE TABLE cart_items (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), restaurant_id INTEGER NOT NULL REFERENCES restaurants(id), menu_item_id INTEGER NOT NULL REFERENCES menu_items(id), quantity INTEGER NOT NULL DEFAULT 1 CHECK (quantity BETWEEN 1 AND 20), special_instructions TEXT, added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_cart_items_user_id ON cart_items(user_id);"],
    },
    {
        "name": "cart_item_options",
        "ddl": "CREATE TABLE cart_item_options (id INTEGER PRIMARY KEY, cart_item_id INTEGER NOT NULL REFERENCES cart_items(id) ON DELETE CASCADE, option_id INTEGER NOT NULL REFERENCES item_options(id), UNIQUE (cart_item_id, option_id));",
        "indexes": [],
    },
    {
        "name": "orders",
        "ddl": "CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), restaurant_id INTEGER NOT NULL REFERENCES restaurants(id), driver_id INTEGER REFERENCES drivers(id), payment_method_id INTEGER NOT NULL REFERENCES payment_methods(id), promotion_id INTEGER REFERENCES promotions(id), status TEXT NOT NULL DEFAULT 'placed' CHECK (status IN ('placed', 'confirmed', 'preparing', 'picked_up', 'delivered', 'cancelled')), delivery_street TEXT NOT NULL, delivery_unit TEXT, delivery_city TEXT NOT NULL, delivery_state TEXT NOT NULL, delivery_postal_code TEXT NOT NULL, dropoff_instructions TEXT, subtotal REAL NOT NULL CHECK (subtotal >= 0), delivery_fee REAL NOT NULL DEFAULT 0, service_fee REAL NOT NULL DEFAULT 0, small_order_fee REAL NOT NULL DEFAULT 0, discount REAL NOT NULL DEFAULT 0, tax REAL NOT NULL DEFAULT 0, tip REAL NOT NULL DEFAULT 0 CHECK (tip >= 0), total REAL NOT NULL CHECK (total >= 0), placed_at DATETIME NOT NULL, estimated_delivery_at DATETIME, delivered_at DATETIME, cancelled_reason TEXT);",
        "indexes": [
            "CREATE INDEX idx_orders_user_placed_at ON orders(user_id, placed_at);",
            "CREATE INDEX idx_orders_restaurant_id ON orders(restaurant_id);",
            "CREATE INDEX idx_orders_driver_id ON orders(driver_id);",
        ],
    },
    {
        "name": "order_items",
        "ddl": "CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE, menu_item_id INTEGER NOT NULL REFERENCES menu_items(id), item_name TEXT NOT NULL, quantity INTEGER NOT NULL CHECK (quantity >= 1), unit_price REAL NOT NULL CHECK (unit_price >= 0), special_instructions TEXT);",
        "indexes": ["CREATE INDEX idx_order_items_order_id ON order_items(order_id);"],
    },
    {
        "name": "order_item_options",
        "ddl": "CREATE TABLE order_item_options (id INTEGER PRIMARY KEY, order_item_id INTEGER NOT NULL REFERENCES order_items(id) ON DELETE CASCADE, option_id INTEGER NOT NULL REFERENCES item_options(id), option_name TEXT NOT NULL, price_delta REAL NOT NULL DEFAULT 0);",
        "indexes": ["CREATE INDEX idx_order_item_options_order_item_id ON order_item_options(order_item_id);"],
    },
    {
        "name": "order_status_history",
        "ddl": "CREATE TABLE order_status_history (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE, status TEXT NOT NULL CHECK (status IN ('placed', 'confirmed', 'preparing', 'picked_up', 'delivered', 'cancelled', 'tip_updated')), note TEXT, created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_order_status_history_order_time ON order_status_history(order_id, created_at);"],
    },
    {
        "name": "ratings",
        "ddl": "CREATE TABLE ratings (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL UNIQUE REFERENCES orders(id), user_id INTEGER NOT NULL REFERENCES users(id), restaurant_id INTEGER NOT NULL REFERENCES restaurants(id), driver_id INTEGER REFERENCES drivers(id), restaurant_rating INTEGER NOT NULL CHECK (restaurant_rating BETWEEN 1 AND 5), driver_rating INTEGER CHECK (driver_rating IS NULL OR driver_rating BETWEEN 1 AND 5), comment TEXT, created_at DATETIME NOT NULL);",
        "indexes": ["CREATE INDEX idx_ratings_restaurant_id ON ratings(restaurant_id);"],
    },
]
