# SPDX-License-Identifier: Apache-2.0
"""The Python client when what answers is not a well-behaved console.

The real console never sends these, so a small WebSocket server on loopback
plays one that does: a message that is not JSON, or not a JSON object, after
the welcome; and an `error` instead of a welcome. The client must deny the
call that waits and every later one, never hang on a reader that died, and
leave no socket open.
"""

import asyncio
import json
import tempfile
import unittest
from pathlib import Path

import websockets

from holdpoint import ConsoleUnavailable, HoldpointClient, HoldpointError

DEADLINE_S = 30


class MisbehavingConsole:
    """Answers hello with `greeting`, then each tool_call with `reply`."""

    def __init__(self, greeting, reply=None):
        self.greeting = greeting
        self.reply = reply
        self.closed = asyncio.Event()

    async def handler(self, ws, path=None):
        try:
            json.loads(await ws.recv())  # hello
            await ws.send(self.greeting)
            async for text in ws:
                if json.loads(text).get("type") == "tool_call" and self.reply is not None:
                    await ws.send(self.reply)
        except websockets.exceptions.ConnectionClosed:
            pass
        finally:
            self.closed.set()

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


class TestConsoleMisbehaves(unittest.TestCase):
    def check_garbage_after_welcome(self, reply):
        async def go():
            async with MisbehavingConsole(WELCOME, reply) as console:
                client = HoldpointClient("py-garbage", data_dir=console.data_dir)
                await client.connect()
                with self.assertRaises(ConsoleUnavailable) as e:
                    await asyncio.wait_for(client.submit("write", {"path": "x"}), DEADLINE_S)
                self.assertIn("not a JSON object", str(e.exception))
                # A later call is denied at once rather than sent into a
                # connection nobody reads.
                with self.assertRaises(ConsoleUnavailable):
                    await asyncio.wait_for(client.submit("write", {"path": "y"}), DEADLINE_S)
                await asyncio.wait_for(console.closed.wait(), DEADLINE_S)  # the client closed it
                await client.close()
        asyncio.run(go())

    def test_not_json(self):
        self.check_garbage_after_welcome("{not json")

    def test_json_but_not_an_object(self):
        self.check_garbage_after_welcome("[1, 2, 3]")

    def test_error_instead_of_welcome_closes_the_socket(self):
        async def go():
            refusal = json.dumps({"type": "error", "code": "auth_failed", "message": "wrong token"})
            async with MisbehavingConsole(refusal) as console:
                client = HoldpointClient("py-refused", data_dir=console.data_dir)
                with self.assertRaises(HoldpointError) as e:
                    await client.connect()
                self.assertEqual(e.exception.code, "auth_failed")
                await asyncio.wait_for(console.closed.wait(), DEADLINE_S)
        asyncio.run(go())


if __name__ == "__main__":
    unittest.main()
