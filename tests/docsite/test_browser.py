"""The reference site in a real browser: Debian's Chromium, driven by Playwright.

The site is opened from ``file://``: search for a tool, open it, switch provider tabs, on a
desktop and a phone width; with no console error, no request leaving the machine, and the
pages still readable with JavaScript off. Screenshots are saved as test artifacts (in
``$TOOLDESIGN_TEST_ARTIFACTS/docsite`` when set, as CI does; else in the test's temporary
folder). No browser is downloaded: the test uses the Chromium the system has (CI installs
Debian's ``chromium`` package), and is skipped, saying why, only when there is none (in CI,
which installs it, it fails).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tooldesign.contract.catalog import build_catalog, catalog_text
from tooldesign.docsite import build_site

from tests.support import REPO
from tests.support.programs import chromium, missing

pytestmark = pytest.mark.slow  # a browser

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[dev]')"
)

CATALOG = REPO / "gen" / "assistant" / "tool_schemas.json"
TOOLS: list[dict[str, Any]] = json.loads(CATALOG.read_text())["tools"]
# Chromium as root needs --no-sandbox; the rest keep it from calling home (the network is
# closed, and nothing the site does may leave the machine).
FLAGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-gpu",
    "--disable-quic",
    "--disable-default-apps",
    "--disable-extensions",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


EXECUTABLE = chromium()


@pytest.fixture(autouse=True, scope="module")
def _chromium() -> None:
    if EXECUTABLE is None:
        missing("Chromium", "the reference site's browser tests", "apt-get install chromium")


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TOOLDESIGN_TEST_ARTIFACTS")
    folder = Path(given) / "docsite" if given else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The worked example's site, with a page of changes against a slightly older version."""
    root = tmp_path_factory.mktemp("browser-site")
    older = copy.deepcopy(TOOLS)
    [devices] = [t for t in older if t["name"] == "list_devices"]
    devices["payload"]["schema"]["properties"]["limit"]["maximum"] = 1000
    devices["description"] = "List the devices"
    (root / "old.json").write_text(catalog_text(build_catalog(older)), encoding="utf-8")
    build_site([str(REPO / "gen")], root / "site", against=str(root / "old.json"))
    return root / "site"


class Browser:
    """One Chromium profile; records console errors and every request that is not a file."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.errors: list[str] = []
        self.outside: list[str] = []
        context.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(("file://", "data:")):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def page(self, viewport: dict[str, int]) -> Any:
        page = self.context.new_page()
        page.set_viewport_size(viewport)
        page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        return page


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh profile for every test
            executable_path=EXECUTABLE,
            headless=True,
            args=FLAGS,
        )
        try:
            yield Browser(context)
        finally:
            context.close()


def test_search_open_a_tool_and_switch_provider_tabs(
    browser: Browser, site: Path, artifacts: Path
) -> None:
    page = browser.page(DESKTOP)
    page.goto((site / "index.html").as_uri())
    page.screenshot(path=str(artifacts / "index-desktop.png"), full_page=True)
    assert page.locator(".tool-item:visible").count() == 14

    page.fill("#q", "restart")
    status = page.locator("#search-status")
    assert status.inner_text() == "1 tool matches “restart”."
    visible = page.locator(".tool-item:visible")
    assert visible.count() == 1
    page.screenshot(path=str(artifacts / "search-desktop.png"))
    page.fill("#q", "Inventory DEVICE")  # tags and descriptions match too, every word
    assert page.locator(".tool-item:visible").count() == len(
        [t for t in TOOLS if "inventory" in t["tags"] and "device" in t["description"].lower()]
    )
    page.fill("#q", "restart")
    visible.locator("a.tool-link").click()

    page.wait_for_url("**/assistant.devices.restart_device.html")
    assert page.locator("h1").inner_text() == "restart_device"
    assert page.locator(".badge", has_text="destructive").is_visible()
    tabs = page.get_by_role("tab")
    assert tabs.all_inner_texts() == ["OpenAI strict", "Anthropic", "Gemini", "MCP", "Code mode"]
    assert tabs.nth(0).get_attribute("aria-selected") == "true"
    assert page.locator("#def-openai-strict").is_visible()
    assert not page.locator("#def-gemini").is_visible()

    page.get_by_role("tab", name="Gemini").click()
    assert page.get_by_role("tab", name="Gemini").get_attribute("aria-selected") == "true"
    assert page.locator("#def-gemini").is_visible()
    assert not page.locator("#def-openai-strict").is_visible()
    assert '"name": "restart_device"' in page.locator("#def-gemini pre").inner_text()
    page.keyboard.press("ArrowRight")  # the tabs follow the keyboard, as ARIA tabs do
    assert page.get_by_role("tab", name="MCP").get_attribute("aria-selected") == "true"
    assert '"inputSchema"' in page.locator("#def-mcp pre").inner_text()
    page.keyboard.press("ArrowRight")  # code mode: the tool's share of the typed API
    assert "def restart_device(" in page.locator("#def-code-mode pre").inner_text()
    page.screenshot(path=str(artifacts / "tool-desktop.png"), full_page=True)

    assert browser.errors == []
    assert browser.outside == []


def test_a_tool_a_form_cannot_express_says_why(
    browser: Browser, site: Path, artifacts: Path
) -> None:
    page = browser.page(DESKTOP)
    page.goto((site / "tools" / "assistant.profiles.update_preferences.html").as_uri())
    notice = page.locator("#def-openai-strict .notice")
    assert notice.is_visible()
    assert "cannot express this tool" in notice.inner_text()
    assert "free-form keys (a map)" in notice.inner_text()
    page.get_by_role("tab", name="Gemini").click()
    assert "parametersJsonSchema" in page.locator("#def-gemini").inner_text()
    page.screenshot(path=str(artifacts / "fallback-desktop.png"), full_page=True)
    assert browser.errors == [] and browser.outside == []


def test_the_search_box_of_a_tool_page_searches_the_index(browser: Browser, site: Path) -> None:
    page = browser.page(DESKTOP)
    page.goto((site / "tools" / "assistant.sites.get_site.html").as_uri())
    page.fill("#q", "topology")
    page.press("#q", "Enter")
    page.wait_for_url("**/index.html?q=topology")
    assert page.locator(".tool-item:visible").count() == 1
    assert page.input_value("#q") == "topology"
    assert browser.errors == [] and browser.outside == []


@pytest.mark.parametrize(
    "name", ["index.html", "tools/assistant.devices.list_devices.html", "changes.html"]
)
def test_pages_fit_a_phone(browser: Browser, site: Path, artifacts: Path, name: str) -> None:
    page = browser.page(PHONE)
    page.goto((site / name).as_uri())
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name} is {width}px wide on a {PHONE['width']}px screen"
    shot = name.replace("/", "-").replace(".html", "")
    page.screenshot(path=str(artifacts / f"{shot}-phone.png"), full_page=True)
    assert browser.errors == [] and browser.outside == []


def test_the_changes_page(browser: Browser, site: Path, artifacts: Path) -> None:
    page = browser.page(DESKTOP)
    page.goto((site / "changes.html").as_uri())
    assert page.locator(".impact-models").first.inner_text().startswith("1")
    page.locator("summary", has_text="A payload this breaks").first.click()
    assert '"limit": 1000' in page.locator("details pre").first.inner_text()
    page.screenshot(path=str(artifacts / "changes-desktop.png"), full_page=True)
    page.get_by_role("link", name="assistant.devices.list_devices").click()
    page.wait_for_url("**/assistant.devices.list_devices.html")
    assert browser.errors == [] and browser.outside == []


def test_without_javascript_every_definition_is_shown(tmp_path: Path, site: Path) -> None:
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=EXECUTABLE,
            headless=True,
            args=FLAGS,
            java_script_enabled=False,
        )
        try:
            page = context.new_page()
            page.goto((site / "tools" / "assistant.devices.list_devices.html").as_uri())
            assert page.get_by_role("tab").count() == 0
            for key in ("openai-strict", "anthropic", "gemini", "mcp"):
                assert page.locator(f"#def-{key} pre").is_visible()
            page.goto((site / "index.html").as_uri())
            assert page.locator(".tool-item:visible").count() == 14
        finally:
            context.close()
