# SPDX-License-Identifier: Apache-2.0
"""The Python client and adapters against a console that hangs, is squatted
on, refuses, or restarts (PROTOCOL.md, "When the console cannot be asked").

A real headless console stopped with SIGSTOP while a call waits: the call is
denied within the silence bound, nothing runs, and the person's approval
after SIGCONT runs nothing either. Fail-open (``fail_closed=False``) lets a
call through only when no console can be reached: every other row of the
table denies. Errors without a call_id deny at once, and non-ASCII text goes
out as UTF-8.
"""

import asyncio
import json
import math
import os
import signal
import socket
import tempfile
import time
import unittest
from pathlib import Path

import websockets

import holdpoint.client
from holdpoint import (ConsoleUnavailable, Decision, HoldpointClient, HoldpointError, HoldpointGuardrailProvider,
                       HoldpointSyncClient)
from holdpoint.client import NoConsole, fails_open

from test_fail_closed import Console, Tool, autogen_run

SILENCE_S = 1.0
DEADLINE_S = 30


def stop(console):
    os.kill(console.process.pid, signal.SIGSTOP)


def cont(console):
    os.kill(console.process.pid, signal.SIGCONT)


class TestStoppedConsole(unittest.TestCase):
    def setUp(self):
        self.console = Console()
        self.addCleanup(self.console.close)
        self.addCleanup(lambda: cont(self.console))
        self.tool = Tool()

    def test_client_denies_within_the_bound(self):
        async def go():
            async with HoldpointClient("py-stopped", data_dir=self.console.data_dir, silence_s=SILENCE_S) as client:
                waiting = asyncio.ensure_future(client.submit("write", {"path": "x"}))
                item = (await asyncio.to_thread(self.console.wait_pending, "write"))[0]
                started = time.monotonic()
                stop(self.console)
                with self.assertRaises(ConsoleUnavailable) as e:
                    await asyncio.wait_for(waiting, DEADLINE_S)
                took = time.monotonic() - started
                self.assertFalse(fails_open(e.exception, fail_closed=False))
                self.assertIn("went silent", str(e.exception))
                self.assertLess(took, SILENCE_S * 3 + 1)
                cont(self.console)
                await asyncio.to_thread(self.console.ctl, "approve", item["id"])
                # The next call connects anew and is decided as usual.
                decision = await client.submit("read", {"path": "a"})
                self.assertTrue(decision.allowed)
        asyncio.run(go())

    def test_sync_client_denies_within_the_bound(self):
        with HoldpointSyncClient("py-stopped-sync", data_dir=self.console.data_dir, silence_s=SILENCE_S) as client:
            from test_fail_closed import Background
            waiting = Background(client.submit, "write", {"path": "x"})
            self.console.wait_pending("write")
            stop(self.console)
            with self.assertRaises(ConsoleUnavailable):
                waiting.result()
            cont(self.console)
            self.assertTrue(client.submit("read", {"path": "a"}).allowed)

    def test_autogen_fail_open_still_denies(self):
        async def go():
            os.environ["HOLDPOINT_SILENCE_MS"] = str(int(SILENCE_S * 1000))
            try:
                provider = HoldpointGuardrailProvider(data_dir=self.console.data_dir, fail_closed=False)
                waiting = asyncio.ensure_future(autogen_run(provider, self.tool, "write", {"path": "x"}))
                item = (await asyncio.to_thread(self.console.wait_pending, "write"))[0]
                stop(self.console)
                result = await asyncio.wait_for(waiting, DEADLINE_S)
                self.assertEqual(result.decision, Decision.DENY)
                cont(self.console)
                await asyncio.to_thread(self.console.ctl, "approve", item["id"])
                await provider.close()
            finally:
                del os.environ["HOLDPOINT_SILENCE_MS"]
        asyncio.run(go())
        self.assertEqual(self.tool.runs, [], "the tool ran")


class Squatter:
    """A TCP listener on loopback that answers with `reply` (or nothing)."""

    def __init__(self, reply=None):
        self.reply = reply

    async def handler(self, reader, writer):
        try:
            await reader.read(4096)
            if self.reply is not None:
                writer.write(self.reply)
                await writer.drain()
            await asyncio.sleep(DEADLINE_S)
        finally:
            writer.close()

    async def __aenter__(self):
        self._server = await asyncio.start_server(self.handler, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self._dir = tempfile.TemporaryDirectory()
        (Path(self._dir.name) / "endpoint.json").write_text(
            json.dumps({"url": f"ws://127.0.0.1:{port}", "agent_token": "t"}))
        self.data_dir = self._dir.name
        return self

    async def __aexit__(self, *exc):
        self._server.close()
        self._dir.cleanup()


class Scripted:
    """A WebSocket server that answers hello with `greeting` and each
    tool_call with `reply`."""

    def __init__(self, greeting, reply=None):
        self.greeting = greeting
        self.reply = reply

    async def handler(self, ws, path=None):
        try:
            await ws.recv()
            await ws.send(self.greeting)
            async for text in ws:
                if json.loads(text).get("type") == "tool_call" and self.reply is not None:
                    await ws.send(self.reply)
        except websockets.exceptions.ConnectionClosed:
            pass

    async def __aenter__(self):
        self._server = await websockets.serve(self.handler, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self._dir = tempfile.TemporaryDirectory()
        (Path(self._dir.name) / "endpoint.json").write_text(
            json.dumps({"url": f"ws://127.0.0.1:{port}", "agent_token": "t"}))
        self.data_dir = self._dir.name
        return self

    async def __aexit__(self, *exc):
        self._server.close()
        await self._server.wait_closed()
        self._dir.cleanup()


WELCOME = json.dumps({"type": "welcome", "protocol": 1, "session_id": "s-1", "resumed": False})


class TestFailOpenRows(unittest.TestCase):
    """Each row of the fail-open table through AutoGen's provider with
    fail_closed=False: only "no console reachable" lets the call run."""

    def setUp(self):
        self.saved = holdpoint.client.WELCOME_TIMEOUT_S
        holdpoint.client.WELCOME_TIMEOUT_S = 1.0  # a squatter that says nothing costs 1 s, not 10

    def tearDown(self):
        holdpoint.client.WELCOME_TIMEOUT_S = self.saved

    def run_row(self, data_dir):
        async def go():
            tool = Tool()
            provider = HoldpointGuardrailProvider(data_dir=data_dir, fail_closed=False)
            started = time.monotonic()
            result = await asyncio.wait_for(autogen_run(provider, tool, "write", {"path": "x"}), DEADLINE_S)
            self.assertLess(time.monotonic() - started, 5)
            await provider.close()
            return result.decision, tool.runs
        return asyncio.run(go())

    def test_no_endpoint_file_runs(self):
        with tempfile.TemporaryDirectory() as empty:
            self.assertEqual(self.run_row(empty), (Decision.ALLOW, [{"path": "x"}]))

    def test_connection_refused_runs(self):
        with tempfile.TemporaryDirectory() as d:
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            s.close()
            (Path(d) / "endpoint.json").write_text(json.dumps({"url": f"ws://127.0.0.1:{port}", "agent_token": "t"}))
            self.assertEqual(self.run_row(d), (Decision.ALLOW, [{"path": "x"}]))

    def check_denied(self, server):
        async def go():
            async with server:
                tool = Tool()
                provider = HoldpointGuardrailProvider(data_dir=server.data_dir, fail_closed=False)
                result = await asyncio.wait_for(autogen_run(provider, tool, "write", {"path": "x"}), DEADLINE_S)
                await provider.close()
                self.assertEqual(result.decision, Decision.DENY)
                self.assertEqual(tool.runs, [], "the tool ran")
        asyncio.run(go())

    def test_squatter_silent(self):
        self.check_denied(Squatter())

    def test_squatter_http(self):
        self.check_denied(Squatter(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"))

    def test_squatter_garbage(self):
        self.check_denied(Squatter(b"\x07" * 64))

    def test_garbage_greeting(self):
        self.check_denied(Scripted("{not json"))

    def test_protocol_2(self):
        self.check_denied(Scripted(json.dumps({"type": "welcome", "protocol": 2, "session_id": "s"})))

    def test_connection_limit(self):
        self.check_denied(Scripted(json.dumps({"type": "error", "code": "connection_limit", "message": "full"})))

    def test_auth_failed(self):
        self.check_denied(Scripted(json.dumps({"type": "error", "code": "auth_failed", "message": "no"})))

    def test_not_an_object_after_the_call(self):
        self.check_denied(Scripted(WELCOME, "[1]"))

    def test_error_without_call_id(self):
        self.check_denied(Scripted(WELCOME, json.dumps({"type": "error", "code": "too_deep", "message": "deep"})))

    def test_killed_after_the_call(self):
        console = Console()
        self.addCleanup(console.close)

        async def go():
            tool = Tool()
            provider = HoldpointGuardrailProvider(data_dir=console.data_dir, fail_closed=False)
            waiting = asyncio.ensure_future(autogen_run(provider, tool, "write", {"path": "x"}))
            await asyncio.to_thread(console.wait_pending, "write")
            console.kill()
            result = await asyncio.wait_for(waiting, DEADLINE_S)
            self.assertEqual(result.decision, Decision.DENY)
            # Killed: nothing listens now, so the next call is "no console".
            after = await autogen_run(provider, tool, "write", {"path": "y"})
            self.assertEqual(after.decision, Decision.ALLOW)
            await provider.close()
            self.assertEqual(tool.runs, [{"path": "y"}])
        asyncio.run(go())


class TestErrorsAndEncoding(unittest.TestCase):
    def setUp(self):
        self.console = Console()
        self.addCleanup(self.console.close)

    def test_too_deep_denied_at_once(self):
        nested = {}
        for _ in range(80):
            nested = {"n": nested}

        async def go():
            async with HoldpointClient("py-deep", data_dir=self.console.data_dir) as client:
                started = time.monotonic()
                with self.assertRaises(HoldpointError) as e:
                    await asyncio.wait_for(client.submit("write", {"deep": nested}), DEADLINE_S)
                self.assertEqual(e.exception.code, "too_deep")
                self.assertLess(time.monotonic() - started, 5)
                self.assertTrue((await client.submit("read", {"path": "a"})).allowed)  # the connection goes on
        asyncio.run(go())

    def test_nan_denied_at_once(self):
        async def go():
            async with HoldpointClient("py-nan", data_dir=self.console.data_dir) as client:
                with self.assertRaises(HoldpointError) as e:
                    await asyncio.wait_for(client.submit("write", {"x": math.nan}), DEADLINE_S)
                self.assertEqual(e.exception.code, "invalid_json")
        asyncio.run(go())

    def test_600_kb_of_non_ascii_is_sent_as_utf8(self):
        text = "é" * 300_000  # 600,000 bytes as UTF-8; 1.8 MB escaped, past the 1 MiB cap

        async def go():
            async with HoldpointClient("py-utf8", data_dir=self.console.data_dir) as client:
                decision = await client.submit("read", {"text": text})
                self.assertTrue(decision.allowed)
                self.assertEqual(decision.args, {"text": text})
        asyncio.run(go())

    def test_reconnects_after_a_restart(self):
        async def go():
            async with HoldpointClient("py-restart", data_dir=self.console.data_dir) as client:
                self.assertTrue((await client.submit("read", {"path": "a"})).allowed)
                self.console.process.terminate()
                self.console.process.wait(timeout=DEADLINE_S)
                await asyncio.to_thread(self.console.start)  # a new token
                self.assertTrue((await client.submit("read", {"path": "b"})).allowed)
        asyncio.run(go())
        with HoldpointSyncClient("py-restart-sync", data_dir=self.console.data_dir) as client:
            self.assertTrue(client.submit("read", {"path": "c"}).allowed)
            self.console.process.terminate()
            self.console.process.wait(timeout=DEADLINE_S)
            self.console.start()
            self.assertTrue(client.submit("read", {"path": "d"}).allowed)

    def test_reconnects_after_failed_reconnects(self):
        async def go():
            async with HoldpointClient("py-away", data_dir=self.console.data_dir) as client:
                self.assertTrue((await client.submit("read", {"path": "a"})).allowed)
                self.console.kill()  # endpoint.json stays; nothing listens
                # Sent before the client saw the loss, or refused: denied.
                with self.assertRaises(ConsoleUnavailable):
                    await client.submit("read", {"path": "b"})
                for _ in range(2):  # each later call tries again, and finds nobody
                    with self.assertRaises(NoConsole):
                        await client.submit("read", {"path": "b"})
                await asyncio.to_thread(self.console.start)
                self.assertTrue((await client.submit("read", {"path": "c"})).allowed)
            with self.assertRaises(ConsoleUnavailable):  # closed by us: no reconnecting
                await client.submit("read", {"path": "d"})
        asyncio.run(go())

    def test_no_console_is_its_own_error(self):
        with tempfile.TemporaryDirectory() as empty:
            with self.assertRaises(NoConsole):
                asyncio.run(HoldpointClient(data_dir=empty).connect())


if __name__ == "__main__":
    unittest.main()
