"""The application code the bound_tool scenario binds to."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class Order:
    id: str
    total: float


@dataclasses.dataclass
class OrderPage:
    orders: list[Order]


class Shop:
    def find_orders(self, customer: str, limit: int = 10) -> OrderPage:
        return OrderPage([Order(f"{customer}-1", 9.5)][:limit])


def order_count(customer: str) -> int:
    return len(customer)
