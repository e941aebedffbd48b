"""The application's own types. They are not generated: tools map onto them by field name."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, Field

DeviceStatus = Literal["online", "offline", "unknown"]
Region = Literal["emea", "amer", "apac"]
Metric = Literal["cpu", "memory", "latency", "packet_loss"]
Window = Literal["1h", "24h", "7d"]
Role = Literal["viewer", "operator", "admin"]
NodeRole = Literal["router", "core", "access"]


@dataclass
class Device:
    id: str
    name: str
    status: DeviceStatus
    site_id: str
    model: str
    last_seen: datetime
    tags: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class Address:
    street: str
    city: str
    country: str


@dataclass
class Site:
    id: str
    name: str
    region: Region
    address: Address
    device_count: int


@dataclass
class TopologyNode:
    device_id: str
    name: str
    role: NodeRole
    children: list[TopologyNode] = field(default_factory=list)


class ProbeTarget(BaseModel):
    """What ``check_reachability`` asks the user when it was given no host (an MCP form)."""

    host: str = Field(description="Host name or IP address to probe", min_length=1)
    probes: int = Field(5, description="How many probes to send", ge=1, le=10)


class DeviceQuery(BaseModel):
    """What DeviceService.list_devices takes: the tool payload maps onto it by field name."""

    site_id: str
    status: DeviceStatus | None = None
    limit: int = 50
    session_id: str


class DevicePage(BaseModel):
    devices: list[Device]
    returned: int
    total: int
    truncated: bool
    refinement_hint: str | None = None


class SitePage(TypedDict):
    sites: list[Site]
    returned: int
    total: int
    truncated: bool
    next_cursor: str | None


@dataclass
class MetricPoint:
    at: datetime
    value: float


@dataclass
class TimeSeriesData:
    device_id: str
    metric: Metric
    unit: str
    points: list[MetricPoint]


@dataclass
class Thresholds:
    warning: float
    critical: float


@dataclass
class MetricSummary:
    device_id: str
    metric: Metric
    unit: str
    minimum: float
    maximum: float
    mean: float
    points: int
    series: TimeSeriesData
    thresholds: Thresholds


@dataclass
class Profile:
    user_id: str
    display_name: str
    email: str
    role: Role
    preferences: dict[str, str | int | bool] = field(default_factory=dict)


@dataclass
class ArticleHit:
    kind: Literal["article"]
    doc_id: str
    title: str
    snippet: str
    score: float


@dataclass
class RunbookHit:
    kind: Literal["runbook"]
    doc_id: str
    title: str
    steps: list[str]
    score: float


@dataclass
class SearchPage:
    hits: list[ArticleHit | RunbookHit]
    returned: int
    total: int
    truncated: bool
    refinement_hint: str | None = None


@dataclass
class MaintenanceRequest:
    """What DeviceService.schedule_maintenance takes: the tool's payload type maps onto it."""

    device_ids: list[str]
    start: datetime
    duration_minutes: int
    reason: str
    abort_above_load: float = 0.9
    notify_users: bool = True


@dataclass
class MaintenanceWindow:
    window_id: str
    opens: datetime
    closes: datetime
    devices: list[str]
    reason: str


@dataclass
class Reachability:
    reachable: bool
    loss: float
    rtt_ms: float | None
    raw: dict[str, Any]
