"""A toolset whose tools run on an MCP server."""

# ruff: noqa: SIM117 - a block per level of the design, as designs are written
from tooldesign.dsl import (
    Args,
    Attribute,
    Float,
    MCPServer,
    MCPToolset,
    Required,
    Return,
    Service,
    String,
    Tool,
)

server = MCPServer("weather-server --stdio", env={"UNITS": "metric"}, timeout=5)

with Service("weather", "Weather reports"):
    with MCPToolset("forecast", "Forecasts from the weather server", server=server):
        with Tool("get_forecast", "Tomorrow's forecast for a city", remote_name="forecast.get"):
            with Args():
                Attribute("city", String, "City name")
                Required("city")
            with Return():
                Attribute("summary", String, "In a few words")
                Attribute("high", Float, "Highest temperature")
                Required("summary")
