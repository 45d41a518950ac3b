import os
from datetime import datetime, date, timedelta
from typing import List, Optional

from fastapi import FastAPI, Query, Path
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Text, Boolean, Float, Date, DateTime, ForeignKey, UniqueConstraint, func, or_
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///amazon.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)
    email = Column(String, nullable=False, unique=True)
    phone = Column(String)
    is_prime = Column(Boolean, nullable=False, default=False)
    prime_member_since = Column(String)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Address(Base):
    __tablename__ = "addresses"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    label = Column(String, nullable=False)
    full_name = Column(String, nullable=False)
    street = Column(String, nullable=False)
    city = Column(String, nullable=False)
    state = Column(String, nullable=False)
    postal_code = Column(String, nullable=False)
    country = Column(String, nullable=False, default="US")
    phone = Column(String)
    delivery_instructions = Column(Text)
    is_default = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class PaymentMethod(Base):
    __tablename__ = "payment_methods"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    method_type = Column(String, nullable=False)
    card_brand = Column(String)
    last4 = Column(String, nullable=False)
    holder_name = Column(String, nullable=False)
    exp_month = Column(Integer)
    exp_year = Column(Integer)
    nickname = Column(String)
    is_default = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Category(Base):
    __tablename__ = "categories"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)
    parent_id = Column(Integer, ForeignKey("categories.id"))
    description = Column(Text)


class Seller(Base):
    __tablename__ = "sellers"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)
    is_amazon = Column(Boolean, nullable=False, default=False)
    rating = Column(Float, nullable=False, default=0)
    rating_count = Column(Integer, nullable=False, default=0)
    ships_from = Column(String, nullable=False, default="US")
    joined_at = Column(DateTime, nullable=False)


class Product(Base):
    __tablename__ = "products"
    id = Column(Integer, primary_key=True)
    title = Column(String, nullable=False)
    brand = Column(String, nullable=False)
    category_id = Column(Integer, ForeignKey("categories.id"), nullable=False)
    description = Column(Text)
    avg_rating = Column(Float, nullable=False, default=0)
    review_count = Column(Integer, nullable=False, default=0)
    is_active = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class ProductVariant(Base):
    __tablename__ = "product_variants"
    id = Column(Integer, primary_key=True)
    product_id = Column(Integer, ForeignKey("products.id"), nullable=False)
    sku = Column(String, nullable=False, unique=True)
    variant_name = Column(String, nullable=False)
    color = Column(String)
    size = Column(String)
    list_price = Column(Float, nullable=False)


class Offer(Base):
    __tablename__ = "offers"
    __table_args__ = (UniqueConstraint("variant_id", "seller_id", "condition"),)
    id = Column(Integer, primary_key=True)
    variant_id = Column(Integer, ForeignKey("product_variants.id"), nullable=False)
    seller_id = Column(Integer, ForeignKey("sellers.id"), nullable=False)
    condition = Column(String, nullable=False, default="new")
    price = Column(Float, nullable=False)
    stock_qty = Column(Integer, nullable=False, default=0)
    is_prime_eligible = Column(Boolean, nullable=False, default=False)
    delivery_days = Column(Integer, nullable=False, default=3)


class CartItem(Base):
    __tablename__ = "cart_items"
    __table_args__ = (UniqueConstraint("user_id", "offer_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    offer_id = Column(Integer, ForeignKey("offers.id"), nullable=False)
    quantity = Column(Integer, nullable=False, default=1)
    saved_for_later = Column(Boolean, nullable=False, default=False)
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Coupon(Base):
    __tablename__ = "coupons"
    id = Column(Integer, primary_key=True)
    code = Column(String, nullable=False, unique=True)
    description = Column(Text, nullable=False)
    discount_type = Column(String, nullable=False)
    discount_value = Column(Float, nullable=False)
    min_order_amount = Column(Float, nullable=False, default=0)
    expires_at = Column(DateTime, nullable=False)
    is_active = Column(Boolean, nullable=False, default=True)


class Order(Base):
    __tablename__ = "orders"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    order_number = Column(String, nullable=False, unique=True)
    status = Column(String, nullable=False, default="pending")
    payment_method_id = Column(Integer, ForeignKey("payment_methods.id"), nullable=False)
    coupon_id = Column(Integer, ForeignKey("coupons.id"))
    ship_to_name = Column(String, nullable=False)
    ship_to_street = Column(String, nullable=False)
    ship_to_city = Column(String, nullable=False)
    ship_to_state = Column(String, nullable=False)
    ship_to_postal_code = Column(String, nullable=False)
    subtotal = Column(Float, nullable=False)
    shipping_fee = Column(Float, nullable=False, default=0)
    discount = Column(Float, nullable=False, default=0)
    tax = Column(Float, nullable=False, default=0)
    total = Column(Float, nullable=False)
    placed_at = Column(DateTime, nullable=False)
    estimated_delivery_date = Column(Date)
    delivered_at = Column(DateTime)
    cancelled_reason = Column(Text)


class OrderItem(Base):
    __tablename__ = "order_items"
    id = Column(Integer, primary_key=True)
    order_id = Column(Integer, ForeignKey("orders.id"), nullable=False)
    offer_id = Column(Integer, ForeignKey("offers.id"), nullable=False)
    variant_id = Column(Integer, ForeignKey("product_variants.id"), nullable=False)
    seller_id = Column(Integer, ForeignKey("sellers.id"), nullable=False)
    quantity = Column(Integer, nullable=False)
    unit_price = Column(Float, nullable=False)


class OrderEvent(Base):
    __tablename__ = "order_events"
    id = Column(Integer, primary_key=True)
    order_id = Column(Integer, ForeignKey("orders.id"), nullable=False)
    status = Column(String, nullable=False)
    description = Column(Text, nullable=False)
    location = Column(String)
    occurred_at = Column(DateTime, nullable=False)


class ReturnRequest(Base):
    __tablename__ = "return_requests"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    order_item_id = Column(Integer, ForeignKey("order_items.id"), nullable=False)
    quantity = Column(Integer, nullable=False)
    reason = Column(String, nullable=False)
    resolution = Column(String, nullable=False)
    status = Column(String, nullable=False, default="requested")
    refund_amount = Column(Float, nullable=False, default=0)
    comments = Column(Text)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Review(Base):
    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("product_id", "user_id"),)
    id = Column(Integer, primary_key=True)
    product_id = Column(Integer, ForeignKey("products.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    rating = Column(Integer, nullable=False)
    title = Column(String, nullable=False)
    body = Column(Text, nullable=False)
    verified_purchase = Column(Boolean, nullable=False, default=False)
    helpful_votes = Column(Integer, nullable=False, default=0)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Wishlist(Base):
    __tablename__ = "wishlists"
    __table_args__ = (UniqueConstraint("user_id", "name"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    name = Column(String, nullable=False)
    is_private = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class WishlistItem(Base):
    __tablename__ = "wishlist_items"
    __table_args__ = (UniqueConstraint("wishlist_id", "variant_id"),)
    id = Column(Integer, primary_key=True)
    wishlist_id = Column(Integer, ForeignKey("wishlists.id"), nullable=False)
    variant_id = Column(Integer, ForeignKey("product_variants.id"), nullable=False)
    quantity_desired = Column(Integer, nullable=False, default=1)
    priority = Column(String, nullable=False, default="medium")
    note = Column(Text)
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Subscription(Base):
    __tablename__ = "subscriptions"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    offer_id = Column(Integer, ForeignKey("offers.id"), nullable=False)
    quantity = Column(Integer, nullable=False, default=1)
    frequency_weeks = Column(Integer, nullable=False)
    status = Column(String, nullable=False, default="active")
    next_delivery_date = Column(Date)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


Base.metadata.create_all(bind=engine)


class UserResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="User ID", example=1)
    name: str = Field(..., description="Full name", example="Priya Raman")
    email: str = Field(..., description="Email address", example="priya.raman@example.com")
    phone: Optional[str] = Field(None, description="Phone number", example="206-555-0187")
    is_prime: bool = Field(..., description="Whether the user has a Prime membership", example=True)
    prime_member_since: Optional[str] = Field(None, description="Prime membership start date (YYYY-MM-DD)", example="2019-03-14")
    created_at: datetime = Field(..., description="Account creation time", example="2016-08-02T10:15:00")


class AddressResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Address ID", example=1)
    label: str = Field(..., description="Label such as Home or Office", example="Home")
    full_name: str = Field(..., description="Recipient name", example="Priya Raman")
    street: str = Field(..., description="Street address including apartment or suite", example="123 Alder Street, Apt 4B")
    city: str = Field(..., description="City", example="Seattle")
    state: str = Field(..., description="State code", example="WA")
    postal_code: str = Field(..., description="ZIP code", example="98101")
    country: str = Field(..., description="Country code", example="US")
    phone: Optional[str] = Field(None, description="Phone number for the carrier", example="206-555-0187")
    delivery_instructions: Optional[str] = Field(None, description="Instructions for the driver", example="Leave at the front desk")
    is_default: bool = Field(..., description="Whether this is the default shipping address", example=True)


class PaymentMethodResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Payment method ID", example=2)
    method_type: str = Field(..., description="card, gift_card or bank_account", example="card")
    card_brand: Optional[str] = Field(None, description="Card brand or bank name", example="Visa")
    last4: str = Field(..., description="Last four digits", example="4242")
    holder_name: str = Field(..., description="Name on the account", example="Priya Raman")
    exp_month: Optional[int] = Field(None, description="Expiry month", example=5)
    exp_year: Optional[int] = Field(None, description="Expiry year", example=2028)
    nickname: Optional[str] = Field(None, description="Nickname", example="Travel Visa")
    is_default: bool = Field(..., description="Whether this is the default payment method", example=False)


class CategoryResponse(BaseModel):
    id: int = Field(..., description="Category ID", example=2)
    name: str = Field(..., description="Category name", example="Headphones")
    parent_id: Optional[int] = Field(None, description="Parent category ID", example=1)
    parent_name: Optional[str] = Field(None, description="Parent category name", example="Electronics")
    description: Optional[str] = Field(None, description="Category description", example="Over-ear, on-ear and in-ear headphones and earbuds.")


class SellerResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Seller ID", example=2)
    name: str = Field(..., description="Seller name", example="TechHaven")
    is_amazon: bool = Field(..., description="Whether the seller is Amazon itself", example=False)
    rating: float = Field(..., description="Seller feedback rating 0-5", example=4.6)
    rating_count: int = Field(..., description="Number of seller ratings", example=48210)
    ships_from: str = Field(..., description="Country the seller ships from", example="US")
    joined_at: datetime = Field(..., description="When the seller joined", example="2012-04-02T00:00:00")


class ProductResponse(BaseModel):
    id: int = Field(..., description="Product ID", example=4)
    title: str = Field(..., description="Product title", example="Vibe Studio Over-Ear Headphones")
    brand: str = Field(..., description="Brand", example="Vibe Audio")
    category_id: int = Field(..., description="Category ID", example=2)
    category_name: str = Field(..., description="Category name", example="Headphones")
    description: Optional[str] = Field(None, description="Product description", example="Closed-back studio headphones.")
    avg_rating: float = Field(..., description="Average customer rating 0-5", example=4.7)
    review_count: int = Field(..., description="Number of customer ratings", example=3320)
    lowest_price: Optional[float] = Field(None, description="Lowest in-stock offer price over all variants and conditions", example=72.0)
    prime_available: bool = Field(..., description="Whether any in-stock offer is Prime-eligible", example=True)
    variant_count: int = Field(..., description="Number of variants", example=2)


class VariantResponse(BaseModel):
    id: int = Field(..., description="Variant ID", example=6)
    product_id: int = Field(..., description="Product ID", example=4)
    product_title: str = Field(..., description="Product title", example="Vibe Studio Over-Ear Headphones")
    sku: str = Field(..., description="Stock keeping unit", example="VIB-STU-BLK")
    variant_name: str = Field(..., description="Variant name", example="Black")
    color: Optional[str] = Field(None, description="Colour", example="Black")
    size: Optional[str] = Field(None, description="Size", example=None)
    list_price: float = Field(..., description="Manufacturer list price", example=109.99)
    lowest_price: Optional[float] = Field(None, description="Lowest in-stock offer price for this variant, any condition", example=79.0)
    offer_count: int = Field(..., description="Number of offers", example=3)


class OfferResponse(BaseModel):
    id: int = Field(..., description="Offer ID", example=13)
    variant_id: int = Field(..., description="Variant ID", example=6)
    variant_name: str = Field(..., description="Variant name", example="Black")
    product_id: int = Field(..., description="Product ID", example=4)
    product_title: str = Field(..., description="Product title", example="Vibe Studio Over-Ear Headphones")
    seller_id: int = Field(..., description="Seller ID", example=2)
    seller_name: str = Field(..., description="Seller name", example="TechHaven")
    condition: str = Field(..., description="new, used or renewed", example="new")
    price: float = Field(..., description="Price in USD", example=84.5)
    stock_qty: int = Field(..., description="Units in stock", example=9)
    in_stock: bool = Field(..., description="Whether at least one unit is in stock", example=True)
    is_prime_eligible: bool = Field(..., description="Whether the offer ships with Prime", example=True)
    delivery_days: int = Field(..., description="Days until delivery", example=2)


class ReviewResponse(BaseModel):
    id: int = Field(..., description="Review ID", example=2)
    product_id: int = Field(..., description="Product ID", example=18)
    product_title: str = Field(..., description="Product title", example="Nimbus Yoga Mat")
    user_id: int = Field(..., description="Reviewer user ID", example=1)
    reviewer_name: str = Field(..., description="Reviewer name", example="Priya Raman")
    rating: int = Field(..., description="Star rating 1-5", example=3)
    title: str = Field(..., description="Review headline", example="Grippy but thin")
    body: str = Field(..., description="Review text", example="Good grip for vinyasa, but too thin for my knees.")
    verified_purchase: bool = Field(..., description="Whether the reviewer bought the product", example=True)
    helpful_votes: int = Field(..., description="Helpful votes", example=11)
    created_at: datetime = Field(..., description="Posted at", example="2025-09-23T12:00:00")
    updated_at: datetime = Field(..., description="Last edited at", example="2025-09-23T12:00:00")


class CartItemResponse(BaseModel):
    id: int = Field(..., description="Cart item ID", example=2)
    quantity: int = Field(..., description="Quantity", example=2)
    saved_for_later: bool = Field(..., description="Whether the item is saved for later instead of in the active cart", example=False)
    added_at: datetime = Field(..., description="When the item was added", example="2025-12-28T12:00:00")
    line_total: float = Field(..., description="Price times quantity", example=37.98)
    offer: OfferResponse = Field(..., description="The offer in the cart", example={"id": 36, "price": 18.99})


class CartResponse(BaseModel):
    items: List[CartItemResponse] = Field(..., description="Active items first, then saved-for-later items", example=[])
    active_item_count: int = Field(..., description="Units in the active cart", example=4)
    saved_item_count: int = Field(..., description="Number of saved-for-later items", example=2)
    subtotal: float = Field(..., description="Subtotal of the active cart", example=82.87)


class CouponResponse(BaseModel):
    id: int = Field(..., description="Coupon ID", example=1)
    code: str = Field(..., description="Coupon code", example="SAVE10")
    description: str = Field(..., description="What the coupon gives", example="10% off orders of $50 or more.")
    discount_type: str = Field(..., description="percent or fixed", example="percent")
    discount_value: float = Field(..., description="Percent or dollar amount", example=10.0)
    min_order_amount: float = Field(..., description="Minimum subtotal", example=50.0)
    expires_at: datetime = Field(..., description="Expiry time", example="2026-01-31T12:00:00")
    is_active: bool = Field(..., description="Whether the coupon is enabled", example=True)
    is_valid: bool = Field(..., description="Enabled and not expired", example=True)


class ShippingAddressResponse(BaseModel):
    name: str = Field(..., description="Recipient", example="Priya Raman")
    street: str = Field(..., description="Street", example="500 Pine Street, Suite 1200")
    city: str = Field(..., description="City", example="Seattle")
    state: str = Field(..., description="State", example="WA")
    postal_code: str = Field(..., description="ZIP code", example="98101")


class OrderItemResponse(BaseModel):
    id: int = Field(..., description="Order item ID (use it to request a return)", example=10)
    product_id: int = Field(..., description="Product ID", example=10)
    product_title: str = Field(..., description="Product title", example="ThermoSip Smart Mug 2")
    variant_id: int = Field(..., description="Variant ID", example=15)
    variant_name: str = Field(..., description="Variant name", example="10 oz, Black")
    offer_id: int = Field(..., description="Offer ID", example=30)
    seller_id: int = Field(..., description="Seller ID", example=1)
    seller_name: str = Field(..., description="Seller name", example="Amazon.com")
    quantity: int = Field(..., description="Quantity ordered", example=2)
    unit_price: float = Field(..., description="Price paid per unit", example=129.95)
    line_total: float = Field(..., description="Unit price times quantity", example=259.9)
    returned_quantity: int = Field(..., description="Units covered by open or completed returns", example=0)


class OrderSummaryResponse(BaseModel):
    id: int = Field(..., description="Order ID", example=5)
    order_number: str = Field(..., description="Order number", example="112-2209586-4471630")
    status: str = Field(..., description="pending, processing, shipped, delivered or cancelled", example="delivered")
    item_count: int = Field(..., description="Units in the order", example=3)
    total: float = Field(..., description="Order total", example=350.88)
    placed_at: datetime = Field(..., description="When the order was placed", example="2025-12-23T12:00:00")
    estimated_delivery_date: Optional[date] = Field(None, description="Estimated delivery date", example="2025-12-25")
    delivered_at: Optional[datetime] = Field(None, description="Delivery time", example="2025-12-26T12:00:00")


class OrderResponse(BaseModel):
    id: int = Field(..., description="Order ID", example=5)
    order_number: str = Field(..., description="Order number", example="112-2209586-4471630")
    status: str = Field(..., description="pending, processing, shipped, delivered or cancelled", example="delivered")
    payment_method_id: int = Field(..., description="Payment method ID", example=2)
    payment_description: str = Field(..., description="Payment method used", example="Visa ending in 4242")
    coupon_code: Optional[str] = Field(None, description="Coupon applied", example=None)
    ship_to: ShippingAddressResponse = Field(..., description="Shipping address", example={"name": "Priya Raman", "city": "Seattle"})
    subtotal: float = Field(..., description="Sum of line totals", example=324.89)
    shipping_fee: float = Field(..., description="Shipping fee", example=0.0)
    discount: float = Field(..., description="Coupon discount", example=0.0)
    tax: float = Field(..., description="Sales tax", example=25.99)
    total: float = Field(..., description="Amount charged", example=350.88)
    placed_at: datetime = Field(..., description="When the order was placed", example="2025-12-23T12:00:00")
    estimated_delivery_date: Optional[date] = Field(None, description="Estimated delivery date", example="2025-12-25")
    delivered_at: Optional[datetime] = Field(None, description="Delivery time", example="2025-12-26T12:00:00")
    cancelled_reason: Optional[str] = Field(None, description="Why the order was cancelled", example=None)
    items: List[OrderItemResponse] = Field(..., description="Line items", example=[])


class OrderEventResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Event ID", example=20)
    order_id: int = Field(..., description="Order ID", example=5)
    status: str = Field(..., description="ordered, shipped, in_transit, out_for_delivery, delivered, cancelled or address_updated", example="delivered")
    description: str = Field(..., description="What happened", example="Delivered to the front door")
    location: Optional[str] = Field(None, description="Where it happened", example="Seattle, WA")
    occurred_at: datetime = Field(..., description="When it happened", example="2025-12-26T12:00:00")


class ReturnResponse(BaseModel):
    id: int = Field(..., description="Return ID", example=4)
    order_id: int = Field(..., description="Order ID", example=5)
    order_number: str = Field(..., description="Order number", example="112-2209586-4471630")
    order_item_id: int = Field(..., description="Order item ID", example=10)
    product_title: str = Field(..., description="Product title", example="ThermoSip Smart Mug 2")
    quantity: int = Field(..., description="Units returned", example=1)
    reason: str = Field(..., description="defective, damaged, wrong_item, not_as_described, no_longer_needed or better_price", example="defective")
    resolution: str = Field(..., description="refund or replacement", example="refund")
    status: str = Field(..., description="requested, approved, received, refunded, rejected or cancelled", example="requested")
    refund_amount: float = Field(..., description="Refund due (0 for replacements)", example=129.95)
    comments: Optional[str] = Field(None, description="Customer comments", example="Stopped heating after a week.")
    created_at: datetime = Field(..., description="Requested at", example="2026-01-01T12:00:00")
    updated_at: datetime = Field(..., description="Last status change", example="2026-01-01T12:00:00")


class WishlistResponse(BaseModel):
    id: int = Field(..., description="Wishlist ID", example=1)
    name: str = Field(..., description="Wishlist name", example="Birthday Ideas")
    is_private: bool = Field(..., description="Whether only the owner can see it", example=False)
    item_count: int = Field(..., description="Number of items", example=4)
    created_at: datetime = Field(..., description="Created at", example="2024-10-02T20:00:00")


class WishlistItemResponse(BaseModel):
    id: int = Field(..., description="Wishlist item ID", example=1)
    wishlist_id: int = Field(..., description="Wishlist ID", example=1)
    variant_id: int = Field(..., description="Variant ID", example=7)
    variant_name: str = Field(..., description="Variant name", example="White")
    product_id: int = Field(..., description="Product ID", example=4)
    product_title: str = Field(..., description="Product title", example="Vibe Studio Over-Ear Headphones")
    avg_rating: float = Field(..., description="Product average rating", example=4.7)
    lowest_price: Optional[float] = Field(None, description="Lowest in-stock offer price for this variant, any condition", example=72.0)
    quantity_desired: int = Field(..., description="Units wanted", example=1)
    priority: str = Field(..., description="high, medium or low", example="high")
    note: Optional[str] = Field(None, description="Note", example="White to match the desk setup")
    added_at: datetime = Field(..., description="Added at", example="2025-11-22T12:00:00")


class SubscriptionResponse(BaseModel):
    id: int = Field(..., description="Subscription ID", example=1)
    quantity: int = Field(..., description="Units per delivery", example=1)
    frequency_weeks: int = Field(..., description="Weeks between deliveries", example=4)
    status: str = Field(..., description="active, paused or cancelled", example="active")
    next_delivery_date: Optional[date] = Field(None, description="Next scheduled delivery", example="2026-01-10")
    created_at: datetime = Field(..., description="Started at", example="2025-07-05T12:00:00")
    offer: OfferResponse = Field(..., description="The offer delivered", example={"id": 36, "price": 18.99})


class ActionResponse(BaseModel):
    success: bool = Field(..., description="Whether the action succeeded", example=True)
    message: str = Field(..., description="Human-readable result", example="Address 1 deleted")


class AddressCreateRequest(BaseModel):
    label: str = Field(..., description="Label such as Home or Office", example="Home")
    full_name: str = Field(..., description="Recipient name", example="Priya Raman")
    street: str = Field(..., description="Street address including apartment or suite", example="742 Maple Avenue")
    city: str = Field(..., description="City", example="Portland")
    state: str = Field(..., description="State code", example="OR")
    postal_code: str = Field(..., description="ZIP code", example="97205")
    country: str = Field("US", description="Country code", example="US")
    phone: Optional[str] = Field(None, description="Phone number", example="503-555-0142")
    delivery_instructions: Optional[str] = Field(None, description="Instructions for the driver", example=None)
    is_default: bool = Field(False, description="Make this the default shipping address", example=True)


class AddressUpdateRequest(BaseModel):
    label: Optional[str] = Field(None, description="New label", example="Office")
    full_name: Optional[str] = Field(None, description="New recipient name", example="Priya Raman")
    street: Optional[str] = Field(None, description="New street", example="500 Pine Street, Suite 1400")
    city: Optional[str] = Field(None, description="New city", example="Seattle")
    state: Optional[str] = Field(None, description="New state code", example="WA")
    postal_code: Optional[str] = Field(None, description="New ZIP code", example="98101")
    phone: Optional[str] = Field(None, description="New phone number", example="206-555-0187")
    delivery_instructions: Optional[str] = Field(None, description="New driver instructions", example="Ring the bell")
    is_default: Optional[bool] = Field(None, description="Make this the default address", example=True)


class PaymentMethodUpdateRequest(BaseModel):
    nickname: Optional[str] = Field(None, description="New nickname", example="Travel Visa")
    is_default: Optional[bool] = Field(None, description="Make this the default payment method", example=True)


class ReviewCreateRequest(BaseModel):
    rating: int = Field(..., description="Star rating 1-5", example=4, ge=1, le=5)
    title: str = Field(..., description="Review headline", example="Great pour control")
    body: str = Field(..., description="Review text", example="Heats evenly and the spout gives precise control.")


class ReviewUpdateRequest(BaseModel):
    rating: Optional[int] = Field(None, description="New star rating 1-5", example=5, ge=1, le=5)
    title: Optional[str] = Field(None, description="New headline", example="Even better after a month")
    body: Optional[str] = Field(None, description="New review text", example="Still works perfectly.")


class CartAddRequest(BaseModel):
    offer_id: int = Field(..., description="Offer to buy (an offer is one seller's listing of a variant)", example=13)
    quantity: int = Field(1, description="Units to add", example=2, ge=1, le=30)


class CartUpdateRequest(BaseModel):
    quantity: Optional[int] = Field(None, description="New quantity", example=3, ge=1, le=30)
    saved_for_later: Optional[bool] = Field(None, description="Move to saved-for-later (true) or back to the cart (false)", example=True)


class CheckoutRequest(BaseModel):
    address_id: int = Field(..., description="One of the user's address IDs", example=2)
    payment_method_id: int = Field(..., description="One of the user's payment method IDs", example=2)
    coupon_code: Optional[str] = Field(None, description="Coupon code to apply", example="SAVE10")


class CancelOrderRequest(BaseModel):
    reason: str = Field(..., description="Why the order is cancelled", example="Changed my mind")


class OrderAddressRequest(BaseModel):
    address_id: int = Field(..., description="One of the user's address IDs", example=3)


class ReturnCreateRequest(BaseModel):
    order_item_id: int = Field(..., description="Order item ID from get_order", example=10)
    quantity: int = Field(1, description="Units to return", example=1, ge=1)
    reason: str = Field(..., description="defective, damaged, wrong_item, not_as_described, no_longer_needed or better_price", example="defective", pattern="^(defective|damaged|wrong_item|not_as_described|no_longer_needed|better_price)$")
    resolution: str = Field("refund", description="refund or replacement", example="refund", pattern="^(refund|replacement)$")
    comments: Optional[str] = Field(None, description="Comments for the seller", example="Stopped heating after a week.")


class WishlistCreateRequest(BaseModel):
    name: str = Field(..., description="Wishlist name", example="Holiday Gifts")
    is_private: bool = Field(True, description="Keep the list private", example=True)


class WishlistItemAddRequest(BaseModel):
    variant_id: int = Field(..., description="Variant to save", example=22)
    quantity_desired: int = Field(1, description="Units wanted", example=1, ge=1)
    priority: str = Field("medium", description="high, medium or low", example="medium", pattern="^(high|medium|low)$")
    note: Optional[str] = Field(None, description="Note", example=None)


class SubscriptionCreateRequest(BaseModel):
    offer_id: int = Field(..., description="Offer to deliver on a schedule", example=53)
    quantity: int = Field(1, description="Units per delivery (1-10)", example=1, ge=1, le=10)
    frequency_weeks: int = Field(..., description="Weeks between deliveries (1-26)", example=4, ge=1, le=26)


class SubscriptionUpdateRequest(BaseModel):
    quantity: Optional[int] = Field(None, description="New units per delivery (1-10)", example=2, ge=1, le=10)
    frequency_weeks: Optional[int] = Field(None, description="New weeks between deliveries (1-26)", example=2, ge=1, le=26)
    status: Optional[str] = Field(None, description="active, paused or cancelled", example="paused", pattern="^(active|paused|cancelled)$")


app = FastAPI(
    title="Amazon API",
    description="Online shopping: product catalog with variants and seller offers, cart and checkout, orders and tracking, returns, reviews, wishlists, Subscribe & Save, addresses and payment methods for the logged-in customer.",
    version="1.0.0",
)


def build_category(session, category):
    parent = session.query(Category).filter(Category.id == category.parent_id).first() if category.parent_id else None
    return CategoryResponse(id=category.id, name=category.name, parent_id=category.parent_id, parent_name=parent.name if parent else None, description=category.description)


def build_product(session, product):
    category = session.query(Category).filter(Category.id == product.category_id).first()
    variant_ids = [row[0] for row in session.query(ProductVariant.id).filter(ProductVariant.product_id == product.id).all()]
    lowest = session.query(func.min(Offer.price)).filter(Offer.variant_id.in_(variant_ids), Offer.stock_qty > 0).scalar()
    prime_offers = session.query(func.count(Offer.id)).filter(Offer.variant_id.in_(variant_ids), Offer.stock_qty > 0, Offer.is_prime_eligible == True).scalar()
    return ProductResponse(
        id=product.id,
        title=product.title,
        brand=product.brand,
        category_id=product.category_id,
        category_name=category.name,
        description=product.description,
        avg_rating=product.avg_rating,
        review_count=product.review_count,
        lowest_price=lowest,
        prime_available=prime_offers > 0,
        variant_count=len(variant_ids),
    )


def build_variant(session, variant):
    product = session.query(Product).filter(Product.id == variant.product_id).first()
    lowest = session.query(func.min(Offer.price)).filter(Offer.variant_id == variant.id, Offer.stock_qty > 0).scalar()
    offer_count = session.query(func.count(Offer.id)).filter(Offer.variant_id == variant.id).scalar()
    return VariantResponse(
        id=variant.id,
        product_id=variant.product_id,
        product_title=product.title,
        sku=variant.sku,
        variant_name=variant.variant_name,
        color=variant.color,
        size=variant.size,
        list_price=variant.list_price,
        lowest_price=lowest,
        offer_count=offer_count,
    )


def build_offer(session, offer):
    variant = session.query(ProductVariant).filter(ProductVariant.id == offer.variant_id).first()
    product = session.query(Product).filter(Product.id == variant.product_id).first()
    seller = session.query(Seller).filter(Seller.id == offer.seller_id).first()
    return OfferResponse(
        id=offer.id,
        variant_id=offer.variant_id,
        variant_name=variant.variant_name,
        product_id=product.id,
        product_title=product.title,
        seller_id=offer.seller_id,
        seller_name=seller.name,
        condition=offer.condition,
        price=offer.price,
        stock_qty=offer.stock_qty,
        in_stock=offer.stock_qty > 0,
        is_prime_eligible=offer.is_prime_eligible,
        delivery_days=offer.delivery_days,
    )


def build_review(session, review):
    product = session.query(Product).filter(Product.id == review.product_id).first()
    user = session.query(User).filter(User.id == review.user_id).first()
    return ReviewResponse(
        id=review.id,
        product_id=review.product_id,
        product_title=product.title,
        user_id=review.user_id,
        reviewer_name=user.name,
        rating=review.rating,
        title=review.title,
        body=review.body,
        verified_purchase=review.verified_purchase,
        helpful_votes=review.helpful_votes,
        created_at=review.created_at,
        updated_at=review.updated_at,
    )


def build_cart_item(session, item):
    offer = session.query(Offer).filter(Offer.id == item.offer_id).first()
    return CartItemResponse(
        id=item.id,
        quantity=item.quantity,
        saved_for_later=item.saved_for_later,
        added_at=item.added_at,
        line_total=round(offer.price * item.quantity, 2),
        offer=build_offer(session, offer),
    )


def build_cart(session):
    items = session.query(CartItem).filter(CartItem.user_id == 1).order_by(CartItem.saved_for_later, CartItem.id).all()
    built = [build_cart_item(session, item) for item in items]
    return CartResponse(
        items=built,
        active_item_count=sum(item.quantity for item in built if not item.saved_for_later),
        saved_item_count=len([item for item in built if item.saved_for_later]),
        subtotal=round(sum(item.line_total for item in built if not item.saved_for_later), 2),
    )


def build_coupon(coupon):
    return CouponResponse(
        id=coupon.id,
        code=coupon.code,
        description=coupon.description,
        discount_type=coupon.discount_type,
        discount_value=coupon.discount_value,
        min_order_amount=coupon.min_order_amount,
        expires_at=coupon.expires_at,
        is_active=coupon.is_active,
        is_valid=bool(coupon.is_active and coupon.expires_at > datetime.utcnow()),
    )


def returned_quantity(session, order_item_id):
    return session.query(func.coalesce(func.sum(ReturnRequest.quantity), 0)).filter(ReturnRequest.order_item_id == order_item_id, ReturnRequest.status.notin_(["cancelled", "rejected"])).scalar()


def build_order_item(session, item):
    variant = session.query(ProductVariant).filter(ProductVariant.id == item.variant_id).first()
    product = session.query(Product).filter(Product.id == variant.product_id).first()
    seller = session.query(Seller).filter(Seller.id == item.seller_id).first()
    return OrderItemResponse(
        id=item.id,
        product_id=product.id,
        product_title=product.title,
        variant_id=variant.id,
        variant_name=variant.variant_name,
        offer_id=item.offer_id,
        seller_id=item.seller_id,
        seller_name=seller.name,
        quantity=item.quantity,
        unit_price=item.unit_price,
        line_total=round(item.unit_price * item.quantity, 2),
        returned_quantity=returned_quantity(session, item.id),
    )


def build_order_summary(session, order):
    item_count = session.query(func.coalesce(func.sum(OrderItem.quantity), 0)).filter(OrderItem.order_id == order.id).scalar()
    return OrderSummaryResponse(
        id=order.id,
        order_number=order.order_number,
        status=order.status,
        item_count=item_count,
        total=order.total,
        placed_at=order.placed_at,
        estimated_delivery_date=order.estimated_delivery_date,
        delivered_at=order.delivered_at,
    )


def build_order(session, order):
    payment = session.query(PaymentMethod).filter(PaymentMethod.id == order.payment_method_id).first()
    coupon = session.query(Coupon).filter(Coupon.id == order.coupon_id).first() if order.coupon_id else None
    items = session.query(OrderItem).filter(OrderItem.order_id == order.id).order_by(OrderItem.id).all()
    payment_name = payment.card_brand if payment.card_brand else payment.method_type.replace("_", " ").title()
    return OrderResponse(
        id=order.id,
        order_number=order.order_number,
        status=order.status,
        payment_method_id=order.payment_method_id,
        payment_description=f"{payment_name} ending in {payment.last4}",
        coupon_code=coupon.code if coupon else None,
        ship_to=ShippingAddressResponse(name=order.ship_to_name, street=order.ship_to_street, city=order.ship_to_city, state=order.ship_to_state, postal_code=order.ship_to_postal_code),
        subtotal=order.subtotal,
        shipping_fee=order.shipping_fee,
        discount=order.discount,
        tax=order.tax,
        total=order.total,
        placed_at=order.placed_at,
        estimated_delivery_date=order.estimated_delivery_date,
        delivered_at=order.delivered_at,
        cancelled_reason=order.cancelled_reason,
        items=[build_order_item(session, item) for item in items],
    )


def build_return(session, request_row):
    item = session.query(OrderItem).filter(OrderItem.id == request_row.order_item_id).first()
    order = session.query(Order).filter(Order.id == item.order_id).first()
    variant = session.query(ProductVariant).filter(ProductVariant.id == item.variant_id).first()
    product = session.query(Product).filter(Product.id == variant.product_id).first()
    return ReturnResponse(
        id=request_row.id,
        order_id=order.id,
        order_number=order.order_number,
        order_item_id=item.id,
        product_title=product.title,
        quantity=request_row.quantity,
        reason=request_row.reason,
        resolution=request_row.resolution,
        status=request_row.status,
        refund_amount=request_row.refund_amount,
        comments=request_row.comments,
        created_at=request_row.created_at,
        updated_at=request_row.updated_at,
    )


def build_wishlist(session, wishlist):
    item_count = session.query(func.count(WishlistItem.id)).filter(WishlistItem.wishlist_id == wishlist.id).scalar()
    return WishlistResponse(id=wishlist.id, name=wishlist.name, is_private=wishlist.is_private, item_count=item_count, created_at=wishlist.created_at)


def build_wishlist_item(session, item):
    variant = session.query(ProductVariant).filter(ProductVariant.id == item.variant_id).first()
    product = session.query(Product).filter(Product.id == variant.product_id).first()
    lowest = session.query(func.min(Offer.price)).filter(Offer.variant_id == variant.id, Offer.stock_qty > 0).scalar()
    return WishlistItemResponse(
        id=item.id,
        wishlist_id=item.wishlist_id,
        variant_id=variant.id,
        variant_name=variant.variant_name,
        product_id=product.id,
        product_title=product.title,
        avg_rating=product.avg_rating,
        lowest_price=lowest,
        quantity_desired=item.quantity_desired,
        priority=item.priority,
        note=item.note,
        added_at=item.added_at,
    )


def build_subscription(session, subscription):
    offer = session.query(Offer).filter(Offer.id == subscription.offer_id).first()
    return SubscriptionResponse(
        id=subscription.id,
        quantity=subscription.quantity,
        frequency_weeks=subscription.frequency_weeks,
        status=subscription.status,
        next_delivery_date=subscription.next_delivery_date,
        created_at=subscription.created_at,
        offer=build_offer(session, offer),
    )


@app.get("/api/me", response_model=UserResponse, summary="Get current user profile", description="Return the profile and Prime status of the logged-in customer.", tags=["account"], operation_id="get_current_user")
async def get_current_user():
    session = SessionLocal()
    user = session.query(User).filter(User.id == 1).first()
    result = UserResponse.model_validate(user)
    session.close()
    return result


@app.get("/api/me/addresses", response_model=List[AddressResponse], summary="List my addresses", description="List the current user's saved shipping addresses, default first.", tags=["account"], operation_id="list_addresses")
async def list_addresses():
    session = SessionLocal()
    addresses = session.query(Address).filter(Address.user_id == 1).order_by(Address.is_default.desc(), Address.id).all()
    result = [AddressResponse.model_validate(address) for address in addresses]
    session.close()
    return result


@app.post("/api/me/addresses", response_model=AddressResponse, summary="Add an address", description="Save a new shipping address, optionally making it the default.", tags=["account"], operation_id="add_address")
async def add_address(request: AddressCreateRequest):
    session = SessionLocal()
    if request.is_default:
        session.query(Address).filter(Address.user_id == 1).update({Address.is_default: False}, synchronize_session=False)
    address = Address(user_id=1, label=request.label, full_name=request.full_name, street=request.street, city=request.city, state=request.state, postal_code=request.postal_code, country=request.country, phone=request.phone, delivery_instructions=request.delivery_instructions, is_default=request.is_default, created_at=datetime.utcnow())
    session.add(address)
    session.commit()
    session.refresh(address)
    result = AddressResponse.model_validate(address)
    session.close()
    return result


@app.patch("/api/me/addresses/{address_id}", response_model=AddressResponse, summary="Update an address", description="Change fields of one of the user's addresses or make it the default.", tags=["account"], operation_id="update_address")
async def update_address(request: AddressUpdateRequest, address_id: int = Path(..., description="Address ID")):
    session = SessionLocal()
    address = session.query(Address).filter(Address.id == address_id, Address.user_id == 1).first()
    if request.is_default:
        session.query(Address).filter(Address.user_id == 1, Address.id != address.id).update({Address.is_default: False}, synchronize_session=False)
    if request.label is not None:
        address.label = request.label
    if request.full_name is not None:
        address.full_name = request.full_name
    if request.street is not None:
        address.street = request.street
    if request.city is not None:
        address.city = request.city
    if request.state is not None:
        address.state = request.state
    if request.postal_code is not None:
        address.postal_code = request.postal_code
    if request.phone is not None:
        address.phone = request.phone
    if request.delivery_instructions is not None:
        address.delivery_instructions = request.delivery_instructions
    if request.is_default is not None:
        address.is_default = request.is_default
    session.commit()
    session.refresh(address)
    result = AddressResponse.model_validate(address)
    session.close()
    return result


@app.delete("/api/me/addresses/{address_id}", response_model=ActionResponse, summary="Delete an address", description="Remove one of the user's saved addresses; existing orders keep their shipping details.", tags=["account"], operation_id="delete_address")
async def delete_address(address_id: int = Path(..., description="Address ID")):
    session = SessionLocal()
    address = session.query(Address).filter(Address.id == address_id, Address.user_id == 1).first()
    if address is None:
        session.close()
        return ActionResponse(success=False, message=f"Address {address_id} not found")
    label = address.label
    session.delete(address)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Address {address_id} ('{label}') deleted")


@app.get("/api/me/payment-methods", response_model=List[PaymentMethodResponse], summary="List my payment methods", description="List the current user's cards, gift cards and bank accounts.", tags=["account"], operation_id="list_payment_methods")
async def list_payment_methods():
    session = SessionLocal()
    methods = session.query(PaymentMethod).filter(PaymentMethod.user_id == 1).order_by(PaymentMethod.is_default.desc(), PaymentMethod.id).all()
    result = [PaymentMethodResponse.model_validate(method) for method in methods]
    session.close()
    return result


@app.patch("/api/me/payment-methods/{payment_method_id}", response_model=PaymentMethodResponse, summary="Update a payment method", description="Rename a payment method or make it the default.", tags=["account"], operation_id="update_payment_method")
async def update_payment_method(request: PaymentMethodUpdateRequest, payment_method_id: int = Path(..., description="Payment method ID")):
    session = SessionLocal()
    method = session.query(PaymentMethod).filter(PaymentMethod.id == payment_method_id, PaymentMethod.user_id == 1).first()
    if request.is_default:
        session.query(PaymentMethod).filter(PaymentMethod.user_id == 1, PaymentMethod.id != method.id).update({PaymentMethod.is_default: False}, synchronize_session=False)
    if request.nickname is not None:
        method.nickname = request.nickname
    if request.is_default is not None:
        method.is_default = request.is_default
    session.commit()
    session.refresh(method)
    result = PaymentMethodResponse.model_validate(method)
    session.close()
    return result


@app.get("/api/categories", response_model=List[CategoryResponse], summary="List categories", description="List all product categories with their parent category.", tags=["catalog"], operation_id="list_categories")
async def list_categories():
    session = SessionLocal()
    categories = session.query(Category).order_by(Category.id).all()
    result = [build_category(session, category) for category in categories]
    session.close()
    return result


@app.get("/api/products/search", response_model=List[ProductResponse], summary="Search products", description="Search products by title or brand with category, price, condition, Prime and rating filters applied to in-stock offers.", tags=["catalog"], operation_id="search_products")
async def search_products(q: Optional[str] = Query(None, description="Text matched against product title and brand"), category_id: Optional[int] = Query(None, description="Category ID; its subcategories are included"), brand: Optional[str] = Query(None, description="Exact brand name"), min_price: Optional[float] = Query(None, description="Only products with an in-stock offer at or above this price"), max_price: Optional[float] = Query(None, description="Only products with an in-stock offer at or below this price"), condition: Optional[str] = Query(None, description="Only offers in this condition: new, used or renewed", pattern="^(new|used|renewed)$"), prime_only: bool = Query(False, description="Only Prime-eligible offers"), min_rating: Optional[float] = Query(None, description="Minimum average rating"), sort: str = Query("relevance", description="relevance, price_asc, price_desc or rating", pattern="^(relevance|price_asc|price_desc|rating)$"), limit: int = Query(20, description="Maximum number of results", ge=1, le=50)):
    session = SessionLocal()
    query = session.query(Product).filter(Product.is_active == True)
    if q:
        pattern = f"%{q}%"
        query = query.filter(or_(Product.title.ilike(pattern), Product.brand.ilike(pattern)))
    if category_id is not None:
        child_ids = [row[0] for row in session.query(Category.id).filter(Category.parent_id == category_id).all()]
        query = query.filter(Product.category_id.in_([category_id] + child_ids))
    if brand:
        query = query.filter(Product.brand.ilike(brand))
    if min_rating is not None:
        query = query.filter(Product.avg_rating >= min_rating)
    offer_query = session.query(ProductVariant.product_id).join(Offer, Offer.variant_id == ProductVariant.id).filter(Offer.stock_qty > 0)
    if min_price is not None:
        offer_query = offer_query.filter(Offer.price >= min_price)
    if max_price is not None:
        offer_query = offer_query.filter(Offer.price <= max_price)
    if condition:
        offer_query = offer_query.filter(Offer.condition == condition)
    if prime_only:
        offer_query = offer_query.filter(Offer.is_prime_eligible == True)
    product_ids = [row[0] for row in offer_query.distinct().all()]
    products = query.filter(Product.id.in_(product_ids)).all()
    results = [build_product(session, product) for product in products]
    if sort == "price_asc":
        results.sort(key=lambda item: (item.lowest_price, item.id))
    elif sort == "price_desc":
        results.sort(key=lambda item: (-item.lowest_price, item.id))
    elif sort == "rating":
        results.sort(key=lambda item: (-item.avg_rating, -item.review_count, item.id))
    else:
        results.sort(key=lambda item: (-item.review_count, item.id))
    session.close()
    return results[:limit]


@app.get("/api/products/{product_id}", response_model=ProductResponse, summary="Get a product", description="Return one product with its rating, lowest price and Prime availability.", tags=["catalog"], operation_id="get_product")
async def get_product(product_id: int = Path(..., description="Product ID")):
    session = SessionLocal()
    product = session.query(Product).filter(Product.id == product_id).first()
    result = build_product(session, product)
    session.close()
    return result


@app.get("/api/products/{product_id}/variants", response_model=List[VariantResponse], summary="List product variants", description="List a product's variants (colours, sizes) with list price and lowest in-stock price.", tags=["catalog"], operation_id="list_product_variants")
async def list_product_variants(product_id: int = Path(..., description="Product ID")):
    session = SessionLocal()
    variants = session.query(ProductVariant).filter(ProductVariant.product_id == product_id).order_by(ProductVariant.id).all()
    result = [build_variant(session, variant) for variant in variants]
    session.close()
    return result


@app.get("/api/variants/{variant_id}/offers", response_model=List[OfferResponse], summary="List offers for a variant", description="List every seller's offer for one variant, cheapest first, with condition, stock and Prime eligibility.", tags=["catalog"], operation_id="list_variant_offers")
async def list_variant_offers(variant_id: int = Path(..., description="Variant ID"), condition: Optional[str] = Query(None, description="Only this condition: new, used or renewed", pattern="^(new|used|renewed)$"), prime_only: bool = Query(False, description="Only Prime-eligible offers"), in_stock_only: bool = Query(False, description="Hide offers with no stock")):
    session = SessionLocal()
    query = session.query(Offer).filter(Offer.variant_id == variant_id)
    if condition:
        query = query.filter(Offer.condition == condition)
    if prime_only:
        query = query.filter(Offer.is_prime_eligible == True)
    if in_stock_only:
        query = query.filter(Offer.stock_qty > 0)
    offers = query.order_by(Offer.price, Offer.id).all()
    result = [build_offer(session, offer) for offer in offers]
    session.close()
    return result


@app.get("/api/sellers/search", response_model=List[SellerResponse], summary="Search sellers", description="Search sellers by name.", tags=["catalog"], operation_id="search_sellers")
async def search_sellers(q: Optional[str] = Query(None, description="Text matched against the seller name"), limit: int = Query(20, description="Maximum number of results", ge=1, le=50)):
    session = SessionLocal()
    query = session.query(Seller)
    if q:
        query = query.filter(Seller.name.ilike(f"%{q}%"))
    sellers = query.order_by(Seller.name).limit(limit).all()
    result = [SellerResponse.model_validate(seller) for seller in sellers]
    session.close()
    return result


@app.get("/api/sellers/{seller_id}", response_model=SellerResponse, summary="Get a seller", description="Return one seller's profile and feedback rating.", tags=["catalog"], operation_id="get_seller")
async def get_seller(seller_id: int = Path(..., description="Seller ID")):
    session = SessionLocal()
    seller = session.query(Seller).filter(Seller.id == seller_id).first()
    result = SellerResponse.model_validate(seller)
    session.close()
    return result


@app.get("/api/products/{product_id}/reviews", response_model=List[ReviewResponse], summary="List product reviews", description="List customer reviews of a product with optional rating filter and sort order.", tags=["reviews"], operation_id="list_product_reviews")
async def list_product_reviews(product_id: int = Path(..., description="Product ID"), min_rating: Optional[int] = Query(None, description="Minimum star rating", ge=1, le=5), sort: str = Query("recent", description="recent, helpful, rating_high or rating_low", pattern="^(recent|helpful|rating_high|rating_low)$"), limit: int = Query(20, description="Maximum number of reviews", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Review).filter(Review.product_id == product_id)
    if min_rating is not None:
        query = query.filter(Review.rating >= min_rating)
    if sort == "helpful":
        query = query.order_by(Review.helpful_votes.desc(), Review.id)
    elif sort == "rating_high":
        query = query.order_by(Review.rating.desc(), Review.id)
    elif sort == "rating_low":
        query = query.order_by(Review.rating, Review.id)
    else:
        query = query.order_by(Review.created_at.desc(), Review.id.desc())
    reviews = query.limit(limit).all()
    result = [build_review(session, review) for review in reviews]
    session.close()
    return result


@app.get("/api/me/reviews", response_model=List[ReviewResponse], summary="List my reviews", description="List the reviews written by the current user, newest first.", tags=["reviews"], operation_id="list_my_reviews")
async def list_my_reviews():
    session = SessionLocal()
    reviews = session.query(Review).filter(Review.user_id == 1).order_by(Review.created_at.desc(), Review.id.desc()).all()
    result = [build_review(session, review) for review in reviews]
    session.close()
    return result


@app.post("/api/products/{product_id}/reviews", response_model=ReviewResponse, summary="Write a review", description="Post the current user's review of a product; it is marked verified when the user received the product.", tags=["reviews"], operation_id="create_review")
async def create_review(request: ReviewCreateRequest, product_id: int = Path(..., description="Product ID")):
    session = SessionLocal()
    now = datetime.utcnow()
    product = session.query(Product).filter(Product.id == product_id).first()
    existing = session.query(Review).filter(Review.product_id == product.id, Review.user_id == 1).first()
    if existing is not None:
        result = build_review(session, existing)
        session.close()
        return result
    variant_ids = [row[0] for row in session.query(ProductVariant.id).filter(ProductVariant.product_id == product.id).all()]
    purchases = session.query(func.count(OrderItem.id)).join(Order, Order.id == OrderItem.order_id).filter(Order.user_id == 1, Order.status == "delivered", OrderItem.variant_id.in_(variant_ids)).scalar()
    review = Review(product_id=product.id, user_id=1, rating=request.rating, title=request.title, body=request.body, verified_purchase=purchases > 0, helpful_votes=0, created_at=now, updated_at=now)
    session.add(review)
    product.avg_rating = round((product.avg_rating * product.review_count + request.rating) / (product.review_count + 1), 2)
    product.review_count = product.review_count + 1
    session.commit()
    session.refresh(review)
    result = build_review(session, review)
    session.close()
    return result


@app.patch("/api/reviews/{review_id}", response_model=ReviewResponse, summary="Edit my review", description="Change the rating, headline or text of one of the current user's reviews.", tags=["reviews"], operation_id="update_review")
async def update_review(request: ReviewUpdateRequest, review_id: int = Path(..., description="Review ID")):
    session = SessionLocal()
    review = session.query(Review).filter(Review.id == review_id, Review.user_id == 1).first()
    if request.rating is not None:
        product = session.query(Product).filter(Product.id == review.product_id).first()
        product.avg_rating = round((product.avg_rating * product.review_count - review.rating + request.rating) / product.review_count, 2)
        review.rating = request.rating
    if request.title is not None:
        review.title = request.title
    if request.body is not None:
        review.body = request.body
    review.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(review)
    result = build_review(session, review)
    session.close()
    return result


@app.delete("/api/reviews/{review_id}", response_model=ActionResponse, summary="Delete my review", description="Delete one of the current user's reviews.", tags=["reviews"], operation_id="delete_review")
async def delete_review(review_id: int = Path(..., description="Review ID")):
    session = SessionLocal()
    review = session.query(Review).filter(Review.id == review_id, Review.user_id == 1).first()
    if review is None:
        session.close()
        return ActionResponse(success=False, message=f"Review {review_id} not found among your reviews")
    product = session.query(Product).filter(Product.id == review.product_id).first()
    if product.review_count > 1:
        product.avg_rating = round((product.avg_rating * product.review_count - review.rating) / (product.review_count - 1), 2)
    else:
        product.avg_rating = 0
    product.review_count = product.review_count - 1
    session.delete(review)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Review {review_id} deleted")


@app.post("/api/reviews/{review_id}/helpful", response_model=ReviewResponse, summary="Mark a review helpful", description="Add the current user's helpful vote to another customer's review.", tags=["reviews"], operation_id="mark_review_helpful")
async def mark_review_helpful(review_id: int = Path(..., description="Review ID")):
    session = SessionLocal()
    review = session.query(Review).filter(Review.id == review_id, Review.user_id != 1).first()
    review.helpful_votes = review.helpful_votes + 1
    session.commit()
    session.refresh(review)
    result = build_review(session, review)
    session.close()
    return result


@app.get("/api/me/cart", response_model=CartResponse, summary="Get my cart", description="Return the active cart and saved-for-later items with the active subtotal.", tags=["cart"], operation_id="get_cart")
async def get_cart():
    session = SessionLocal()
    result = build_cart(session)
    session.close()
    return result


@app.post("/api/me/cart", response_model=CartItemResponse, summary="Add to cart", description="Add units of a seller offer to the active cart; an offer already in the cart gets its quantity increased.", tags=["cart"], operation_id="add_to_cart")
async def add_to_cart(request: CartAddRequest):
    session = SessionLocal()
    item = session.query(CartItem).filter(CartItem.user_id == 1, CartItem.offer_id == request.offer_id).first()
    quantity = request.quantity + (item.quantity if item else 0)
    offer = session.query(Offer).filter(Offer.id == request.offer_id, Offer.stock_qty >= quantity).first()
    if item is None:
        item = CartItem(user_id=1, offer_id=offer.id, quantity=quantity, saved_for_later=False, added_at=datetime.utcnow())
        session.add(item)
    item.offer_id = offer.id
    item.quantity = quantity
    item.saved_for_later = False
    session.commit()
    session.refresh(item)
    result = build_cart_item(session, item)
    session.close()
    return result


@app.patch("/api/me/cart/{cart_item_id}", response_model=CartItemResponse, summary="Update a cart item", description="Change a cart item's quantity or move it between the cart and saved-for-later.", tags=["cart"], operation_id="update_cart_item")
async def update_cart_item(request: CartUpdateRequest, cart_item_id: int = Path(..., description="Cart item ID (not the offer ID)")):
    session = SessionLocal()
    item = session.query(CartItem).filter(CartItem.id == cart_item_id, CartItem.user_id == 1).first()
    if request.quantity is not None:
        offer = session.query(Offer).filter(Offer.id == item.offer_id, Offer.stock_qty >= request.quantity).first()
        item.offer_id = offer.id
        item.quantity = request.quantity
    if request.saved_for_later is not None:
        item.saved_for_later = request.saved_for_later
    session.commit()
    session.refresh(item)
    result = build_cart_item(session, item)
    session.close()
    return result


@app.delete("/api/me/cart/{cart_item_id}", response_model=ActionResponse, summary="Remove a cart item", description="Remove an item from the cart or from saved-for-later.", tags=["cart"], operation_id="remove_cart_item")
async def remove_cart_item(cart_item_id: int = Path(..., description="Cart item ID (not the offer ID)")):
    session = SessionLocal()
    deleted = session.query(CartItem).filter(CartItem.id == cart_item_id, CartItem.user_id == 1).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Cart item {cart_item_id} removed" if deleted else f"Cart item {cart_item_id} was not in the cart")


@app.post("/api/me/checkout", response_model=OrderResponse, summary="Check out the cart", description="Place an order for every active cart item (saved-for-later items stay) with an address, payment method and optional coupon.", tags=["cart"], operation_id="checkout")
async def checkout(request: CheckoutRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    user = session.query(User).filter(User.id == 1).first()
    address = session.query(Address).filter(Address.id == request.address_id, Address.user_id == 1).first()
    payment = session.query(PaymentMethod).filter(PaymentMethod.id == request.payment_method_id, PaymentMethod.user_id == 1).first()
    items = session.query(CartItem).filter(CartItem.user_id == 1, CartItem.saved_for_later == False).order_by(CartItem.id).all()
    offers = [session.query(Offer).filter(Offer.id == item.offer_id, Offer.stock_qty >= item.quantity).first() for item in items]
    subtotal = round(sum(offer.price * item.quantity for offer, item in zip(offers, items)), 2)
    delivery_days = max(offer.delivery_days for offer in offers)
    discount = 0.0
    coupon_id = None
    if request.coupon_code:
        coupon = session.query(Coupon).filter(Coupon.code == request.coupon_code.strip().upper(), Coupon.is_active == True, Coupon.expires_at > now, Coupon.min_order_amount <= subtotal).first()
        coupon_id = coupon.id
        if coupon.discount_type == "percent":
            discount = round(subtotal * coupon.discount_value / 100, 2)
        else:
            discount = round(min(coupon.discount_value, subtotal), 2)
    shipping_fee = 0.0 if user.is_prime or subtotal >= 35 else 5.99
    tax = round((subtotal - discount) * 0.08, 2)
    total = round(subtotal - discount + shipping_fee + tax, 2)
    next_id = session.query(func.coalesce(func.max(Order.id), 0)).scalar() + 1
    order = Order(id=next_id, user_id=1, order_number=f"114-{next_id:07d}-{(next_id * 7919) % 10000000:07d}", status="pending", payment_method_id=payment.id, coupon_id=coupon_id, ship_to_name=address.full_name, ship_to_street=address.street, ship_to_city=address.city, ship_to_state=address.state, ship_to_postal_code=address.postal_code, subtotal=subtotal, shipping_fee=shipping_fee, discount=discount, tax=tax, total=total, placed_at=now, estimated_delivery_date=(now + timedelta(days=delivery_days)).date(), delivered_at=None, cancelled_reason=None)
    session.add(order)
    for offer, item in zip(offers, items):
        session.add(OrderItem(order_id=next_id, offer_id=offer.id, variant_id=offer.variant_id, seller_id=offer.seller_id, quantity=item.quantity, unit_price=offer.price))
        offer.stock_qty = offer.stock_qty - item.quantity
        session.delete(item)
    session.add(OrderEvent(order_id=next_id, status="ordered", description="Order placed", location=None, occurred_at=now))
    session.commit()
    session.refresh(order)
    result = build_order(session, order)
    session.close()
    return result


@app.get("/api/coupons", response_model=List[CouponResponse], summary="List available coupons", description="List coupons that are enabled and not expired.", tags=["coupons"], operation_id="list_coupons")
async def list_coupons():
    session = SessionLocal()
    coupons = session.query(Coupon).filter(Coupon.is_active == True, Coupon.expires_at > datetime.utcnow()).order_by(Coupon.code).all()
    result = [build_coupon(coupon) for coupon in coupons]
    session.close()
    return result


@app.get("/api/coupons/{code}", response_model=CouponResponse, summary="Look up a coupon", description="Return a coupon by code with its minimum order amount and whether it is currently valid.", tags=["coupons"], operation_id="get_coupon")
async def get_coupon(code: str = Path(..., description="Coupon code, case-insensitive")):
    session = SessionLocal()
    coupon = session.query(Coupon).filter(Coupon.code == code.strip().upper()).first()
    result = build_coupon(coupon)
    session.close()
    return result


@app.get("/api/me/orders", response_model=List[OrderSummaryResponse], summary="List my orders", description="List the current user's orders, newest first, optionally by status or placement date.", tags=["orders"], operation_id="list_orders")
async def list_orders(status: Optional[str] = Query(None, description="pending, processing, shipped, delivered or cancelled", pattern="^(pending|processing|shipped|delivered|cancelled)$"), placed_after: Optional[str] = Query(None, description="Only orders placed at or after this time (YYYY-MM-DD)"), limit: int = Query(20, description="Maximum number of orders", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Order).filter(Order.user_id == 1)
    if status:
        query = query.filter(Order.status == status)
    if placed_after:
        query = query.filter(Order.placed_at >= datetime.fromisoformat(placed_after))
    orders = query.order_by(Order.placed_at.desc(), Order.id.desc()).limit(limit).all()
    result = [build_order_summary(session, order) for order in orders]
    session.close()
    return result


@app.get("/api/orders/{order_id}", response_model=OrderResponse, summary="Get an order", description="Return one of the user's orders with line items, sellers, prices paid and shipping address.", tags=["orders"], operation_id="get_order")
async def get_order(order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1).first()
    result = build_order(session, order)
    session.close()
    return result


@app.get("/api/orders/{order_id}/tracking", response_model=List[OrderEventResponse], summary="Track an order", description="List an order's tracking events in time order.", tags=["orders"], operation_id="get_order_tracking")
async def get_order_tracking(order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1).first()
    events = session.query(OrderEvent).filter(OrderEvent.order_id == order.id).order_by(OrderEvent.occurred_at, OrderEvent.id).all()
    result = [OrderEventResponse.model_validate(event) for event in events]
    session.close()
    return result


@app.post("/api/orders/{order_id}/cancel", response_model=OrderResponse, summary="Cancel an order", description="Cancel an order that has not shipped yet (pending or processing) and return its units to stock.", tags=["orders"], operation_id="cancel_order")
async def cancel_order(request: CancelOrderRequest, order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1, Order.status.in_(["pending", "processing"])).first()
    items = session.query(OrderItem).filter(OrderItem.order_id == order.id).all()
    for item in items:
        offer = session.query(Offer).filter(Offer.id == item.offer_id).first()
        offer.stock_qty = offer.stock_qty + item.quantity
    order.status = "cancelled"
    order.cancelled_reason = request.reason
    session.add(OrderEvent(order_id=order.id, status="cancelled", description=f"Cancelled at customer request: {request.reason}", location=None, occurred_at=datetime.utcnow()))
    session.commit()
    session.refresh(order)
    result = build_order(session, order)
    session.close()
    return result


@app.put("/api/orders/{order_id}/address", response_model=OrderResponse, summary="Change an order's shipping address", description="Ship an order that has not shipped yet to another of the user's saved addresses.", tags=["orders"], operation_id="update_order_address")
async def update_order_address(request: OrderAddressRequest, order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1, Order.status.in_(["pending", "processing"])).first()
    address = session.query(Address).filter(Address.id == request.address_id, Address.user_id == 1).first()
    order.ship_to_name = address.full_name
    order.ship_to_street = address.street
    order.ship_to_city = address.city
    order.ship_to_state = address.state
    order.ship_to_postal_code = address.postal_code
    session.add(OrderEvent(order_id=order.id, status="address_updated", description=f"Shipping address changed to {address.street}, {address.city}", location=None, occurred_at=datetime.utcnow()))
    session.commit()
    session.refresh(order)
    result = build_order(session, order)
    session.close()
    return result


@app.get("/api/me/returns", response_model=List[ReturnResponse], summary="List my returns", description="List the current user's return requests, newest first.", tags=["returns"], operation_id="list_returns")
async def list_returns():
    session = SessionLocal()
    rows = session.query(ReturnRequest).filter(ReturnRequest.user_id == 1).order_by(ReturnRequest.created_at.desc(), ReturnRequest.id.desc()).all()
    result = [build_return(session, row) for row in rows]
    session.close()
    return result


@app.post("/api/me/returns", response_model=ReturnResponse, summary="Request a return", description="Return units of a delivered order item within 30 days of delivery, for a refund or a replacement.", tags=["returns"], operation_id="create_return")
async def create_return(request: ReturnCreateRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    item = session.query(OrderItem).join(Order, Order.id == OrderItem.order_id).filter(OrderItem.id == request.order_item_id, Order.user_id == 1, Order.status == "delivered", Order.delivered_at >= now - timedelta(days=30)).first()
    already = returned_quantity(session, item.id)
    eligible = session.query(OrderItem).filter(OrderItem.id == item.id, OrderItem.quantity >= already + request.quantity).first()
    refund = round(eligible.unit_price * request.quantity, 2) if request.resolution == "refund" else 0.0
    row = ReturnRequest(user_id=1, order_item_id=eligible.id, quantity=request.quantity, reason=request.reason, resolution=request.resolution, status="requested", refund_amount=refund, comments=request.comments, created_at=now, updated_at=now)
    session.add(row)
    session.commit()
    session.refresh(row)
    result = build_return(session, row)
    session.close()
    return result


@app.post("/api/returns/{return_id}/cancel", response_model=ReturnResponse, summary="Cancel a return", description="Withdraw a return request that has not been processed yet.", tags=["returns"], operation_id="cancel_return")
async def cancel_return(return_id: int = Path(..., description="Return ID")):
    session = SessionLocal()
    row = session.query(ReturnRequest).filter(ReturnRequest.id == return_id, ReturnRequest.user_id == 1, ReturnRequest.status == "requested").first()
    row.status = "cancelled"
    row.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(row)
    result = build_return(session, row)
    session.close()
    return result


@app.get("/api/me/wishlists", response_model=List[WishlistResponse], summary="List my wishlists", description="List the current user's wishlists with item counts.", tags=["wishlists"], operation_id="list_wishlists")
async def list_wishlists():
    session = SessionLocal()
    wishlists = session.query(Wishlist).filter(Wishlist.user_id == 1).order_by(Wishlist.id).all()
    result = [build_wishlist(session, wishlist) for wishlist in wishlists]
    session.close()
    return result


@app.post("/api/me/wishlists", response_model=WishlistResponse, summary="Create a wishlist", description="Create a new empty wishlist for the current user.", tags=["wishlists"], operation_id="create_wishlist")
async def create_wishlist(request: WishlistCreateRequest):
    session = SessionLocal()
    wishlist = Wishlist(user_id=1, name=request.name, is_private=request.is_private, created_at=datetime.utcnow())
    session.add(wishlist)
    session.commit()
    session.refresh(wishlist)
    result = build_wishlist(session, wishlist)
    session.close()
    return result


@app.get("/api/wishlists/{wishlist_id}/items", response_model=List[WishlistItemResponse], summary="List wishlist items", description="List the items of one of the user's wishlists with product rating and lowest price.", tags=["wishlists"], operation_id="list_wishlist_items")
async def list_wishlist_items(wishlist_id: int = Path(..., description="Wishlist ID")):
    session = SessionLocal()
    wishlist = session.query(Wishlist).filter(Wishlist.id == wishlist_id, Wishlist.user_id == 1).first()
    items = session.query(WishlistItem).filter(WishlistItem.wishlist_id == wishlist.id).order_by(WishlistItem.added_at.desc(), WishlistItem.id.desc()).all()
    result = [build_wishlist_item(session, item) for item in items]
    session.close()
    return result


@app.post("/api/wishlists/{wishlist_id}/items", response_model=WishlistItemResponse, summary="Add to a wishlist", description="Save a product variant to one of the user's wishlists.", tags=["wishlists"], operation_id="add_wishlist_item")
async def add_wishlist_item(request: WishlistItemAddRequest, wishlist_id: int = Path(..., description="Wishlist ID")):
    session = SessionLocal()
    wishlist = session.query(Wishlist).filter(Wishlist.id == wishlist_id, Wishlist.user_id == 1).first()
    variant = session.query(ProductVariant).filter(ProductVariant.id == request.variant_id).first()
    existing = session.query(WishlistItem).filter(WishlistItem.wishlist_id == wishlist.id, WishlistItem.variant_id == variant.id).first()
    if existing is not None:
        result = build_wishlist_item(session, existing)
        session.close()
        return result
    item = WishlistItem(wishlist_id=wishlist.id, variant_id=variant.id, quantity_desired=request.quantity_desired, priority=request.priority, note=request.note, added_at=datetime.utcnow())
    session.add(item)
    session.commit()
    session.refresh(item)
    result = build_wishlist_item(session, item)
    session.close()
    return result


@app.delete("/api/wishlists/{wishlist_id}/items/{item_id}", response_model=ActionResponse, summary="Remove from a wishlist", description="Remove one item from one of the user's wishlists.", tags=["wishlists"], operation_id="remove_wishlist_item")
async def remove_wishlist_item(wishlist_id: int = Path(..., description="Wishlist ID"), item_id: int = Path(..., description="Wishlist item ID (not the variant ID)")):
    session = SessionLocal()
    wishlist = session.query(Wishlist).filter(Wishlist.id == wishlist_id, Wishlist.user_id == 1).first()
    deleted = session.query(WishlistItem).filter(WishlistItem.id == item_id, WishlistItem.wishlist_id == wishlist.id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Item {item_id} removed from wishlist {wishlist_id}" if deleted else f"Item {item_id} is not in wishlist {wishlist_id}")


@app.get("/api/me/subscriptions", response_model=List[SubscriptionResponse], summary="List my Subscribe & Save items", description="List the current user's recurring deliveries with frequency, status and next date.", tags=["subscriptions"], operation_id="list_subscriptions")
async def list_subscriptions():
    session = SessionLocal()
    subscriptions = session.query(Subscription).filter(Subscription.user_id == 1).order_by(Subscription.id).all()
    result = [build_subscription(session, subscription) for subscription in subscriptions]
    session.close()
    return result


@app.post("/api/me/subscriptions", response_model=SubscriptionResponse, summary="Start a Subscribe & Save delivery", description="Subscribe to recurring deliveries of a seller offer every N weeks; the first delivery is N weeks out.", tags=["subscriptions"], operation_id="create_subscription")
async def create_subscription(request: SubscriptionCreateRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    offer = session.query(Offer).filter(Offer.id == request.offer_id).first()
    subscription = Subscription(user_id=1, offer_id=offer.id, quantity=request.quantity, frequency_weeks=request.frequency_weeks, status="active", next_delivery_date=(now + timedelta(weeks=request.frequency_weeks)).date(), created_at=now)
    session.add(subscription)
    session.commit()
    session.refresh(subscription)
    result = build_subscription(session, subscription)
    session.close()
    return result


@app.patch("/api/me/subscriptions/{subscription_id}", response_model=SubscriptionResponse, summary="Update a Subscribe & Save delivery", description="Change quantity or frequency, or pause, resume or cancel a recurring delivery.", tags=["subscriptions"], operation_id="update_subscription")
async def update_subscription(request: SubscriptionUpdateRequest, subscription_id: int = Path(..., description="Subscription ID")):
    session = SessionLocal()
    subscription = session.query(Subscription).filter(Subscription.id == subscription_id, Subscription.user_id == 1).first()
    if request.quantity is not None:
        subscription.quantity = request.quantity
    if request.frequency_weeks is not None:
        subscription.frequency_weeks = request.frequency_weeks
    if request.status is not None:
        subscription.status = request.status
        if request.status == "cancelled":
            subscription.next_delivery_date = None
        elif subscription.next_delivery_date is None:
            subscription.next_delivery_date = (datetime.utcnow() + timedelta(weeks=subscription.frequency_weeks)).date()
    session.commit()
    session.refresh(subscription)
    result = build_subscription(session, subscription)
    session.close()
    return result


if __name__ == "__main__":
    import uvicorn
    host = os.getenv("HOST", "127.0.0.1")
    port = int(os.getenv("PORT", "8000"))
    uvicorn.run(app, host=host, port=port)
