"""An MCP tool's pattern that the schema's dialect does not read alike everywhere is left out of
the draft, with a notice saying why, rather than made a design error."""

from __future__ import annotations

from tooldesign.importers.mcp import tool_draft


def test_a_pattern_outside_the_dialect_is_left_out_with_a_notice() -> None:
    tool, context = tool_draft(
        {
            "name": "t",
            "description": "A tool",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "pattern": "^[[:digit:]]+$"},
                    "id": {"type": "string", "pattern": r"^\d+$"},
                },
            },
        }
    )
    options = {a.name: a.options for a in tool.args}
    assert options == {"code": {}, "id": {"pattern": r"^\d+$"}}
    [notice] = [str(n) for n in context.notices]
    assert notice.startswith("tool 't' › code: pattern '^[[:digit:]]+$' left out: '[' inside")


def test_a_default_is_checked_as_the_decoder_reads_its_format_and_pattern() -> None:
    tool, context = tool_draft(
        {
            "name": "t",
            "description": "A tool",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "format": "uuid", "default": "{0-0}"},
                    "n": {"type": "string", "pattern": r"^\d$", "default": "٣"},
                    "ok": {"type": "string", "format": "uri", "default": "http:///path"},
                },
            },
        }
    )
    options = {a.name: a.options for a in tool.args}
    assert "default" not in options["id"] and "default" not in options["n"]
    assert options["ok"]["default"] == "http:///path"
    notices = [str(n) for n in context.notices]
    assert any("› id: its default" in n for n in notices)
    assert any("› n: its default" in n for n in notices)
