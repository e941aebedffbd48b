"""The network operations assistant: what its agent can do, and how each tool is bound."""

from common import (
    DEVICE_STATUSES,
    Device,
    Maintenance,
    Profile,
    SearchHit,
    Site,
    TimeSeries,
    TopologyNode,
)
from tooldesign.dsl import (
    Annotations,
    Any,
    Args,
    ArrayOf,
    Asks,
    Attribute,
    BindTo,
    Boolean,
    BoundedResult,
    CodeAccess,
    Completes,
    Confirm,
    Content,
    Example,
    Float,
    ImplementedByAgent,
    Inject,
    Int,
    LongRunning,
    MapOf,
    Object,
    OneOf,
    Prompt,
    Required,
    Resource,
    ResourceTemplate,
    Return,
    Scopes,
    ServerData,
    Service,
    String,
    Tags,
    Tool,
    Toolset,
)

from examples.netops.content import triage_site
from examples.netops.services import (
    DeviceService,
    DocumentService,
    MetricsService,
    ProfileService,
    SiteService,
    answer_question,
)

with Service("assistant", "Network operations assistant"):
    with Toolset("sites", "Find sites and how their networks are laid out"):
        Tags("inventory")
        with Tool("list_sites", "List sites, a page at a time", title="List sites"):
            with Args():
                Attribute(
                    "region", String, "Only sites in this region", enum=["emea", "amer", "apac"]
                )
                Example({"region": "emea"})
            with Return():
                Attribute("sites", ArrayOf(Site), "Sites on this page")
                Required("sites")
            BoundedResult(cursor="cursor", next_cursor="next_cursor")
            Annotations(read_only=True, idempotent=True)
            BindTo(SiteService.list_sites)
        with Tool("get_site", "Get one site by id"):
            with Args():
                Attribute("site_id", String, "Site identifier", min_length=2, max_length=8)
                Required("site_id")
                Example({"site_id": "hq"})
            Return(Site, "The site")
            Annotations(read_only=True)
            BindTo(SiteService.get_site)
        with Tool("get_topology", "Show how a site's devices connect, as a tree"):
            with Args():
                Attribute("site_id", String, "Site identifier")
                Attribute(
                    "depth", Int, "Levels of the tree to return", default=3, minimum=1, maximum=6
                )
                Required("site_id")
                Example({"site_id": "hq", "depth": 2})
            Return(TopologyNode, "Root of the site topology")
            Annotations(read_only=True)
            BindTo(SiteService.get_topology)
        with Prompt("triage_site", "Investigate an unhealthy site with the netops tools"):
            with Args():
                Attribute("site_id", String, "The site to look into (completed from the inventory)")
                Attribute(
                    "depth", String, "How far to look", enum=["quick", "thorough"], default="quick"
                )
                Required("site_id")
            BindTo(triage_site)
            Completes()  # site_id: from the inventory, a handler given when served
        Resource("netops://sites", "sites", "Every site", mime_type="application/json")

    with Toolset("devices", "Inspect the devices of a site"):
        Tags("inventory")
        with Tool("list_devices", "List devices on a site", title="List devices"):
            with Args():
                Attribute("site_id", String, "Site identifier")
                Attribute("status", String, "Filter by status", enum=DEVICE_STATUSES)
                Attribute(
                    "limit",
                    Int,
                    "Maximum results",
                    default=50,
                    minimum=1,
                    maximum=500,
                    repair=["numeric_string"],  # "20" is read as 20, and the model is told
                )
                Attribute("session_id", String, "Caller session")
                Required("site_id", "session_id")
                Example({"site_id": "hq", "status": "online", "limit": 20})
            with Return():
                Attribute("devices", ArrayOf(Device), "Matching devices")
                Required("devices")
            BoundedResult()
            Inject("session_id")
            Annotations(read_only=True)
            BindTo(DeviceService.list_devices)
        with Tool("get_device", "Get one device by id"):
            with Args():
                Attribute("device_id", String, "Device identifier", pattern=r"^dev-[0-9a-f]{8}$")
                Required("device_id")
                Example({"device_id": "dev-0a1b2c3d"})
            Return(Device, "The device")
            Annotations(read_only=True)
            BindTo(DeviceService.get_device)
        with Tool("restart_device", "Restart a device; it drops traffic for about a minute"):
            Tags("write")
            with Args():
                Attribute("device_id", String, "Device to restart", pattern=r"^dev-[0-9a-f]{8}$")
                Attribute("reason", String, "Why, for the change log", min_length=3, max_length=200)
                Attribute("session_id", String, "Caller session")
                Required("device_id", "reason", "session_id")
                Example({"device_id": "dev-0a1b2c3d", "reason": "Stuck after firmware update"})
            with Return():
                Attribute("accepted", Boolean, "Whether the restart was scheduled")
                Attribute("job_id", String, "Job to follow the restart")
                Required("accepted")
            Inject("session_id")
            Annotations(destructive=True, idempotent=False)
            Scopes("devices:write")  # a caller's verified token must hold it (docs/mcp.md)
            Confirm("Restart {device_id}? It drops traffic for about a minute. Reason: {reason}")
        with Tool("schedule_maintenance", "Schedule a maintenance window on some devices"):
            Tags("write")
            Args(Maintenance)  # the payload is a user type (its Example is the tool's)
            with Return():
                Attribute("window_id", String, "Identifier of the scheduled window")
                Attribute("opens", String, "When the window opens", format="date-time")
                Attribute("closes", String, "When the window closes", format="date-time")
                Attribute("devices", ArrayOf(String, min_items=1), "Devices in the window")
                Required("window_id", "opens", "closes", "devices")
            Annotations(destructive=True, idempotent=False)
            # Short windows are routine; a long one takes devices out for hours: a person decides.
            Confirm(
                "Take {device_ids} out of service for {duration_minutes} minutes from {start}?",
                when="duration_minutes > 120",
            )
            BindTo(DeviceService.schedule_maintenance)

    with Toolset("metrics", "Device health over time"):
        Tags("telemetry")
        with Tool("get_time_series", "Summarise a device metric over a window"):
            with Args():
                Attribute("device_id", String, "Device identifier", pattern=r"^dev-[0-9a-f]{8}$")
                Attribute(
                    "metric",
                    String,
                    "Metric to read",
                    enum=["cpu", "memory", "latency", "packet_loss"],
                )
                Attribute(
                    "window", String, "How far back to look", enum=["1h", "24h", "7d"], default="1h"
                )
                Required("device_id", "metric")
                Example({"device_id": "dev-0a1b2c3d", "metric": "latency", "window": "24h"})
            with Return():
                Attribute("device_id", String, "Device measured")
                Attribute("metric", String, "Metric read")
                Attribute("unit", String, "Unit of the values")
                Attribute("minimum", Float, "Lowest value in the window")
                Attribute("maximum", Float, "Highest value in the window")
                Attribute("mean", Float, "Average over the window")
                Attribute("points", Int, "Measurements in the window", minimum=0)
                Required("device_id", "metric", "unit", "minimum", "maximum", "mean", "points")
            ServerData(
                "atlas.time_series",
                TimeSeries,
                "Full series for charts",
                default="off",
                from_field="series",
            )
            with ServerData(
                "atlas.thresholds",
                description="Alert thresholds for the metric",
                from_field="thresholds",
            ):
                Attribute("warning", Float, "Warning level")
                Attribute("critical", Float, "Critical level")
                Required("warning", "critical")
            Annotations(read_only=True)
            BindTo(MetricsService.get_time_series)
        with Tool("check_reachability", "Probe a host from the site router and report the loss"):
            Args(str, "Host name or IP address to probe")  # a single value: the "value" field
            with Return():
                Attribute("reachable", bool, "Whether any probe came back")
                Attribute("loss", float, "Share of probes lost, from 0 to 1", minimum=0, maximum=1)
                Attribute("rtt_ms", Float, "Median round trip in milliseconds", exclusive_minimum=0)
                Attribute("raw", Any, "The probe's own output, as the router reported it")
                Required("reachable", "loss")
            Annotations(read_only=True, open_world=True)
            # Probes go out from the site's router: not in a loop of model-written code.
            CodeAccess("direct")
            # Given no host, it asks the user for one rather than probe nothing.
            Asks("user")
            # Probing takes a while: over MCP, a client that speaks tasks gets one to poll.
            LongRunning(poll_ms=1000)
            BindTo(MetricsService.check_reachability)

    with Toolset("profiles", "The signed-in user's profile and preferences"):
        Tags("account")
        with Tool("get_profile", "Get the profile of the user in this session"):
            with Args():
                Attribute("session_id", String, "Caller session")
                Required("session_id")
            Return(Profile, "The profile")
            Inject("session_id")
            Annotations(read_only=True)
            BindTo(ProfileService.get_profile)
        with Tool("update_preferences", "Change UI preferences; keys not given are kept"):
            with Args():
                Attribute(
                    "preferences", MapOf(String, OneOf(String, Int, Boolean)), "Preferences to set"
                )
                Attribute("session_id", String, "Caller session")
                Required("preferences", "session_id")
                Example({"preferences": {"theme": "light", "page_size": 25}})
            Return(Profile, "The updated profile")
            Inject("session_id")
            Annotations(idempotent=True)
            BindTo(ProfileService.update_preferences)

    with Toolset("docs", "Search runbooks and knowledge-base articles"):
        Tags("knowledge")
        with Tool("search_docs", "Search documentation by keywords", title="Search docs"):
            with Args():
                Attribute("query", String, "Keywords", min_length=2, max_length=200)
                Attribute(
                    "kinds",
                    ArrayOf(String),
                    "Only these kinds of document",
                    enum=["article", "runbook"],
                )
                Attribute("limit", Int, "Maximum hits", default=5, minimum=1, maximum=20)
                Required("query")
                Example({"query": "device offline", "kinds": ["runbook"]})
            with Return():
                Attribute("hits", ArrayOf(SearchHit), "Matching documents, best first")
                with Attribute("facets", Object, "How many hits of each kind"):
                    Attribute("articles", Int, minimum=0)
                    Attribute("runbooks", Int, minimum=0)
                Required("hits")
            BoundedResult()
            Content("resource_link")  # each hit linked: docs://runbooks/rb-7, a resource
            Annotations(read_only=True)
            BindTo(DocumentService.search)
        with Tool("answer_question", "Answer a question about network operations in one paragraph"):
            with Args():
                Attribute("question", String, "The question", min_length=3)
                Required("question")
            Return(String, "The answer")
            Annotations(read_only=True, open_world=False)
            BindTo(answer_question)
        with ResourceTemplate(
            "docs://{kind}/{doc_id}",
            "document",
            "A runbook's steps or an article's summary (search_docs links them)",
            mime_type="text/markdown",
        ):
            with Args():
                Attribute("kind", String, "Which collection", enum=["runbooks", "articles"])
                Attribute("doc_id", String, "The document's id (completed from the collection)")
            Completes()

    with Toolset("diagnosis", "Investigations an agent carries out with the other toolsets"):
        Tags("operations")
        with Tool("diagnose_site", "Find out why a site is unhealthy and what to do about it"):
            with Args():
                Attribute("site_id", String, "Site to diagnose", min_length=2, max_length=8)
                Attribute("symptom", String, "What the user noticed", max_length=200)
                Required("site_id")
                Example({"site_id": "hq", "symptom": "users report slow connections"})
            with Return():
                Attribute("summary", String, "What is wrong, in one or two sentences")
                with Attribute("findings", ArrayOf(Object), "What the agent found, per device"):
                    Attribute("device_id", String, "Device concerned")
                    Attribute("problem", String, "What is wrong with it")
                    Required("device_id", "problem")
                Attribute(
                    "action",
                    String,
                    "What to do next",
                    enum=["none", "restart", "maintenance", "escalate"],
                )
                Required("summary", "findings", "action")
            # The implementation is an agent run the application binds: it reads devices and
            # metrics in the user's session, within a budget per call; a restart it decides on
            # waits for the same person's approval as the caller's own would.
            ImplementedByAgent(
                uses=["devices", "metrics"],
                forward=["session_id"],
                max_turns=8,
                max_tool_calls=12,
                timeout=60,
            )
