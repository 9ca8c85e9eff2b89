# SPDX-License-Identifier: Apache-2.0
"""A client for the Holdpoint console's protocol v1 (core/protocol/PROTOCOL.md)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import websockets



def _os_user() -> str:
    """The OS user this process runs as: the requester a rule with
    exclude_requester keeps from approving its own agent's calls."""
    try:
        import pwd
        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return os.environ.get("USER") or f"uid{os.geteuid()}"

class HoldpointError(Exception):
    """The console refused a message; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConsoleUnavailable(HoldpointError):
    """The console could not be asked: the connection failed, broke, went
    silent, or the other end does not speak the protocol."""

    def __init__(self, message: str):
        super().__init__("console_unavailable", message)


class NoConsole(ConsoleUnavailable):
    """No console can be reached at all: no endpoint.json, or nothing
    listens on its port. The one failure fail-open may let a call through for."""


# How long a client waits without hearing from the console (no message, no
# pong) before it denies what it waits on; HOLDPOINT_SILENCE_MS overrides it.
DEFAULT_SILENCE_S = 10.0
# How long connect() waits for the welcome.
WELCOME_TIMEOUT_S = 10.0


def silence_bound_s() -> float:
    value = os.environ.get("HOLDPOINT_SILENCE_MS", "")
    if value.isdigit() and 100 <= int(value) <= 3_600_000:
        return int(value) / 1000
    return DEFAULT_SILENCE_S


def fails_open(error: HoldpointError, fail_closed: bool) -> bool:
    """The fail-open rule (PROTOCOL.md, "When the console cannot be asked"),
    the one place the Python adapters ask it: a call runs after ``error``
    only without ``fail_closed``, and only when no console could be reached
    for it at all (``NoConsole``). A refusal of any kind, a listener that is
    not a console, silence, and a connection lost after the call was sent
    all block: an agent can stop, kill or flood the console, and must not
    get a call past review that way."""
    return not fail_closed and isinstance(error, NoConsole)


def _dumps(message: dict) -> str:
    """UTF-8 as it is (escaped, non-ASCII text takes up to six times the
    bytes and meets the console's size limit early), and no NaN or
    Infinity, which are not JSON and which the console could not match to
    the call."""
    try:
        text = json.dumps(message, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")  # a lone surrogate has no UTF-8
    except ValueError as e:  # UnicodeEncodeError is one
        raise HoldpointError("invalid_json", f"the call cannot be sent as JSON: {e}") from None
    return text


@dataclass
class Decision:
    """The console's decision on one tool call."""

    decision: str  # allow, modify, deny, halt
    args: Optional[dict]  # what to run with (allow and modify only)
    reason: str
    decided_by: str
    code: str = ""
    warnings: list = field(default_factory=list)
    raw: dict = field(default_factory=dict)

    @property
    def allowed(self) -> bool:
        return self.decision in ("allow", "modify")


@dataclass
class AfterCall:
    """The console's answer to a tool result: allow, warn or halt."""

    action: str
    reason: str
    warnings: list = field(default_factory=list)


def find_endpoint(data_dir: Optional[str] = None) -> dict:
    """Reads endpoint.json like holdpoint-ctl: data_dir, else
    $HOLDPOINT_DATA_DIR, else ~/.local/share/holdpoint."""
    directory = data_dir or os.environ.get("HOLDPOINT_DATA_DIR") or str(
        Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "holdpoint")
    path = Path(directory) / "endpoint.json"
    try:
        endpoint = json.loads(path.read_text())
    except FileNotFoundError as e:
        raise NoConsole(f"no console found: cannot read {path} ({e}); start holdpoint, "
                        "or pass data_dir / set HOLDPOINT_DATA_DIR") from None
    except (OSError, ValueError) as e:
        raise ConsoleUnavailable(f"no console found: cannot read {path} ({e}); start holdpoint, "
                                 "or pass data_dir / set HOLDPOINT_DATA_DIR") from None
    if not isinstance(endpoint.get("url"), str) or not isinstance(endpoint.get("agent_token"), str):
        raise ConsoleUnavailable(f"{path} is not a valid endpoint file (expected url and agent_token)")
    return endpoint


class HoldpointClient:
    """One agent connection to the console (asyncio).

    ``submit`` sends a tool call and waits for its decision; several calls may
    wait at once. ``report_result`` sends what the tool returned and waits for
    the after-call verdict. ``session_id`` resumes a session across
    connections.
    """

    def __init__(self, agent_name: str = "python-agent", framework: str = "", *,
                 data_dir: Optional[str] = None, session_id: Optional[str] = None,
                 silence_s: Optional[float] = None):
        self.agent_name = agent_name
        # A console silent this long (stopped, hung) denies what waits.
        self.silence_s = silence_s if silence_s else silence_bound_s()
        self.framework = framework
        self.data_dir = data_dir
        self.session_id = session_id
        self._ws = None
        self._reader: Optional[asyncio.Task] = None
        self._waiting: dict[tuple[str, str], asyncio.Future] = {}
        self._ids = itertools.count(1)
        self._prefix = secrets.token_hex(4)
        self._closed_reason: Optional[str] = None
        self._connected_once = False  # later calls reconnect after a loss
        self._closed_by_us = False  # close() was called: no reconnecting
        # The console's limit on one message, from its welcome (an older
        # console does not say).
        self._max_message_bytes: Optional[int] = None

    async def connect(self) -> "HoldpointClient":
        """Reads endpoint.json (again: the token changes at each console
        start), connects and says hello, all within WELCOME_TIMEOUT_S."""
        endpoint = find_endpoint(self.data_dir)
        try:
            await asyncio.wait_for(self._connect(endpoint), WELCOME_TIMEOUT_S)
        except asyncio.TimeoutError:
            await self._abort()
            raise ConsoleUnavailable(f"the console at {endpoint['url']} did not welcome us within "
                                     f"{WELCOME_TIMEOUT_S:g} s") from None
        except BaseException:
            await self._abort()
            raise
        self._closed_reason = None
        self._connected_once = True
        self._closed_by_us = False
        self._reader = asyncio.get_running_loop().create_task(self._read())
        return self

    async def _abort(self) -> None:
        if self._ws is not None:
            self._ws.transport.abort()
            self._ws = None

    async def _connect(self, endpoint: dict) -> None:
        try:
            # Pings every half bound, and a pong due within the other half:
            # a console silent for the bound is dropped, which denies every
            # call that waits on it.
            self._ws = await websockets.connect(endpoint["url"], max_size=16 * 1024 * 1024,
                                                ping_interval=self.silence_s / 2, ping_timeout=self.silence_s / 2,
                                                close_timeout=1)
        except ConnectionRefusedError as e:
            raise NoConsole(f"cannot connect to the console at {endpoint['url']}: {e}") from None
        except (OSError, websockets.exceptions.WebSocketException) as e:
            raise ConsoleUnavailable(f"cannot connect to the console at {endpoint['url']}: {e}") from None
        agent = {"name": self.agent_name, "user": _os_user()}
        if self.framework:
            agent["framework"] = self.framework
        hello = {"type": "hello", "protocol": 1, "token": endpoint["agent_token"], "agent": agent}
        if self.session_id:
            hello["session_id"] = self.session_id
        try:
            await self._ws.send(_dumps(hello))
            text = await self._ws.recv()
        except websockets.exceptions.ConnectionClosed as e:
            raise ConsoleUnavailable(f"the console refused the connection ({e.code} {e.reason})") from None
        try:
            message = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            message = None
        if not isinstance(message, dict):
            raise ConsoleUnavailable("the console broke the protocol: its first message is not a JSON object")
        if message.get("type") == "error":
            raise HoldpointError(message.get("code", ""), message.get("message", ""))
        if message.get("type") != "welcome" or message.get("protocol") != 1 or isinstance(message.get("protocol"), bool):
            raise ConsoleUnavailable("the console broke the protocol: expected a welcome for protocol 1, got "
                                     + json.dumps(message)[:200])
        self.session_id = message["session_id"]
        limit = message.get("max_message_bytes")
        self._max_message_bytes = limit if isinstance(limit, int) and limit > 0 else None

    async def __aenter__(self):
        return await self.connect()

    async def __aexit__(self, *exc):
        await self.close()

    async def close(self) -> None:
        """Closes the connection; a console that is already gone is no error."""
        self._closed_by_us = True
        if self._ws is not None:
            try:
                await self._ws.close()
            except (OSError, websockets.exceptions.ConnectionClosed):
                pass
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    def new_call_id(self) -> str:
        return f"py-{self._prefix}-{next(self._ids)}"

    async def submit(self, tool_name: str, args: dict, *, call_id: Optional[str] = None,
                     turn_id: Optional[str] = None, context: Optional[dict] = None,
                     annotations: Optional[dict] = None, timeout_s: Optional[float] = None) -> Decision:
        """Sends a tool call and returns the console's decision."""
        await self._reconnect_if_lost()
        call_id = call_id or self.new_call_id()
        message = {"type": "tool_call", "call_id": call_id, "tool_name": tool_name, "args": args}
        if turn_id:
            message["turn_id"] = turn_id
        if context:
            message["context"] = context
        if annotations:
            message["annotations"] = annotations
        if timeout_s:
            message["timeout_s"] = timeout_s
        text = _dumps(message)
        size = len(text.encode("utf-8"))
        if self._max_message_bytes is not None and size > self._max_message_bytes:
            # Sent anyway, the console would cut the connection off mid-send
            # (1009) with nothing said; refused here, the connection goes on.
            raise HoldpointError("too_large", f"the call is {size} bytes, more than the console takes "
                                              f"({self._max_message_bytes} bytes, holdpoint --max-message-bytes)")
        raw = await self._request(("decision", call_id), text)
        return Decision(decision=raw["decision"], args=raw.get("args"), reason=raw.get("reason", ""),
                        decided_by=raw.get("decided_by", ""), code=raw.get("code", ""),
                        warnings=raw.get("warnings", []), raw=raw)

    async def report_result(self, call_id: str, ok: bool, result: Any = None) -> AfterCall:
        """Sends what the tool returned; returns the after-call verdict."""
        await self._reconnect_if_lost()
        raw = await self._request(("after_call", call_id),
                                  {"type": "tool_result", "call_id": call_id, "ok": ok, "result": result})
        return AfterCall(action=raw.get("action", "allow"), reason=raw.get("reason", ""),
                         warnings=raw.get("warnings", []))

    async def cancel(self, call_id: str) -> None:
        """Gives up on a waiting call; its submit() returns a deny."""
        await self._send({"type": "cancel", "call_id": call_id})

    async def turn_start(self, turn_id: str) -> None:
        await self._send({"type": "turn_start", "turn_id": turn_id})

    async def turn_end(self, turn_id: str) -> None:
        await self._send({"type": "turn_end", "turn_id": turn_id})

    async def _reconnect_if_lost(self) -> None:
        """After a lost connection, the next call connects anew (reading
        endpoint.json again)."""
        if self._closed_by_us or not self._connected_once:
            return
        if self._ws is None or self._closed_reason is not None:
            if self._reader is not None:
                await asyncio.gather(self._reader, return_exceptions=True)
                self._reader = None
            self._ws = None
            await self.connect()

    async def _send(self, message) -> None:
        """Sends a message: a dict, or one already serialized."""
        if self._ws is None or self._closed_reason is not None:
            raise ConsoleUnavailable(self._closed_reason or "not connected")
        try:
            await self._ws.send(message if isinstance(message, str) else _dumps(message))
        except websockets.exceptions.ConnectionClosed as e:
            raise ConsoleUnavailable(f"the console closed the connection ({e.code} {e.reason})") from None

    async def _request(self, key: tuple[str, str], message) -> dict:
        future = asyncio.get_running_loop().create_future()
        self._waiting[key] = future
        try:
            await self._send(message)
            return await future
        finally:
            self._waiting.pop(key, None)

    async def _read(self) -> None:
        try:
            async for text in self._ws:
                try:
                    message = json.loads(text)
                except ValueError:
                    message = None
                if not isinstance(message, dict):
                    # Nothing after this can be trusted: every waiting call is
                    # denied, and later ones too, instead of hanging on a
                    # reader that died.
                    self._closed_reason = "the console sent a message that is not a JSON object"
                    await self._ws.close(1002, "not a JSON object")
                    break
                kind = message.get("type")
                call_id = message.get("call_id", "")
                if kind in ("decision", "after_call"):
                    future = self._waiting.get((kind, call_id))
                    if future and not future.done():
                        future.set_result(message)
                elif kind == "error":
                    error = HoldpointError(message.get("code", ""), message.get("message", ""))
                    # Without a call_id it answers a message the console
                    # could not read that far; which of ours cannot be told,
                    # so everything waiting is denied, and cancelled at the
                    # console (PROTOCOL.md, "Errors").
                    unnamed = "call_id" not in message
                    for (waiting_kind, waiting_id), future in list(self._waiting.items()):
                        if (unnamed or waiting_id == call_id) and not future.done():
                            future.set_exception(error)
                            if unnamed and waiting_kind == "decision":
                                await self._ws.send(_dumps({"type": "cancel", "call_id": waiting_id}))
            if self._closed_reason is None:
                self._closed_reason = "the console closed the connection"
        except websockets.exceptions.ConnectionClosed as e:
            self._closed_reason = f"the console closed the connection ({e.code} {e.reason})"
            sent = getattr(e, "sent", None)
            if sent is not None and sent.code == 1011:  # websockets' keepalive gave up
                self._closed_reason = (f"the console went silent (no answer to pings for {self.silence_s:g} s); "
                                       f"the connection was dropped")
        finally:
            reason = self._closed_reason or "the connection ended"
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(ConsoleUnavailable(reason))


class HoldpointSyncClient:
    """The same client for synchronous code: runs its own event loop in a
    background thread."""

    def __init__(self, agent_name: str = "python-agent", framework: str = "", **kwargs):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="holdpoint", daemon=True)
        self._thread.start()
        self.client = HoldpointClient(agent_name, framework, **kwargs)
        self._connected = False

    def _run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def connect(self) -> "HoldpointSyncClient":
        self._run(self.client.connect())
        self._connected = True
        return self

    def ensure_connected(self) -> None:
        if not self._connected or self.client._closed_reason is not None:
            self.connect()

    def submit(self, tool_name: str, args: dict, **kwargs) -> Decision:
        self.ensure_connected()
        return self._run(self.client.submit(tool_name, args, **kwargs))

    def report_result(self, call_id: str, ok: bool, result: Any = None) -> AfterCall:
        self.ensure_connected()
        return self._run(self.client.report_result(call_id, ok, result))

    def turn_start(self, turn_id: str) -> None:
        self.ensure_connected()
        self._run(self.client.turn_start(turn_id))

    def turn_end(self, turn_id: str) -> None:
        self.ensure_connected()
        self._run(self.client.turn_end(turn_id))

    def cancel(self, call_id: str) -> None:
        self._run(self.client.cancel(call_id))

    def new_call_id(self) -> str:
        return self.client.new_call_id()

    def close(self) -> None:
        if self._connected:
            self._run(self.client.close())
            self._connected = False
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()

    def __enter__(self):
        try:
            return self.connect()
        except BaseException:
            self.close()  # no console: do not leave the loop's thread behind
            raise

    def __exit__(self, *exc):
        self.close()
