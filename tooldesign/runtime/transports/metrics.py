"""Metrics of distributed execution, for an autoscaler and a dashboard (OpenTelemetry).

Instruments (meter ``tooldesign``), each with the attributes ``tooldesign.toolset`` and
``tooldesign.toolset.version``, and the GenAI conventions' ``gen_ai.operation.name``
(``execute_tool``) and ``gen_ai.tool.name`` where a tool is known:

====================================  ==============  =========================================
``gen_ai.client.operation.duration``  histogram, s    a remote call's round trip, seen by the
                                                      agent (``tooldesign.outcome`` too)
``tooldesign.remote.queue.depth``     gauge, calls    calls waiting in a toolset version's
                                                      queue, not yet taken (read by workers)
``tooldesign.remote.calls.held``      gauge, calls    calls taken and not yet answered
``tooldesign.remote.redeliveries``    counter         calls delivered again (their worker died)
``tooldesign.remote.outcome_unknown`` counter         calls answered ``outcome_unknown``
``tooldesign.remote.dead_letters``    counter         stream entries dead-lettered
====================================  ==============  =========================================

``opentelemetry-api`` is optional (``tooldesign[otel]``) and imported when a transport or a
worker is made: without it, or without a meter provider configured, recording costs a check.
"""

from __future__ import annotations

from typing import Any

METER = "tooldesign"


class _Instruments:
    """The instruments of one meter provider, made once (an instrument made twice under one
    name is the first one: its callbacks would never see the second's readings)."""

    def __init__(self, provider: Any) -> None:
        meter = provider.get_meter(METER)
        self.depth: dict[tuple[str, str], tuple[int, int]] = {}
        self.round_trip = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="Round trip of a tool call run on a worker, seen by the agent",
        )
        self.redeliveries = meter.create_counter(
            "tooldesign.remote.redeliveries", description="Calls delivered to a worker again"
        )
        self.unknown = meter.create_counter(
            "tooldesign.remote.outcome_unknown",
            description="Calls answered outcome_unknown (their worker was lost while running)",
        )
        self.dead = meter.create_counter(
            "tooldesign.remote.dead_letters", description="Stream entries dead-lettered"
        )
        meter.create_observable_gauge(
            "tooldesign.remote.queue.depth",
            callbacks=[lambda options: self._observations(0)],
            unit="{call}",
            description="Calls waiting in a toolset version's queue, not yet taken by a worker",
        )
        meter.create_observable_gauge(
            "tooldesign.remote.calls.held",
            callbacks=[lambda options: self._observations(1)],
            unit="{call}",
            description="Calls taken by workers and not yet answered",
        )

    def _observations(self, which: int) -> list[Any]:
        from opentelemetry.metrics import Observation

        return [
            Observation(values[which], _attributes(toolset, version))
            for (toolset, version), values in self.depth.items()
        ]


_made: dict[int, tuple[Any, _Instruments]] = {}


def _attributes(toolset: str, version: str, tool: str | None = None) -> dict[str, str]:
    attributes = {
        "tooldesign.toolset": toolset,
        "tooldesign.toolset.version": version,
        "gen_ai.operation.name": "execute_tool",
    }
    if tool is not None:
        attributes["gen_ai.tool.name"] = tool.rsplit(".", 1)[-1]
    return attributes


class RemoteMetrics:
    """The instruments above, recorded through ``meter_provider`` (the global one by default)."""

    def __init__(self, meter_provider: Any = None) -> None:
        self._on: _Instruments | None = None
        try:
            from opentelemetry import metrics
        except ImportError:
            return
        provider = meter_provider or metrics.get_meter_provider()
        made = _made.get(id(provider))
        if made is None or made[0] is not provider:
            made = _made[id(provider)] = (provider, _Instruments(provider))
        self._on = made[1]

    def round_trip(
        self, toolset: str, version: str, tool: str, seconds: float, outcome: str
    ) -> None:
        if self._on is not None:
            attributes = _attributes(toolset, version, tool)
            attributes["tooldesign.outcome"] = outcome
            self._on.round_trip.record(seconds, attributes)

    def redelivered(self, toolset: str, version: str, tool: str) -> None:
        if self._on is not None:
            self._on.redeliveries.add(1, _attributes(toolset, version, tool))

    def outcome_unknown(self, toolset: str, version: str, tool: str) -> None:
        if self._on is not None:
            self._on.unknown.add(1, _attributes(toolset, version, tool))

    def dead_lettered(self, toolset: str, version: str) -> None:
        if self._on is not None:
            self._on.dead.add(1, _attributes(toolset, version))

    def queue(self, toolset: str, version: str, waiting: int, held: int) -> None:
        """What a worker last read of a queue: calls not yet taken, calls taken."""
        if self._on is not None:
            self._on.depth[(toolset, version)] = (waiting, held)
