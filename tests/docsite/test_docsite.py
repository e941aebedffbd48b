"""``tooldesign docs``: a static, self-contained, deterministic reference site of catalogs.

These tests read the generated HTML as text (links, anchors, definitions, badges); the
browser test (test_docsite_browser.py) clicks through it in Chromium.
"""

from __future__ import annotations

import copy
import html
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from tooldesign.cli import main
from tooldesign.contract.catalog import build_catalog, catalog_text
from tooldesign.contract.errors import UserError
from tooldesign.docsite import MANIFEST, build_site
from tooldesign.govern import tool_fingerprint
from tooldesign.runtime.providers import export_tools

from tests.support import REPO, tree_bytes

GEN = REPO / "gen"
CATALOG = GEN / "assistant" / "tool_schemas.json"


def entries() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = json.loads(CATALOG.read_text())["tools"]
    return tools


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site([str(GEN)], out)
    return out


def page(site: Path, tool_id: str) -> str:
    return (site / "tools" / f"{tool_id}.html").read_text(encoding="utf-8")


class _Page(HTMLParser):
    """Tags, ids, links and text of one page; checks that elements nest properly."""

    VOID = frozenset({"meta", "link", "input", "br", "hr", "img", "source", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.problems: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.sources: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        for key in ("src", "href"):
            if tag in ("script", "link", "img") and found.get(key):
                self.sources.append(str(found[key]))
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.open[-1] if self.open else None}>")
            return
        self.open.pop()


def parsed(text: str) -> _Page:
    parser = _Page()
    parser.feed(text)
    parser.close()
    return parser


def test_every_tool_has_a_page_listed_on_the_index(site: Path) -> None:
    index = (site / "index.html").read_text(encoding="utf-8")
    for entry in entries():
        assert (site / "tools" / f"{entry['id']}.html").is_file()
        assert f'href="tools/{entry["id"]}.html"' in index
    assert index.count('class="tool-item"') == 14


def test_pages_are_well_formed_accessible_and_link_only_inside_the_site(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 16  # the index, a page a tool, the prompts and resources
    for path in pages:
        text = path.read_text(encoding="utf-8")
        found = parsed(text)
        assert found.problems == [] and found.open == [], (path, found.problems, found.open)
        assert len(found.ids) == len(set(found.ids)), path
        assert text.startswith('<!doctype html>\n<html lang="en">')
        assert text.count("<h1") == 1
        assert any(tag == "main" for tag, _ in found.tags)
        for tag, attrs in found.tags:
            if tag == "input":
                assert attrs.get("id") and f'for="{attrs["id"]}"' in text  # labelled
            if tag == "th" and "scope" not in attrs:
                raise AssertionError(f"{path}: a <th> without scope")
        for link in [*found.links, *found.sources]:
            if link.startswith("data:"):
                continue  # the empty icon, so that no browser asks a server for one
            assert not re.match(r"[a-z]+:", link), (path, link)
            target, _, anchor = link.partition("#")
            resolved = (path.parent / target) if target else path
            assert resolved.is_file(), (path, link)
            if anchor:
                assert f'id="{anchor}"' in resolved.read_text(encoding="utf-8"), (path, link)
    for asset in (site / "assets").iterdir():
        assert not re.search(r"https?://|url\(|@import", asset.read_text(encoding="utf-8")), asset


def test_the_output_is_deterministic(site: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_site([str(GEN)], again)
    assert tree_bytes(again) == tree_bytes(site)


def test_a_tool_page_shows_arguments_result_fingerprint_and_badges(site: Path) -> None:
    text = page(site, "assistant.devices.list_devices")
    [entry] = [e for e in entries() if e["name"] == "list_devices"]
    assert tool_fingerprint(entry) in text
    row = re.search(
        r'<th scope="row" data-label="Name"><code>limit</code></th>(.*?)</tr>', text, re.DOTALL
    )
    assert row is not None
    cells = re.sub(r"<[^>]+>", " ", row.group(1))
    for fragment in ("integer", "optional", "50", "from 1 to 500", "Maximum results"):
        assert fragment in cells
    assert 'array of <a href="#type-Device">Device</a>' in text
    assert 'id="type-Device"' in text
    assert ">read-only</li>" in text and ">bounded result</li>" in text
    assert ">destructive</li>" in page(site, "assistant.devices.restart_device")


def test_nested_objects_expand_in_place(site: Path) -> None:
    text = page(site, "assistant.sites.get_site")
    assert re.search(r"<summary>3 fields of <code>address</code></summary>", text)


def _definitions(text: str) -> dict[str, Any]:
    panels = re.findall(
        r'<section class="tab-panel" id="def-([a-z-]+)".*?<pre class="code"><code>(.*?)</code></pre>',
        text,
        re.DOTALL,
    )
    return {key: json.loads(html.unescape(code)) for key, code in panels if key != "code-mode"}


def test_each_provider_tab_shows_exactly_what_the_provider_receives(site: Path) -> None:
    [entry] = [e for e in entries() if e["name"] == "list_sites"]
    shown = _definitions(page(site, entry["id"]))
    assert shown == {
        "openai-strict": export_tools([entry], "openai", strict=True)[0],
        "anthropic": export_tools([entry], "anthropic")[0],
        "gemini": export_tools([entry], "gemini")[0],
        "mcp": export_tools([entry], "mcp")[0],
    }


def test_a_tool_a_form_cannot_express_says_why_and_shows_what_is_sent(site: Path) -> None:
    text = page(site, "assistant.profiles.update_preferences")
    assert (
        "OpenAI&#39;s strict mode cannot express this tool</strong>, so it is sent without strict mode"
        in text
    )
    assert (
        "Gemini&#39;s OpenAPI parameters cannot express this tool</strong>, so it is sent as parametersJsonSchema"
        in text
    )
    assert "field &#39;preferences&#39;: an object with free-form keys (a map)" in text
    shown = _definitions(text)
    assert "strict" not in shown["openai-strict"]["function"]
    assert "parametersJsonSchema" in shown["gemini"]


def test_sizes_are_the_bytes_of_the_compact_definition(site: Path) -> None:
    text = page(site, "assistant.sites.get_site")
    [entry] = [e for e in entries() if e["name"] == "get_site"]
    mcp = json.dumps(export_tools([entry], "mcp")[0], separators=(",", ":"), ensure_ascii=False)
    assert re.search(
        rf'id="def-mcp".*?<strong>{len(mcp.encode()):,}</strong> bytes', text, re.DOTALL
    )


def test_the_code_mode_tab_shows_the_tools_share_of_the_typed_api_and_its_cost(
    site: Path,
) -> None:
    from tooldesign.docsite.definitions import code_api_total
    from tooldesign.govern.sources import read_source
    from tooldesign.runtime.codemode.api import ApiTool, tool_api
    from tooldesign.runtime.providers.tokens import token_counter

    catalog = read_source(str(GEN))
    tools = {t.name: t for t in catalog.tools.values()}
    text = page(site, "assistant.devices.get_device")
    shown = re.search(
        r'id="def-code-mode".*?<strong>([\d,]+)</strong> bytes(.*?)</p>.*?<code>(.*?)</code>',
        text,
        re.DOTALL,
    )
    assert shown is not None
    stub = tool_api(ApiTool.from_catalog(tools["get_device"]))
    assert html.unescape(shown.group(3)) == stub and "def get_device(" in stub
    assert shown.group(1) == f"{len(stub.encode()):,}"
    count = token_counter()
    if count is not None:
        assert f"<strong>{count(stub):,}</strong> tokens" in shown.group(2)
    # A tool code may not call says why, and is in no function of the API.
    probe = page(site, "assistant.metrics.check_reachability")
    assert "Code mode cannot take this tool" in probe and "CodeAccess(&#34;direct&#34;)" in probe
    # The index totals every toolset's whole API (shared types once), as gen writes each.
    index = (site / "index.html").read_text()
    row = re.search(r"<th scope=\"row\">Code mode</th><td>([\d,]+)</td>", index)
    assert row is not None
    total = code_api_total(list(catalog.tools.values()))[0]
    assert row.group(1) == f"{total:,}"
    written = sum(
        len(api.read_text().partition('"""')[2].encode())
        for api in GEN.glob("assistant/toolsets/*/code_api.pyi")
    )
    assert abs(total - written) < 0.05 * written  # the same text but the toolsets' titles


def test_a_tool_that_needs_approval_shows_a_badge(tmp_path: Path) -> None:
    tools = entries()
    [restart] = [e for e in tools if e["name"] == "restart_device"]  # the design's Confirm
    catalog = tmp_path / "tool_schemas.json"
    catalog.write_text(catalog_text(build_catalog(tools)), encoding="utf-8")
    build_site([str(catalog)], tmp_path / "site")
    badge = 'title="a person approves each call before it runs">requires approval<'
    assert badge in (tmp_path / "site" / "tools" / f"{restart['id']}.html").read_text()
    others = [e for e in tools if "confirm" not in e]
    assert badge not in (tmp_path / "site" / "tools" / f"{others[0]['id']}.html").read_text()


def test_a_page_of_changes_renders_the_diff(tmp_path: Path) -> None:
    old = entries()
    new = copy.deepcopy(old)
    [devices] = [e for e in new if e["name"] == "list_devices"]
    devices["payload"]["schema"]["properties"]["limit"]["maximum"] = 100
    new.pop()
    (tmp_path / "old.json").write_text(catalog_text(build_catalog(old)), encoding="utf-8")
    (tmp_path / "new.json").write_text(catalog_text(build_catalog(new)), encoding="utf-8")
    build_site([str(tmp_path / "new.json")], tmp_path / "site", against=str(tmp_path / "old.json"))
    text = (tmp_path / "site" / "changes.html").read_text()
    assert '<span class="impact-count">2</span> breaking for models' in text
    assert (
        '<a href="tools/assistant.devices.list_devices.html"><code>assistant.devices.list_devices</code></a>'
        in text
    )
    assert "<code>/payload/schema/properties/limit/maximum</code>" in text
    assert (
        '<code>assistant.diagnosis.diagnose_site</code> <span class="tool-status tool-status-removed">removed</span>'
        in text
    )
    assert 'href="changes.html"' in (tmp_path / "site" / "index.html").read_text()


def test_rebuilding_removes_pages_of_tools_that_are_gone(tmp_path: Path) -> None:
    catalog = tmp_path / "tool_schemas.json"
    catalog.write_text(catalog_text(build_catalog(entries())), encoding="utf-8")
    out = tmp_path / "site"
    build_site([str(catalog)], out)
    catalog.write_text(catalog_text(build_catalog(entries()[:2])), encoding="utf-8")
    report = build_site([str(catalog)], out)
    assert report.removed == 12
    assert len(list((out / "tools").iterdir())) == 2
    assert (out / MANIFEST).read_text().splitlines()[0] == "assets/site.js"


def test_a_folder_holding_other_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="holds files tooldesign docs did not write"):
        build_site([str(GEN)], tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", str(GEN), "--out", str(tmp_path / "site")]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("tooldesign: documented 14 tool(s) in ")
    assert main(["docs", str(tmp_path / "missing"), "--out", str(tmp_path / "x")]) == 2
    assert "missing: no such file or folder" in capsys.readouterr().err


def test_a_tool_implemented_by_an_agent_shows_a_badge_with_its_budget(site: Path) -> None:
    text = page(site, "assistant.diagnosis.diagnose_site")
    assert (
        'title="an agent does the work, with devices, metrics; at most 8 model turns, '
        '12 tool calls, 60 s per call">implemented by an agent<'
    ) in text
    assert "implemented by an agent" not in page(site, "assistant.sites.get_site")


def test_the_prompts_and_resources_have_a_page_of_their_own(site: Path) -> None:
    text = (site / "content.html").read_text(encoding="utf-8")
    assert 'href="content.html"' in (site / "index.html").read_text(encoding="utf-8")
    items = re.findall(r'<section class="content-item" id="([^"]+)"', text)
    assert items == ["c-prompt-triage_site", "c-resource-sites", "c-template-document"]
    assert "<code>netops://sites</code> · <code>application/json</code>" in text
    assert "URI template <code>docs://{kind}/{doc_id}</code>" in text
    assert "<tr><td><code>depth</code></td><td>no</td>" in text
    assert "</td><td>its values</td></tr>" in text and "</td><td>a handler</td></tr>" in text


def test_changed_prompts_and_resources_are_on_the_page_of_changes(tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(GEN, old)
    for path in old.glob("assistant/toolsets/*/content.json"):
        document = json.loads(path.read_text())
        document["content"] = [e for e in document["content"] if e["kind"] != "resource"]
        document["count"] = len(document["content"])
        path.write_text(json.dumps(document))
    build_site([str(GEN)], tmp_path / "site", against=str(old))
    text = (tmp_path / "site" / "changes.html").read_text()
    assert '<a href="content.html#c-resource-sites"><code>resource sites</code></a>' in text
    assert "new resource &#34;sites&#34;" in text
