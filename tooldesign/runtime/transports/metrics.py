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


class RemoteMetrics:
    """The instruments above, recorded through ``meter_provider`` (the global one by default)."""

    def __init__(self, meter_provider: Any = None) -> None:
        self._depth: dict[tuple[str, str], tuple[int, int]] = {}
        self._on = False
        try:
            from opentelemetry import metrics
        except ImportError:
            return
        provider = meter_provider or metrics.get_meter_provider()
        meter = provider.get_meter(METER)
        self._on = True
        self._round_trip = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="Round trip of a tool call run on a worker, seen by the agent",
        )
        self._redeliveries = meter.create_counter(
            "tooldesign.remote.redeliveries", description="Calls delivered to a worker again"
        )
        self._unknown = meter.create_counter(
            "tooldesign.remote.outcome_unknown",
            description="Calls answered outcome_unknown (their worker was lost while running)",
        )
        self._dead = meter.create_counter(
            "tooldesign.remote.dead_letters", description="Stream entries dead-lettered"
        )
        meter.create_observable_gauge(
            "tooldesign.remote.queue.depth",
            callbacks=[self._observe_depth],
            unit="{call}",
            description="Calls waiting in a toolset version's queue, not yet taken by a worker",
        )
        meter.create_observable_gauge(
            "tooldesign.remote.calls.held",
            callbacks=[self._observe_held],
            unit="{call}",
            description="Calls taken by workers and not yet answered",
        )

    @staticmethod
    def _attributes(toolset: str, version: str, tool: str | None = None) -> dict[str, str]:
        attributes = {
            "tooldesign.toolset": toolset,
            "tooldesign.toolset.version": version,
            "gen_ai.operation.name": "execute_tool",
        }
        if tool is not None:
            attributes["gen_ai.tool.name"] = tool.rsplit(".", 1)[-1]
        return attributes

    def round_trip(
        self, toolset: str, version: str, tool: str, seconds: float, outcome: str
    ) -> None:
        if self._on:
            attributes = self._attributes(toolset, version, tool)
            attributes["tooldesign.outcome"] = outcome
            self._round_trip.record(seconds, attributes)

    def redelivered(self, toolset: str, version: str, tool: str) -> None:
        if self._on:
            self._redeliveries.add(1, self._attributes(toolset, version, tool))

    def outcome_unknown(self, toolset: str, version: str, tool: str) -> None:
        if self._on:
            self._unknown.add(1, self._attributes(toolset, version, tool))

    def dead_lettered(self, toolset: str, version: str) -> None:
        if self._on:
            self._dead.add(1, self._attributes(toolset, version))

    def queue(self, toolset: str, version: str, waiting: int, held: int) -> None:
        """What a worker last read of a queue: calls not yet taken, calls taken."""
        self._depth[(toolset, version)] = (waiting, held)

    def _observe_depth(self, options: Any) -> Any:
        return self._observations(0)

    def _observe_held(self, options: Any) -> Any:
        return self._observations(1)

    def _observations(self, which: int) -> list[Any]:
        from opentelemetry.metrics import Observation

        return [
            Observation(values[which], self._attributes(toolset, version))
            for (toolset, version), values in self._depth.items()
        ]
