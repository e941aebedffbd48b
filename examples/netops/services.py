"""In-memory services of the network operations backend.

Deterministic data, no I/O: good for examples and tests. The methods are ordinary application
code — the design binds tools to them with ``BindTo``.
"""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime, timedelta

from tooldesign.jsonschema.text import quoted
from tooldesign.runtime import ResourceLink, WithContent, exchanges, log_message, report_progress

from examples.netops.models import (
    Address,
    ArticleHit,
    Device,
    DevicePage,
    DeviceQuery,
    DeviceStatus,
    MaintenanceRequest,
    MaintenanceWindow,
    Metric,
    MetricPoint,
    MetricSummary,
    ProbeTarget,
    Profile,
    Reachability,
    Region,
    RunbookHit,
    SearchPage,
    Site,
    SitePage,
    Thresholds,
    TimeSeriesData,
    TopologyNode,
    Window,
)

EPOCH = datetime(2026, 11, 1, tzinfo=UTC)
_STATUSES: tuple[DeviceStatus, ...] = ("online", "online", "online", "offline", "unknown")
_MODELS = ("edge-router-x", "core-switch-48", "access-point-6e", "firewall-2100")
_PROBES = 5


class NotFoundError(LookupError):
    """Raised when an id names nothing; the runtime turns it into an error result.

    Its message reaches the model (``Runtime(expose=...)``): ids in it are ``quoted``, so a
    long or strange id a model sent comes back short and on one line.
    """


class Inventory:
    """Sites and devices."""

    def __init__(self) -> None:
        regions: tuple[Region, ...] = ("emea", "amer", "apac")
        self.sites = [
            Site(
                id=site_id,
                name=name,
                region=regions[i % 3],
                address=Address(street=f"{i + 1} Network Way", city=city, country=country),
                device_count=0,
            )
            for i, (site_id, name, city, country) in enumerate(
                [
                    ("hq", "Headquarters", "London", "GB"),
                    ("nyc", "New York office", "New York", "US"),
                    ("sgp", "Singapore office", "Singapore", "SG"),
                    ("ber", "Berlin lab", "Berlin", "DE"),
                ]
            )
        ]
        self.devices: list[Device] = []
        for n in range(150):
            site = self.sites[n % len(self.sites)]
            self.devices.append(
                Device(
                    id=f"dev-{n * 2654435761 % 2**32:08x}",
                    name=f"{site.id}-{_MODELS[n % 4].split('-')[0]}-{n:03d}",
                    status=_STATUSES[n % len(_STATUSES)],
                    site_id=site.id,
                    model=_MODELS[n % 4],
                    last_seen=EPOCH - timedelta(minutes=7 * n),
                    tags=["core"] if (n // 4) % 5 == 0 else ["edge"],
                    labels={"rack": f"r{n % 12:02d}"},
                )
            )
            site.device_count += 1

    def device(self, device_id: str) -> Device:
        for device in self.devices:
            if device.id == device_id:
                return device
        raise NotFoundError(f"no device {quoted(device_id)}")


class SiteService:
    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory

    def list_sites(
        self, region: Region | None = None, cursor: str | None = None, page_size: int = 2
    ) -> SitePage:
        """Sites, optionally in one region, a page at a time (keyword parameters; TypedDict result)."""
        matching = [s for s in self.inventory.sites if region is None or s.region == region]
        # A cursor is this service's own page offset; anything else starts over. ASCII digits
        # only: "²" is a digit to str.isdigit(), not to int().
        start = int(cursor) if cursor and cursor.isascii() and cursor.isdigit() else 0
        page = matching[start : start + page_size]
        more = start + page_size < len(matching)
        return SitePage(
            sites=page,
            returned=len(page),
            total=len(matching),
            truncated=more,
            next_cursor=str(start + page_size) if more else None,
        )

    def get_site(self, site_id: str) -> Site:
        for site in self.inventory.sites:
            if site.id == site_id:
                return site
        raise NotFoundError(f"no site {quoted(site_id)}")

    async def get_topology(self, site_id: str, depth: int = 3) -> TopologyNode:
        """The site's devices as a tree: core switches under the site router, the rest under them."""
        await asyncio.sleep(0)
        self.get_site(site_id)
        devices = [d for d in self.inventory.devices if d.site_id == site_id]
        cores = [d for d in devices if "core" in d.tags]
        root = TopologyNode(
            device_id=cores[0].id if cores else "", name=f"{site_id}-root", role="router"
        )
        if depth < 2:
            return root
        for i, core in enumerate(cores[:4]):
            node = TopologyNode(device_id=core.id, name=core.name, role="core")
            if depth >= 3:
                node.children = [
                    TopologyNode(device_id=d.id, name=d.name, role="access")
                    for d in devices[i::4][:3]
                    if d is not core
                ]
            root.children.append(node)
        return root


class DeviceService:
    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory
        self.windows: list[MaintenanceWindow] = []

    def list_devices(self, query: DeviceQuery) -> DevicePage:
        """Devices of a site (a pydantic payload in, a pydantic page out)."""
        matching = [
            d
            for d in self.inventory.devices
            if d.site_id == query.site_id and (query.status is None or d.status == query.status)
        ]
        page = matching[: query.limit]
        truncated = len(page) < len(matching)
        return DevicePage(
            devices=page,
            returned=len(page),
            total=len(matching),
            truncated=truncated,
            refinement_hint=self._refinement(query, len(matching)) if truncated else None,
        )

    @staticmethod
    def _refinement(query: DeviceQuery, total: int) -> str:
        if query.status is None:
            return f"{total} devices match: filter by status, or raise limit (at most 500)."
        return f"{total} {query.status} devices match: raise limit to {min(total, 500)} to see them all."

    async def get_device(self, device_id: str) -> Device:
        await asyncio.sleep(0)
        return self.inventory.device(device_id)

    def schedule_maintenance(self, request: MaintenanceRequest) -> MaintenanceWindow:
        """A window on known devices (a dataclass payload in, a dataclass out)."""
        devices = [self.inventory.device(device_id).id for device_id in request.device_ids]
        self.windows.append(
            MaintenanceWindow(
                window_id=f"mw-{len(self.windows) + 1:04d}",
                opens=request.start,
                closes=request.start + timedelta(minutes=request.duration_minutes),
                devices=list(dict.fromkeys(devices)),
                reason=request.reason,
            )
        )
        return self.windows[-1]


class MetricsService:
    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory

    async def get_time_series(
        self, device_id: str, metric: Metric, window: Window = "1h"
    ) -> MetricSummary:
        """A deterministic synthetic series and its summary."""
        await asyncio.sleep(0)
        device = self.inventory.device(device_id)
        count = {"1h": 12, "24h": 48, "7d": 84}[window]
        step = {"1h": 5, "24h": 30, "7d": 120}[window]
        seed = int(device.id[4:], 16) % 97
        unit = {"cpu": "%", "memory": "%", "latency": "ms", "packet_loss": "%"}[metric]
        scale = {"cpu": 60.0, "memory": 70.0, "latency": 20.0, "packet_loss": 0.5}[metric]
        series = [
            MetricPoint(
                at=EPOCH - timedelta(minutes=step * (count - i)),
                value=round(scale * (1 + 0.3 * math.sin((i + seed) / 3)), 3),
            )
            for i in range(count)
        ]
        values = [p.value for p in series]
        return MetricSummary(
            device_id=device_id,
            metric=metric,
            unit=unit,
            minimum=min(values),
            maximum=max(values),
            mean=round(sum(values) / len(values), 3),
            points=len(values),
            series=TimeSeriesData(device_id=device_id, metric=metric, unit=unit, points=series),
            thresholds=Thresholds(warning=round(scale * 1.2, 3), critical=round(scale * 1.5, 3)),
        )

    def check_reachability(self, value: str) -> Reachability:
        """Deterministic probe results: ``value`` is the host (the tool takes a single string).

        Probing takes a while on a real router, so it reports progress, one probe at a time
        (a no-op when nobody listens: an MCP client that sent a progress token, a subscriber),
        and logs what it found for the person watching (an MCP client's log, else Python's).
        Given no host, it asks the user for one (an MCP form from ``ProbeTarget``) when someone
        can be asked, rather than probe nothing.
        """
        host, probes = value.strip().lower(), _PROBES
        if not host and exchanges().can_ask("user"):
            answer = exchanges().ask_user_sync("Which host should the router probe?", ProbeTarget)
            if answer.content is not None:
                host, probes = answer.content.host.strip().lower(), answer.content.probes
        for probe in range(1, probes + 1):
            report_progress(
                probe, f"probe {probe} of {probes} sent to {host or 'nothing'}", total=probes
            )
        if not host or host.endswith(".invalid"):
            log_message("notice", f"{host or 'nothing'}: no answer to {probes} probes")
            return Reachability(
                reachable=False,
                loss=1.0,
                rtt_ms=None,
                raw={"host": host, "sent": probes, "received": 0},
            )
        seed = sum(map(ord, host)) % 17
        received = probes - seed % 2
        log_message("info", f"{host}: {received} of {probes} probes answered")
        return Reachability(
            reachable=True,
            loss=round(1 - received / probes, 3),
            rtt_ms=round(2.5 + seed * 0.75, 3),
            raw={"host": host, "sent": probes, "received": received, "ttl": 64 - seed},
        )


class ProfileService:
    def __init__(self) -> None:
        self.profiles = {
            "sess-alice": Profile(
                "u-alice", "Alice Ops", "alice@example.com", "admin", {"theme": "dark"}
            ),
            "sess-bob": Profile("u-bob", "Bob Net", "bob@example.com", "operator"),
        }

    def get_profile(self, session_id: str) -> Profile:
        profile = self.profiles.get(session_id)
        if profile is None:
            raise NotFoundError("no profile for this session")
        return profile

    def update_preferences(
        self, session_id: str, preferences: dict[str, str | int | bool]
    ) -> Profile:
        profile = self.get_profile(session_id)
        profile.preferences.update(preferences)
        return profile


class DocumentService:
    def __init__(self) -> None:
        self.articles = [
            ArticleHit(
                "article",
                "kb-101",
                "Why devices go offline",
                "Power, uplink and config drift explain most outages.",
                0.0,
            ),
            ArticleHit(
                "article",
                "kb-204",
                "Reading latency charts",
                "Spikes that line up across devices point at the uplink.",
                0.0,
            ),
            ArticleHit(
                "article",
                "kb-310",
                "Site naming conventions",
                "Sites use three-letter codes; devices prefix them.",
                0.0,
            ),
        ]
        self.runbooks = [
            RunbookHit(
                "runbook",
                "rb-7",
                "Restart an edge router",
                ["Drain traffic", "Restart", "Verify uplink"],
                0.0,
            ),
            RunbookHit(
                "runbook",
                "rb-9",
                "Replace an offline access point",
                ["Check power", "Swap unit", "Re-adopt"],
                0.0,
            ),
        ]

    def search(
        self, query: str, kinds: list[str] | None = None, limit: int = 5
    ) -> WithContent[SearchPage]:
        """The page of hits, each linked as a resource a client may read (``docs://…``)."""
        words = {w for w in query.lower().split() if len(w) > 2}
        hits: list[ArticleHit | RunbookHit] = []
        documents: list[ArticleHit | RunbookHit] = [*self.articles, *self.runbooks]
        for doc in documents:
            if kinds and doc.kind not in kinds:
                continue
            text = f"{doc.title} {getattr(doc, 'snippet', '')} {' '.join(getattr(doc, 'steps', []))}".lower()
            score = sum(1 for w in words if w in text) / max(len(words), 1)
            if score > 0:
                doc.score = round(score, 3)
                hits.append(doc)
        hits.sort(key=lambda d: (-d.score, d.doc_id))
        page = hits[:limit]
        truncated = len(page) < len(hits)
        found = SearchPage(
            hits=page,
            returned=len(page),
            total=len(hits),
            truncated=truncated,
            refinement_hint="Add words to the query or filter by kind." if truncated else None,
        )
        links = (
            ResourceLink(f"docs://{d.kind}s/{d.doc_id}", d.title, "text/markdown") for d in page
        )
        return WithContent(found, *links)


def answer_question(question: str) -> str:
    """A module-level function tool: canned answers (a real app would call a model here)."""
    q = question.lower()
    if "offline" in q:
        return "Check power and the uplink first; runbook rb-9 covers access points."
    if "latency" in q:
        return "Compare latency across devices of the site; shared spikes point at the uplink."
    return "I could not find an answer; try search_docs with more specific words."
