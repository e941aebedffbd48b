"""Types shared by the assistant's toolsets."""

from tooldesign.dsl import (
    ArrayOf,
    Attribute,
    Boolean,
    Example,
    Float,
    Int,
    MapOf,
    Object,
    OneOf,
    Required,
    String,
    Type,
)

DEVICE_STATUSES = ["online", "offline", "unknown"]

with Type("Device", "A managed network device") as Device:
    Attribute(
        "id", String, "Device identifier", pattern=r"^dev-[0-9a-f]{8}$", example="dev-0a1b2c3d"
    )
    Attribute("name", String, "Display name", max_length=64)
    Attribute("status", String, "Connection state", enum=DEVICE_STATUSES)
    Attribute("site_id", String, "Site the device belongs to")
    Attribute("model", String, "Hardware model")
    Attribute("last_seen", String, "When the device last reported (RFC 3339)", format="date-time")
    Attribute("tags", ArrayOf(String, max_items=10), "Free-form tags")
    Attribute("labels", MapOf(String, String), "Key/value labels (rack, owner, …)")
    Required("id", "name", "status", "site_id")

with Type("Site", "A physical site with network devices") as Site:
    Attribute("id", String, "Site identifier", min_length=2, max_length=8)
    Attribute("name", String, "Site name")
    Attribute("region", String, "Region the site is in", enum=["emea", "amer", "apac"])
    with Attribute("address", Object, "Postal address"):
        Attribute("street", String)
        Attribute("city", String)
        Attribute("country", String, "ISO 3166-1 alpha-2 code", pattern=r"^[A-Z]{2}$")
        Required("city", "country")
    Attribute("device_count", Int, "Devices at the site", minimum=0)
    Required("id", "name", "region")

with Type(
    "TopologyNode", "A device in the site topology, with the devices behind it"
) as TopologyNode:
    Attribute("device_id", String, "Device at this node")
    Attribute("name", String, "Device name")
    Attribute("role", String, "Role in the topology", enum=["router", "core", "access"])
    Attribute("children", ArrayOf("TopologyNode"), "Devices connected below this one")
    Required("device_id", "name", "role")

with Type("MetricPoint", "One measurement") as MetricPoint:
    Attribute("at", String, "Time of the measurement", format="date-time")
    Attribute("value", Float, "Measured value")
    Required("at", "value")

with Type("TimeSeries", "A metric's full series, for charts") as TimeSeries:
    Attribute("device_id", String, "Device measured")
    Attribute("metric", String, "Metric name")
    Attribute("unit", String, "Unit of the values")
    Attribute("points", ArrayOf(MetricPoint), "Measurements, oldest first")
    Required("device_id", "metric", "points")

with Type("Profile", "The signed-in user's profile") as Profile:
    Attribute("user_id", String, "User identifier")
    Attribute("display_name", String, "Name shown in the UI")
    Attribute("email", String, "Contact address", format="email")
    Attribute("role", String, "Access level", enum=["viewer", "operator", "admin"])
    Attribute("preferences", MapOf(String, OneOf(String, Int, Boolean)), "UI preferences")
    Required("user_id", "display_name", "role")

with Type("ArticleHit", "A knowledge-base article matching the query") as ArticleHit:
    Attribute("kind", String, "Hit kind", enum=["article"])
    Attribute("doc_id", String, "Document identifier")
    Attribute("title", String, "Article title")
    Attribute("snippet", String, "Matching passage")
    Attribute("score", Float, "Relevance from 0 to 1", minimum=0, maximum=1)
    Required("kind", "doc_id", "title", "score")
    Example(
        {"kind": "article", "doc_id": "kb-101", "title": "Why devices go offline", "score": 0.5}
    )

with Type("RunbookHit", "A runbook matching the query") as RunbookHit:
    Attribute("kind", String, "Hit kind", enum=["runbook"])
    Attribute("doc_id", String, "Document identifier")
    Attribute("title", String, "Runbook title")
    Attribute("steps", ArrayOf(String), "Steps to follow")
    Attribute("score", Float, "Relevance from 0 to 1", minimum=0, maximum=1)
    Required("kind", "doc_id", "title", "steps", "score")

SearchHit = OneOf(ArticleHit, RunbookHit, discriminator="kind")

# Python's own str, int, float and bool work as String, Int, Float and Boolean.
with Type("MaintenanceRequest", "A maintenance window to open on some devices") as Maintenance:
    Attribute(
        "device_ids",
        ArrayOf(str, max_items=20),
        "Devices taken out of service during the window",
        pattern=r"^dev-[0-9a-f]{8}$",
        min_items=1,
    )
    Attribute("start", str, "When the window opens (RFC 3339)", format="date-time")
    Attribute(
        "duration_minutes", int, "How long the window lasts", exclusive_minimum=0, maximum=480
    )
    Attribute("reason", str, "Why, for the change log", min_length=3, max_length=200)
    Attribute(
        "abort_above_load",
        float,
        "Cancel the window if a device's CPU load is above this share when it opens",
        exclusive_minimum=0,
        exclusive_maximum=1,
        default=0.9,
    )
    Attribute("notify_users", bool, "Tell the site's users beforehand", default=True)
    Required("device_ids", "start", "duration_minutes", "reason")
    Example(
        {
            "device_ids": ["dev-0a1b2c3d"],
            "start": "2026-11-21T22:00:00Z",
            "duration_minutes": 30,
            "reason": "Firmware upgrade",
        }
    )

__all__ = [
    "DEVICE_STATUSES",
    "Device",
    "Maintenance",
    "Profile",
    "SearchHit",
    "Site",
    "TimeSeries",
    "TopologyNode",
]
