"""A recursive type reached through a discriminated union, and a result that is no object."""

# ruff: noqa: SIM117 - a block per level of the design, as designs are written
from tooldesign.dsl import (
    Args,
    ArrayOf,
    Attribute,
    Float,
    OneOf,
    Required,
    Return,
    Service,
    String,
    Tool,
    Toolset,
    Type,
)

with Type("Number", "A literal number") as Number:
    Attribute("kind", String, enum=["number"])
    Attribute("value", Float, "Its value")
    Required("kind", "value")

with Type("Sum", "The sum of its terms") as Sum:
    Attribute("kind", String, enum=["sum"])
    Attribute("terms", ArrayOf(OneOf("Number", "Sum", discriminator="kind")), "The terms")
    Required("kind", "terms")

with Service("calc", "A calculator"):
    with Toolset("math", "Arithmetic"):
        with Tool("evaluate", "Evaluate an expression"):
            with Args():
                Attribute("expr", OneOf(Number, Sum, discriminator="kind"), "The expression")
                Required("expr")
            Return(Float, "Its value")
