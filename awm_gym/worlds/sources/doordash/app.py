import os
from datetime import datetime, timedelta
from typing import List, Optional

from fastapi import FastAPI, Query, Path
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Text, Boolean, Float, DateTime, ForeignKey, UniqueConstraint, func, or_
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///doordash.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)
    email = Column(String, nullable=False, unique=True)
    phone = Column(String)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Address(Base):
    __tablename__ = "addresses"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    label = Column(String, nullable=False)
    street = Column(String, nullable=False)
    unit = Column(String)
    city = Column(String, nullable=False)
    state = Column(String, nullable=False)
    postal_code = Column(String, nullable=False)
    dropoff_instructions = Column(Text)
    is_default = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class PaymentMethod(Base):
    __tablename__ = "payment_methods"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    card_brand = Column(String, nullable=False)
    last4 = Column(String, nullable=False)
    exp_month = Column(Integer, nullable=False)
    exp_year = Column(Integer, nullable=False)
    nickname = Column(String)
    is_default = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Cuisine(Base):
    __tablename__ = "cuisines"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)


class Restaurant(Base):
    __tablename__ = "restaurants"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)
    cuisine_id = Column(Integer, ForeignKey("cuisines.id"), nullable=False)
    street = Column(String, nullable=False)
    city = Column(String, nullable=False)
    state = Column(String, nullable=False)
    phone = Column(String)
    rating = Column(Float, nullable=False, default=0)
    rating_count = Column(Integer, nullable=False, default=0)
    price_level = Column(Integer, nullable=False, default=2)
    delivery_fee = Column(Float, nullable=False, default=0)
    avg_prep_minutes = Column(Integer, nullable=False, default=20)
    is_open = Column(Boolean, nullable=False, default=True)
    dashpass_eligible = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class MenuCategory(Base):
    __tablename__ = "menu_categories"
    __table_args__ = (UniqueConstraint("restaurant_id", "name"),)
    id = Column(Integer, primary_key=True)
    restaurant_id = Column(Integer, ForeignKey("restaurants.id"), nullable=False)
    name = Column(String, nullable=False)
    sort_order = Column(Integer, nullable=False, default=0)


class MenuItem(Base):
    __tablename__ = "menu_items"
    id = Column(Integer, primary_key=True)
    restaurant_id = Column(Integer, ForeignKey("restaurants.id"), nullable=False)
    category_id = Column(Integer, ForeignKey("menu_categories.id"), nullable=False)
    name = Column(String, nullable=False)
    description = Column(Text)
    price = Column(Float, nullable=False)
    calories = Column(Integer)
    is_vegetarian = Column(Boolean, nullable=False, default=False)
    is_popular = Column(Boolean, nullable=False, default=False)
    is_available = Column(Boolean, nullable=False, default=True)


class ItemOptionGroup(Base):
    __tablename__ = "item_option_groups"
    id = Column(Integer, primary_key=True)
    menu_item_id = Column(Integer, ForeignKey("menu_items.id"), nullable=False)
    name = Column(String, nullable=False)
    min_select = Column(Integer, nullable=False, default=0)
    max_select = Column(Integer, nullable=False, default=1)


class ItemOption(Base):
    __tablename__ = "item_options"
    id = Column(Integer, primary_key=True)
    group_id = Column(Integer, ForeignKey("item_option_groups.id"), nullable=False)
    name = Column(String, nullable=False)
    price_delta = Column(Float, nullable=False, default=0)
    is_available = Column(Boolean, nullable=False, default=True)


class Driver(Base):
    __tablename__ = "drivers"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)
    vehicle = Column(String, nullable=False)
    rating = Column(Float, nullable=False, default=5)
    rating_count = Column(Integer, nullable=False, default=0)
    deliveries_completed = Column(Integer, nullable=False, default=0)
    is_active = Column(Boolean, nullable=False, default=True)


class Promotion(Base):
    __tablename__ = "promotions"
    id = Column(Integer, primary_key=True)
    code = Column(String, nullable=False, unique=True)
    description = Column(Text, nullable=False)
    restaurant_id = Column(Integer, ForeignKey("restaurants.id"))
    discount_type = Column(String, nullable=False)
    discount_value = Column(Float, nullable=False, default=0)
    max_discount = Column(Float)
    min_subtotal = Column(Float, nullable=False, default=0)
    dashpass_only = Column(Boolean, nullable=False, default=False)
    expires_at = Column(DateTime, nullable=False)
    is_active = Column(Boolean, nullable=False, default=True)


class DashPassSubscription(Base):
    __tablename__ = "dashpass_subscriptions"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False, unique=True)
    plan = Column(String, nullable=False)
    price = Column(Float, nullable=False)
    status = Column(String, nullable=False, default="active")
    payment_method_id = Column(Integer, ForeignKey("payment_methods.id"), nullable=False)
    started_at = Column(DateTime, nullable=False)
    renews_at = Column(DateTime)


class Favorite(Base):
    __tablename__ = "favorites"
    __table_args__ = (UniqueConstraint("user_id", "restaurant_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    restaurant_id = Column(Integer, ForeignKey("restaurants.id"), nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class CartItem(Base):
    __tablename__ = "cart_items"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    restaurant_id = Column(Integer, ForeignKey("restaurants.id"), nullable=False)
    menu_item_id = Column(Integer, ForeignKey("menu_items.id"), nullable=False)
    quantity = Column(Integer, nullable=False, default=1)
    special_instructions = Column(Text)
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class CartItemOption(Base):
    __tablename__ = "cart_item_options"
    __table_args__ = (UniqueConstraint("cart_item_id", "option_id"),)
    id = Column(Integer, primary_key=True)
    cart_item_id = Column(Integer, ForeignKey("cart_items.id"), nullable=False)
    option_id = Column(Integer, ForeignKey("item_options.id"), nullable=False)


class Order(Base):
    __tablename__ = "orders"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    restaurant_id = Column(Integer, ForeignKey("restaurants.id"), nullable=False)
    driver_id = Column(Integer, ForeignKey("drivers.id"))
    payment_method_id = Column(Integer, ForeignKey("payment_methods.id"), nullable=False)
    promotion_id = Column(Integer, ForeignKey("promotions.id"))
    status = Column(String, nullable=False, default="placed")
    delivery_street = Column(String, nullable=False)
    delivery_unit = Column(String)
    delivery_city = Column(String, nullable=False)
    delivery_state = Column(String, nullable=False)
    delivery_postal_code = Column(String, nullable=False)
    dropoff_instructions = Column(Text)
    subtotal = Column(Float, nullable=False)
    delivery_fee = Column(Float, nullable=False, default=0)
    service_fee = Column(Float, nullable=False, default=0)
    small_order_fee = Column(Float, nullable=False, default=0)
    discount = Column(Float, nullable=False, default=0)
    tax = Column(Float, nullable=False, default=0)
    tip = Column(Float, nullable=False, default=0)
    total = Column(Float, nullable=False)
    placed_at = Column(DateTime, nullable=False)
    estimated_delivery_at = Column(DateTime)
    delivered_at = Column(DateTime)
    cancelled_reason = Column(Text)


class OrderItem(Base):
    __tablename__ = "order_items"
    id = Column(Integer, primary_key=True)
    order_id = Column(Integer, ForeignKey("orders.id"), nullable=False)
    menu_item_id = Column(Integer, ForeignKey("menu_items.id"), nullable=False)
    item_name = Column(String, nullable=False)
    quantity = Column(Integer, nullable=False)
    unit_price = Column(Float, nullable=False)
    special_instructions = Column(Text)


class OrderItemOption(Base):
    __tablename__ = "order_item_options"
    id = Column(Integer, primary_key=True)
    order_item_id = Column(Integer, ForeignKey("order_items.id"), nullable=False)
    option_id = Column(Integer, ForeignKey("item_options.id"), nullable=False)
    option_name = Column(String, nullable=False)
    price_delta = Column(Float, nullable=False, default=0)


class OrderStatusHistory(Base):
    __tablename__ = "order_status_history"
    id = Column(Integer, primary_key=True)
    order_id = Column(Integer, ForeignKey("orders.id"), nullable=False)
    status = Column(String, nullable=False)
    note = Column(Text)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Rating(Base):
    __tablename__ = "ratings"
    id = Column(Integer, primary_key=True)
    order_id = Column(Integer, ForeignKey("orders.id"), nullable=False, unique=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    restaurant_id = Column(Integer, ForeignKey("restaurants.id"), nullable=False)
    driver_id = Column(Integer, ForeignKey("drivers.id"))
    restaurant_rating = Column(Integer, nullable=False)
    driver_rating = Column(Integer)
    comment = Column(Text)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


Base.metadata.create_all(bind=engine)


class UserResponse(BaseModel):
    id: int = Field(..., description="User ID", example=1)
    name: str = Field(..., description="Full name", example="Jordan Alvarez")
    email: str = Field(..., description="Email address", example="jordan.alvarez@example.com")
    phone: Optional[str] = Field(None, description="Phone number", example="512-555-0148")
    has_dashpass: bool = Field(..., description="Whether the user has an active DashPass", example=True)
    created_at: datetime = Field(..., description="Account creation time", example="2021-02-03T18:22:00")


class AddressResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Address ID", example=1)
    label: str = Field(..., description="Label such as Home or Work", example="Home")
    street: str = Field(..., description="Street address", example="2104 E Cesar Chavez St")
    unit: Optional[str] = Field(None, description="Apartment, suite or floor", example="Apt 3")
    city: str = Field(..., description="City", example="Austin")
    state: str = Field(..., description="State code", example="TX")
    postal_code: str = Field(..., description="ZIP code", example="78702")
    dropoff_instructions: Optional[str] = Field(None, description="Instructions for the Dasher", example="Ring the doorbell")
    is_default: bool = Field(..., description="Whether this is the default delivery address", example=True)


class PaymentMethodResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Payment method ID", example=2)
    card_brand: str = Field(..., description="Visa, Mastercard, American Express or Discover", example="Visa")
    last4: str = Field(..., description="Last four digits", example="1234")
    exp_month: int = Field(..., description="Expiry month", example=4)
    exp_year: int = Field(..., description="Expiry year", example=2028)
    nickname: Optional[str] = Field(None, description="Nickname", example="Rewards Visa")
    is_default: bool = Field(..., description="Whether this is the default payment method", example=False)


class CuisineResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Cuisine ID", example=3)
    name: str = Field(..., description="Cuisine name", example="Thai")


class RestaurantResponse(BaseModel):
    id: int = Field(..., description="Restaurant ID", example=4)
    name: str = Field(..., description="Restaurant name", example="Bangkok Garden")
    cuisine_id: int = Field(..., description="Cuisine ID", example=3)
    cuisine_name: str = Field(..., description="Cuisine", example="Thai")
    street: str = Field(..., description="Street address", example="2900 Guadalupe St")
    city: str = Field(..., description="City", example="Austin")
    state: str = Field(..., description="State", example="TX")
    phone: Optional[str] = Field(None, description="Phone", example="512-555-0304")
    rating: float = Field(..., description="Average customer rating 0-5", example=4.5)
    rating_count: int = Field(..., description="Number of ratings", example=1320)
    price_level: int = Field(..., description="Price level 1 ($) to 4 ($$$$)", example=2)
    delivery_fee: float = Field(..., description="Standard delivery fee (waived with DashPass on eligible orders of $12+)", example=2.49)
    avg_prep_minutes: int = Field(..., description="Typical preparation time in minutes", example=25)
    is_open: bool = Field(..., description="Whether the restaurant is accepting orders now", example=True)
    dashpass_eligible: bool = Field(..., description="Whether DashPass benefits apply", example=True)
    is_favorite: bool = Field(..., description="Whether the user saved it as a favorite", example=False)


class OptionResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Option ID (pass it in option_ids)", example=2)
    name: str = Field(..., description="Option name", example="Large")
    price_delta: float = Field(..., description="Price added to the item", example=4.0)
    is_available: bool = Field(..., description="Whether the option can be chosen", example=True)


class OptionGroupResponse(BaseModel):
    id: int = Field(..., description="Option group ID", example=1)
    name: str = Field(..., description="Group name", example="Size")
    min_select: int = Field(..., description="Minimum choices (1 or more means required)", example=1)
    max_select: int = Field(..., description="Maximum choices", example=1)
    options: List[OptionResponse] = Field(..., description="Choices", example=[])


class MenuItemResponse(BaseModel):
    id: int = Field(..., description="Menu item ID", example=2)
    restaurant_id: int = Field(..., description="Restaurant ID", example=1)
    restaurant_name: str = Field(..., description="Restaurant name", example="Tony's Slice House")
    restaurant_city: str = Field(..., description="Restaurant city", example="Austin")
    restaurant_is_open: bool = Field(..., description="Whether the restaurant is open now", example=True)
    category_name: str = Field(..., description="Menu section", example="Pizzas")
    name: str = Field(..., description="Dish name", example="Pepperoni Pizza")
    description: Optional[str] = Field(None, description="Description", example="Cup-and-char pepperoni over mozzarella.")
    price: float = Field(..., description="Base price before options", example=16.99)
    calories: Optional[int] = Field(None, description="Calories", example=1320)
    is_vegetarian: bool = Field(..., description="Vegetarian", example=False)
    is_popular: bool = Field(..., description="Marked popular", example=True)
    is_available: bool = Field(..., description="Can be ordered now", example=True)
    has_options: bool = Field(..., description="Whether the item has option groups (see get_menu_item)", example=True)


class MenuItemDetailResponse(BaseModel):
    id: int = Field(..., description="Menu item ID", example=2)
    restaurant_id: int = Field(..., description="Restaurant ID", example=1)
    restaurant_name: str = Field(..., description="Restaurant name", example="Tony's Slice House")
    category_name: str = Field(..., description="Menu section", example="Pizzas")
    name: str = Field(..., description="Dish name", example="Pepperoni Pizza")
    description: Optional[str] = Field(None, description="Description", example="Cup-and-char pepperoni over mozzarella.")
    price: float = Field(..., description="Base price before options", example=16.99)
    calories: Optional[int] = Field(None, description="Calories", example=1320)
    is_vegetarian: bool = Field(..., description="Vegetarian", example=False)
    is_available: bool = Field(..., description="Can be ordered now", example=True)
    option_groups: List[OptionGroupResponse] = Field(..., description="Option groups with their choices", example=[])


class MenuCategoryResponse(BaseModel):
    id: int = Field(..., description="Menu section ID", example=10)
    name: str = Field(..., description="Menu section name", example="Curries")
    items: List[MenuItemResponse] = Field(..., description="Dishes in this section", example=[])


class MenuResponse(BaseModel):
    restaurant_id: int = Field(..., description="Restaurant ID", example=4)
    restaurant_name: str = Field(..., description="Restaurant name", example="Bangkok Garden")
    is_open: bool = Field(..., description="Whether the restaurant is open now", example=True)
    categories: List[MenuCategoryResponse] = Field(..., description="Menu sections in display order", example=[])


class SelectedOptionResponse(BaseModel):
    option_id: int = Field(..., description="Option ID", example=2)
    name: str = Field(..., description="Option name", example="Large")
    price_delta: float = Field(..., description="Price added", example=4.0)


class CartItemResponse(BaseModel):
    id: int = Field(..., description="Cart item ID", example=1)
    menu_item_id: int = Field(..., description="Menu item ID", example=13)
    name: str = Field(..., description="Dish name", example="Dragon Roll")
    quantity: int = Field(..., description="Quantity", example=1)
    unit_price: float = Field(..., description="Price per unit including options", example=14.5)
    line_total: float = Field(..., description="Unit price times quantity", example=14.5)
    special_instructions: Optional[str] = Field(None, description="Notes for the restaurant", example=None)
    options: List[SelectedOptionResponse] = Field(..., description="Chosen options", example=[])


class CartResponse(BaseModel):
    restaurant_id: Optional[int] = Field(None, description="Restaurant of the cart (a cart holds one restaurant)", example=3)
    restaurant_name: Optional[str] = Field(None, description="Restaurant name", example="Sakura Sushi Bar")
    items: List[CartItemResponse] = Field(..., description="Cart items", example=[])
    subtotal: float = Field(..., description="Sum of line totals", example=39.95)
    delivery_fee: float = Field(..., description="Delivery fee that would apply", example=0.0)
    service_fee: float = Field(..., description="Service fee that would apply", example=2.0)
    small_order_fee: float = Field(..., description="Fee for subtotals under $10", example=0.0)
    estimated_tax: float = Field(..., description="Estimated sales tax (8.25%)", example=3.3)
    dashpass_applied: bool = Field(..., description="Whether DashPass benefits apply", example=True)


class DriverResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Driver ID", example=1)
    name: str = Field(..., description="Dasher name", example="Carlos M.")
    vehicle: str = Field(..., description="Vehicle", example="Toyota Prius")
    rating: float = Field(..., description="Dasher rating", example=4.9)


class DeliveryAddressResponse(BaseModel):
    street: str = Field(..., description="Street", example="600 Congress Ave")
    unit: Optional[str] = Field(None, description="Unit", example="Floor 14")
    city: str = Field(..., description="City", example="Austin")
    state: str = Field(..., description="State", example="TX")
    postal_code: str = Field(..., description="ZIP code", example="78701")


class OrderItemResponse(BaseModel):
    id: int = Field(..., description="Order item ID", example=7)
    menu_item_id: int = Field(..., description="Menu item ID", example=31)
    name: str = Field(..., description="Dish name", example="Pho Ga (Chicken)")
    quantity: int = Field(..., description="Quantity", example=2)
    unit_price: float = Field(..., description="Price per unit including options", example=12.95)
    line_total: float = Field(..., description="Unit price times quantity", example=25.9)
    special_instructions: Optional[str] = Field(None, description="Notes", example=None)
    options: List[SelectedOptionResponse] = Field(..., description="Chosen options", example=[])


class OrderSummaryResponse(BaseModel):
    id: int = Field(..., description="Order ID", example=6)
    restaurant_id: int = Field(..., description="Restaurant ID", example=10)
    restaurant_name: str = Field(..., description="Restaurant name", example="Spice Route")
    status: str = Field(..., description="placed, confirmed, preparing, picked_up, delivered or cancelled", example="delivered")
    item_count: int = Field(..., description="Units ordered", example=3)
    total: float = Field(..., description="Amount charged", example=34.01)
    placed_at: datetime = Field(..., description="When the order was placed", example="2025-12-28T12:00:00")
    delivered_at: Optional[datetime] = Field(None, description="When it was delivered", example="2025-12-28T12:48:00")
    is_rated: bool = Field(..., description="Whether the user rated the order", example=False)


class OrderResponse(BaseModel):
    id: int = Field(..., description="Order ID", example=6)
    restaurant_id: int = Field(..., description="Restaurant ID", example=10)
    restaurant_name: str = Field(..., description="Restaurant name", example="Spice Route")
    status: str = Field(..., description="placed, confirmed, preparing, picked_up, delivered or cancelled", example="delivered")
    driver: Optional[DriverResponse] = Field(None, description="Dasher assigned to the order", example={"id": 2, "name": "Aisha K."})
    delivery_address: DeliveryAddressResponse = Field(..., description="Where it is delivered", example={"street": "2104 E Cesar Chavez St"})
    dropoff_instructions: Optional[str] = Field(None, description="Instructions for the Dasher", example="Ring the doorbell")
    payment_method_id: int = Field(..., description="Payment method ID", example=1)
    payment_description: str = Field(..., description="Card charged", example="Mastercard ending in 5454")
    promo_code: Optional[str] = Field(None, description="Promo code applied", example=None)
    items: List[OrderItemResponse] = Field(..., description="Items", example=[])
    subtotal: float = Field(..., description="Sum of item totals", example=23.85)
    delivery_fee: float = Field(..., description="Delivery fee", example=0.0)
    service_fee: float = Field(..., description="Service fee", example=1.19)
    small_order_fee: float = Field(..., description="Small order fee", example=0.0)
    discount: float = Field(..., description="Promo discount", example=0.0)
    tax: float = Field(..., description="Sales tax", example=1.97)
    tip: float = Field(..., description="Dasher tip", example=7.0)
    total: float = Field(..., description="Amount charged", example=34.01)
    placed_at: datetime = Field(..., description="Placed at", example="2025-12-28T12:00:00")
    estimated_delivery_at: Optional[datetime] = Field(None, description="Estimated delivery time", example="2025-12-28T12:50:00")
    delivered_at: Optional[datetime] = Field(None, description="Delivered at", example="2025-12-28T12:48:00")
    cancelled_reason: Optional[str] = Field(None, description="Why it was cancelled", example=None)
    is_rated: bool = Field(..., description="Whether the user rated the order", example=False)


class OrderHistoryResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="History entry ID", example=20)
    status: str = Field(..., description="Status reached or event", example="picked_up")
    note: Optional[str] = Field(None, description="Details", example="Picked up by Aisha K.")
    created_at: datetime = Field(..., description="When it happened", example="2025-12-28T12:30:00")


class RatingResponse(BaseModel):
    id: int = Field(..., description="Rating ID", example=1)
    order_id: int = Field(..., description="Order ID", example=1)
    reviewer_name: str = Field(..., description="Customer who rated", example="Jordan Alvarez")
    restaurant_id: int = Field(..., description="Restaurant ID", example=7)
    restaurant_name: str = Field(..., description="Restaurant name", example="Pho Saigon")
    driver_id: Optional[int] = Field(None, description="Driver ID", example=1)
    driver_name: Optional[str] = Field(None, description="Driver name", example="Carlos M.")
    restaurant_rating: int = Field(..., description="Stars for the restaurant 1-5", example=5)
    driver_rating: Optional[int] = Field(None, description="Stars for the Dasher 1-5", example=5)
    comment: Optional[str] = Field(None, description="Comment", example="Broth was perfect.")
    created_at: datetime = Field(..., description="Rated at", example="2025-11-23T12:00:00")


class FavoriteResponse(BaseModel):
    id: int = Field(..., description="Favorite ID", example=1)
    created_at: datetime = Field(..., description="Saved at", example="2025-03-07T12:00:00")
    restaurant: RestaurantResponse = Field(..., description="The restaurant", example={"id": 3, "name": "Sakura Sushi Bar"})


class PromotionResponse(BaseModel):
    id: int = Field(..., description="Promotion ID", example=1)
    code: str = Field(..., description="Promo code", example="SUSHI20")
    description: str = Field(..., description="Description", example="20% off Sakura Sushi Bar orders of $30+ (up to $8).")
    restaurant_id: Optional[int] = Field(None, description="Only valid at this restaurant; null for any", example=3)
    restaurant_name: Optional[str] = Field(None, description="Restaurant name", example="Sakura Sushi Bar")
    discount_type: str = Field(..., description="percent, fixed or free_delivery", example="percent")
    discount_value: float = Field(..., description="Percent or dollar amount", example=20.0)
    max_discount: Optional[float] = Field(None, description="Cap on a percent discount", example=8.0)
    min_subtotal: float = Field(..., description="Minimum subtotal", example=30.0)
    dashpass_only: bool = Field(..., description="Only for DashPass members", example=False)
    expires_at: datetime = Field(..., description="Expiry", example="2026-01-21T12:00:00")
    is_valid: bool = Field(..., description="Active and not expired", example=True)


class DashPassResponse(BaseModel):
    id: int = Field(..., description="Subscription ID", example=1)
    plan: str = Field(..., description="monthly ($9.99) or annual ($96.00)", example="monthly")
    price: float = Field(..., description="Price per billing period", example=9.99)
    status: str = Field(..., description="active, paused or cancelled", example="active")
    payment_method_id: int = Field(..., description="Card billed", example=1)
    payment_description: str = Field(..., description="Card billed", example="Mastercard ending in 5454")
    started_at: datetime = Field(..., description="Member since", example="2025-06-15T12:00:00")
    renews_at: Optional[datetime] = Field(None, description="Next renewal", example="2026-01-13T12:00:00")


class ActionResponse(BaseModel):
    success: bool = Field(..., description="Whether the action succeeded", example=True)
    message: str = Field(..., description="Human-readable result", example="Cart cleared")


class AddressCreateRequest(BaseModel):
    label: str = Field(..., description="Label such as Home or Work", example="Gym")
    street: str = Field(..., description="Street address", example="1000 E 41st St")
    unit: Optional[str] = Field(None, description="Apartment, suite or floor", example=None)
    city: str = Field(..., description="City", example="Austin")
    state: str = Field(..., description="State code", example="TX")
    postal_code: str = Field(..., description="ZIP code", example="78751")
    dropoff_instructions: Optional[str] = Field(None, description="Instructions for the Dasher", example="Leave at the front desk")
    is_default: bool = Field(False, description="Make it the default address", example=False)


class AddressUpdateRequest(BaseModel):
    label: Optional[str] = Field(None, description="New label", example="Home")
    street: Optional[str] = Field(None, description="New street", example="2104 E Cesar Chavez St")
    unit: Optional[str] = Field(None, description="New unit", example="Apt 3")
    city: Optional[str] = Field(None, description="New city", example="Austin")
    state: Optional[str] = Field(None, description="New state", example="TX")
    postal_code: Optional[str] = Field(None, description="New ZIP code", example="78702")
    dropoff_instructions: Optional[str] = Field(None, description="New Dasher instructions", example="Leave at the side door")
    is_default: Optional[bool] = Field(None, description="Make it the default address", example=True)


class PaymentMethodUpdateRequest(BaseModel):
    nickname: Optional[str] = Field(None, description="New nickname", example="Rewards Visa")
    is_default: Optional[bool] = Field(None, description="Make it the default payment method", example=True)


class FavoriteCreateRequest(BaseModel):
    restaurant_id: int = Field(..., description="Restaurant to save", example=10)


class CartItemCreateRequest(BaseModel):
    menu_item_id: int = Field(..., description="Menu item to add", example=2)
    quantity: int = Field(1, description="Quantity (1-20)", example=1, ge=1, le=20)
    option_ids: List[int] = Field([], description="Option IDs from get_menu_item; every required group needs a choice", example=[2, 4])
    special_instructions: Optional[str] = Field(None, description="Notes for the restaurant", example="Well done")


class CartItemUpdateRequest(BaseModel):
    quantity: Optional[int] = Field(None, description="New quantity (1-20)", example=2, ge=1, le=20)
    special_instructions: Optional[str] = Field(None, description="New notes for the restaurant", example="Extra napkins")


class PlaceOrderRequest(BaseModel):
    address_id: int = Field(..., description="One of the user's address IDs", example=2)
    payment_method_id: int = Field(..., description="One of the user's payment method IDs", example=3)
    tip_amount: float = Field(0.0, description="Dasher tip in dollars", example=6.0, ge=0, le=200)
    promo_code: Optional[str] = Field(None, description="Promo code to apply", example="SUSHI20")
    dropoff_instructions: Optional[str] = Field(None, description="Overrides the address's Dasher instructions", example=None)


class CancelOrderRequest(BaseModel):
    reason: str = Field(..., description="Why the order is cancelled", example="Ordered by mistake")


class TipUpdateRequest(BaseModel):
    tip_amount: float = Field(..., description="New tip in dollars", example=8.0, ge=0, le=200)


class RatingCreateRequest(BaseModel):
    restaurant_rating: int = Field(..., description="Stars for the restaurant 1-5", example=5, ge=1, le=5)
    driver_rating: Optional[int] = Field(None, description="Stars for the Dasher 1-5", example=4, ge=1, le=5)
    comment: Optional[str] = Field(None, description="Comment", example="Still hot on arrival")


class RatingUpdateRequest(BaseModel):
    restaurant_rating: Optional[int] = Field(None, description="New stars for the restaurant 1-5", example=4, ge=1, le=5)
    driver_rating: Optional[int] = Field(None, description="New stars for the Dasher 1-5", example=5, ge=1, le=5)
    comment: Optional[str] = Field(None, description="New comment", example="Updated after a second visit")


class DashPassCreateRequest(BaseModel):
    plan: str = Field(..., description="monthly or annual", example="monthly", pattern="^(monthly|annual)$")
    payment_method_id: int = Field(..., description="Card to bill", example=1)


class DashPassUpdateRequest(BaseModel):
    plan: Optional[str] = Field(None, description="monthly or annual", example="annual", pattern="^(monthly|annual)$")
    status: Optional[str] = Field(None, description="active, paused or cancelled", example="paused", pattern="^(active|paused|cancelled)$")
    payment_method_id: Optional[int] = Field(None, description="Card to bill", example=2)


app = FastAPI(
    title="DoorDash API",
    description="Food delivery: restaurant and dish search, menus with options, a one-restaurant cart, checkout with promos and tips, order tracking, ratings, favorites and DashPass for the logged-in customer.",
    version="1.0.0",
)


def active_dashpass(session):
    return session.query(DashPassSubscription).filter(DashPassSubscription.user_id == 1, DashPassSubscription.status == "active").first()


def compute_fees(session, restaurant, subtotal):
    applies = bool(active_dashpass(session) is not None and restaurant.dashpass_eligible and subtotal >= 12)
    delivery_fee = 0.0 if applies else restaurant.delivery_fee
    service_fee = round(subtotal * (0.05 if applies else 0.15), 2)
    small_order_fee = 2.5 if subtotal < 10 else 0.0
    return applies, delivery_fee, service_fee, small_order_fee


def promotion_discount(promotion, subtotal, delivery_fee):
    if promotion.discount_type == "percent":
        discount = round(subtotal * promotion.discount_value / 100, 2)
        return min(discount, promotion.max_discount) if promotion.max_discount is not None else discount
    if promotion.discount_type == "fixed":
        return round(min(promotion.discount_value, subtotal), 2)
    return delivery_fee


def payment_label(payment):
    return f"{payment.card_brand} ending in {payment.last4}"


def build_restaurant(session, restaurant):
    cuisine = session.query(Cuisine).filter(Cuisine.id == restaurant.cuisine_id).first()
    favorite = session.query(Favorite).filter(Favorite.user_id == 1, Favorite.restaurant_id == restaurant.id).first()
    return RestaurantResponse(
        id=restaurant.id,
        name=restaurant.name,
        cuisine_id=restaurant.cuisine_id,
        cuisine_name=cuisine.name,
        street=restaurant.street,
        city=restaurant.city,
        state=restaurant.state,
        phone=restaurant.phone,
        rating=restaurant.rating,
        rating_count=restaurant.rating_count,
        price_level=restaurant.price_level,
        delivery_fee=restaurant.delivery_fee,
        avg_prep_minutes=restaurant.avg_prep_minutes,
        is_open=restaurant.is_open,
        dashpass_eligible=restaurant.dashpass_eligible,
        is_favorite=favorite is not None,
    )


def build_menu_item(session, item):
    restaurant = session.query(Restaurant).filter(Restaurant.id == item.restaurant_id).first()
    category = session.query(MenuCategory).filter(MenuCategory.id == item.category_id).first()
    group_count = session.query(func.count(ItemOptionGroup.id)).filter(ItemOptionGroup.menu_item_id == item.id).scalar()
    return MenuItemResponse(
        id=item.id,
        restaurant_id=item.restaurant_id,
        restaurant_name=restaurant.name,
        restaurant_city=restaurant.city,
        restaurant_is_open=restaurant.is_open,
        category_name=category.name,
        name=item.name,
        description=item.description,
        price=item.price,
        calories=item.calories,
        is_vegetarian=item.is_vegetarian,
        is_popular=item.is_popular,
        is_available=item.is_available,
        has_options=group_count > 0,
    )


def build_cart_item(session, item):
    menu_item = session.query(MenuItem).filter(MenuItem.id == item.menu_item_id).first()
    options = session.query(ItemOption).join(CartItemOption, CartItemOption.option_id == ItemOption.id).filter(CartItemOption.cart_item_id == item.id).order_by(ItemOption.id).all()
    unit_price = round(menu_item.price + sum(option.price_delta for option in options), 2)
    return CartItemResponse(
        id=item.id,
        menu_item_id=item.menu_item_id,
        name=menu_item.name,
        quantity=item.quantity,
        unit_price=unit_price,
        line_total=round(unit_price * item.quantity, 2),
        special_instructions=item.special_instructions,
        options=[SelectedOptionResponse(option_id=option.id, name=option.name, price_delta=option.price_delta) for option in options],
    )


def build_cart(session):
    items = session.query(CartItem).filter(CartItem.user_id == 1).order_by(CartItem.id).all()
    built = [build_cart_item(session, item) for item in items]
    subtotal = round(sum(item.line_total for item in built), 2)
    restaurant = session.query(Restaurant).filter(Restaurant.id == items[0].restaurant_id).first() if items else None
    applies, delivery_fee, service_fee, small_order_fee = compute_fees(session, restaurant, subtotal) if restaurant else (False, 0.0, 0.0, 0.0)
    return CartResponse(
        restaurant_id=restaurant.id if restaurant else None,
        restaurant_name=restaurant.name if restaurant else None,
        items=built,
        subtotal=subtotal,
        delivery_fee=delivery_fee,
        service_fee=service_fee,
        small_order_fee=small_order_fee,
        estimated_tax=round(subtotal * 0.0825, 2),
        dashpass_applied=applies,
    )


def clear_user_cart(session):
    cart_ids = [row[0] for row in session.query(CartItem.id).filter(CartItem.user_id == 1).all()]
    session.query(CartItemOption).filter(CartItemOption.cart_item_id.in_(cart_ids)).delete(synchronize_session=False)
    return session.query(CartItem).filter(CartItem.user_id == 1).delete(synchronize_session=False)


def build_order_item(session, item):
    options = session.query(OrderItemOption).filter(OrderItemOption.order_item_id == item.id).order_by(OrderItemOption.id).all()
    return OrderItemResponse(
        id=item.id,
        menu_item_id=item.menu_item_id,
        name=item.item_name,
        quantity=item.quantity,
        unit_price=item.unit_price,
        line_total=round(item.unit_price * item.quantity, 2),
        special_instructions=item.special_instructions,
        options=[SelectedOptionResponse(option_id=option.option_id, name=option.option_name, price_delta=option.price_delta) for option in options],
    )


def is_rated(session, order_id):
    return session.query(Rating).filter(Rating.order_id == order_id).first() is not None


def build_order_summary(session, order):
    restaurant = session.query(Restaurant).filter(Restaurant.id == order.restaurant_id).first()
    item_count = session.query(func.coalesce(func.sum(OrderItem.quantity), 0)).filter(OrderItem.order_id == order.id).scalar()
    return OrderSummaryResponse(
        id=order.id,
        restaurant_id=order.restaurant_id,
        restaurant_name=restaurant.name,
        status=order.status,
        item_count=item_count,
        total=order.total,
        placed_at=order.placed_at,
        delivered_at=order.delivered_at,
        is_rated=is_rated(session, order.id),
    )


def build_order(session, order):
    restaurant = session.query(Restaurant).filter(Restaurant.id == order.restaurant_id).first()
    driver = session.query(Driver).filter(Driver.id == order.driver_id).first() if order.driver_id else None
    payment = session.query(PaymentMethod).filter(PaymentMethod.id == order.payment_method_id).first()
    promotion = session.query(Promotion).filter(Promotion.id == order.promotion_id).first() if order.promotion_id else None
    items = session.query(OrderItem).filter(OrderItem.order_id == order.id).order_by(OrderItem.id).all()
    return OrderResponse(
        id=order.id,
        restaurant_id=order.restaurant_id,
        restaurant_name=restaurant.name,
        status=order.status,
        driver=DriverResponse.model_validate(driver) if driver else None,
        delivery_address=DeliveryAddressResponse(street=order.delivery_street, unit=order.delivery_unit, city=order.delivery_city, state=order.delivery_state, postal_code=order.delivery_postal_code),
        dropoff_instructions=order.dropoff_instructions,
        payment_method_id=order.payment_method_id,
        payment_description=payment_label(payment),
        promo_code=promotion.code if promotion else None,
        items=[build_order_item(session, item) for item in items],
        subtotal=order.subtotal,
        delivery_fee=order.delivery_fee,
        service_fee=order.service_fee,
        small_order_fee=order.small_order_fee,
        discount=order.discount,
        tax=order.tax,
        tip=order.tip,
        total=order.total,
        placed_at=order.placed_at,
        estimated_delivery_at=order.estimated_delivery_at,
        delivered_at=order.delivered_at,
        cancelled_reason=order.cancelled_reason,
        is_rated=is_rated(session, order.id),
    )


def build_rating(session, rating):
    user = session.query(User).filter(User.id == rating.user_id).first()
    restaurant = session.query(Restaurant).filter(Restaurant.id == rating.restaurant_id).first()
    driver = session.query(Driver).filter(Driver.id == rating.driver_id).first() if rating.driver_id else None
    return RatingResponse(
        id=rating.id,
        order_id=rating.order_id,
        reviewer_name=user.name,
        restaurant_id=rating.restaurant_id,
        restaurant_name=restaurant.name,
        driver_id=rating.driver_id,
        driver_name=driver.name if driver else None,
        restaurant_rating=rating.restaurant_rating,
        driver_rating=rating.driver_rating,
        comment=rating.comment,
        created_at=rating.created_at,
    )


def build_promotion(session, promotion):
    restaurant = session.query(Restaurant).filter(Restaurant.id == promotion.restaurant_id).first() if promotion.restaurant_id else None
    return PromotionResponse(
        id=promotion.id,
        code=promotion.code,
        description=promotion.description,
        restaurant_id=promotion.restaurant_id,
        restaurant_name=restaurant.name if restaurant else None,
        discount_type=promotion.discount_type,
        discount_value=promotion.discount_value,
        max_discount=promotion.max_discount,
        min_subtotal=promotion.min_subtotal,
        dashpass_only=promotion.dashpass_only,
        expires_at=promotion.expires_at,
        is_valid=bool(promotion.is_active and promotion.expires_at > datetime.utcnow()),
    )


def build_dashpass(session, subscription):
    payment = session.query(PaymentMethod).filter(PaymentMethod.id == subscription.payment_method_id).first()
    return DashPassResponse(
        id=subscription.id,
        plan=subscription.plan,
        price=subscription.price,
        status=subscription.status,
        payment_method_id=subscription.payment_method_id,
        payment_description=payment_label(payment),
        started_at=subscription.started_at,
        renews_at=subscription.renews_at,
    )


@app.get("/api/me", response_model=UserResponse, summary="Get current user profile", description="Return the logged-in customer's profile and DashPass status.", tags=["account"], operation_id="get_current_user")
async def get_current_user():
    session = SessionLocal()
    user = session.query(User).filter(User.id == 1).first()
    result = UserResponse(id=user.id, name=user.name, email=user.email, phone=user.phone, has_dashpass=active_dashpass(session) is not None, created_at=user.created_at)
    session.close()
    return result


@app.get("/api/me/addresses", response_model=List[AddressResponse], summary="List my addresses", description="List the current user's saved delivery addresses, default first.", tags=["account"], operation_id="list_addresses")
async def list_addresses():
    session = SessionLocal()
    addresses = session.query(Address).filter(Address.user_id == 1).order_by(Address.is_default.desc(), Address.id).all()
    result = [AddressResponse.model_validate(address) for address in addresses]
    session.close()
    return result


@app.post("/api/me/addresses", response_model=AddressResponse, summary="Add an address", description="Save a new delivery address, optionally as the default.", tags=["account"], operation_id="add_address")
async def add_address(request: AddressCreateRequest):
    session = SessionLocal()
    if request.is_default:
        session.query(Address).filter(Address.user_id == 1).update({Address.is_default: False}, synchronize_session=False)
    address = Address(user_id=1, label=request.label, street=request.street, unit=request.unit, city=request.city, state=request.state, postal_code=request.postal_code, dropoff_instructions=request.dropoff_instructions, is_default=request.is_default, created_at=datetime.utcnow())
    session.add(address)
    session.commit()
    session.refresh(address)
    result = AddressResponse.model_validate(address)
    session.close()
    return result


@app.patch("/api/me/addresses/{address_id}", response_model=AddressResponse, summary="Update an address", description="Change fields or Dasher instructions of one of the user's addresses, or make it the default.", tags=["account"], operation_id="update_address")
async def update_address(request: AddressUpdateRequest, address_id: int = Path(..., description="Address ID")):
    session = SessionLocal()
    address = session.query(Address).filter(Address.id == address_id, Address.user_id == 1).first()
    if request.is_default:
        session.query(Address).filter(Address.user_id == 1, Address.id != address.id).update({Address.is_default: False}, synchronize_session=False)
    if request.label is not None:
        address.label = request.label
    if request.street is not None:
        address.street = request.street
    if request.unit is not None:
        address.unit = request.unit
    if request.city is not None:
        address.city = request.city
    if request.state is not None:
        address.state = request.state
    if request.postal_code is not None:
        address.postal_code = request.postal_code
    if request.dropoff_instructions is not None:
        address.dropoff_instructions = request.dropoff_instructions
    if request.is_default is not None:
        address.is_default = request.is_default
    session.commit()
    session.refresh(address)
    result = AddressResponse.model_validate(address)
    session.close()
    return result


@app.delete("/api/me/addresses/{address_id}", response_model=ActionResponse, summary="Delete an address", description="Remove one of the user's saved addresses; past orders keep their delivery details.", tags=["account"], operation_id="delete_address")
async def delete_address(address_id: int = Path(..., description="Address ID")):
    session = SessionLocal()
    address = session.query(Address).filter(Address.id == address_id, Address.user_id == 1).first()
    label = address.label
    session.delete(address)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Address {address_id} ('{label}') deleted")


@app.get("/api/me/payment-methods", response_model=List[PaymentMethodResponse], summary="List my payment methods", description="List the current user's saved cards, default first.", tags=["account"], operation_id="list_payment_methods")
async def list_payment_methods():
    session = SessionLocal()
    methods = session.query(PaymentMethod).filter(PaymentMethod.user_id == 1).order_by(PaymentMethod.is_default.desc(), PaymentMethod.id).all()
    result = [PaymentMethodResponse.model_validate(method) for method in methods]
    session.close()
    return result


@app.patch("/api/me/payment-methods/{payment_method_id}", response_model=PaymentMethodResponse, summary="Update a payment method", description="Rename a card or make it the default payment method.", tags=["account"], operation_id="update_payment_method")
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


@app.get("/api/cuisines", response_model=List[CuisineResponse], summary="List cuisines", description="List all cuisines used to classify restaurants.", tags=["restaurants"], operation_id="list_cuisines")
async def list_cuisines():
    session = SessionLocal()
    cuisines = session.query(Cuisine).order_by(Cuisine.name).all()
    result = [CuisineResponse.model_validate(cuisine) for cuisine in cuisines]
    session.close()
    return result


@app.get("/api/restaurants/search", response_model=List[RestaurantResponse], summary="Search restaurants", description="Search restaurants by name with cuisine, city, open-now, DashPass, fee, rating and price filters.", tags=["restaurants"], operation_id="search_restaurants")
async def search_restaurants(q: Optional[str] = Query(None, description="Text matched against the restaurant name"), cuisine_id: Optional[int] = Query(None, description="Cuisine ID"), city: Optional[str] = Query(None, description="City, exact match"), open_now: bool = Query(False, description="Only restaurants accepting orders now"), dashpass_only: bool = Query(False, description="Only DashPass-eligible restaurants"), max_delivery_fee: Optional[float] = Query(None, description="Maximum standard delivery fee"), min_rating: Optional[float] = Query(None, description="Minimum rating"), price_level: Optional[int] = Query(None, description="Price level 1-4", ge=1, le=4), sort: str = Query("relevance", description="relevance, rating, delivery_fee or prep_time", pattern="^(relevance|rating|delivery_fee|prep_time)$"), limit: int = Query(20, description="Maximum number of results", ge=1, le=50)):
    session = SessionLocal()
    query = session.query(Restaurant)
    if q:
        query = query.filter(Restaurant.name.ilike(f"%{q}%"))
    if cuisine_id is not None:
        query = query.filter(Restaurant.cuisine_id == cuisine_id)
    if city:
        query = query.filter(Restaurant.city.ilike(city))
    if open_now:
        query = query.filter(Restaurant.is_open == True)
    if dashpass_only:
        query = query.filter(Restaurant.dashpass_eligible == True)
    if max_delivery_fee is not None:
        query = query.filter(Restaurant.delivery_fee <= max_delivery_fee)
    if min_rating is not None:
        query = query.filter(Restaurant.rating >= min_rating)
    if price_level is not None:
        query = query.filter(Restaurant.price_level == price_level)
    if sort == "rating":
        query = query.order_by(Restaurant.rating.desc(), Restaurant.rating_count.desc(), Restaurant.id)
    elif sort == "delivery_fee":
        query = query.order_by(Restaurant.delivery_fee, Restaurant.id)
    elif sort == "prep_time":
        query = query.order_by(Restaurant.avg_prep_minutes, Restaurant.id)
    else:
        query = query.order_by(Restaurant.rating_count.desc(), Restaurant.id)
    restaurants = query.limit(limit).all()
    result = [build_restaurant(session, restaurant) for restaurant in restaurants]
    session.close()
    return result


@app.get("/api/restaurants/{restaurant_id}", response_model=RestaurantResponse, summary="Get a restaurant", description="Return one restaurant's details, fees and opening status.", tags=["restaurants"], operation_id="get_restaurant")
async def get_restaurant(restaurant_id: int = Path(..., description="Restaurant ID")):
    session = SessionLocal()
    restaurant = session.query(Restaurant).filter(Restaurant.id == restaurant_id).first()
    result = build_restaurant(session, restaurant)
    session.close()
    return result


@app.get("/api/restaurants/{restaurant_id}/menu", response_model=MenuResponse, summary="Get a restaurant's menu", description="Return a restaurant's menu sections and dishes with prices, vegetarian flags and availability.", tags=["restaurants"], operation_id="get_restaurant_menu")
async def get_restaurant_menu(restaurant_id: int = Path(..., description="Restaurant ID")):
    session = SessionLocal()
    restaurant = session.query(Restaurant).filter(Restaurant.id == restaurant_id).first()
    categories = session.query(MenuCategory).filter(MenuCategory.restaurant_id == restaurant.id).order_by(MenuCategory.sort_order, MenuCategory.id).all()
    sections = []
    for category in categories:
        items = session.query(MenuItem).filter(MenuItem.category_id == category.id).order_by(MenuItem.id).all()
        sections.append(MenuCategoryResponse(id=category.id, name=category.name, items=[build_menu_item(session, item) for item in items]))
    result = MenuResponse(restaurant_id=restaurant.id, restaurant_name=restaurant.name, is_open=restaurant.is_open, categories=sections)
    session.close()
    return result


@app.get("/api/restaurants/{restaurant_id}/ratings", response_model=List[RatingResponse], summary="List restaurant ratings", description="List customer ratings and comments for a restaurant, newest first.", tags=["restaurants"], operation_id="list_restaurant_ratings")
async def list_restaurant_ratings(restaurant_id: int = Path(..., description="Restaurant ID"), limit: int = Query(20, description="Maximum number of ratings", ge=1, le=100)):
    session = SessionLocal()
    ratings = session.query(Rating).filter(Rating.restaurant_id == restaurant_id).order_by(Rating.created_at.desc(), Rating.id.desc()).limit(limit).all()
    result = [build_rating(session, rating) for rating in ratings]
    session.close()
    return result


@app.get("/api/menu-items/search", response_model=List[MenuItemResponse], summary="Search dishes", description="Search dishes across restaurants by name, with restaurant, city, price, vegetarian and availability filters; cheapest first.", tags=["restaurants"], operation_id="search_menu_items")
async def search_menu_items(q: Optional[str] = Query(None, description="Text matched against the dish name"), restaurant_id: Optional[int] = Query(None, description="Restaurant ID"), city: Optional[str] = Query(None, description="Restaurant city, exact match"), vegetarian_only: bool = Query(False, description="Only vegetarian dishes"), available_only: bool = Query(False, description="Only dishes that can be ordered now"), max_price: Optional[float] = Query(None, description="Maximum base price"), limit: int = Query(20, description="Maximum number of results", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(MenuItem).join(Restaurant, Restaurant.id == MenuItem.restaurant_id)
    if q:
        query = query.filter(MenuItem.name.ilike(f"%{q}%"))
    if restaurant_id is not None:
        query = query.filter(MenuItem.restaurant_id == restaurant_id)
    if city:
        query = query.filter(Restaurant.city.ilike(city))
    if vegetarian_only:
        query = query.filter(MenuItem.is_vegetarian == True)
    if available_only:
        query = query.filter(MenuItem.is_available == True)
    if max_price is not None:
        query = query.filter(MenuItem.price <= max_price)
    items = query.order_by(MenuItem.price, MenuItem.id).limit(limit).all()
    result = [build_menu_item(session, item) for item in items]
    session.close()
    return result


@app.get("/api/menu-items/{menu_item_id}", response_model=MenuItemDetailResponse, summary="Get a dish with options", description="Return one dish with its option groups (size, protein, add-ons) and each option's price.", tags=["restaurants"], operation_id="get_menu_item")
async def get_menu_item(menu_item_id: int = Path(..., description="Menu item ID")):
    session = SessionLocal()
    item = session.query(MenuItem).filter(MenuItem.id == menu_item_id).first()
    restaurant = session.query(Restaurant).filter(Restaurant.id == item.restaurant_id).first()
    category = session.query(MenuCategory).filter(MenuCategory.id == item.category_id).first()
    groups = session.query(ItemOptionGroup).filter(ItemOptionGroup.menu_item_id == item.id).order_by(ItemOptionGroup.id).all()
    option_groups = []
    for group in groups:
        options = session.query(ItemOption).filter(ItemOption.group_id == group.id).order_by(ItemOption.id).all()
        option_groups.append(OptionGroupResponse(id=group.id, name=group.name, min_select=group.min_select, max_select=group.max_select, options=[OptionResponse.model_validate(option) for option in options]))
    result = MenuItemDetailResponse(id=item.id, restaurant_id=item.restaurant_id, restaurant_name=restaurant.name, category_name=category.name, name=item.name, description=item.description, price=item.price, calories=item.calories, is_vegetarian=item.is_vegetarian, is_available=item.is_available, option_groups=option_groups)
    session.close()
    return result


@app.get("/api/me/favorites", response_model=List[FavoriteResponse], summary="List my favorite restaurants", description="List the restaurants the current user saved as favorites.", tags=["favorites"], operation_id="list_favorites")
async def list_favorites():
    session = SessionLocal()
    favorites = session.query(Favorite).filter(Favorite.user_id == 1).order_by(Favorite.created_at.desc(), Favorite.id.desc()).all()
    result = [FavoriteResponse(id=favorite.id, created_at=favorite.created_at, restaurant=build_restaurant(session, session.query(Restaurant).filter(Restaurant.id == favorite.restaurant_id).first())) for favorite in favorites]
    session.close()
    return result


@app.post("/api/me/favorites", response_model=FavoriteResponse, summary="Add a favorite restaurant", description="Save a restaurant to the current user's favorites.", tags=["favorites"], operation_id="add_favorite")
async def add_favorite(request: FavoriteCreateRequest):
    session = SessionLocal()
    restaurant = session.query(Restaurant).filter(Restaurant.id == request.restaurant_id).first()
    existing = session.query(Favorite).filter(Favorite.user_id == 1, Favorite.restaurant_id == restaurant.id).first()
    if existing is not None:
        result = FavoriteResponse(id=existing.id, created_at=existing.created_at, restaurant=build_restaurant(session, restaurant))
        session.close()
        return result
    favorite = Favorite(user_id=1, restaurant_id=restaurant.id, created_at=datetime.utcnow())
    session.add(favorite)
    session.commit()
    session.refresh(favorite)
    result = FavoriteResponse(id=favorite.id, created_at=favorite.created_at, restaurant=build_restaurant(session, restaurant))
    session.close()
    return result


@app.delete("/api/me/favorites/{restaurant_id}", response_model=ActionResponse, summary="Remove a favorite restaurant", description="Remove a restaurant from the current user's favorites.", tags=["favorites"], operation_id="remove_favorite")
async def remove_favorite(restaurant_id: int = Path(..., description="Restaurant ID")):
    session = SessionLocal()
    deleted = session.query(Favorite).filter(Favorite.user_id == 1, Favorite.restaurant_id == restaurant_id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Restaurant {restaurant_id} removed from favorites" if deleted else f"Restaurant {restaurant_id} was not a favorite")


@app.get("/api/me/cart", response_model=CartResponse, summary="Get my cart", description="Return the cart with options, subtotal and the fees that would apply at checkout.", tags=["cart"], operation_id="get_cart")
async def get_cart():
    session = SessionLocal()
    result = build_cart(session)
    session.close()
    return result


@app.post("/api/me/cart/items", response_model=CartItemResponse, summary="Add a dish to the cart", description="Add a dish with chosen options; the cart holds one open restaurant at a time, so clear it before ordering elsewhere.", tags=["cart"], operation_id="add_cart_item")
async def add_cart_item(request: CartItemCreateRequest):
    session = SessionLocal()
    item = session.query(MenuItem).filter(MenuItem.id == request.menu_item_id, MenuItem.is_available == True).first()
    other = session.query(CartItem).filter(CartItem.user_id == 1, CartItem.restaurant_id != item.restaurant_id).first()
    restaurant = session.query(Restaurant).filter(Restaurant.id == item.restaurant_id, Restaurant.is_open == True).first() if other is None else None
    options = [session.query(ItemOption).join(ItemOptionGroup, ItemOptionGroup.id == ItemOption.group_id).filter(ItemOption.id == option_id, ItemOption.is_available == True, ItemOptionGroup.menu_item_id == item.id).first() for option_id in sorted(set(request.option_ids))]
    groups = session.query(ItemOptionGroup).filter(ItemOptionGroup.menu_item_id == item.id).order_by(ItemOptionGroup.id).all()
    selected_option_ids = []
    for group in groups:
        chosen = [option for option in options if option.group_id == group.id]
        valid_group = session.query(ItemOptionGroup).filter(ItemOptionGroup.id == group.id, ItemOptionGroup.min_select <= len(chosen), ItemOptionGroup.max_select >= len(chosen)).first()
        group_id = valid_group.id
        selected_option_ids.extend(option.id for option in chosen if option.group_id == group_id)
    cart_item = CartItem(user_id=1, restaurant_id=restaurant.id, menu_item_id=item.id, quantity=request.quantity, special_instructions=request.special_instructions, added_at=datetime.utcnow())
    session.add(cart_item)
    session.flush()
    for option_id in selected_option_ids:
        session.add(CartItemOption(cart_item_id=cart_item.id, option_id=option_id))
    session.commit()
    session.refresh(cart_item)
    result = build_cart_item(session, cart_item)
    session.close()
    return result


@app.patch("/api/me/cart/items/{cart_item_id}", response_model=CartItemResponse, summary="Update a cart item", description="Change the quantity or special instructions of a cart item.", tags=["cart"], operation_id="update_cart_item")
async def update_cart_item(request: CartItemUpdateRequest, cart_item_id: int = Path(..., description="Cart item ID (not the menu item ID)")):
    session = SessionLocal()
    item = session.query(CartItem).filter(CartItem.id == cart_item_id, CartItem.user_id == 1).first()
    if request.quantity is not None:
        item.quantity = request.quantity
    if request.special_instructions is not None:
        item.special_instructions = request.special_instructions
    session.commit()
    session.refresh(item)
    result = build_cart_item(session, item)
    session.close()
    return result


@app.delete("/api/me/cart/items/{cart_item_id}", response_model=ActionResponse, summary="Remove a cart item", description="Remove one item from the cart.", tags=["cart"], operation_id="remove_cart_item")
async def remove_cart_item(cart_item_id: int = Path(..., description="Cart item ID (not the menu item ID)")):
    session = SessionLocal()
    item = session.query(CartItem).filter(CartItem.id == cart_item_id, CartItem.user_id == 1).first()
    session.query(CartItemOption).filter(CartItemOption.cart_item_id == item.id).delete(synchronize_session=False)
    session.delete(item)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Cart item {cart_item_id} removed")


@app.delete("/api/me/cart", response_model=ActionResponse, summary="Clear the cart", description="Remove every item from the current user's cart.", tags=["cart"], operation_id="clear_cart")
async def clear_cart():
    session = SessionLocal()
    deleted = clear_user_cart(session)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Removed {deleted} items from the cart")


@app.post("/api/me/orders", response_model=OrderResponse, summary="Place an order", description="Check out the cart to one of the user's addresses and cards, with an optional tip and promo code; the cart is emptied.", tags=["cart"], operation_id="place_order")
async def place_order(request: PlaceOrderRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    address = session.query(Address).filter(Address.id == request.address_id, Address.user_id == 1).first()
    payment = session.query(PaymentMethod).filter(PaymentMethod.id == request.payment_method_id, PaymentMethod.user_id == 1).first()
    cart_items = session.query(CartItem).filter(CartItem.user_id == 1).order_by(CartItem.id).all()
    restaurant = session.query(Restaurant).filter(Restaurant.id == cart_items[0].restaurant_id, Restaurant.is_open == True).first()
    lines = []
    for cart_item in cart_items:
        menu_item = session.query(MenuItem).filter(MenuItem.id == cart_item.menu_item_id, MenuItem.is_available == True).first()
        options = session.query(ItemOption).join(CartItemOption, CartItemOption.option_id == ItemOption.id).filter(CartItemOption.cart_item_id == cart_item.id).order_by(ItemOption.id).all()
        lines.append((cart_item, menu_item, options, round(menu_item.price + sum(option.price_delta for option in options), 2)))
    subtotal = round(sum(unit_price * cart_item.quantity for cart_item, menu_item, options, unit_price in lines), 2)
    applies, delivery_fee, service_fee, small_order_fee = compute_fees(session, restaurant, subtotal)
    discount = 0.0
    promotion_id = None
    if request.promo_code:
        has_dashpass = active_dashpass(session) is not None
        promotion = session.query(Promotion).filter(Promotion.code == request.promo_code.strip().upper(), Promotion.is_active == True, Promotion.expires_at > now, Promotion.min_subtotal <= subtotal, or_(Promotion.restaurant_id == None, Promotion.restaurant_id == restaurant.id), Promotion.dashpass_only.in_([False, has_dashpass])).first()
        promotion_id = promotion.id
        discount = promotion_discount(promotion, subtotal, delivery_fee)
    tax = round(subtotal * 0.0825, 2)
    tip = round(request.tip_amount, 2)
    total = round(subtotal + delivery_fee + service_fee + small_order_fee - discount + tax + tip, 2)
    order = Order(user_id=1, restaurant_id=restaurant.id, driver_id=None, payment_method_id=payment.id, promotion_id=promotion_id, status="placed", delivery_street=address.street, delivery_unit=address.unit, delivery_city=address.city, delivery_state=address.state, delivery_postal_code=address.postal_code, dropoff_instructions=request.dropoff_instructions if request.dropoff_instructions is not None else address.dropoff_instructions, subtotal=subtotal, delivery_fee=delivery_fee, service_fee=service_fee, small_order_fee=small_order_fee, discount=discount, tax=tax, tip=tip, total=total, placed_at=now, estimated_delivery_at=now + timedelta(minutes=restaurant.avg_prep_minutes + 20), delivered_at=None, cancelled_reason=None)
    session.add(order)
    session.flush()
    for cart_item, menu_item, options, unit_price in lines:
        order_item = OrderItem(order_id=order.id, menu_item_id=menu_item.id, item_name=menu_item.name, quantity=cart_item.quantity, unit_price=unit_price, special_instructions=cart_item.special_instructions)
        session.add(order_item)
        session.flush()
        for option in options:
            session.add(OrderItemOption(order_item_id=order_item.id, option_id=option.id, option_name=option.name, price_delta=option.price_delta))
    session.add(OrderStatusHistory(order_id=order.id, status="placed", note="Order placed", created_at=now))
    clear_user_cart(session)
    session.commit()
    session.refresh(order)
    result = build_order(session, order)
    session.close()
    return result


@app.get("/api/me/orders", response_model=List[OrderSummaryResponse], summary="List my orders", description="List the current user's orders, newest first, optionally by status or restaurant.", tags=["orders"], operation_id="list_orders")
async def list_orders(status: Optional[str] = Query(None, description="placed, confirmed, preparing, picked_up, delivered or cancelled", pattern="^(placed|confirmed|preparing|picked_up|delivered|cancelled)$"), restaurant_id: Optional[int] = Query(None, description="Restaurant ID"), limit: int = Query(20, description="Maximum number of orders", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Order).filter(Order.user_id == 1)
    if status:
        query = query.filter(Order.status == status)
    if restaurant_id is not None:
        query = query.filter(Order.restaurant_id == restaurant_id)
    orders = query.order_by(Order.placed_at.desc(), Order.id.desc()).limit(limit).all()
    result = [build_order_summary(session, order) for order in orders]
    session.close()
    return result


@app.get("/api/orders/{order_id}", response_model=OrderResponse, summary="Get an order", description="Return one of the user's orders with items, options, fees, tip, Dasher and delivery address.", tags=["orders"], operation_id="get_order")
async def get_order(order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1).first()
    result = build_order(session, order)
    session.close()
    return result


@app.get("/api/orders/{order_id}/history", response_model=List[OrderHistoryResponse], summary="Get order status history", description="List an order's status changes and events, oldest first.", tags=["orders"], operation_id="get_order_history")
async def get_order_history(order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1).first()
    entries = session.query(OrderStatusHistory).filter(OrderStatusHistory.order_id == order.id).order_by(OrderStatusHistory.created_at, OrderStatusHistory.id).all()
    result = [OrderHistoryResponse.model_validate(entry) for entry in entries]
    session.close()
    return result


@app.post("/api/orders/{order_id}/cancel", response_model=OrderResponse, summary="Cancel an order", description="Cancel an order the restaurant has not started preparing (status placed or confirmed).", tags=["orders"], operation_id="cancel_order")
async def cancel_order(request: CancelOrderRequest, order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1, Order.status.in_(["placed", "confirmed"])).first()
    order.status = "cancelled"
    order.cancelled_reason = request.reason
    session.add(OrderStatusHistory(order_id=order.id, status="cancelled", note=f"Cancelled: {request.reason}", created_at=datetime.utcnow()))
    session.commit()
    session.refresh(order)
    result = build_order(session, order)
    session.close()
    return result


@app.put("/api/orders/{order_id}/tip", response_model=OrderResponse, summary="Change the tip on an order", description="Set a new Dasher tip on an order that is not cancelled; the order total changes accordingly.", tags=["orders"], operation_id="update_order_tip")
async def update_order_tip(request: TipUpdateRequest, order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1, Order.status != "cancelled").first()
    new_tip = round(request.tip_amount, 2)
    order.total = round(order.total - order.tip + new_tip, 2)
    session.add(OrderStatusHistory(order_id=order.id, status="tip_updated", note=f"Tip changed from ${order.tip:.2f} to ${new_tip:.2f}", created_at=datetime.utcnow()))
    order.tip = new_tip
    session.commit()
    session.refresh(order)
    result = build_order(session, order)
    session.close()
    return result


@app.post("/api/orders/{order_id}/reorder", response_model=CartResponse, summary="Reorder a past order", description="Replace the cart with the dishes and options of a past order; items no longer available are skipped.", tags=["orders"], operation_id="reorder")
async def reorder(order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1).first()
    restaurant = session.query(Restaurant).filter(Restaurant.id == order.restaurant_id, Restaurant.is_open == True).first()
    clear_user_cart(session)
    order_items = session.query(OrderItem).filter(OrderItem.order_id == order.id).order_by(OrderItem.id).all()
    for order_item in order_items:
        menu_item = session.query(MenuItem).filter(MenuItem.id == order_item.menu_item_id, MenuItem.is_available == True).first()
        if menu_item is None:
            continue
        cart_item = CartItem(user_id=1, restaurant_id=restaurant.id, menu_item_id=menu_item.id, quantity=order_item.quantity, special_instructions=order_item.special_instructions, added_at=datetime.utcnow())
        session.add(cart_item)
        session.flush()
        option_ids = [row[0] for row in session.query(OrderItemOption.option_id).filter(OrderItemOption.order_item_id == order_item.id).all()]
        for option in session.query(ItemOption).filter(ItemOption.id.in_(option_ids), ItemOption.is_available == True).all():
            session.add(CartItemOption(cart_item_id=cart_item.id, option_id=option.id))
    session.commit()
    result = build_cart(session)
    session.close()
    return result


@app.post("/api/orders/{order_id}/rating", response_model=RatingResponse, summary="Rate a delivered order", description="Rate the restaurant and the Dasher of one of the user's delivered orders (once per order).", tags=["ratings"], operation_id="rate_order")
async def rate_order(request: RatingCreateRequest, order_id: int = Path(..., description="Order ID")):
    session = SessionLocal()
    order = session.query(Order).filter(Order.id == order_id, Order.user_id == 1, Order.status == "delivered").first()
    existing = session.query(Rating).filter(Rating.order_id == order.id).first()
    if existing is not None:
        result = build_rating(session, existing)
        session.close()
        return result
    restaurant = session.query(Restaurant).filter(Restaurant.id == order.restaurant_id).first()
    driver_rating = request.driver_rating if order.driver_id else None
    rating = Rating(order_id=order.id, user_id=1, restaurant_id=restaurant.id, driver_id=order.driver_id, restaurant_rating=request.restaurant_rating, driver_rating=driver_rating, comment=request.comment, created_at=datetime.utcnow())
    session.add(rating)
    restaurant.rating = round((restaurant.rating * restaurant.rating_count + request.restaurant_rating) / (restaurant.rating_count + 1), 2)
    restaurant.rating_count = restaurant.rating_count + 1
    if driver_rating is not None:
        driver = session.query(Driver).filter(Driver.id == order.driver_id).first()
        driver.rating = round((driver.rating * driver.rating_count + driver_rating) / (driver.rating_count + 1), 2)
        driver.rating_count = driver.rating_count + 1
    session.commit()
    session.refresh(rating)
    result = build_rating(session, rating)
    session.close()
    return result


@app.get("/api/me/ratings", response_model=List[RatingResponse], summary="List my ratings", description="List the ratings the current user gave, newest first.", tags=["ratings"], operation_id="list_my_ratings")
async def list_my_ratings():
    session = SessionLocal()
    ratings = session.query(Rating).filter(Rating.user_id == 1).order_by(Rating.created_at.desc(), Rating.id.desc()).all()
    result = [build_rating(session, rating) for rating in ratings]
    session.close()
    return result


@app.patch("/api/ratings/{rating_id}", response_model=RatingResponse, summary="Edit my rating", description="Change the stars or comment of one of the current user's ratings.", tags=["ratings"], operation_id="update_rating")
async def update_rating(request: RatingUpdateRequest, rating_id: int = Path(..., description="Rating ID")):
    session = SessionLocal()
    rating = session.query(Rating).filter(Rating.id == rating_id, Rating.user_id == 1).first()
    if request.restaurant_rating is not None:
        restaurant = session.query(Restaurant).filter(Restaurant.id == rating.restaurant_id).first()
        restaurant.rating = round((restaurant.rating * restaurant.rating_count - rating.restaurant_rating + request.restaurant_rating) / restaurant.rating_count, 2)
        rating.restaurant_rating = request.restaurant_rating
    if request.driver_rating is not None and rating.driver_id:
        driver = session.query(Driver).filter(Driver.id == rating.driver_id).first()
        if rating.driver_rating is None:
            driver.rating = round((driver.rating * driver.rating_count + request.driver_rating) / (driver.rating_count + 1), 2)
            driver.rating_count = driver.rating_count + 1
        else:
            driver.rating = round((driver.rating * driver.rating_count - rating.driver_rating + request.driver_rating) / driver.rating_count, 2)
        rating.driver_rating = request.driver_rating
    if request.comment is not None:
        rating.comment = request.comment
    session.commit()
    session.refresh(rating)
    result = build_rating(session, rating)
    session.close()
    return result


@app.get("/api/promotions", response_model=List[PromotionResponse], summary="List promotions", description="List active, unexpired promo codes; with restaurant_id, only codes usable at that restaurant.", tags=["promotions"], operation_id="list_promotions")
async def list_promotions(restaurant_id: Optional[int] = Query(None, description="Only codes valid at this restaurant (site-wide codes included)")):
    session = SessionLocal()
    query = session.query(Promotion).filter(Promotion.is_active == True, Promotion.expires_at > datetime.utcnow())
    if restaurant_id is not None:
        query = query.filter(or_(Promotion.restaurant_id == None, Promotion.restaurant_id == restaurant_id))
    promotions = query.order_by(Promotion.code).all()
    result = [build_promotion(session, promotion) for promotion in promotions]
    session.close()
    return result


@app.get("/api/promotions/{code}", response_model=PromotionResponse, summary="Look up a promo code", description="Return a promo code's rules (minimum subtotal, cap, restaurant, DashPass-only) and whether it is valid.", tags=["promotions"], operation_id="get_promotion")
async def get_promotion(code: str = Path(..., description="Promo code, case-insensitive")):
    session = SessionLocal()
    promotion = session.query(Promotion).filter(Promotion.code == code.strip().upper()).first()
    result = build_promotion(session, promotion)
    session.close()
    return result


@app.get("/api/me/dashpass", response_model=DashPassResponse, summary="Get my DashPass", description="Return the current user's DashPass plan, price, status, billing card and renewal date.", tags=["dashpass"], operation_id="get_dashpass")
async def get_dashpass():
    session = SessionLocal()
    subscription = session.query(DashPassSubscription).filter(DashPassSubscription.user_id == 1).first()
    result = build_dashpass(session, subscription)
    session.close()
    return result


@app.post("/api/me/dashpass", response_model=DashPassResponse, summary="Join DashPass", description="Start a DashPass membership on the monthly ($9.99) or annual ($96.00) plan for a user without one.", tags=["dashpass"], operation_id="subscribe_dashpass")
async def subscribe_dashpass(request: DashPassCreateRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    payment = session.query(PaymentMethod).filter(PaymentMethod.id == request.payment_method_id, PaymentMethod.user_id == 1).first()
    subscription = DashPassSubscription(user_id=1, plan=request.plan, price=96.0 if request.plan == "annual" else 9.99, status="active", payment_method_id=payment.id, started_at=now, renews_at=now + timedelta(days=365 if request.plan == "annual" else 30))
    session.add(subscription)
    session.commit()
    session.refresh(subscription)
    result = build_dashpass(session, subscription)
    session.close()
    return result


@app.patch("/api/me/dashpass", response_model=DashPassResponse, summary="Change my DashPass", description="Switch between monthly and annual plans, change the billing card, or pause, resume or cancel DashPass.", tags=["dashpass"], operation_id="update_dashpass")
async def update_dashpass(request: DashPassUpdateRequest):
    session = SessionLocal()
    subscription = session.query(DashPassSubscription).filter(DashPassSubscription.user_id == 1).first()
    if request.plan is not None:
        subscription.plan = request.plan
        subscription.price = 96.0 if request.plan == "annual" else 9.99
    if request.payment_method_id is not None:
        payment = session.query(PaymentMethod).filter(PaymentMethod.id == request.payment_method_id, PaymentMethod.user_id == 1).first()
        subscription.payment_method_id = payment.id
    if request.status is not None:
        subscription.status = request.status
        if request.status == "cancelled":
            subscription.renews_at = None
        elif subscription.renews_at is None:
            subscription.renews_at = datetime.utcnow() + timedelta(days=365 if subscription.plan == "annual" else 30)
    session.commit()
    session.refresh(subscription)
    result = build_dashpass(session, subscription)
    session.close()
    return result


if __name__ == "__main__":
    import uvicorn
    host = os.getenv("HOST", "127.0.0.1")
    port = int(os.getenv("PORT", "8000"))
    uvicorn.run(app, host=host, port=port)
