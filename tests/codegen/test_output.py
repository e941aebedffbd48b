"""What `tooldesign gen` writes: exact strings, safe names, atomic and minimal writes, --check."""

from __future__ import annotations

import inspect
import json
import os
import py_compile
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tooldesign.cli import main
from tooldesign.codegen import commit, formatting, output
from tooldesign.generate import generate
from tooldesign.runtime import Constraint, ToolValidationError

from tests.support import tree_bytes
from tests.support.generated import Generated, lint

HOSTILE = 'Tricky """ \\ \\n {{ x }} {% raw %} ${y}\n  second line é中😀 \'q\' "dq" \t\x00end'

HOSTILE_DESIGN = f'''
from tooldesign.dsl import *

HOSTILE = {HOSTILE!r}

with Type("Thing", HOSTILE) as Thing:
    Attribute("class", String, HOSTILE)
    Attribute("from", Int, "a keyword")
    Attribute("json", String, "a pydantic method", enum=['a"b', "c'd", "e\\\\f", "{{{{g}}}}", HOSTILE])
    Attribute("schema", String, default='x"""y')
    Attribute("model_config", Boolean)
    Attribute("site-id", String)
    Attribute("date", String, format="date")
    Attribute("_private", String)
    Required("class")
    Example({{"class": HOSTILE, "from": 1}})

with Service("svc", HOSTILE):
    with Toolset("ts", HOSTILE):
        with Tool("do-it", HOSTILE, title=HOSTILE):
            Tags(HOSTILE)
            Args(Thing)
            with Return():
                Attribute("copy", String, HOSTILE)
                Attribute("validate", ArrayOf(Thing))
'''


@pytest.fixture
def hostile(gen_design: Callable[[str], Generated]) -> Generated:
    return gen_design(HOSTILE_DESIGN)


def test_design_strings_round_trip_exactly(hostile: Generated) -> None:
    specs = hostile.module("svc.toolsets.ts.specs")
    spec = specs.DO_IT_SPEC
    assert spec.description == HOSTILE
    assert spec.title == HOSTILE
    assert spec.tags == (HOSTILE,)
    props = spec.payload.schema["properties"]
    assert props["class"]["description"] == HOSTILE
    assert props["json"]["enum"] == ['a"b', "c'd", "e\\f", "{{g}}", HOSTILE]
    assert props["schema"]["default"] == 'x"""y'
    assert spec.payload.example == {"class": HOSTILE, "from": 1}
    assert spec.payload.field_descriptions["class"] == HOSTILE
    types = hostile.module("svc.toolsets.ts.types")
    assert types.Thing.model_fields["class_"].description == HOSTILE
    catalog = json.loads(
        (hostile.out / "svc" / "toolsets" / "ts" / "tool_schemas.json").read_text("utf-8")
    )
    assert catalog["tools"][0]["description"] == HOSTILE


def test_reserved_field_names_get_safe_identifiers_and_keep_wire_names(hostile: Generated) -> None:
    types = hostile.module("svc.toolsets.ts.types")
    codecs = hostile.module("svc.toolsets.ts.codecs")
    fields = types.Thing.model_fields
    expected = {
        "class_": "class",
        "from_": "from",
        "json_": "json",
        "schema_": "schema",
        "field_model_config": "model_config",
        "site_id": "site-id",
        "date_": "date",
        "private": "_private",
    }
    assert {name: fields[name].alias or name for name in expected} == expected
    payload = codecs.decode_do_it_payload(
        {
            "class": "c",
            "from": 2,
            "json": 'a"b',
            "site-id": "s",
            "date": "2026-11-21",
            "_private": "p",
        }
    )
    assert (payload.class_, payload.from_, payload.json_, payload.site_id, payload.private) == (
        "c",
        2,
        'a"b',
        "s",
        "p",
    )
    assert payload.schema_ == 'x"""y'
    dumped = payload.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert set(dumped) == {"class", "from", "json", "schema", "site-id", "date", "_private"}
    result = types.DoItResult(copy_="x", validate_=[payload])
    assert json.loads(codecs.encode_do_it_result(result))["validate"][0]["class"] == "c"


PYDANTIC_NAMES_DESIGN = """
from tooldesign.dsl import *

with Type("BaseModel", "A type named like pydantic's base class") as Base:
    Attribute("model_dump", String, "Clashes with a pydantic method")
    Attribute("model_validate", Int, "Clashes with another")
    Attribute("model_dump_json", Boolean, "And another")
    Attribute("model_validate_x", String, "In the protected namespace")
    Attribute("model_name", String, "Outside it: kept as it is")
    Required("model_dump")

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("echo", "Echo a value"):
            Args(Base)
            with Return():
                Attribute("value", Base, "The same value")
                Attribute("others", ArrayOf("BaseModel"), "More of them")
"""


def test_names_in_pydantics_namespace_get_identifiers_outside_it(
    gen_design: Callable[[str], Generated],
) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "conflicts with protected namespace" would fail here
        generated = gen_design(PYDANTIC_NAMES_DESIGN)
        types = generated.module("svc.toolsets.ts.types")
        codecs = generated.module("svc.toolsets.ts.codecs")
    fields = types.BaseModel2.model_fields
    assert {name: info.alias or name for name, info in fields.items()} == {
        "field_model_dump": "model_dump",
        "field_model_validate": "model_validate",
        "field_model_dump_json": "model_dump_json",
        "field_model_validate_x": "model_validate_x",
        "model_name": "model_name",
    }
    wire = {"model_dump": "d", "model_validate": 1, "model_dump_json": True, "model_name": "n"}
    payload = codecs.decode_echo_payload(json.dumps(wire))
    assert (payload.field_model_dump, payload.field_model_validate) == ("d", 1)
    assert payload.model_dump(by_alias=True, exclude_none=True) == wire
    result = types.EchoResult(value=payload, others=[payload])
    assert json.loads(codecs.encode_echo_result(result))["others"] == [wire]
    spec = generated.module("svc.toolsets.ts.specs").ECHO_SPEC
    assert spec.payload.name == "BaseModel2" and spec.payload.model is types.BaseModel2
    assert list(spec.payload.schema["properties"]) == [
        "model_dump",
        "model_validate",
        "model_dump_json",
        "model_validate_x",
        "model_name",
    ]


def test_python_names_are_not_accepted_as_wire_names(hostile: Generated) -> None:
    codecs = hostile.module("svc.toolsets.ts.codecs")
    with pytest.raises(ToolValidationError) as info:
        codecs.decode_do_it_payload({"class_": "c"})
    constraints = {i.field: i.constraint for i in info.value.issues}
    assert constraints == {"class": Constraint.MISSING_FIELD, "class_": Constraint.UNKNOWN_FIELD}


@pytest.mark.slow
def test_hostile_output_passes_ruff_and_mypy_strict(hostile: Generated) -> None:
    ruff, mypy = lint(hostile)
    assert ruff.returncode == 0, ruff.stdout
    assert mypy.returncode == 0, mypy.stdout


SMALL = """
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("alpha", "First"):
        with Tool("ping", "Say hello"):
            with Args():
                Attribute("name", String, "Who")
                Required("name")
            Return(String, "The greeting")
    with Toolset("beta", "Second"):
        with Tool("pong", "Say goodbye"):
            Return(Int, "A number")
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_generation_is_deterministic(tmp_path: Path) -> None:
    design = write(tmp_path / "design.py", SMALL)
    generate([str(design)], tmp_path / "one")
    generate([str(design)], tmp_path / "two")
    assert tree_bytes(tmp_path / "one") == tree_bytes(tmp_path / "two")


def test_every_python_file_has_the_header(tmp_path: Path) -> None:
    design = write(tmp_path / "design.py", SMALL)
    generate([str(design)], tmp_path / "out")
    for path in (tmp_path / "out").rglob("*.py"):
        assert path.read_text().startswith("# Code generated by tooldesign — DO NOT EDIT.\n"), path


def test_unchanged_files_are_not_rewritten_and_only_changed_toolsets_render(tmp_path: Path) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    generate([str(design)], out)
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    report = generate([str(design)], out)
    assert report.written == [] and report.rendered_toolsets == 0 and report.generated_models == 0
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == before
    write(design, SMALL.replace("Say goodbye", "Say farewell"))
    report = generate([str(design)], out)
    assert report.rendered_toolsets == 1
    assert report.generated_models == 0, "a tool description is not in types.py: it is reused"
    assert report.written == [
        ".tooldesign-manifest.json",
        "svc/tool_schemas.json",
        "svc/toolsets/beta/specs.py",
        "svc/toolsets/beta/tool_schemas.json",
        "svc/toolsets/beta/tool_search.json",
    ]


def test_one_ruff_process_formats_a_whole_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(args: list[str], *rest: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real_run(args, *rest, **kwargs)

    monkeypatch.setattr(formatting.subprocess, "run", counting_run)
    design = write(tmp_path / "design.py", SMALL)
    generate([str(design)], tmp_path / "out")
    assert len(calls) == 1 and "format" in calls[0]


def test_stale_files_are_removed_and_other_files_never_touched(tmp_path: Path) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    generate([str(design)], out)
    notes = write(out / "notes.txt", "mine")
    custom = write(out / "svc" / "toolsets" / "beta" / "custom.py", "x = 1\n")
    write(design, SMALL.split('    with Toolset("beta"')[0])
    report = generate([str(design)], out)
    assert "svc/toolsets/beta/specs.py" in report.removed
    assert not (out / "svc" / "toolsets" / "beta" / "specs.py").exists()
    assert notes.read_text() == "mine"
    assert custom.read_text() == "x = 1\n"


def test_a_folder_emptied_of_generated_files_is_pruned(tmp_path: Path) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    generate([str(design)], out)
    write(design, SMALL.replace('Toolset("beta", "Second")', 'Toolset("gamma", "Second")'))
    generate([str(design)], out)
    assert not (out / "svc" / "toolsets" / "beta").exists()
    assert (out / "svc" / "toolsets" / "gamma" / "specs.py").is_file()


def test_a_file_in_the_way_that_tooldesign_did_not_write_is_an_error(tmp_path: Path) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    theirs = write(out / "svc" / "__init__.py", "# hand written\n")
    with pytest.raises(output.OutputError, match="not written by tooldesign"):
        generate([str(design)], out)
    assert theirs.read_text() == "# hand written\n"
    assert tree_bytes(out) == {"svc/__init__.py": b"# hand written\n"}


@pytest.mark.parametrize("stage", ["formatting", "commit"])
def test_failed_generation_leaves_the_output_exactly_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    generate([str(design)], out)
    write(out / "notes.txt", "mine")
    before = tree_bytes(out)
    write(design, SMALL.replace("Say hello", "Say hi").replace("Say goodbye", "Say bye"))
    if stage == "formatting":

        def broken_format(root: Path) -> None:
            raise formatting.FormattingError("ruff exploded")

        monkeypatch.setattr(formatting, "format_tree", broken_format)
        expected: type[Exception] = formatting.FormattingError
    else:
        real_replace = os.replace
        count = {"n": 0}

        def failing_replace(src: Any, dst: Any) -> None:
            count["n"] += 1
            if count["n"] == 3:  # fail part-way through moving files into place
                raise OSError("disk full")
            real_replace(src, dst)

        monkeypatch.setattr(commit.os, "replace", failing_replace)
        expected = output.OutputError
    with pytest.raises(expected) as raised:
        generate([str(design)], out)
    if stage == "commit":
        assert "disk full" in str(raised.value) and "left as it was" in str(raised.value)
    assert tree_bytes(out) == before
    assert not [p for p in tmp_path.iterdir() if "tooldesign" in p.name], "nothing beside out"
    assert not list(out.glob(".tooldesign-staging-*")), "staging is cleaned up"


def test_check_reports_drift_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    assert main(["gen", str(design), "--out", str(out)]) == 0
    assert main(["gen", str(design), "--out", str(out), "--check"]) == 0
    capsys.readouterr()
    before = tree_bytes(out)
    write(design, SMALL.replace("Say hello", "Greet someone"))
    assert main(["gen", str(design), "--out", str(out), "--check"]) == 1
    err = capsys.readouterr().err
    assert "would write  svc/toolsets/alpha/specs.py" in err
    assert tree_bytes(out) == before


def test_summary_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = write(tmp_path / "design.py", SMALL)
    assert main(["gen", str(design), "--out", str(tmp_path / "out")]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(
        "tooldesign: 1 service(s), 2 toolset(s), 2 tool(s); wrote 20, unchanged 0, removed 0 file(s) in "
    )
    assert line.endswith("s")


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d: ["gen", str(d / "missing.py"), "--out", str(d / "out")], "no such file"),
        (
            lambda d: ["gen", str(write(d / "notes.txt", "hi")), "--out", str(d / "out")],
            "not a design",
        ),
        (
            lambda d: ["gen", str(write(d / "empty.py", "x = 1\n")), "--out", str(d / "out")],
            "no Service is declared",
        ),
        (
            lambda d: [
                "gen",
                str(write(d / "design.py", SMALL)),
                "--out",
                str(write(d / "file", "")),
            ],
            "is a file",
        ),
        (
            lambda d: [
                "gen",
                str(
                    write(
                        d / "bad.py",
                        "import tooldesign.dsl as t\nt.Attribute('x', t.String)\nwith t.Service('s'):\n    pass\n",
                    )
                ),
                "--out",
                str(d / "out"),
            ],
            "bad.py:2",
        ),
        (
            lambda d: [
                "gen",
                str(
                    write(
                        d / "typo.py",
                        "from tooldesign.dsl import *\nwith Service('s'):\n    Strng\n",
                    )
                ),
                "--out",
                str(d / "out"),
            ],
            "typo.py:3: NameError",
        ),
        (lambda d: ["gen"], "required"),
    ],
)
def test_errors_exit_2_with_a_message_and_no_traceback(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    setup: Callable[[Path], list[str]],
    message: str,
) -> None:
    argv = setup(tmp_path)
    with pytest.raises(SystemExit) if argv == ["gen"] else _no_raise() as raised:
        code = main(argv)
    if argv == ["gen"]:
        assert raised.value.code == 2  # type: ignore[union-attr]
    else:
        assert code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


class _no_raise:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_manifest_from_another_version_keeps_file_ownership(tmp_path: Path) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    generate([str(design)], out)
    manifest_path = out / ".tooldesign-manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["toolsets"] = {key: "an-older-fingerprint-format" for key in manifest["toolsets"]}
    manifest_path.write_text(json.dumps(manifest))
    write(design, SMALL.replace("Say hello", "Say hi"))
    report = generate([str(design)], out)
    assert "svc/toolsets/alpha/specs.py" in report.written
    assert report.rendered_toolsets == 2, "without readable fingerprints nothing is reused"


# ── output depends on the design only, never on what the folder held before ──────────────

THREE = """
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("alpha", "First"):
        with Tool("ping", "Say hello"):
            Return(String, "The greeting")
    with Toolset("beta", "Second"):
        with Tool("pong", "Say goodbye"):
            Return(Int, "A number")
    with Toolset("gamma", "Third"):
        with Tool("peng", "Say nothing"):
            Return(Boolean, "Whether")
"""


def _fresh(tmp_path: Path, text: str, name: str) -> dict[str, bytes]:
    design = write(tmp_path / f"{name}.py", text)
    generate([str(design)], tmp_path / name)
    return tree_bytes(tmp_path / name)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda t: t.split('    with Toolset("beta"')[0], id="last-toolsets-deleted"),
        pytest.param(
            lambda t: t.replace(
                """    with Toolset("beta", "Second"):
        with Tool("pong", "Say goodbye"):
            Return(Int, "A number")
""",
                "",
            ),
            id="middle-toolset-deleted",
        ),
        pytest.param(
            lambda t: (
                t.replace('"alpha", "First"', '"tmp", "First"')
                .replace('"gamma", "Third"', '"alpha", "Third"')
                .replace('"tmp", "First"', '"gamma", "First"')
            ),
            id="toolsets-swapped",
        ),
        pytest.param(
            lambda t: t.replace(
                """    with Toolset("gamma", "Third"):
        with Tool("peng", "Say nothing"):
            Return(Boolean, "Whether")
""",
                "",
            ).replace(
                '    with Toolset("alpha"',
                '''    with Toolset("gamma", "Third"):
        with Tool("peng", "Say nothing"):
            Return(Boolean, "Whether")
    with Toolset("alpha"''',
            ),
            id="toolset-moved-first",
        ),
    ],
)
def test_regeneration_gives_what_a_fresh_run_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Callable[[str], str]
) -> None:
    design = write(tmp_path / "design.py", THREE)
    out = tmp_path / "out"
    generate([str(design)], out)
    write(design, edit(THREE))
    generate([str(design)], out)
    assert tree_bytes(out) == _fresh(tmp_path, edit(THREE), "fresh")
    assert main(["gen", str(design), "--out", str(out), "--check"]) == 0


def test_a_design_edited_within_the_second_generates_what_it_now_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python trusts a cached bytecode file whose source has the same size and whole-second
    # modification time; a design is compiled from its source every time instead.
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as most users run Python
    design = write(tmp_path / "design.py", THREE)
    out = tmp_path / "out"
    stat = design.stat()
    py_compile.compile(str(design), doraise=True)  # a cache, as an earlier import leaves it
    edited = THREE.replace('"Say hello"', '"Say howdy"')
    write(design, edited)
    os.utime(design, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same time
    generate([str(design)], out)
    assert "Say howdy" in (out / "svc" / "tool_schemas.json").read_text()
    # And generation leaves no bytecode of its own beside the design.
    assert sorted(p.name for p in (tmp_path / "__pycache__").iterdir()) == [
        f"design.{sys.implementation.cache_tag}.pyc"
    ]


def test_check_sees_a_stale_service_catalog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = write(tmp_path / "design.py", THREE)
    out = tmp_path / "out"
    generate([str(design)], out)
    catalog = out / "svc" / "tool_schemas.json"
    fresh = catalog.read_bytes()
    write(design, THREE.split('    with Toolset("beta"')[0])
    generate([str(design)], out)
    assert [t["name"] for t in json.loads(catalog.read_text())["tools"]] == ["ping"]
    catalog.write_bytes(fresh)  # a catalog listing tools the design no longer has
    assert main(["gen", str(design), "--out", str(out), "--check"]) == 1
    assert "would write  svc/tool_schemas.json" in capsys.readouterr().err


# ── nothing in the way is overwritten; failures are clear and leave the folder as it was ──


def test_a_file_where_a_generated_folder_goes_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    write(out / "svc" / "toolsets", "x\n")
    before = tree_bytes(out)
    assert main(["gen", str(design), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "svc/toolsets is a file where a generated folder belongs" in err
    assert "Traceback" not in err
    assert tree_bytes(out) == before
    assert sorted(p.name for p in out.rglob("*")) == ["svc", "toolsets"]


def test_a_failed_commit_into_a_new_folder_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "new" / "out"
    real_replace = os.replace
    count = {"n": 0}

    def failing_replace(src: Any, dst: Any) -> None:
        count["n"] += 1
        if count["n"] == 5:
            raise OSError(28, "No space left on device", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(commit.os, "replace", failing_replace)
    with pytest.raises(output.OutputError, match="No space left on device"):
        generate([str(design)], out)
    assert list(tmp_path.iterdir()) == [design], "no output, no parents, no staging left"


@pytest.mark.parametrize("check", [False, True], ids=["gen", "check"])
def test_an_output_folder_that_cannot_be_created_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], check: bool
) -> None:
    design = write(tmp_path / "design.py", SMALL)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if not os.access(locked, os.W_OK):
            parent = locked
        elif Path("/proc/self").is_dir():  # permissions do not bind this user; /proc binds all
            parent = Path("/proc")
        else:
            pytest.skip("no folder this user cannot write to")
        before = _ours(parent)
        code = main(["gen", str(design), "--out", str(parent / "out"), *(["--check"] * check)])
        after = _ours(parent)
    finally:
        locked.chmod(0o700)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if check:
        assert code == 1, "--check writes nothing, so it only reports what would be written"
    else:
        assert code == 2
        assert "cannot create the output folder" in err
    assert after == before == []


def _ours(folder: Path) -> list[str]:
    """What a generation into ``folder/out`` could have left there (the output, its staging)."""
    return sorted(p.name for p in folder.iterdir() if "out" in p.name or "tooldesign" in p.name)


# ── --check writes nothing at all ─────────────────────────────────────────────────────────


def test_check_writes_nothing_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    design = write(tmp_path / "designs" / "design.py", SMALL)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["gen", str(design), "--out", str(tmp_path / "missing" / "out"), "--check"]) == 1
    assert "would write  svc/tool_schemas.json" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["designs", "work"]
    assert list(work.iterdir()) == [], "no .ruff_cache, no staging folder"


def test_generation_leaves_no_ruff_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    design = write(tmp_path / "design.py", SMALL)
    monkeypatch.chdir(tmp_path)
    generate([str(design)], tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["design.py", "out"]


def test_check_reports_a_missing_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = write(tmp_path / "design.py", SMALL)
    out = tmp_path / "out"
    generate([str(design)], out)
    (out / ".tooldesign-manifest.json").unlink()
    assert main(["gen", str(design), "--out", str(out), "--check"]) == 1
    assert "would write  .tooldesign-manifest.json" in capsys.readouterr().err
    assert not (out / ".tooldesign-manifest.json").exists()
    assert main(["gen", str(design), "--out", str(out)]) == 0
    assert main(["gen", str(design), "--out", str(out), "--check"]) == 0


RENAMED = """
from tooldesign.dsl import *

with Service("my-svc", "A service whose name is no Python name"):
    with Toolset("class", "A toolset named by a keyword"):
        with Tool("hello", "Say hello"):
            Return(String, "A greeting")
    with Toolset("plain", "A toolset whose name stays"):
        with Tool("bye", "Say goodbye"):
            Return(String, "A farewell")

with Service("later", "A service without toolsets yet"):
    pass
"""


def test_names_changed_for_python_and_empty_services_are_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "design.py", RENAMED)
    for _ in range(2):  # told on every run, not only when files are written
        assert main(["gen", "design.py", "--out", "out"]) == 0
        err = capsys.readouterr().err.splitlines()
        assert err == [
            "tooldesign: notice: design.py:4: service \"my-svc\": 'my-svc' cannot name a Python "
            + "package: it is generated as 'my_svc', in my_svc/",
            'tooldesign: notice: design.py:5: service "my-svc" › toolset "class": \'class\' cannot '
            + "name a Python package: it is generated as 'class_', in my_svc/toolsets/class_/",
            'tooldesign: notice: design.py:12: service "later": declares no toolsets: later/ holds '
            + "no toolset package and its tool_schemas.json lists no tools",
        ]
    assert (tmp_path / "out/my_svc/toolsets/class_/specs.py").is_file()
    assert (tmp_path / "out/my_svc/toolsets/plain/specs.py").is_file()
    assert json.loads((tmp_path / "out/later/tool_schemas.json").read_text())["count"] == 0


LINE_BREAKS = "carriage\rreturn, both\r\nat once, form\x0cfeed, next\x85line, separator\u2028here"


def test_a_description_with_any_line_break_round_trips_into_the_docstring(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(
        f"""
from tooldesign.dsl import *

with Type("Odd", {LINE_BREAKS!r}) as Odd:
    Attribute("note", String, {LINE_BREAKS!r})

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("echo", {LINE_BREAKS!r}):
            Args(Odd)
            Return(String, "What was sent")
"""
    )
    types = generated.module("svc.toolsets.ts.types")
    assert inspect.cleandoc(types.Odd.__doc__ or "") == LINE_BREAKS
    assert types.Odd.model_fields["note"].description == LINE_BREAKS
    spec = generated.module("svc.toolsets.ts.specs").ECHO_SPEC
    assert spec.description == LINE_BREAKS
