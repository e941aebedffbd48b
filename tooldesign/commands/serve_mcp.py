"""``tooldesign serve-mcp MODULE:ATTR [--app-dir DIR] [--transport stdio|http] [--host] [--port]
[--name] [--server-version V] [--meta-for MODULE:FUNC] [--on-result MODULE:FUNC] [--defer SELECTOR]
[--eager SELECTOR] [--default-loading eager|deferred] [--read-only-eager]`` and, over HTTP, ``[--auth-token-env
NAME] [--allowed-host HOST] [--allowed-origin ORIGIN] [--max-sessions N]
[--max-sessions-per-client N] [--session-idle-timeout SECONDS] [--no-auth]``.

``MODULE:ATTR`` (or ``path/to/file.py:ATTR``) names a ``Runtime``, a
``tooldesign.runtime.mcp.ToolServer`` (configured in code), or a function returning either, sync
or async. ``--meta-for`` and ``--on-result`` name the ``ToolServer`` callbacks for a runtime:
``meta_for(context)`` builds each call's ``ToolCallMeta`` (injected values other than the session
and the call id come from there: without it, the tools that inject others are named in a
warning), ``on_result(result, context)`` observes each result. The
application is imported from ``--app-dir`` (default: the current directory), so an MCP host can
start the server from any working directory.

With a loading plan (``--defer``, ``--eager``, ``--default-loading``, ``--read-only-eager``, as
``tooldesign export`` takes them), the catalog is served as discovery
(:class:`~tooldesign.runtime.mcp.discovery.DiscoveryServer`): ``tools/list`` shows the eager
tools and ``search_tools`` (the builtin ``tool_index`` is registered with the plan, in place of
one registered without it), and each connection's list grows by what its searches found.

On stdio, standard output is the protocol's channel: the application is imported with its
standard output sent to standard error, and while serving the SDK sends it there too. Log
records go to standard error (warnings and up, unless the application configured logging),
which MCP hosts show to their users.

Over HTTP, ``--auth-token-env NAME`` requires the bearer token held by the environment variable
``NAME`` (never one on the command line, which other users of the machine can read); each of
several names is a client of its own, and ``--token-scopes NAME="SCOPE SCOPE"`` gives that client's
token the OAuth scopes a tool's ``Scopes`` ask for (a token given none may call only tools
without scopes, and is listed only those). A server listening beyond loopback needs a token, or
``--no-auth`` to say that anyone who reaches it may call every tool. ``Host`` and ``Origin`` are
checked for every host (``--allowed-host``, ``--allowed-origin``), and the first lines say what
is allowed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

from tooldesign.commands._loading import add_plan_arguments, plan_flags_given, plan_from
from tooldesign.commands._targets import built, load_target, parse_target
from tooldesign.contract.errors import EXIT_OK, UserError

if TYPE_CHECKING:
    import socket

    from tooldesign.runtime.mcp import ToolServer


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve-mcp", help="serve a Runtime's toolsets over MCP")
    serve.add_argument(
        "target",
        metavar="MODULE:ATTR",
        help="a Runtime, or a function returning one (sync or async), by import path "
        "(or path/to/file.py:ATTR)",
    )
    serve.add_argument(
        "--app-dir",
        metavar="DIR",
        help="import the application from DIR (default: the current directory)",
    )
    serve.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (the default): one client on standard input and output, as MCP hosts start "
        "servers; http: streamable HTTP on --host and --port, for many clients",
    )
    # Left None when not given, so that --host or --port without --transport http is refused.
    serve.add_argument("--host", help=f"http only (default {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, help=f"http only (default {DEFAULT_PORT})")
    serve.add_argument("--name", help="the server name clients see (default: the services')")
    serve.add_argument(
        "--server-version",
        metavar="VERSION",
        help="the server version clients see (default: the version of the catalog served, "
        "which changes whenever what models see of a tool does)",
    )
    serve.add_argument(
        "--meta-for",
        metavar="MODULE:FUNC",
        help="builds each call's ToolCallMeta from the request: meta_for(context), sync or async",
    )
    serve.add_argument(
        "--on-result",
        metavar="MODULE:FUNC",
        help="observes each result: on_result(result, context), sync or async",
    )
    add_plan_arguments(serve)  # with any of them: discovery (a search and the tools found)
    http = serve.add_argument_group("over HTTP")
    http.add_argument(
        "--auth-token-env",
        metavar="NAME",
        action="append",
        default=[],
        help="require the bearer token held by environment variable NAME (repeatable: one "
        "client per variable)",
    )
    http.add_argument(
        "--token-scopes",
        metavar="NAME=SCOPES",
        action="append",
        default=[],
        help="the scopes the token of --auth-token-env NAME grants, separated by spaces "
        "(repeatable: one per token)",
    )
    http.add_argument(
        "--no-auth",
        action="store_true",
        help="serve without authentication on a host other than loopback (anyone who reaches "
        "it can call every tool)",
    )
    http.add_argument(
        "--allowed-host",
        metavar="HOST",
        action="append",
        default=[],
        help="a Host name clients use besides the loopback ones and --host: name, name:port "
        "or * (repeatable)",
    )
    http.add_argument(
        "--allowed-origin",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="a browser origin allowed besides loopback ones: scheme://name[:port|:*] or * "
        "(repeatable)",
    )
    http.add_argument(
        "--stateless",
        action="store_true",
        help="serve each request on its own, with no sessions: every client is offered the "
        "2026-07-28 protocol, even where a tool injects session_id (give it --meta-for)",
    )
    limits = SESSION_DEFAULTS
    http.add_argument(
        "--max-sessions",
        type=int,
        help=f"sessions open at once (default {limits['max_sessions']})",
    )
    http.add_argument(
        "--max-sessions-per-client",
        type=int,
        help=f"sessions one authenticated client may hold (default {limits['per_client']})",
    )
    http.add_argument(
        "--session-idle-timeout",
        type=float,
        metavar="SECONDS",
        help=f"end sessions idle this long (default {limits['idle_timeout']:g})",
    )
    serve.set_defaults(run=run)


SESSION_DEFAULTS: dict[str, Any] = {"max_sessions": 1000, "per_client": 100, "idle_timeout": 600.0}
"""``SessionLimits``' defaults, for ``--help`` only: this module is imported by every command,
the MCP SDK only when serving (a test checks they agree)."""

_SESSION_FLAGS = {
    "max_sessions": "max_sessions",
    "max_sessions_per_client": "per_client",
    "session_idle_timeout": "idle_timeout",
}
"""Each session option, with the ``SessionLimits`` field it sets."""

_HTTP_FLAGS = {
    "auth_token_env": "--auth-token-env",
    "token_scopes": "--token-scopes",
    "no_auth": "--no-auth",
    "allowed_host": "--allowed-host",
    "allowed_origin": "--allowed-origin",
    "stateless": "--stateless",
    **{option: "--" + option.replace("_", "-") for option in _SESSION_FLAGS},
}
"""The options of the HTTP transport only, with their spelling."""


USAGE = "serve-mcp takes MODULE:ATTR (for example examples.netops.mcp_server:runtime)"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def run(args: argparse.Namespace) -> int:
    # Serving's modules (asyncio, the runtime, the MCP SDK) are imported here and in the
    # functions below, not at the top: every `tooldesign` command imports this module.
    import asyncio

    _check_transport_options(args)
    _require_mcp()
    security = _http_security(args)
    with _protocol_channel_kept(args):
        target = load_target(parse_target(args.target, usage=USAGE, app_dir=_app_dir(args)))
        callbacks = _callbacks(args)
    if args.transport == "http":
        listener = _listen(args.host, args.port)
    try:
        if args.transport == "stdio":
            asyncio.run(_serve_stdio(target, callbacks, args))
        else:
            asyncio.run(_serve_http(target, callbacks, args, listener, security))
    except KeyboardInterrupt:
        pass
    return EXIT_OK


_CALLBACK_FLAGS = {"meta_for": "--meta-for", "on_result": "--on-result"}
"""The ToolServer callbacks the command line names, each with its option."""


def _check_transport_options(args: argparse.Namespace) -> None:
    """The HTTP server's options (--host, --port, authentication, origins, sessions): given for
    stdio, they are a mistake, not something to ignore (a host would wait for an HTTP server that
    never starts, or believe a token protects a stdio server)."""
    host, port = getattr(args, "host", None), getattr(args, "port", None)
    if args.transport == "http":
        args.host = DEFAULT_HOST if host is None else host
        args.port = DEFAULT_PORT if port is None else port
        limits = [f"--{o.replace('_', '-')}" for o in _SESSION_FLAGS if getattr(args, o, None)]
        if getattr(args, "stateless", False) and limits:
            raise UserError(f"{' and '.join(limits)} limit sessions, which --stateless has none of")
        return
    given = [flag for flag, value in (("--host", host), ("--port", port)) if value is not None]
    given += [flag for option, flag in _HTTP_FLAGS.items() if getattr(args, option, None)]
    if given:
        verb = "applies" if len(given) == 1 else "apply"
        raise UserError(
            f"{' and '.join(given)} {verb} to --transport http only; add --transport http "
            "to serve over HTTP (stdio, the default, takes none of them)"
        )


def _app_dir(args: argparse.Namespace) -> str | None:
    return getattr(args, "app_dir", None)  # a Namespace built in code may leave it out


def _callbacks(args: argparse.Namespace) -> dict[str, Any]:
    """``meta_for`` and ``on_result`` as ``--meta-for`` and ``--on-result`` name them."""
    found: dict[str, Any] = {}
    for option, flag in _CALLBACK_FLAGS.items():
        ref = getattr(args, option, None)  # a Namespace built in code may leave them out
        if ref is not None:
            usage = f"{flag} takes MODULE:FUNC (for example app.mcp:{option})"
            found[option] = load_target(parse_target(ref, usage=usage, app_dir=_app_dir(args)))
    return found


def _http_security(args: argparse.Namespace) -> dict[str, Any]:
    """The HTTP app's security options from the command line (nothing for stdio, where
    :func:`_check_transport_options` refuses them): the tokens' verifier, the allowed names and
    origins, the session limits."""
    if args.transport != "http":
        return {}
    from tooldesign.runtime.mcp import BearerTokens
    from tooldesign.runtime.mcp.access import MIN_TOKEN_LENGTH, HostsAndOrigins, is_loopback

    tokens: dict[str, str] = {}
    for name in getattr(args, "auth_token_env", None) or []:
        token = os.environ.get(name, "")
        if not token:
            raise UserError(
                f"--auth-token-env {name}: the environment variable {name} is not set or empty"
            )
        if len(token) < MIN_TOKEN_LENGTH:
            raise UserError(
                f"--auth-token-env {name}: the token is shorter than {MIN_TOKEN_LENGTH} "
                "characters; generate one with: "
                "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        if token in tokens:
            raise UserError(f"--auth-token-env {name}: the same token as {tokens[token]}")
        tokens[token] = name
    if tokens and getattr(args, "no_auth", False):
        raise UserError("--no-auth and --auth-token-env contradict each other: choose one")
    if not tokens and not is_loopback(args.host) and not getattr(args, "no_auth", False):
        raise UserError(
            f"--host {args.host} serves beyond this machine without authentication, so anyone "
            "who reaches the port could call every tool: pass --auth-token-env NAME (a token in "
            "the environment variable NAME), or --no-auth to serve openly anyway"
        )
    allowed = {
        "allowed_hosts": getattr(args, "allowed_host", None) or [],
        "allowed_origins": getattr(args, "allowed_origin", None) or [],
    }
    try:
        HostsAndOrigins.for_host(args.host, **allowed)  # refuses a pattern that is not one
    except ValueError as exc:
        raise UserError(str(exc).replace("an allowed ", "--allowed-", 1)) from None
    names = ", ".join(f"${name}" for name in tokens.values())
    return {
        "token_verifier": BearerTokens(tokens, scopes=_token_scopes(args)) if tokens else None,
        "authentication": f"bearer token from {names}" if tokens else None,
        "sessions": _session_limits(args),
        **allowed,
    }


def _token_scopes(args: argparse.Namespace) -> dict[str, list[str]]:
    """``--token-scopes NAME=SCOPES``: each named token's scopes, checked."""
    from tooldesign.contract.scopes import scope_problem

    named = set(getattr(args, "auth_token_env", None) or [])
    out: dict[str, list[str]] = {}
    for given in getattr(args, "token_scopes", None) or []:
        name, equals, scopes = given.partition("=")
        if not equals or not name:
            raise UserError(
                f"--token-scopes takes NAME=SCOPES (for example OPS_TOKEN='devices:write'), "
                f"got {given!r}"
            )
        if name not in named:
            raise UserError(f"--token-scopes {name}: no --auth-token-env {name} gives that token")
        if name in out:
            raise UserError(f"--token-scopes {name}: given twice")
        for scope in scopes.split():
            if (problem := scope_problem(scope)) is not None:
                raise UserError(f"--token-scopes {name}: {problem}")
        out[name] = scopes.split()
    return out


def _session_limits(args: argparse.Namespace) -> Any:
    """The ``SessionLimits`` the options set (its own defaults for the others)."""
    from tooldesign.runtime.mcp import SessionLimits

    given = {
        field: value
        for option, field in _SESSION_FLAGS.items()
        if (value := getattr(args, option, None)) is not None
    }
    try:
        return SessionLimits(**given)
    except ValueError as exc:
        message = str(exc)
        for option, field in _SESSION_FLAGS.items():
            message = message.replace(field, "--" + option.replace("_", "-"))
        raise UserError(message) from None


def _protocol_channel_kept(args: argparse.Namespace) -> contextlib.AbstractContextManager[Any]:
    """On stdio, what the application prints while it is set up goes to standard error: a line
    on standard output before the first message would break the client's protocol stream."""
    if args.transport == "stdio":
        return contextlib.redirect_stdout(sys.stderr)
    return contextlib.nullcontext()


def _log_to_stderr() -> None:
    """Log records as lines a host can show (level and source), unless the application set
    logging up itself when it was imported."""
    import logging

    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)  # the root logger's level stays as it is: warnings and up


def _require_mcp() -> None:
    try:
        import mcp  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise UserError(
            f"serving over MCP needs the mcp package ({exc}); install it with: "
            "pip install 'tooldesign[mcp]'"
        ) from None


async def resolve_server(
    target: Any, callbacks: dict[str, Any], args: argparse.Namespace
) -> ToolServer:
    """The target as a ToolServer: a Runtime is wrapped (with ``callbacks``: ``meta_for`` and
    ``on_result``); a function is called (and awaited)."""
    from tooldesign.runtime.mcp import ToolServer
    from tooldesign.runtime.runtime import Runtime

    value = await built(target, args.target, {Runtime: "a Runtime", ToolServer: "a ToolServer"})
    version = getattr(args, "server_version", None)  # a Namespace built in code may leave it out
    if isinstance(value, ToolServer):
        given = ["--name"] if args.name else []
        given += ["--server-version"] if version else []
        given += [_CALLBACK_FLAGS[option] for option in callbacks]
        given += plan_flags_given(args) if hasattr(args, "defer") else []
        if given:
            raise UserError(
                f"{args.target} is a ToolServer, which is configured already: drop "
                f"{' and '.join(given)} (set it in code, where the ToolServer is built)"
            )
        return value
    plan = plan_from(args) if hasattr(args, "defer") else None
    try:
        if plan is not None:
            return _discovery(value, plan, name=args.name, version=version or "", **callbacks)
        return ToolServer(value, name=args.name, version=version or "", **callbacks)
    except TypeError as exc:  # a callback that cannot be called as the server calls it
        raise UserError(str(exc)) from None


def _discovery(runtime: Any, plan: Any, **options: Any) -> ToolServer:
    """The runtime served as discovery: the builtin tool_index registered with the plan (in place
    of one registered without it), so search_tools searches the deferred tools."""
    from tooldesign.builtin.tool_index import SERVICE, TOOLSET, tool_index_registration
    from tooldesign.runtime.mcp.discovery import DiscoveryServer

    if any((info.service, info.toolset) == (SERVICE, TOOLSET) for info in runtime.toolsets()):
        runtime.unregister(SERVICE, TOOLSET)
    runtime.register(tool_index_registration(runtime, plan=plan))
    return DiscoveryServer(runtime, plan=plan, **options)


def uncarried_warning(server: ToolServer) -> str | None:
    """What the operator is warned of when served tools inject values no MCP call carries and
    no ``meta_for`` provides: those tools can only answer that they cannot run."""
    from tooldesign.runtime.mcp.callbacks import uncarried, uncarried_warning

    if server.meta_for is not None:
        return None
    how = (
        "give --meta-for MODULE:FUNC, a function that sets {values} from each call "
        "(docs/mcp.md, Call metadata)"
    )
    return uncarried_warning(uncarried(server.runtime.specs()), how)


async def _serve_stdio(target: Any, callbacks: dict[str, Any], args: argparse.Namespace) -> None:
    with _protocol_channel_kept(args):
        server = await resolve_server(target, callbacks, args)
        tools = len(server.tools())
    _log_to_stderr()
    # Standard output is the protocol's channel: anything for people goes to standard error.
    print(f"tooldesign: serving {tools} tool(s) over MCP on stdio{_found(server)}", file=sys.stderr)
    _warn_uncarried(server)
    try:
        await server.serve_stdio()
    finally:
        # The conversation is over: what a thread still running prints, or what is flushed
        # at exit, must not reach the client, which may still be reading.
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            os.dup2(sys.stderr.fileno(), sys.stdout.fileno())


async def _serve_http(
    target: Any,
    callbacks: dict[str, Any],
    args: argparse.Namespace,
    listener: socket.socket,
    security: dict[str, Any],
) -> None:
    import uvicorn
    from tooldesign.runtime.mcp.events import RETRY_INTERVAL_MS, MemoryEventStore

    server = await resolve_server(target, callbacks, args)
    _log_to_stderr()
    try:
        # SSE streams resume after a dropped connection (Last-Event-ID), from memory.
        app = server.streamable_http_app(
            host=args.host,
            stateless=args.stateless,
            event_store=MemoryEventStore(),
            retry_interval=RETRY_INTERVAL_MS,
            **security,
        )
    except ValueError as exc:  # an allowed host or origin that is not one
        raise UserError(str(exc)) from None
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    lines = [
        f"serving {len(server.tools())} tool(s) over MCP at http://{shown}:{port}/mcp"
        + _found(server)
    ]
    lines += app.state.mcp_policy.describe()
    print("\n".join(f"tooldesign: {line}" for line in lines), file=sys.stderr, flush=True)
    _warn_uncarried(server)
    await uvicorn.Server(config).serve(sockets=[listener])


def _found(server: ToolServer) -> str:
    """For a discovery server: how many more tools its search finds."""
    from tooldesign.runtime.mcp.discovery import DiscoveryServer

    if not isinstance(server, DiscoveryServer):
        return ""
    deferred = len(server.runtime.specs()) - len(server.tools())
    return f", and {deferred} more found through search_tools"


def _warn_uncarried(server: ToolServer) -> None:
    warning = uncarried_warning(server)
    if warning:
        print(f"tooldesign: warning: {warning}", file=sys.stderr, flush=True)


def _listen(host: str, port: int) -> socket.socket:
    """Bind and listen before serving, so a busy port is a clear error (uvicorn would exit the
    process)."""
    import socket

    if not 0 <= port <= 65535:
        raise UserError(f"--port must be between 0 and 65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        # Listening before the "serving at" line: a client that connects as soon as it reads
        # the line waits in the backlog until the server accepts, instead of being refused.
        listener.listen(2048)
    except OSError as exc:
        listener.close()
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return listener
