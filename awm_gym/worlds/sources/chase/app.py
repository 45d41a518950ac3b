import os
from datetime import datetime, timedelta
from typing import List, Optional

from fastapi import FastAPI, Query, Path
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Text, Boolean, DateTime, ForeignKey, UniqueConstraint, func
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///chase.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class Customer(Base):
    __tablename__ = "customers"
    id = Column(Integer, primary_key=True)
    first_name = Column(String, nullable=False)
    last_name = Column(String, nullable=False)
    email = Column(String, nullable=False, unique=True)
    phone = Column(String)
    address_line = Column(String, nullable=False)
    city = Column(String, nullable=False)
    state = Column(String, nullable=False)
    zip = Column(String, nullable=False)
    date_of_birth = Column(String, nullable=False)
    customer_since = Column(String, nullable=False)


class Branch(Base):
    __tablename__ = "branches"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)
    address = Column(String, nullable=False)
    city = Column(String, nullable=False)
    state = Column(String, nullable=False)
    routing_number = Column(String, nullable=False)
    phone = Column(String)


class Category(Base):
    __tablename__ = "categories"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)
    is_spending = Column(Boolean, nullable=False, default=True)


class Merchant(Base):
    __tablename__ = "merchants"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)
    category_id = Column(Integer, ForeignKey("categories.id"), nullable=False)
    city = Column(String)
    mcc = Column(String)


class Account(Base):
    __tablename__ = "accounts"
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    branch_id = Column(Integer, ForeignKey("branches.id"))
    account_type = Column(String, nullable=False)
    nickname = Column(String, nullable=False)
    account_last4 = Column(String, nullable=False)
    status = Column(String, nullable=False, default="open")
    balance_cents = Column(Integer, nullable=False, default=0)
    credit_limit_cents = Column(Integer)
    rate_bps = Column(Integer, nullable=False, default=0)
    opened_on = Column(String, nullable=False)


class Card(Base):
    __tablename__ = "cards"
    id = Column(Integer, primary_key=True)
    account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    card_type = Column(String, nullable=False)
    last4 = Column(String, nullable=False)
    cardholder_name = Column(String, nullable=False)
    expiry = Column(String, nullable=False)
    status = Column(String, nullable=False, default="active")
    is_locked = Column(Boolean, nullable=False, default=False)
    daily_limit_cents = Column(Integer)
    contactless_enabled = Column(Boolean, nullable=False, default=True)
    international_enabled = Column(Boolean, nullable=False, default=False)
    issued_on = Column(String, nullable=False)


class Transaction(Base):
    __tablename__ = "transactions"
    id = Column(Integer, primary_key=True)
    account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    card_id = Column(Integer, ForeignKey("cards.id"))
    merchant_id = Column(Integer, ForeignKey("merchants.id"))
    category_id = Column(Integer, ForeignKey("categories.id"))
    transaction_type = Column(String, nullable=False)
    amount_cents = Column(Integer, nullable=False)
    description = Column(String, nullable=False)
    status = Column(String, nullable=False, default="posted")
    posted_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Payee(Base):
    __tablename__ = "payees"
    __table_args__ = (UniqueConstraint("customer_id", "name", "account_ref"),)
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    name = Column(String, nullable=False)
    category = Column(String, nullable=False)
    account_ref = Column(String, nullable=False)
    nickname = Column(String)
    address = Column(String)
    is_active = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Ebill(Base):
    __tablename__ = "ebills"
    __table_args__ = (UniqueConstraint("payee_id", "statement_date"),)
    id = Column(Integer, primary_key=True)
    payee_id = Column(Integer, ForeignKey("payees.id"), nullable=False)
    statement_date = Column(String, nullable=False)
    amount_due_cents = Column(Integer, nullable=False)
    due_date = Column(String, nullable=False)
    status = Column(String, nullable=False, default="unpaid")


class BillPayment(Base):
    __tablename__ = "bill_payments"
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    payee_id = Column(Integer, ForeignKey("payees.id"), nullable=False)
    from_account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    ebill_id = Column(Integer, ForeignKey("ebills.id"))
    amount_cents = Column(Integer, nullable=False)
    send_on = Column(String, nullable=False)
    status = Column(String, nullable=False)
    memo = Column(String)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    paid_at = Column(DateTime)


class Transfer(Base):
    __tablename__ = "transfers"
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    from_account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    to_account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    amount_cents = Column(Integer, nullable=False)
    frequency = Column(String, nullable=False, default="once")
    send_on = Column(String, nullable=False)
    status = Column(String, nullable=False)
    memo = Column(String)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Autopay(Base):
    __tablename__ = "autopays"
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    card_account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False, unique=True)
    from_account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    amount_type = Column(String, nullable=False)
    fixed_amount_cents = Column(Integer)
    is_active = Column(Boolean, nullable=False, default=True)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class ZelleContact(Base):
    __tablename__ = "zelle_contacts"
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    name = Column(String, nullable=False)
    email = Column(String)
    phone = Column(String)
    is_favorite = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class ZellePayment(Base):
    __tablename__ = "zelle_payments"
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    contact_id = Column(Integer, ForeignKey("zelle_contacts.id"), nullable=False)
    account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    direction = Column(String, nullable=False)
    amount_cents = Column(Integer, nullable=False)
    memo = Column(String)
    status = Column(String, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Alert(Base):
    __tablename__ = "alerts"
    __table_args__ = (UniqueConstraint("account_id", "alert_type", "channel"),)
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    alert_type = Column(String, nullable=False)
    channel = Column(String, nullable=False)
    threshold_cents = Column(Integer)
    is_enabled = Column(Boolean, nullable=False, default=True)


class Statement(Base):
    __tablename__ = "statements"
    __table_args__ = (UniqueConstraint("account_id", "period_end"),)
    id = Column(Integer, primary_key=True)
    account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    period_start = Column(String, nullable=False)
    period_end = Column(String, nullable=False)
    opening_balance_cents = Column(Integer, nullable=False)
    closing_balance_cents = Column(Integer, nullable=False)
    total_debits_cents = Column(Integer, nullable=False, default=0)
    total_credits_cents = Column(Integer, nullable=False, default=0)
    interest_cents = Column(Integer, nullable=False, default=0)
    minimum_due_cents = Column(Integer)
    due_date = Column(String)


class Dispute(Base):
    __tablename__ = "disputes"
    id = Column(Integer, primary_key=True)
    customer_id = Column(Integer, ForeignKey("customers.id"), nullable=False)
    transaction_id = Column(Integer, ForeignKey("transactions.id"), nullable=False, unique=True)
    reason = Column(String, nullable=False)
    amount_cents = Column(Integer, nullable=False)
    description = Column(Text)
    status = Column(String, nullable=False, default="open")
    provisional_credit_cents = Column(Integer, nullable=False, default=0)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class TravelNotice(Base):
    __tablename__ = "travel_notices"
    id = Column(Integer, primary_key=True)
    card_id = Column(Integer, ForeignKey("cards.id"), nullable=False)
    destination = Column(String, nullable=False)
    start_date = Column(String, nullable=False)
    end_date = Column(String, nullable=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class SavingsGoal(Base):
    __tablename__ = "savings_goals"
    __table_args__ = (UniqueConstraint("account_id", "name"),)
    id = Column(Integer, primary_key=True)
    account_id = Column(Integer, ForeignKey("accounts.id"), nullable=False)
    name = Column(String, nullable=False)
    target_cents = Column(Integer, nullable=False)
    target_date = Column(String)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


Base.metadata.create_all(bind=engine)


class CustomerResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Customer ID", example=1)
    first_name: str = Field(..., description="First name", example="Priya")
    last_name: str = Field(..., description="Last name", example="Raman")
    email: str = Field(..., description="Email address", example="priya.raman@example.com")
    phone: Optional[str] = Field(None, description="Mobile phone", example="+1-415-555-0134")
    address_line: str = Field(..., description="Street address", example="2150 Fillmore St Apt 4")
    city: str = Field(..., description="City", example="San Francisco")
    state: str = Field(..., description="Two-letter state", example="CA")
    zip: str = Field(..., description="ZIP code", example="94115")
    customer_since: str = Field(..., description="Customer since (YYYY-MM-DD)", example="2014-03-02")


class AccountResponse(BaseModel):
    id: int = Field(..., description="Account ID", example=1)
    account_type: str = Field(..., description="checking, savings or credit_card", example="checking")
    nickname: str = Field(..., description="Account name", example="Total Checking")
    account_last4: str = Field(..., description="Last four digits of the account number", example="4417")
    status: str = Field(..., description="open, frozen or closed", example="open")
    balance_cents: int = Field(..., description="Balance in cents; for credit cards, the amount currently owed", example=684215)
    credit_limit_cents: Optional[int] = Field(None, description="Credit limit in cents (credit cards only)", example=None)
    available_credit_cents: Optional[int] = Field(None, description="Credit limit minus amount owed (credit cards only)", example=None)
    rate_bps: int = Field(..., description="Savings APY or card APR in basis points", example=0)
    branch_name: Optional[str] = Field(None, description="Home branch", example="Fillmore Street")
    routing_number: Optional[str] = Field(None, description="Routing number", example="322271627")
    opened_on: str = Field(..., description="Opening date (YYYY-MM-DD)", example="2014-03-02")


class TransactionResponse(BaseModel):
    id: int = Field(..., description="Transaction ID", example=41)
    account_id: int = Field(..., description="Account ID", example=3)
    posted_at: datetime = Field(..., description="Posting time", example="2025-12-18T14:03:00")
    description: str = Field(..., description="Statement description", example="LUMEN ELECTRONICS")
    amount_cents: int = Field(..., description="Signed amount in cents: negative = money out or a card charge, positive = money in or a card credit", example=-8450)
    transaction_type: str = Field(..., description="purchase, refund, deposit, withdrawal, transfer_in, transfer_out, bill_payment, card_payment, zelle_in, zelle_out, interest, fee or dispute_credit", example="purchase")
    status: str = Field(..., description="pending or posted", example="posted")
    merchant_name: Optional[str] = Field(None, description="Merchant", example="Lumen Electronics")
    category: Optional[str] = Field(None, description="Spending category", example="Shopping")
    card_last4: Optional[str] = Field(None, description="Card used, if any", example="4402")


class CategoryResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Category ID", example=2)
    name: str = Field(..., description="Category name", example="Dining")
    is_spending: bool = Field(..., description="Whether the category counts as spending", example=True)


class SpendingCategoryResponse(BaseModel):
    category: str = Field(..., description="Category name", example="Dining")
    total_cents: int = Field(..., description="Net spent in cents (charges minus refunds)", example=22255)
    transaction_count: int = Field(..., description="Number of transactions", example=3)


class SpendingSummaryResponse(BaseModel):
    account_id: int = Field(..., description="Account ID", example=3)
    month: str = Field(..., description="Month (YYYY-MM)", example="2025-12")
    total_spent_cents: int = Field(..., description="Net spending in cents across categories", example=100000)
    categories: List[SpendingCategoryResponse] = Field(..., description="Spending by category, largest first", example=[{"category": "Dining", "total_cents": 22255, "transaction_count": 3}])


class StatementResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Statement ID", example=4)
    account_id: int = Field(..., description="Account ID", example=4)
    period_start: str = Field(..., description="First day of the period", example="2025-11-21")
    period_end: str = Field(..., description="Closing date", example="2025-12-20")
    opening_balance_cents: int = Field(..., description="Balance at the start of the period", example=18800)
    closing_balance_cents: int = Field(..., description="Statement balance at the closing date", example=24504)
    total_debits_cents: int = Field(..., description="Charges and money out in the period", example=24504)
    total_credits_cents: int = Field(..., description="Payments, credits and money in", example=18800)
    interest_cents: int = Field(..., description="Interest charged or earned", example=0)
    minimum_due_cents: Optional[int] = Field(None, description="Minimum payment due (credit cards)", example=2500)
    due_date: Optional[str] = Field(None, description="Payment due date (credit cards)", example="2026-01-18")


class CardResponse(BaseModel):
    id: int = Field(..., description="Card ID", example=1)
    account_id: int = Field(..., description="Account the card draws on", example=1)
    account_nickname: str = Field(..., description="Account name", example="Total Checking")
    card_type: str = Field(..., description="debit or credit", example="debit")
    last4: str = Field(..., description="Last four digits of the card number", example="6021")
    cardholder_name: str = Field(..., description="Name on the card", example="PRIYA RAMAN")
    expiry: str = Field(..., description="Expiry (YYYY-MM)", example="2028-05")
    status: str = Field(..., description="active, replaced or closed", example="active")
    is_locked: bool = Field(..., description="Whether new purchases are blocked", example=False)
    daily_limit_cents: Optional[int] = Field(None, description="Daily purchase and ATM limit (debit cards)", example=300000)
    contactless_enabled: bool = Field(..., description="Tap to pay on or off", example=True)
    international_enabled: bool = Field(..., description="Whether transactions abroad are allowed", example=False)
    issued_on: str = Field(..., description="Issue date", example="2024-05-10")


class TravelNoticeResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Travel notice ID", example=1)
    card_id: int = Field(..., description="Card ID", example=2)
    destination: str = Field(..., description="Destination country or region", example="Canada")
    start_date: str = Field(..., description="First travel day", example="2025-06-01")
    end_date: str = Field(..., description="Last travel day", example="2025-06-10")
    created_at: datetime = Field(..., description="Created at", example="2025-05-28T20:00:00")


class PayeeResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Payee ID", example=4)
    name: str = Field(..., description="Payee name", example="Bay Power & Gas")
    category: str = Field(..., description="utilities, telecom, rent, insurance, loan, credit_card or other", example="utilities")
    account_ref: str = Field(..., description="Your account number with the payee", example="7710-3318")
    nickname: Optional[str] = Field(None, description="Nickname", example="Tahoe Cabin")
    address: Optional[str] = Field(None, description="Payee address", example="PO Box 8000, San Francisco CA")
    is_active: bool = Field(..., description="Whether the payee is active", example=True)


class EbillResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="eBill ID", example=4)
    payee_id: int = Field(..., description="Payee ID", example=4)
    statement_date: str = Field(..., description="Bill date", example="2025-12-20")
    amount_due_cents: int = Field(..., description="Amount due in cents", example=6411)
    due_date: str = Field(..., description="Due date", example="2026-01-20")
    status: str = Field(..., description="unpaid, scheduled or paid", example="unpaid")


class BillPaymentResponse(BaseModel):
    id: int = Field(..., description="Bill payment ID", example=5)
    payee_id: int = Field(..., description="Payee ID", example=2)
    payee_name: str = Field(..., description="Payee name", example="Xfinet Internet")
    payee_nickname: Optional[str] = Field(None, description="Payee nickname", example=None)
    from_account_id: int = Field(..., description="Account paid from", example=1)
    ebill_id: Optional[int] = Field(None, description="eBill paid, if any", example=5)
    amount_cents: int = Field(..., description="Amount in cents", example=8998)
    send_on: str = Field(..., description="Payment date (YYYY-MM-DD)", example="2025-12-10")
    status: str = Field(..., description="scheduled, paid or cancelled", example="paid")
    memo: Optional[str] = Field(None, description="Memo", example=None)
    created_at: datetime = Field(..., description="Created at", example="2025-12-09T21:00:00")
    paid_at: Optional[datetime] = Field(None, description="When the payment was sent", example="2025-12-10T09:00:00")


class TransferResponse(BaseModel):
    id: int = Field(..., description="Transfer ID", example=1)
    from_account_id: int = Field(..., description="Source account ID", example=1)
    from_account_name: str = Field(..., description="Source account name", example="Total Checking")
    to_account_id: int = Field(..., description="Destination account ID", example=5)
    to_account_name: str = Field(..., description="Destination account name", example="Vacation Fund")
    amount_cents: int = Field(..., description="Amount in cents", example=20000)
    frequency: str = Field(..., description="once, weekly or monthly", example="monthly")
    send_on: str = Field(..., description="Date of the transfer, or of the next one for recurring transfers", example="2026-01-15")
    status: str = Field(..., description="scheduled, completed or cancelled", example="scheduled")
    memo: Optional[str] = Field(None, description="Memo", example="Vacation savings")
    created_at: datetime = Field(..., description="Created at", example="2023-04-01T09:00:00")


class AutopayResponse(BaseModel):
    id: int = Field(..., description="Autopay ID", example=1)
    card_account_id: int = Field(..., description="Credit card account paid", example=4)
    card_name: str = Field(..., description="Credit card account name", example="Freedom Unlimited")
    from_account_id: int = Field(..., description="Account paid from", example=1)
    from_account_name: str = Field(..., description="Paying account name", example="Total Checking")
    amount_type: str = Field(..., description="minimum_due, statement_balance or fixed", example="minimum_due")
    fixed_amount_cents: Optional[int] = Field(None, description="Amount for fixed autopay", example=None)
    is_active: bool = Field(..., description="Whether autopay is on", example=True)


class ZelleContactResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Contact ID", example=1)
    name: str = Field(..., description="Contact name", example="Maya Chen")
    email: Optional[str] = Field(None, description="Zelle email", example="maya.chen@example.com")
    phone: Optional[str] = Field(None, description="Zelle phone", example=None)
    is_favorite: bool = Field(..., description="Favorite contact", example=True)


class ZellePaymentResponse(BaseModel):
    id: int = Field(..., description="Zelle payment ID", example=8)
    contact_id: int = Field(..., description="Contact ID", example=2)
    contact_name: str = Field(..., description="Contact name", example="Sam Ortiz")
    account_id: int = Field(..., description="Account used", example=1)
    direction: str = Field(..., description="sent, received or requested", example="sent")
    amount_cents: int = Field(..., description="Amount in cents", example=6000)
    memo: Optional[str] = Field(None, description="Memo", example="Concert tickets")
    status: str = Field(..., description="pending, completed, cancelled or declined", example="completed")
    created_at: datetime = Field(..., description="When it was sent or requested", example="2025-12-12T19:30:00")


class AlertResponse(BaseModel):
    id: int = Field(..., description="Alert ID", example=5)
    account_id: int = Field(..., description="Account ID", example=3)
    account_nickname: str = Field(..., description="Account name", example="Sapphire Preferred")
    alert_type: str = Field(..., description="low_balance, large_purchase, payment_due, deposit_received, international or card_not_present", example="international")
    channel: str = Field(..., description="email, sms or push", example="sms")
    threshold_cents: Optional[int] = Field(None, description="Threshold for balance and purchase alerts", example=None)
    is_enabled: bool = Field(..., description="Whether the alert is on", example=False)


class DisputeResponse(BaseModel):
    id: int = Field(..., description="Dispute ID", example=1)
    transaction_id: int = Field(..., description="Disputed transaction ID", example=46)
    transaction_description: str = Field(..., description="Disputed transaction", example="RIDENOW TRIP")
    reason: str = Field(..., description="unauthorized, duplicate, not_received, incorrect_amount, defective or other", example="unauthorized")
    amount_cents: int = Field(..., description="Disputed amount in cents", example=1890)
    description: Optional[str] = Field(None, description="Customer explanation", example="I did not take this ride")
    status: str = Field(..., description="open, under_review, resolved_customer, resolved_merchant or withdrawn", example="resolved_customer")
    provisional_credit_cents: int = Field(..., description="Temporary credit given while the dispute is open (credit cards)", example=1890)
    created_at: datetime = Field(..., description="Filed at", example="2025-11-10T09:00:00")


class SavingsGoalResponse(BaseModel):
    id: int = Field(..., description="Goal ID", example=1)
    account_id: int = Field(..., description="Savings account ID", example=5)
    account_nickname: str = Field(..., description="Savings account name", example="Vacation Fund")
    name: str = Field(..., description="Goal name", example="Japan Trip")
    target_cents: int = Field(..., description="Target in cents", example=600000)
    saved_cents: int = Field(..., description="Current balance of the account", example=320000)
    progress_percent: int = Field(..., description="Saved as a percentage of the target (max 100)", example=53)
    target_date: Optional[str] = Field(None, description="Target date", example="2026-03-01")


class ActionResponse(BaseModel):
    success: bool = Field(..., description="Whether the action succeeded", example=True)
    message: str = Field(..., description="Human-readable result", example="Transfer 1 cancelled")


class ContactInfoUpdateRequest(BaseModel):
    email: Optional[str] = Field(None, description="New email", example=None)
    phone: Optional[str] = Field(None, description="New mobile phone", example="+1-415-555-0199")
    address_line: Optional[str] = Field(None, description="New street address", example=None)
    city: Optional[str] = Field(None, description="New city", example=None)
    state: Optional[str] = Field(None, description="New two-letter state", example=None, pattern="^[A-Z]{2}$")
    zip: Optional[str] = Field(None, description="New ZIP code", example=None)


class AccountRenameRequest(BaseModel):
    nickname: str = Field(..., description="New account name", example="Everyday Checking", min_length=1)


class CardLockRequest(BaseModel):
    locked: bool = Field(..., description="true to lock the card, false to unlock it", example=True)


class CardSettingsRequest(BaseModel):
    daily_limit_cents: Optional[int] = Field(None, description="New daily limit in cents (debit cards)", example=100000, ge=1)
    contactless_enabled: Optional[bool] = Field(None, description="Turn tap to pay on or off", example=None)
    international_enabled: Optional[bool] = Field(None, description="Allow or block transactions abroad", example=True)


class ReportLostRequest(BaseModel):
    reason: str = Field(..., description="lost or stolen", example="lost", pattern="^(lost|stolen)$")


class TravelNoticeRequest(BaseModel):
    destination: str = Field(..., description="Destination country or region", example="Japan")
    start_date: str = Field(..., description="First travel day (YYYY-MM-DD)", example="2026-03-28", pattern=r"^\d{4}-\d{2}-\d{2}$")
    end_date: str = Field(..., description="Last travel day (YYYY-MM-DD)", example="2026-04-06", pattern=r"^\d{4}-\d{2}-\d{2}$")


class PayeeCreateRequest(BaseModel):
    name: str = Field(..., description="Payee name", example="Golden Gate Parking")
    category: str = Field(..., description="utilities, telecom, rent, insurance, loan, credit_card or other", example="other", pattern="^(utilities|telecom|rent|insurance|loan|credit_card|other)$")
    account_ref: str = Field(..., description="Your account number with the payee", example="GG-1021")
    nickname: Optional[str] = Field(None, description="Nickname", example=None)
    address: Optional[str] = Field(None, description="Payee address", example=None)


class BillPaymentRequest(BaseModel):
    payee_id: int = Field(..., description="Payee to pay", example=4)
    from_account_id: int = Field(..., description="Checking or savings account to pay from", example=1)
    amount_cents: int = Field(..., description="Amount in cents", example=6411, ge=1)
    send_on: Optional[str] = Field(None, description="Future date (YYYY-MM-DD) to schedule the payment; pays now when omitted", example=None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    ebill_id: Optional[int] = Field(None, description="eBill this payment settles", example=4)
    memo: Optional[str] = Field(None, description="Memo", example=None)


class TransferRequest(BaseModel):
    from_account_id: int = Field(..., description="Checking or savings account to move money from", example=5)
    to_account_id: int = Field(..., description="Account to move money to (a credit card account means a card payment)", example=1)
    amount_cents: int = Field(..., description="Amount in cents", example=50000, ge=1)
    frequency: str = Field("once", description="once, weekly or monthly", example="once", pattern="^(once|weekly|monthly)$")
    send_on: Optional[str] = Field(None, description="Date (YYYY-MM-DD) of the first transfer; a one-time transfer without it happens now", example=None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    memo: Optional[str] = Field(None, description="Memo", example=None)


class AutopayUpdateRequest(BaseModel):
    amount_type: Optional[str] = Field(None, description="minimum_due, statement_balance or fixed", example="statement_balance", pattern="^(minimum_due|statement_balance|fixed)$")
    fixed_amount_cents: Optional[int] = Field(None, description="Amount for fixed autopay in cents", example=None, ge=1)
    from_account_id: Optional[int] = Field(None, description="New account to pay from", example=None)
    is_active: Optional[bool] = Field(None, description="Turn autopay on or off", example=None)


class ZelleContactCreateRequest(BaseModel):
    name: str = Field(..., description="Contact name", example="Lena Ortiz")
    email: Optional[str] = Field(None, description="Zelle email", example="lena.ortiz@example.com")
    phone: Optional[str] = Field(None, description="Zelle phone (used when no email)", example=None)


class ZelleSendRequest(BaseModel):
    contact_id: int = Field(..., description="Contact to pay", example=1)
    from_account_id: int = Field(..., description="Checking account to send from", example=1)
    amount_cents: int = Field(..., description="Amount in cents (at most $2,500.00)", example=4499, ge=1, le=250000)
    memo: Optional[str] = Field(None, description="Memo shown to the recipient", example="Internet Dec")


class ZelleRequestCreateRequest(BaseModel):
    contact_id: int = Field(..., description="Contact to request money from", example=5)
    to_account_id: int = Field(..., description="Checking account to receive the money", example=1)
    amount_cents: int = Field(..., description="Amount in cents", example=3500, ge=1, le=250000)
    memo: Optional[str] = Field(None, description="Memo shown to the contact", example=None)


class AlertCreateRequest(BaseModel):
    account_id: int = Field(..., description="Account to watch", example=1)
    alert_type: str = Field(..., description="low_balance, large_purchase, payment_due, deposit_received, international or card_not_present", example="large_purchase", pattern="^(low_balance|large_purchase|payment_due|deposit_received|international|card_not_present)$")
    channel: str = Field(..., description="email, sms or push", example="push", pattern="^(email|sms|push)$")
    threshold_cents: Optional[int] = Field(None, description="Threshold for balance and purchase alerts", example=100000, ge=1)


class AlertUpdateRequest(BaseModel):
    threshold_cents: Optional[int] = Field(None, description="New threshold in cents", example=None, ge=1)
    is_enabled: Optional[bool] = Field(None, description="Turn the alert on or off", example=True)


class DisputeCreateRequest(BaseModel):
    transaction_id: int = Field(..., description="Posted purchase to dispute", example=41)
    reason: str = Field(..., description="unauthorized, duplicate, not_received, incorrect_amount, defective or other", example="duplicate", pattern="^(unauthorized|duplicate|not_received|incorrect_amount|defective|other)$")
    description: Optional[str] = Field(None, description="What went wrong", example="Charged twice for the same order")


class SavingsGoalCreateRequest(BaseModel):
    account_id: int = Field(..., description="Savings account", example=5)
    name: str = Field(..., description="Goal name", example="New Laptop")
    target_cents: int = Field(..., description="Target in cents", example=200000, ge=1)
    target_date: Optional[str] = Field(None, description="Target date (YYYY-MM-DD)", example=None, pattern=r"^\d{4}-\d{2}-\d{2}$")


app = FastAPI(
    title="Chase API",
    description="Online banking for the logged-in customer: accounts, transactions and statements, cards, bill pay, transfers, card autopay, Zelle, alerts, disputes and savings goals.",
    version="1.0.0",
)


def get_owned_account(session, account_id):
    return session.query(Account).filter(Account.id == account_id, Account.customer_id == 1).first()


def get_owned_card(session, card_id):
    return session.query(Card).join(Account, Account.id == Card.account_id).filter(Card.id == card_id, Account.customer_id == 1).first()


def build_account(session, account):
    branch = session.query(Branch).filter(Branch.id == account.branch_id).first() if account.branch_id else None
    available = account.credit_limit_cents - account.balance_cents if account.credit_limit_cents is not None else None
    return AccountResponse(id=account.id, account_type=account.account_type, nickname=account.nickname, account_last4=account.account_last4, status=account.status, balance_cents=account.balance_cents, credit_limit_cents=account.credit_limit_cents, available_credit_cents=available, rate_bps=account.rate_bps, branch_name=branch.name if branch else None, routing_number=branch.routing_number if branch else None, opened_on=account.opened_on)


def build_transaction(session, item):
    merchant = session.query(Merchant).filter(Merchant.id == item.merchant_id).first() if item.merchant_id else None
    category = session.query(Category).filter(Category.id == item.category_id).first() if item.category_id else None
    card = session.query(Card).filter(Card.id == item.card_id).first() if item.card_id else None
    return TransactionResponse(id=item.id, account_id=item.account_id, posted_at=item.posted_at, description=item.description, amount_cents=item.amount_cents, transaction_type=item.transaction_type, status=item.status, merchant_name=merchant.name if merchant else None, category=category.name if category else None, card_last4=card.last4 if card else None)


def build_card(session, card):
    account = session.query(Account).filter(Account.id == card.account_id).first()
    return CardResponse(id=card.id, account_id=card.account_id, account_nickname=account.nickname, card_type=card.card_type, last4=card.last4, cardholder_name=card.cardholder_name, expiry=card.expiry, status=card.status, is_locked=card.is_locked, daily_limit_cents=card.daily_limit_cents, contactless_enabled=card.contactless_enabled, international_enabled=card.international_enabled, issued_on=card.issued_on)


def build_bill_payment(session, payment):
    payee = session.query(Payee).filter(Payee.id == payment.payee_id).first()
    return BillPaymentResponse(id=payment.id, payee_id=payee.id, payee_name=payee.name, payee_nickname=payee.nickname, from_account_id=payment.from_account_id, ebill_id=payment.ebill_id, amount_cents=payment.amount_cents, send_on=payment.send_on, status=payment.status, memo=payment.memo, created_at=payment.created_at, paid_at=payment.paid_at)


def build_transfer(session, transfer):
    source = session.query(Account).filter(Account.id == transfer.from_account_id).first()
    target = session.query(Account).filter(Account.id == transfer.to_account_id).first()
    return TransferResponse(id=transfer.id, from_account_id=source.id, from_account_name=source.nickname, to_account_id=target.id, to_account_name=target.nickname, amount_cents=transfer.amount_cents, frequency=transfer.frequency, send_on=transfer.send_on, status=transfer.status, memo=transfer.memo, created_at=transfer.created_at)


def build_autopay(session, autopay):
    card_account = session.query(Account).filter(Account.id == autopay.card_account_id).first()
    source = session.query(Account).filter(Account.id == autopay.from_account_id).first()
    return AutopayResponse(id=autopay.id, card_account_id=card_account.id, card_name=card_account.nickname, from_account_id=source.id, from_account_name=source.nickname, amount_type=autopay.amount_type, fixed_amount_cents=autopay.fixed_amount_cents, is_active=autopay.is_active)


def build_zelle_payment(session, payment):
    contact = session.query(ZelleContact).filter(ZelleContact.id == payment.contact_id).first()
    return ZellePaymentResponse(id=payment.id, contact_id=contact.id, contact_name=contact.name, account_id=payment.account_id, direction=payment.direction, amount_cents=payment.amount_cents, memo=payment.memo, status=payment.status, created_at=payment.created_at)


def build_alert(session, alert):
    account = session.query(Account).filter(Account.id == alert.account_id).first()
    return AlertResponse(id=alert.id, account_id=account.id, account_nickname=account.nickname, alert_type=alert.alert_type, channel=alert.channel, threshold_cents=alert.threshold_cents, is_enabled=alert.is_enabled)


def build_dispute(session, dispute):
    item = session.query(Transaction).filter(Transaction.id == dispute.transaction_id).first()
    return DisputeResponse(id=dispute.id, transaction_id=item.id, transaction_description=item.description, reason=dispute.reason, amount_cents=dispute.amount_cents, description=dispute.description, status=dispute.status, provisional_credit_cents=dispute.provisional_credit_cents, created_at=dispute.created_at)


def build_savings_goal(session, goal):
    account = session.query(Account).filter(Account.id == goal.account_id).first()
    progress = min(100, account.balance_cents * 100 // goal.target_cents)
    return SavingsGoalResponse(id=goal.id, account_id=account.id, account_nickname=account.nickname, name=goal.name, target_cents=goal.target_cents, saved_cents=account.balance_cents, progress_percent=progress, target_date=goal.target_date)


@app.get("/api/me", response_model=CustomerResponse, summary="Get my profile", description="Return the logged-in customer's name, contact details and address.", tags=["profile"], operation_id="get_profile")
async def get_profile():
    session = SessionLocal()
    customer = session.query(Customer).filter(Customer.id == 1).first()
    result = CustomerResponse.model_validate(customer)
    session.close()
    return result


@app.patch("/api/me", response_model=CustomerResponse, summary="Update my contact details", description="Change the customer's email, mobile phone or mailing address.", tags=["profile"], operation_id="update_contact_info")
async def update_contact_info(request: ContactInfoUpdateRequest):
    session = SessionLocal()
    customer = session.query(Customer).filter(Customer.id == 1).first()
    if request.email is not None:
        customer.email = request.email
    if request.phone is not None:
        customer.phone = request.phone
    if request.address_line is not None:
        customer.address_line = request.address_line
    if request.city is not None:
        customer.city = request.city
    if request.state is not None:
        customer.state = request.state
    if request.zip is not None:
        customer.zip = request.zip
    session.commit()
    session.refresh(customer)
    result = CustomerResponse.model_validate(customer)
    session.close()
    return result


@app.get("/api/accounts", response_model=List[AccountResponse], summary="List my accounts", description="List the customer's checking, savings and credit card accounts with balances.", tags=["accounts"], operation_id="list_accounts")
async def list_accounts(include_closed: bool = Query(False, description="Also list closed accounts")):
    session = SessionLocal()
    query = session.query(Account).filter(Account.customer_id == 1)
    if not include_closed:
        query = query.filter(Account.status != "closed")
    accounts = query.order_by(Account.id).all()
    result = [build_account(session, account) for account in accounts]
    session.close()
    return result


@app.get("/api/accounts/{account_id}", response_model=AccountResponse, summary="Get an account", description="Return one account's balance, limit, rate and branch details.", tags=["accounts"], operation_id="get_account")
async def get_account(account_id: int = Path(..., description="Account ID")):
    session = SessionLocal()
    account = get_owned_account(session, account_id)
    result = build_account(session, account)
    session.close()
    return result


@app.patch("/api/accounts/{account_id}", response_model=AccountResponse, summary="Rename an account", description="Change the nickname shown for one of the customer's accounts.", tags=["accounts"], operation_id="rename_account")
async def rename_account(request: AccountRenameRequest, account_id: int = Path(..., description="Account ID")):
    session = SessionLocal()
    account = get_owned_account(session, account_id)
    account.nickname = request.nickname
    session.commit()
    session.refresh(account)
    result = build_account(session, account)
    session.close()
    return result


@app.get("/api/accounts/{account_id}/transactions", response_model=List[TransactionResponse], summary="List account transactions", description="List an account's transactions, newest first, filtered by dates, category, merchant, type or status.", tags=["transactions"], operation_id="list_transactions")
async def list_transactions(account_id: int = Path(..., description="Account ID"), start_date: Optional[str] = Query(None, description="First day (YYYY-MM-DD), inclusive"), end_date: Optional[str] = Query(None, description="Last day (YYYY-MM-DD), inclusive"), category: Optional[str] = Query(None, description="Category name, e.g. Dining"), merchant: Optional[str] = Query(None, description="Text matched against the merchant name and description"), transaction_type: Optional[str] = Query(None, description="Transaction type, e.g. purchase"), status: Optional[str] = Query(None, description="pending or posted"), limit: int = Query(100, description="Maximum number of transactions", ge=1, le=500)):
    session = SessionLocal()
    account = get_owned_account(session, account_id)
    query = session.query(Transaction).filter(Transaction.account_id == account.id)
    if start_date:
        query = query.filter(Transaction.posted_at >= datetime.strptime(start_date, "%Y-%m-%d"))
    if end_date:
        query = query.filter(Transaction.posted_at < datetime.strptime(end_date, "%Y-%m-%d") + timedelta(days=1))
    if category:
        category_row = session.query(Category).filter(func.lower(Category.name) == category.lower()).first()
        query = query.filter(Transaction.category_id == (category_row.id if category_row else -1))
    if merchant:
        merchant_ids = [row[0] for row in session.query(Merchant.id).filter(Merchant.name.ilike(f"%{merchant}%")).all()]
        query = query.filter((Transaction.merchant_id.in_(merchant_ids)) | (Transaction.description.ilike(f"%{merchant}%")))
    if transaction_type:
        query = query.filter(Transaction.transaction_type == transaction_type)
    if status:
        query = query.filter(Transaction.status == status)
    items = query.order_by(Transaction.posted_at.desc(), Transaction.id.desc()).limit(limit).all()
    result = [build_transaction(session, item) for item in items]
    session.close()
    return result


@app.get("/api/transactions/{transaction_id}", response_model=TransactionResponse, summary="Get a transaction", description="Return one transaction of the customer's accounts.", tags=["transactions"], operation_id="get_transaction")
async def get_transaction(transaction_id: int = Path(..., description="Transaction ID")):
    session = SessionLocal()
    item = session.query(Transaction).join(Account, Account.id == Transaction.account_id).filter(Transaction.id == transaction_id, Account.customer_id == 1).first()
    result = build_transaction(session, item)
    session.close()
    return result


@app.get("/api/accounts/{account_id}/spending", response_model=SpendingSummaryResponse, summary="Get monthly spending by category", description="Sum an account's posted spending in one month by category (charges minus refunds).", tags=["transactions"], operation_id="get_spending_summary")
async def get_spending_summary(account_id: int = Path(..., description="Account ID"), month: str = Query(..., description="Month (YYYY-MM)", pattern=r"^\d{4}-\d{2}$")):
    session = SessionLocal()
    account = get_owned_account(session, account_id)
    start = datetime.strptime(month + "-01", "%Y-%m-%d")
    end = (start + timedelta(days=32)).replace(day=1)
    items = session.query(Transaction).filter(Transaction.account_id == account.id, Transaction.status == "posted", Transaction.posted_at >= start, Transaction.posted_at < end, Transaction.transaction_type.in_(["purchase", "refund", "bill_payment"])).all()
    totals = {}
    counts = {}
    for item in items:
        category = session.query(Category).filter(Category.id == item.category_id).first() if item.category_id else None
        if category is None or not category.is_spending:
            continue
        totals[category.name] = totals.get(category.name, 0) - item.amount_cents
        counts[category.name] = counts.get(category.name, 0) + 1
    categories = [SpendingCategoryResponse(category=name, total_cents=totals[name], transaction_count=counts[name]) for name in sorted(totals, key=lambda name: (-totals[name], name))]
    result = SpendingSummaryResponse(account_id=account.id, month=month, total_spent_cents=sum(totals.values()), categories=categories)
    session.close()
    return result


@app.get("/api/accounts/{account_id}/statements", response_model=List[StatementResponse], summary="List account statements", description="List an account's statements, most recent first, with balances and card payment due details.", tags=["accounts"], operation_id="list_statements")
async def list_statements(account_id: int = Path(..., description="Account ID")):
    session = SessionLocal()
    account = get_owned_account(session, account_id)
    statements = session.query(Statement).filter(Statement.account_id == account.id).order_by(Statement.period_end.desc()).all()
    result = [StatementResponse.model_validate(statement) for statement in statements]
    session.close()
    return result


@app.get("/api/categories", response_model=List[CategoryResponse], summary="List spending categories", description="List the transaction categories used for spending summaries.", tags=["transactions"], operation_id="list_categories")
async def list_categories():
    session = SessionLocal()
    categories = session.query(Category).order_by(Category.id).all()
    result = [CategoryResponse.model_validate(category) for category in categories]
    session.close()
    return result


@app.get("/api/cards", response_model=List[CardResponse], summary="List my cards", description="List every debit and credit card on the customer's accounts, including replaced and authorized-user cards.", tags=["cards"], operation_id="list_cards")
async def list_cards():
    session = SessionLocal()
    cards = session.query(Card).join(Account, Account.id == Card.account_id).filter(Account.customer_id == 1).order_by(Card.id).all()
    result = [build_card(session, card) for card in cards]
    session.close()
    return result


@app.get("/api/cards/{card_id}", response_model=CardResponse, summary="Get a card", description="Return one card's status, lock, limits and settings.", tags=["cards"], operation_id="get_card")
async def get_card(card_id: int = Path(..., description="Card ID")):
    session = SessionLocal()
    card = get_owned_card(session, card_id)
    result = build_card(session, card)
    session.close()
    return result


@app.put("/api/cards/{card_id}/lock", response_model=CardResponse, summary="Lock or unlock a card", description="Lock a card to block new purchases, or unlock it.", tags=["cards"], operation_id="set_card_lock")
async def set_card_lock(request: CardLockRequest, card_id: int = Path(..., description="Card ID")):
    session = SessionLocal()
    card = get_owned_card(session, card_id)
    card.is_locked = request.locked
    session.commit()
    session.refresh(card)
    result = build_card(session, card)
    session.close()
    return result


@app.patch("/api/cards/{card_id}", response_model=CardResponse, summary="Update card settings", description="Change a card's daily limit, tap to pay, or whether international transactions are allowed.", tags=["cards"], operation_id="update_card_settings")
async def update_card_settings(request: CardSettingsRequest, card_id: int = Path(..., description="Card ID")):
    session = SessionLocal()
    card = get_owned_card(session, card_id)
    if request.daily_limit_cents is not None:
        card.daily_limit_cents = request.daily_limit_cents
    if request.contactless_enabled is not None:
        card.contactless_enabled = request.contactless_enabled
    if request.international_enabled is not None:
        card.international_enabled = request.international_enabled
    session.commit()
    session.refresh(card)
    result = build_card(session, card)
    session.close()
    return result


@app.post("/api/cards/{card_id}/report-lost", response_model=CardResponse, summary="Report a card lost or stolen", description="Lock and retire an active card and issue a replacement with a new number and the same settings; returns the new card.", tags=["cards"], operation_id="report_card_lost")
async def report_card_lost(request: ReportLostRequest, card_id: int = Path(..., description="Card ID")):
    session = SessionLocal()
    card = session.query(Card).join(Account, Account.id == Card.account_id).filter(Card.id == card_id, Account.customer_id == 1, Card.status == "active").first()
    now = datetime.utcnow()
    next_id = (session.query(func.max(Card.id)).scalar() or 0) + 1
    card.status = "replaced"
    card.is_locked = True
    replacement = Card(account_id=card.account_id, card_type=card.card_type, last4=f"{(next_id * 7919) % 10000:04d}", cardholder_name=card.cardholder_name, expiry=f"{now.year + 4}-{now.month:02d}", status="active", is_locked=False, daily_limit_cents=card.daily_limit_cents, contactless_enabled=card.contactless_enabled, international_enabled=card.international_enabled, issued_on=now.strftime("%Y-%m-%d"))
    session.add(replacement)
    session.commit()
    session.refresh(replacement)
    result = build_card(session, replacement)
    session.close()
    return result


@app.get("/api/cards/{card_id}/travel-notices", response_model=List[TravelNoticeResponse], summary="List a card's travel notices", description="List the travel notices set on a card.", tags=["cards"], operation_id="list_travel_notices")
async def list_travel_notices(card_id: int = Path(..., description="Card ID")):
    session = SessionLocal()
    card = get_owned_card(session, card_id)
    notices = session.query(TravelNotice).filter(TravelNotice.card_id == card.id).order_by(TravelNotice.start_date).all()
    result = [TravelNoticeResponse.model_validate(notice) for notice in notices]
    session.close()
    return result


@app.post("/api/cards/{card_id}/travel-notices", response_model=TravelNoticeResponse, summary="Add a travel notice", description="Tell the bank a card will be used at a destination between two dates.", tags=["cards"], operation_id="create_travel_notice")
async def create_travel_notice(request: TravelNoticeRequest, card_id: int = Path(..., description="Card ID")):
    session = SessionLocal()
    card = get_owned_card(session, card_id)
    notice = TravelNotice(card_id=card.id, destination=request.destination, start_date=request.start_date, end_date=request.end_date, created_at=datetime.utcnow())
    session.add(notice)
    session.commit()
    session.refresh(notice)
    result = TravelNoticeResponse.model_validate(notice)
    session.close()
    return result


@app.delete("/api/travel-notices/{notice_id}", response_model=ActionResponse, summary="Delete a travel notice", description="Remove a travel notice from one of the customer's cards.", tags=["cards"], operation_id="delete_travel_notice")
async def delete_travel_notice(notice_id: int = Path(..., description="Travel notice ID")):
    session = SessionLocal()
    notice = session.query(TravelNotice).join(Card, Card.id == TravelNotice.card_id).join(Account, Account.id == Card.account_id).filter(TravelNotice.id == notice_id, Account.customer_id == 1).first()
    session.delete(notice)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Travel notice {notice_id} deleted")


@app.get("/api/payees", response_model=List[PayeeResponse], summary="List my bill payees", description="List the customer's active bill pay payees with nicknames and account references.", tags=["bill_pay"], operation_id="list_payees")
async def list_payees():
    session = SessionLocal()
    payees = session.query(Payee).filter(Payee.customer_id == 1, Payee.is_active == True).order_by(Payee.id).all()
    result = [PayeeResponse.model_validate(payee) for payee in payees]
    session.close()
    return result


@app.post("/api/payees", response_model=PayeeResponse, summary="Add a payee", description="Add a company or person to pay through bill pay.", tags=["bill_pay"], operation_id="add_payee")
async def add_payee(request: PayeeCreateRequest):
    session = SessionLocal()
    payee = Payee(customer_id=1, name=request.name, category=request.category, account_ref=request.account_ref, nickname=request.nickname, address=request.address, is_active=True, created_at=datetime.utcnow())
    session.add(payee)
    session.commit()
    session.refresh(payee)
    result = PayeeResponse.model_validate(payee)
    session.close()
    return result


@app.delete("/api/payees/{payee_id}", response_model=ActionResponse, summary="Remove a payee", description="Deactivate a bill pay payee; past payments are kept.", tags=["bill_pay"], operation_id="remove_payee")
async def remove_payee(payee_id: int = Path(..., description="Payee ID")):
    session = SessionLocal()
    payee = session.query(Payee).filter(Payee.id == payee_id, Payee.customer_id == 1).first()
    payee.is_active = False
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Payee {payee_id} removed")


@app.get("/api/payees/{payee_id}/ebills", response_model=List[EbillResponse], summary="List a payee's eBills", description="List the electronic bills received from a payee, newest first.", tags=["bill_pay"], operation_id="list_ebills")
async def list_ebills(payee_id: int = Path(..., description="Payee ID"), status: Optional[str] = Query(None, description="unpaid, scheduled or paid")):
    session = SessionLocal()
    payee = session.query(Payee).filter(Payee.id == payee_id, Payee.customer_id == 1).first()
    query = session.query(Ebill).filter(Ebill.payee_id == payee.id)
    if status:
        query = query.filter(Ebill.status == status)
    bills = query.order_by(Ebill.statement_date.desc()).all()
    result = [EbillResponse.model_validate(bill) for bill in bills]
    session.close()
    return result


@app.get("/api/bill-payments", response_model=List[BillPaymentResponse], summary="List bill payments", description="List the customer's paid, scheduled and cancelled bill payments, newest first.", tags=["bill_pay"], operation_id="list_bill_payments")
async def list_bill_payments(payee_id: Optional[int] = Query(None, description="Only payments to this payee"), status: Optional[str] = Query(None, description="scheduled, paid or cancelled")):
    session = SessionLocal()
    query = session.query(BillPayment).filter(BillPayment.customer_id == 1)
    if payee_id is not None:
        query = query.filter(BillPayment.payee_id == payee_id)
    if status:
        query = query.filter(BillPayment.status == status)
    payments = query.order_by(BillPayment.send_on.desc(), BillPayment.id.desc()).all()
    result = [build_bill_payment(session, payment) for payment in payments]
    session.close()
    return result


@app.post("/api/bill-payments", response_model=BillPaymentResponse, summary="Pay a bill", description="Pay a payee from a checking or savings account now, or schedule it for a later date; can settle an eBill.", tags=["bill_pay"], operation_id="pay_bill")
async def pay_bill(request: BillPaymentRequest):
    session = SessionLocal()
    payee = session.query(Payee).filter(Payee.id == request.payee_id, Payee.customer_id == 1, Payee.is_active == True).first()
    source = session.query(Account).filter(Account.id == request.from_account_id, Account.customer_id == 1, Account.status == "open", Account.account_type.in_(["checking", "savings"])).first()
    bill = None
    if request.ebill_id is not None:
        bill = session.query(Ebill).filter(Ebill.id == request.ebill_id, Ebill.payee_id == payee.id).first()
    now = datetime.utcnow()
    if request.send_on is None:
        source.balance_cents = source.balance_cents - request.amount_cents
        session.add(Transaction(account_id=source.id, card_id=None, merchant_id=None, category_id=6 if payee.category in ["utilities", "telecom"] else None, transaction_type="bill_payment", amount_cents=-request.amount_cents, description=f"BILL PAY {payee.name.upper()}", status="posted", posted_at=now))
        payment = BillPayment(customer_id=1, payee_id=payee.id, from_account_id=source.id, ebill_id=bill.id if bill else None, amount_cents=request.amount_cents, send_on=now.strftime("%Y-%m-%d"), status="paid", memo=request.memo, created_at=now, paid_at=now)
        if bill:
            bill.status = "paid"
    else:
        payment = BillPayment(customer_id=1, payee_id=payee.id, from_account_id=source.id, ebill_id=bill.id if bill else None, amount_cents=request.amount_cents, send_on=request.send_on, status="scheduled", memo=request.memo, created_at=now, paid_at=None)
        if bill:
            bill.status = "scheduled"
    session.add(payment)
    session.commit()
    session.refresh(payment)
    result = build_bill_payment(session, payment)
    session.close()
    return result


@app.post("/api/bill-payments/{payment_id}/cancel", response_model=ActionResponse, summary="Cancel a scheduled bill payment", description="Cancel a bill payment that has not been sent yet.", tags=["bill_pay"], operation_id="cancel_bill_payment")
async def cancel_bill_payment(payment_id: int = Path(..., description="Bill payment ID")):
    session = SessionLocal()
    payment = session.query(BillPayment).filter(BillPayment.id == payment_id, BillPayment.customer_id == 1).first()
    if payment.status != "scheduled":
        session.close()
        return ActionResponse(success=False, message=f"Bill payment {payment_id} is {payment.status} and cannot be cancelled")
    payment.status = "cancelled"
    if payment.ebill_id:
        bill = session.query(Ebill).filter(Ebill.id == payment.ebill_id).first()
        bill.status = "unpaid"
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Bill payment {payment_id} cancelled")


@app.get("/api/transfers", response_model=List[TransferResponse], summary="List transfers", description="List one-time and recurring transfers between the customer's accounts, newest first.", tags=["transfers"], operation_id="list_transfers")
async def list_transfers(status: Optional[str] = Query(None, description="scheduled, completed or cancelled")):
    session = SessionLocal()
    query = session.query(Transfer).filter(Transfer.customer_id == 1)
    if status:
        query = query.filter(Transfer.status == status)
    transfers = query.order_by(Transfer.send_on.desc(), Transfer.id.desc()).all()
    result = [build_transfer(session, transfer) for transfer in transfers]
    session.close()
    return result


@app.post("/api/transfers", response_model=TransferResponse, summary="Transfer money between my accounts", description="Move money now, or schedule a one-time or recurring transfer; paying a credit card account lowers the amount owed.", tags=["transfers"], operation_id="create_transfer")
async def create_transfer(request: TransferRequest):
    session = SessionLocal()
    source = session.query(Account).filter(Account.id == request.from_account_id, Account.customer_id == 1, Account.status == "open", Account.account_type.in_(["checking", "savings"])).first()
    target = session.query(Account).filter(Account.id == request.to_account_id, Account.customer_id == 1, Account.status == "open").first()
    now = datetime.utcnow()
    if request.frequency == "once" and request.send_on is None:
        source.balance_cents = source.balance_cents - request.amount_cents
        session.add(Transaction(account_id=source.id, category_id=11, transaction_type="transfer_out", amount_cents=-request.amount_cents, description=f"{'PAYMENT' if target.account_type == 'credit_card' else 'TRANSFER'} TO {target.nickname.upper()} ...{target.account_last4}", status="posted", posted_at=now))
        if target.account_type == "credit_card":
            target.balance_cents = target.balance_cents - request.amount_cents
            session.add(Transaction(account_id=target.id, category_id=11, transaction_type="card_payment", amount_cents=request.amount_cents, description="PAYMENT THANK YOU", status="posted", posted_at=now))
        else:
            target.balance_cents = target.balance_cents + request.amount_cents
            session.add(Transaction(account_id=target.id, category_id=11, transaction_type="transfer_in", amount_cents=request.amount_cents, description=f"TRANSFER FROM {source.nickname.upper()} ...{source.account_last4}", status="posted", posted_at=now))
        transfer = Transfer(customer_id=1, from_account_id=source.id, to_account_id=target.id, amount_cents=request.amount_cents, frequency="once", send_on=now.strftime("%Y-%m-%d"), status="completed", memo=request.memo, created_at=now)
    else:
        transfer = Transfer(customer_id=1, from_account_id=source.id, to_account_id=target.id, amount_cents=request.amount_cents, frequency=request.frequency, send_on=request.send_on or now.strftime("%Y-%m-%d"), status="scheduled", memo=request.memo, created_at=now)
    session.add(transfer)
    session.commit()
    session.refresh(transfer)
    result = build_transfer(session, transfer)
    session.close()
    return result


@app.post("/api/transfers/{transfer_id}/cancel", response_model=ActionResponse, summary="Cancel a scheduled transfer", description="Cancel a scheduled one-time transfer or stop a recurring one.", tags=["transfers"], operation_id="cancel_transfer")
async def cancel_transfer(transfer_id: int = Path(..., description="Transfer ID")):
    session = SessionLocal()
    transfer = session.query(Transfer).filter(Transfer.id == transfer_id, Transfer.customer_id == 1).first()
    if transfer.status != "scheduled":
        session.close()
        return ActionResponse(success=False, message=f"Transfer {transfer_id} is {transfer.status} and cannot be cancelled")
    transfer.status = "cancelled"
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Transfer {transfer_id} cancelled")


@app.get("/api/autopays", response_model=List[AutopayResponse], summary="List card autopay settings", description="List automatic credit card payments: which card, from which account, and how much.", tags=["transfers"], operation_id="list_autopays")
async def list_autopays():
    session = SessionLocal()
    autopays = session.query(Autopay).filter(Autopay.customer_id == 1).order_by(Autopay.id).all()
    result = [build_autopay(session, autopay) for autopay in autopays]
    session.close()
    return result


@app.patch("/api/autopays/{autopay_id}", response_model=AutopayResponse, summary="Change card autopay", description="Change what a card's autopay pays (minimum due, statement balance or a fixed amount), its source account, or turn it on or off.", tags=["transfers"], operation_id="update_autopay")
async def update_autopay(request: AutopayUpdateRequest, autopay_id: int = Path(..., description="Autopay ID")):
    session = SessionLocal()
    autopay = session.query(Autopay).filter(Autopay.id == autopay_id, Autopay.customer_id == 1).first()
    if request.amount_type is not None:
        autopay.amount_type = request.amount_type
        if request.amount_type != "fixed":
            autopay.fixed_amount_cents = None
    if request.fixed_amount_cents is not None:
        autopay.fixed_amount_cents = request.fixed_amount_cents
    if request.from_account_id is not None:
        source = get_owned_account(session, request.from_account_id)
        autopay.from_account_id = source.id
    if request.is_active is not None:
        autopay.is_active = request.is_active
    session.commit()
    session.refresh(autopay)
    result = build_autopay(session, autopay)
    session.close()
    return result


@app.get("/api/zelle/contacts", response_model=List[ZelleContactResponse], summary="List Zelle contacts", description="List the people and businesses the customer pays with Zelle.", tags=["zelle"], operation_id="list_zelle_contacts")
async def list_zelle_contacts():
    session = SessionLocal()
    contacts = session.query(ZelleContact).filter(ZelleContact.customer_id == 1).order_by(ZelleContact.id).all()
    result = [ZelleContactResponse.model_validate(contact) for contact in contacts]
    session.close()
    return result


@app.post("/api/zelle/contacts", response_model=ZelleContactResponse, summary="Add a Zelle contact", description="Save a new Zelle contact by email or mobile number.", tags=["zelle"], operation_id="add_zelle_contact")
async def add_zelle_contact(request: ZelleContactCreateRequest):
    session = SessionLocal()
    contact = ZelleContact(customer_id=1, name=request.name, email=request.email, phone=request.phone, is_favorite=False, created_at=datetime.utcnow())
    session.add(contact)
    session.commit()
    session.refresh(contact)
    result = ZelleContactResponse.model_validate(contact)
    session.close()
    return result


@app.get("/api/zelle/payments", response_model=List[ZellePaymentResponse], summary="List Zelle activity", description="List Zelle payments sent, received and requested, newest first.", tags=["zelle"], operation_id="list_zelle_payments")
async def list_zelle_payments(contact_id: Optional[int] = Query(None, description="Only activity with this contact"), direction: Optional[str] = Query(None, description="sent, received or requested"), status: Optional[str] = Query(None, description="pending, completed, cancelled or declined")):
    session = SessionLocal()
    query = session.query(ZellePayment).filter(ZellePayment.customer_id == 1)
    if contact_id is not None:
        query = query.filter(ZellePayment.contact_id == contact_id)
    if direction:
        query = query.filter(ZellePayment.direction == direction)
    if status:
        query = query.filter(ZellePayment.status == status)
    payments = query.order_by(ZellePayment.created_at.desc(), ZellePayment.id.desc()).all()
    result = [build_zelle_payment(session, payment) for payment in payments]
    session.close()
    return result


@app.post("/api/zelle/payments", response_model=ZellePaymentResponse, summary="Send money with Zelle", description="Send money to a Zelle contact from a checking account; the money leaves the account right away.", tags=["zelle"], operation_id="send_zelle_payment")
async def send_zelle_payment(request: ZelleSendRequest):
    session = SessionLocal()
    contact = session.query(ZelleContact).filter(ZelleContact.id == request.contact_id, ZelleContact.customer_id == 1).first()
    source = session.query(Account).filter(Account.id == request.from_account_id, Account.customer_id == 1, Account.status == "open", Account.account_type == "checking").first()
    now = datetime.utcnow()
    source.balance_cents = source.balance_cents - request.amount_cents
    session.add(Transaction(account_id=source.id, category_id=11, transaction_type="zelle_out", amount_cents=-request.amount_cents, description=f"ZELLE TO {contact.name.upper()}", status="posted", posted_at=now))
    payment = ZellePayment(customer_id=1, contact_id=contact.id, account_id=source.id, direction="sent", amount_cents=request.amount_cents, memo=request.memo, status="completed", created_at=now)
    session.add(payment)
    session.commit()
    session.refresh(payment)
    result = build_zelle_payment(session, payment)
    session.close()
    return result


@app.post("/api/zelle/requests", response_model=ZellePaymentResponse, summary="Request money with Zelle", description="Ask a Zelle contact for money, to be deposited to a checking account when they pay.", tags=["zelle"], operation_id="request_zelle_payment")
async def request_zelle_payment(request: ZelleRequestCreateRequest):
    session = SessionLocal()
    contact = session.query(ZelleContact).filter(ZelleContact.id == request.contact_id, ZelleContact.customer_id == 1).first()
    target = session.query(Account).filter(Account.id == request.to_account_id, Account.customer_id == 1, Account.status == "open", Account.account_type == "checking").first()
    payment = ZellePayment(customer_id=1, contact_id=contact.id, account_id=target.id, direction="requested", amount_cents=request.amount_cents, memo=request.memo, status="pending", created_at=datetime.utcnow())
    session.add(payment)
    session.commit()
    session.refresh(payment)
    result = build_zelle_payment(session, payment)
    session.close()
    return result


@app.get("/api/alerts", response_model=List[AlertResponse], summary="List my alerts", description="List account alerts with their type, channel, threshold and whether they are on.", tags=["alerts"], operation_id="list_alerts")
async def list_alerts(account_id: Optional[int] = Query(None, description="Only alerts for this account")):
    session = SessionLocal()
    query = session.query(Alert).filter(Alert.customer_id == 1)
    if account_id is not None:
        query = query.filter(Alert.account_id == account_id)
    alerts = query.order_by(Alert.id).all()
    result = [build_alert(session, alert) for alert in alerts]
    session.close()
    return result


@app.post("/api/alerts", response_model=AlertResponse, summary="Create an alert", description="Create an alert of a type and channel on an account (one per account, type and channel).", tags=["alerts"], operation_id="create_alert")
async def create_alert(request: AlertCreateRequest):
    session = SessionLocal()
    account = get_owned_account(session, request.account_id)
    alert = Alert(customer_id=1, account_id=account.id, alert_type=request.alert_type, channel=request.channel, threshold_cents=request.threshold_cents, is_enabled=True)
    session.add(alert)
    session.commit()
    session.refresh(alert)
    result = build_alert(session, alert)
    session.close()
    return result


@app.patch("/api/alerts/{alert_id}", response_model=AlertResponse, summary="Update an alert", description="Turn an alert on or off or change its threshold.", tags=["alerts"], operation_id="update_alert")
async def update_alert(request: AlertUpdateRequest, alert_id: int = Path(..., description="Alert ID")):
    session = SessionLocal()
    alert = session.query(Alert).filter(Alert.id == alert_id, Alert.customer_id == 1).first()
    if request.threshold_cents is not None:
        alert.threshold_cents = request.threshold_cents
    if request.is_enabled is not None:
        alert.is_enabled = request.is_enabled
    session.commit()
    session.refresh(alert)
    result = build_alert(session, alert)
    session.close()
    return result


@app.get("/api/disputes", response_model=List[DisputeResponse], summary="List my disputes", description="List the customer's transaction disputes and their status.", tags=["disputes"], operation_id="list_disputes")
async def list_disputes():
    session = SessionLocal()
    disputes = session.query(Dispute).filter(Dispute.customer_id == 1).order_by(Dispute.created_at.desc(), Dispute.id.desc()).all()
    result = [build_dispute(session, dispute) for dispute in disputes]
    session.close()
    return result


@app.post("/api/disputes", response_model=DisputeResponse, summary="Dispute a transaction", description="Dispute a posted purchase; on a credit card the amount is credited back provisionally while the dispute is open.", tags=["disputes"], operation_id="file_dispute")
async def file_dispute(request: DisputeCreateRequest):
    session = SessionLocal()
    item = session.query(Transaction).join(Account, Account.id == Transaction.account_id).filter(Transaction.id == request.transaction_id, Account.customer_id == 1, Transaction.transaction_type == "purchase", Transaction.status == "posted").first()
    existing = session.query(Dispute).filter(Dispute.transaction_id == item.id).first()
    if existing is not None:
        result = build_dispute(session, existing)
        session.close()
        return result
    account = session.query(Account).filter(Account.id == item.account_id).first()
    now = datetime.utcnow()
    amount = -item.amount_cents
    provisional = amount if account.account_type == "credit_card" else 0
    dispute = Dispute(customer_id=1, transaction_id=item.id, reason=request.reason, amount_cents=amount, description=request.description, status="open", provisional_credit_cents=provisional, created_at=now)
    session.add(dispute)
    if provisional > 0:
        account.balance_cents = account.balance_cents - provisional
        session.add(Transaction(account_id=account.id, card_id=None, merchant_id=item.merchant_id, category_id=item.category_id, transaction_type="dispute_credit", amount_cents=provisional, description=f"PROVISIONAL CREDIT {item.description}", status="posted", posted_at=now))
    session.commit()
    session.refresh(dispute)
    result = build_dispute(session, dispute)
    session.close()
    return result


@app.post("/api/disputes/{dispute_id}/withdraw", response_model=DisputeResponse, summary="Withdraw a dispute", description="Withdraw an open dispute; any provisional credit is reversed.", tags=["disputes"], operation_id="withdraw_dispute")
async def withdraw_dispute(dispute_id: int = Path(..., description="Dispute ID")):
    session = SessionLocal()
    dispute = session.query(Dispute).filter(Dispute.id == dispute_id, Dispute.customer_id == 1).first()
    if dispute.status in ["open", "under_review"]:
        item = session.query(Transaction).filter(Transaction.id == dispute.transaction_id).first()
        account = session.query(Account).filter(Account.id == item.account_id).first()
        if dispute.provisional_credit_cents > 0:
            account.balance_cents = account.balance_cents + dispute.provisional_credit_cents
            session.add(Transaction(account_id=account.id, card_id=None, merchant_id=item.merchant_id, category_id=item.category_id, transaction_type="dispute_credit", amount_cents=-dispute.provisional_credit_cents, description=f"PROVISIONAL CREDIT REVERSAL {item.description}", status="posted", posted_at=datetime.utcnow()))
        dispute.status = "withdrawn"
        session.commit()
    result = build_dispute(session, dispute)
    session.close()
    return result


@app.get("/api/savings-goals", response_model=List[SavingsGoalResponse], summary="List savings goals", description="List savings goals with their targets and progress from the savings account balance.", tags=["savings"], operation_id="list_savings_goals")
async def list_savings_goals():
    session = SessionLocal()
    goals = session.query(SavingsGoal).join(Account, Account.id == SavingsGoal.account_id).filter(Account.customer_id == 1).order_by(SavingsGoal.id).all()
    result = [build_savings_goal(session, goal) for goal in goals]
    session.close()
    return result


@app.post("/api/savings-goals", response_model=SavingsGoalResponse, summary="Create a savings goal", description="Set a savings target (and optional date) on one of the customer's savings accounts.", tags=["savings"], operation_id="create_savings_goal")
async def create_savings_goal(request: SavingsGoalCreateRequest):
    session = SessionLocal()
    account = session.query(Account).filter(Account.id == request.account_id, Account.customer_id == 1, Account.account_type == "savings").first()
    goal = SavingsGoal(account_id=account.id, name=request.name, target_cents=request.target_cents, target_date=request.target_date, created_at=datetime.utcnow())
    session.add(goal)
    session.commit()
    session.refresh(goal)
    result = build_savings_goal(session, goal)
    session.close()
    return result


if __name__ == "__main__":
    import uvicorn
    host = os.getenv("HOST", "127.0.0.1")
    port = int(os.getenv("PORT", "8000"))
    uvicorn.run(app, host=host, port=port)
