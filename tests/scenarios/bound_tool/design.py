"""A tool bound to a method of a service class, and one bound to a module-level function."""

# ruff: noqa: SIM117 - a block per level of the design, as designs are written
from scenario_shop import Shop, order_count
from tooldesign.dsl import (
    Args,
    ArrayOf,
    Attribute,
    BindTo,
    Float,
    Int,
    Required,
    Return,
    Service,
    String,
    Tool,
    Toolset,
    Type,
)

with Type("Order", "An order") as Order:
    Attribute("id", String, "Order id")
    Attribute("total", Float, "Total price")
    Required("id", "total")

with Service("shop", "A shop"):
    with Toolset("orders", "Look up orders"):
        with Tool("find_orders", "A customer's latest orders"):
            with Args():
                Attribute("customer", String, "Customer id")
                Attribute("limit", Int, "How many", default=10)
                Required("customer")
            with Return():
                Attribute("orders", ArrayOf(Order), "Latest first")
                Required("orders")
            BindTo(Shop.find_orders)
        with Tool("count_orders", "How many orders a customer placed"):
            with Args():
                Attribute("customer", String, "Customer id")
                Required("customer")
            Return(Int, "The count")
            BindTo(order_count)
