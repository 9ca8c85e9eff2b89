# SPDX-License-Identifier: Apache-2.0
"""Every Python adapter fails closed, against a real headless console.

Each test drives an adapter the way its framework would (the agent code
runs the tool only when the adapter lets it) and checks that the tool never
ran when the console died under a waiting call, was never there, halted the
turn, or refused an oversized message; and that large non-ASCII arguments
arrive byte-exact, approved or edited.

No sleeps decide anything: a test acts once the console lists the waiting
call (``holdpoint-ctl pending --json``, or a reviewer connection's queue).
"""

import asyncio
import gc
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

import websockets

from holdpoint import (ConsoleDecision, ConsoleUnavailable, Decision, GuardrailRequest, HoldpointClient, HoldpointError,
                       HoldpointGuardrail, HoldpointGuardrailProvider, HoldpointProvider, HoldpointSyncClient,
                       enable_guardrail)

HOLDPOINT = os.environ["HOLDPOINT_BIN"]
CTL = os.environ["HOLDPOINT_CTL_BIN"]
DEADLINE_S = 60  # generous: two cores, shared with other test runs

# "read" is allowed at once; everything else waits for a person.
POLICY = {"default": "ask", "guardrails": [
    {"type": "rules", "rules": [{"when": {"tool": "read"}, "action": "allow", "reason": "reads are fine"}]}]}

MIB = 1024 * 1024


class Console:
    """A headless console of its own, in a fresh data directory."""

    def __init__(self):
        self._work = tempfile.TemporaryDirectory()
        self._policy = Path(self._work.name) / "policy.json"
        self._policy.write_text(json.dumps(POLICY))
        self.data_dir = str(Path(self._work.name) / "data")
        self.start()

    def start(self):
        """Starts (or, after kill(), restarts) the console on this data directory."""
        # --timeout: a call no test decides fails the test in minutes, not at CTest's limit.
        self.process = subprocess.Popen([HOLDPOINT, "--headless", "--port", "0", "--data-dir", self.data_dir,
                                         "--policy", str(self._policy), "--timeout", "120"])
        deadline = time.monotonic() + DEADLINE_S
        while True:  # endpoint.json written by this process, not one left by a killed one
            try:
                self.endpoint = json.loads((Path(self.data_dir) / "endpoint.json").read_text())
                if self.endpoint["pid"] == self.process.pid:
                    return
            except (OSError, ValueError, KeyError):
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                raise RuntimeError("the console did not start")
            time.sleep(0.02)

    def ctl(self, *args):
        return subprocess.run([CTL, "--data-dir", self.data_dir, *args], check=True, capture_output=True,
                              text=True, timeout=DEADLINE_S).stdout

    def wait_pending(self, tool_name, count=1):
        """The console's pending items for tool_name, once there are count of them."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            items = [i for i in json.loads(self.ctl("pending", "--json")) if i["tool_name"] == tool_name]
            if len(items) >= count:
                return items
            if time.monotonic() > deadline:
                raise AssertionError(f"{tool_name} never showed up in the console's queue")
            time.sleep(0.02)

    def wait_escalation_recorded(self, tool_name):
        """Waits until the audit log holds tool_name's escalation: only such a
        call is back in the queue after a crash (the queue may show a call
        a moment before its record is on disk)."""
        deadline = time.monotonic() + DEADLINE_S
        while not self.ctl("audit", "query", "--json", "--event", "escalated", "--tool", tool_name).strip():
            if time.monotonic() > deadline:
                raise AssertionError(f"{tool_name}'s escalation never reached the audit log")
            time.sleep(0.02)

    def kill(self):
        """SIGKILL: no clean exit, endpoint.json stays behind pointing at a closed port."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=DEADLINE_S)

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=DEADLINE_S)
        self._work.cleanup()


class Tool:
    """The agent's tool: records every run, so a test can say it never ran."""

    def __init__(self):
        self.runs = []

    def __call__(self, args):
        self.runs.append(args)
        return "done"


# How each framework acts on its adapter's answer: the tool runs only when allowed.

async def client_run(client, tool, name, args, **kwargs):
    decision = await client.submit(name, args, **kwargs)
    if decision.allowed:
        tool(decision.args)
    return decision


async def autogen_run(provider, tool, name, args):
    result = await provider.evaluate(tool_name=name, args=args, agent_name="coder")
    if result.decision == Decision.ALLOW:
        tool(args)
    elif result.decision == Decision.MODIFY:
        tool(result.modified_args)
    return result


class HookContext:
    """What CrewAI hands a before-tool-call hook; CrewAI runs the tool with
    tool_input unless the hook returned False."""

    def __init__(self, tool_name, tool_input):
        self.tool_name = tool_name
        self.tool_input = tool_input
        self.agent = None
        self.task = None


def crewai_run(hook, tool, name, args):
    context = HookContext(name, args)
    verdict = hook(context)
    if verdict is not False:
        tool(context.tool_input)
    return verdict


def operator_run(guard, tool, name, args):
    invocation = {"name": name, "arguments": args}
    before = guard.before_call(invocation)
    if before.action in ("allow", "warn"):
        tool(before.modified_input if before.modified_input is not None else args)
    return before


class Background:
    """Runs a blocking adapter call in a thread; result() re-raises its error."""

    def __init__(self, function, *args):
        self._result = self._error = None
        self._thread = threading.Thread(target=self._run, args=(function, *args))
        self._thread.start()

    def _run(self, function, *args):
        try:
            self._result = function(*args)
        except BaseException as e:  # handed to the test
            self._error = e

    def result(self):
        self._thread.join(timeout=DEADLINE_S)
        if self._thread.is_alive():
            raise AssertionError("the adapter call never returned")
        if self._error is not None:
            raise self._error
        return self._result


class ConsoleTest(unittest.TestCase):
    def setUp(self):
        self.console = Console()
        self.addCleanup(self.console.close)
        self.tool = Tool()

    def assertNotRun(self):
        self.assertEqual(self.tool.runs, [], "the tool ran")


class TestConsoleKilledWhileWaiting(ConsoleTest):
    """SIGKILL while a call waits for a person: a deny, and so is the next call."""

    def test_client(self):
        async def go():
            async with HoldpointClient("py-killed", data_dir=self.console.data_dir) as client:
                waiting = asyncio.ensure_future(client_run(client, self.tool, "bash", {"command": "rm -rf build"}))
                await asyncio.to_thread(self.console.wait_pending, "bash")
                self.console.kill()
                with self.assertRaises(ConsoleUnavailable):
                    await asyncio.wait_for(waiting, DEADLINE_S)
                with self.assertRaises(ConsoleUnavailable):
                    await client_run(client, self.tool, "read", {"path": "a"})
            with self.assertRaises(ConsoleUnavailable):  # a new connection finds nobody either
                await HoldpointClient("py-killed", data_dir=self.console.data_dir).connect()
        asyncio.run(go())
        self.assertNotRun()

    def test_closing_after_the_console_died(self):
        # An agent shutting down right after the console died gets no error
        # from close(), at every point of the client noticing: before, with
        # the connection lost but not yet closed (after one turn of the event
        # loop), and after.
        for turns in range(3):
            with self.subTest(turns=turns):
                console = Console()
                self.addCleanup(console.close)

                async def go():
                    async with HoldpointClient("py-closing", data_dir=console.data_dir):
                        console.kill()
                        for _ in range(turns):
                            await asyncio.sleep(0)
                asyncio.run(go())

    def test_sync_client(self):
        with HoldpointSyncClient("py-killed-sync", data_dir=self.console.data_dir) as client:
            waiting = Background(client.submit, "bash", {"command": "make install"})
            self.console.wait_pending("bash")
            self.console.kill()
            with self.assertRaises(ConsoleUnavailable):
                waiting.result()
            with self.assertRaises(ConsoleUnavailable):
                client.submit("read", {"path": "a"})

    def test_autogen(self):
        async def go():
            provider = HoldpointGuardrailProvider(data_dir=self.console.data_dir)
            waiting = asyncio.ensure_future(autogen_run(provider, self.tool, "bash", {"command": "rm -rf build"}))
            await asyncio.to_thread(self.console.wait_pending, "bash")
            self.console.kill()
            result = await asyncio.wait_for(waiting, DEADLINE_S)
            self.assertEqual((result.decision, result.modified_args), (Decision.DENY, None))
            self.assertEqual(result.metadata["error"], "console_unavailable")
            after = await autogen_run(provider, self.tool, "read", {"path": "a"})
            self.assertEqual((after.decision, after.metadata["error"]), (Decision.DENY, "console_unavailable"))
            await provider.close()
        asyncio.run(go())
        self.assertNotRun()

    def test_crewai(self):
        provider = HoldpointProvider(data_dir=self.console.data_dir)
        self.addCleanup(provider.client.close)
        hook = enable_guardrail(provider)
        waiting = Background(crewai_run, hook, self.tool, "bash", {"command": "rm -rf build"})
        self.console.wait_pending("bash")
        self.console.kill()
        self.assertIs(waiting.result(), False)
        self.assertIs(crewai_run(hook, self.tool, "read", {"path": "a"}), False)
        decision = provider.evaluate(GuardrailRequest("read", {"path": "a"}))
        self.assertEqual((decision.allow, decision.metadata["error"]), (False, "console_unavailable"))
        self.assertFalse(provider.health_check())
        self.assertNotRun()

    def test_operator(self):
        guard = HoldpointGuardrail(data_dir=self.console.data_dir)
        self.addCleanup(guard.client.close)
        guard.on_turn_start("op-killed")
        ran = {"name": "read", "arguments": {"path": "r"}}  # allowed and run before the console dies
        self.assertEqual(guard.before_call(ran).action, "allow")
        waiting = Background(operator_run, guard, self.tool, "bash", {"command": "rm -rf build"})
        self.console.wait_pending("bash")
        self.console.kill()
        before = waiting.result()
        self.assertEqual((before.action, before.metadata["error"]), ("block", "console_unavailable"))
        self.assertEqual(operator_run(guard, self.tool, "read", {"path": "a"}).action, "block")
        # The result of the call that ran cannot be checked any more: the turn stops.
        after = guard.after_call(ran, {"content": "..."})
        self.assertEqual((after.action, after.metadata["error"]), ("halt", "console_unavailable"))
        guard.on_turn_end()
        self.assertNotRun()


class TestConsoleRestarted(ConsoleTest):
    """The console is killed while a call waits and started again: the call
    comes back to its queue, but the agent was told no and has moved on.
    Approving it later runs nothing, and the agent's next calls go through."""

    def test_sync_adapters(self):
        crew = HoldpointProvider(data_dir=self.console.data_dir)
        self.addCleanup(crew.client.close)
        hook = enable_guardrail(crew)
        guard = HoldpointGuardrail(data_dir=self.console.data_dir)
        self.addCleanup(guard.client.close)
        guard.on_turn_start("op-restart")
        waiting = [Background(crewai_run, hook, self.tool, "crew_bash", {"command": "make"}),
                   Background(operator_run, guard, self.tool, "op_bash", {"command": "make"})]
        self.console.wait_escalation_recorded("crew_bash")
        self.console.wait_escalation_recorded("op_bash")
        self.console.kill()
        self.assertIs(waiting[0].result(), False)
        self.assertEqual(waiting[1].result().action, "block")

        self.console.start()
        for tool_name in ("crew_bash", "op_bash"):  # back in the queue; a person approves it now
            self.console.ctl("approve", self.console.wait_pending(tool_name)[0]["id"])
        self.assertIsNone(crewai_run(hook, self.tool, "read", {"path": "crew"}))
        self.assertEqual(operator_run(guard, self.tool, "read", {"path": "op"}).action, "allow")
        guard.on_turn_end()
        self.assertEqual(self.tool.runs, [{"path": "crew"}, {"path": "op"}])

    def test_autogen(self):
        async def go():
            provider = HoldpointGuardrailProvider(data_dir=self.console.data_dir)
            waiting = asyncio.ensure_future(autogen_run(provider, self.tool, "bash", {"command": "make"}))
            await asyncio.to_thread(self.console.wait_escalation_recorded, "bash")
            self.console.kill()
            self.assertEqual((await asyncio.wait_for(waiting, DEADLINE_S)).decision, Decision.DENY)
            await asyncio.to_thread(self.console.start)
            item = (await asyncio.to_thread(self.console.wait_pending, "bash"))[0]
            await asyncio.to_thread(self.console.ctl, "approve", item["id"])
            self.assertEqual((await autogen_run(provider, self.tool, "read", {"path": "a"})).decision, Decision.ALLOW)
            await provider.close()
        asyncio.run(go())
        self.assertEqual(self.tool.runs, [{"path": "a"}])


class TestNoConsoleAtStart(unittest.TestCase):
    """The console died before the agent started: endpoint.json is still
    there but nobody listens. Every adapter denies and nothing runs."""

    @classmethod
    def setUpClass(cls):
        cls.console = Console()
        cls.console.kill()

    @classmethod
    def tearDownClass(cls):
        cls.console.close()

    def setUp(self):
        self.assertTrue((Path(self.console.data_dir) / "endpoint.json").exists())  # a stale file, not a missing one
        self.tool = Tool()

    def tearDown(self):
        self.assertEqual(self.tool.runs, [], "the tool ran")

    def test_client(self):
        with self.assertRaises(ConsoleUnavailable):
            asyncio.run(HoldpointClient(data_dir=self.console.data_dir).connect())
        threads = set(threading.enumerate())
        with self.assertRaises(ConsoleUnavailable):
            with HoldpointSyncClient(data_dir=self.console.data_dir) as client:
                client.submit("read", {"path": "a"})
        self.assertEqual(set(threading.enumerate()), threads)  # its event loop's thread is gone too

    def test_autogen(self):
        async def go():
            provider = HoldpointGuardrailProvider(data_dir=self.console.data_dir)
            result = await autogen_run(provider, self.tool, "read", {"path": "a"})
            self.assertEqual((result.decision, result.metadata["error"]), (Decision.DENY, "console_unavailable"))
            await provider.close()
        asyncio.run(go())

    def test_crewai(self):
        provider = HoldpointProvider(data_dir=self.console.data_dir)
        self.addCleanup(provider.client.close)
        self.assertFalse(provider.health_check())
        self.assertIs(crewai_run(enable_guardrail(provider), self.tool, "read", {"path": "a"}), False)
        decision = provider.evaluate(GuardrailRequest("read", {"path": "a"}))
        self.assertEqual((decision.allow, decision.metadata["error"]), (False, "console_unavailable"))

    def test_operator(self):
        guard = HoldpointGuardrail(data_dir=self.console.data_dir)
        self.addCleanup(guard.client.close)
        guard.on_turn_start()  # a turn starts even without a console; its calls are blocked
        before = operator_run(guard, self.tool, "read", {"path": "a"})
        self.assertEqual((before.action, before.metadata["error"]), ("block", "console_unavailable"))
        guard.on_turn_end()


class TestHaltedTurn(ConsoleTest):
    """A person halts the turn while a call waits: that call and every later
    one in the turn are refused, the later ones at once, and nothing runs."""

    def halt_when_pending(self, tool_name):
        item = self.console.wait_pending(tool_name)[0]
        self.console.ctl("halt", item["id"], "--reason", "runaway")
        return item

    def assertHaltedAtOnce(self, decided_by, code=None):
        # "read" is allowed by a guardrail: the person who halted the turn
        # answered it instead, without the guardrails or the queue.
        self.assertTrue(decided_by.startswith("human:"), decided_by)
        if code is not None:
            self.assertEqual(code, "turn_halted")

    def test_client(self):
        async def go():
            async with HoldpointClient("py-halt", data_dir=self.console.data_dir) as client:
                await client.turn_start("t-halt")
                first = asyncio.ensure_future(client_run(client, self.tool, "bash", {"command": "make"}))
                other = asyncio.ensure_future(client_run(client, self.tool, "deploy", {"env": "prod"}))
                await asyncio.to_thread(self.console.wait_pending, "deploy")
                item = await asyncio.to_thread(self.halt_when_pending, "bash")
                self.assertEqual(item["turn_id"], "t-halt")
                d = await asyncio.wait_for(first, DEADLINE_S)
                self.assertEqual((d.decision, d.args, d.reason), ("halt", None, "runaway"))
                d = await asyncio.wait_for(other, DEADLINE_S)  # the turn's other waiting call
                self.assertEqual(d.decision, "halt")
                d = await client_run(client, self.tool, "read", {"path": "a"})  # allowed outside a halted turn
                self.assertEqual(d.decision, "halt")
                self.assertHaltedAtOnce(d.decided_by, d.code)
                await client.turn_start("t-next")  # a new turn runs again
                d = await client_run(client, self.tool, "read", {"path": "a"})
                self.assertEqual(d.decision, "allow")
                self.assertEqual(self.tool.runs, [{"path": "a"}])
        asyncio.run(go())

    def test_autogen(self):
        async def go():
            client = await HoldpointClient("coder", "autogen", data_dir=self.console.data_dir).connect()
            provider = HoldpointGuardrailProvider(client)
            await client.turn_start("ag-turn")
            waiting = asyncio.ensure_future(autogen_run(provider, self.tool, "bash", {"command": "make"}))
            await asyncio.to_thread(self.halt_when_pending, "bash")
            r = await asyncio.wait_for(waiting, DEADLINE_S)
            self.assertEqual((r.decision, r.reason, r.metadata["halt"]), (Decision.DENY, "runaway", True))
            r = await autogen_run(provider, self.tool, "read", {"path": "a"})
            self.assertEqual((r.decision, r.metadata["halt"]), (Decision.DENY, True))
            self.assertHaltedAtOnce(r.metadata["decided_by"], r.metadata["code"])
            await provider.close()
        asyncio.run(go())
        self.assertNotRun()

    def test_crewai(self):
        client = HoldpointSyncClient("researcher", "crewai", data_dir=self.console.data_dir)
        self.addCleanup(client.close)
        provider = HoldpointProvider(client)
        hook = enable_guardrail(provider)
        client.turn_start("crew-turn")
        waiting = Background(crewai_run, hook, self.tool, "bash", {"command": "make"})
        self.halt_when_pending("bash")
        self.assertIs(waiting.result(), False)
        self.assertIs(crewai_run(hook, self.tool, "read", {"path": "a"}), False)
        d = provider.evaluate(GuardrailRequest("read", {"path": "b"}))
        self.assertEqual((d.allow, d.metadata["halt"], d.metadata["holdpoint_decision"]), (False, True, "halt"))
        self.assertHaltedAtOnce(d.metadata["decided_by"])  # CrewAI's metadata has no code
        self.assertNotRun()

    def test_operator(self):
        guard = HoldpointGuardrail(data_dir=self.console.data_dir)
        self.addCleanup(guard.client.close)
        guard.on_turn_start("op-turn")
        waiting = Background(operator_run, guard, self.tool, "bash", {"command": "make"})
        self.halt_when_pending("bash")
        before = waiting.result()
        self.assertEqual((before.action, before.reason, before.modified_input), ("halt", "runaway", None))
        before = operator_run(guard, self.tool, "read", {"path": "a"})
        self.assertEqual(before.action, "halt")
        self.assertHaltedAtOnce(before.metadata["decided_by"], "turn_halted")
        guard.on_turn_end()
        guard.on_turn_start()  # the next turn runs again
        self.assertEqual(operator_run(guard, self.tool, "read", {"path": "a"}).action, "allow")
        self.assertEqual(self.tool.runs, [{"path": "a"}])


class Reviewer:
    """A reviewer connection: sees each waiting call as the console shows it,
    with its arguments, and decides it (also with arguments too large for
    holdpoint-ctl's command line)."""

    def __init__(self, console):
        self._console = console
        self._ws = None

    async def __aenter__(self):
        token = (Path(self._console.data_dir) / "reviewer.token").read_text().strip()
        self._ws = await websockets.connect(self._console.endpoint["url"], max_size=16 * MIB, ping_interval=None)
        await self._ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token, "role": "reviewer"}))
        return self

    async def __aexit__(self, *exc):
        await self._ws.close()

    async def waiting(self, tool_name):
        """The first waiting call of tool_name, once the console shows it."""
        async def find():
            while True:
                message = json.loads(await self._ws.recv())
                items = message.get("items", []) + ([message["item"]] if message.get("type") == "escalated" else [])
                for item in items:
                    if item["tool_name"] == tool_name and item["state"] == "pending":
                        return item
        return await asyncio.wait_for(find(), DEADLINE_S)

    async def review(self, item, action, **fields):
        await self._ws.send(json.dumps({"type": "review", "id": item["id"], "action": action, **fields}))

        async def answer():
            while True:
                message = json.loads(await self._ws.recv())
                if message.get("type") in ("reviewed", "error"):
                    return message
        message = await asyncio.wait_for(answer(), DEADLINE_S)
        assert message["type"] == "reviewed", message


def large_args(target_bytes, seed):
    """Arguments of about target_bytes as the client sends them (JSON in
    UTF-8), full of what breaks naive text handling: emoji outside the BMP,
    joined emoji, CJK, combining marks that must not be normalised,
    right-to-left text, controls and quotes."""
    pieces = ["\U0001F469\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466", "\U0001F600",
              "\U0001F3F3\ufe0f\u200d\U0001F308", "\U0001D11E", "漢字かなカナ한국어", "e\u0301", "n\u0303", "a\u030a\u0323",
              "\u00c5", "A\u030a", "\u212b",  # one letter three ways: NFC would make them the same
              "עברית", "العربية", "\u200b\u200d\ufeff", "\t\n\r\"\\/", "\u0000\u0001\u001f\u007f", "\ufdfa", seed]
    chunk = "".join(pieces)
    args = {"path": f"notes/{seed}/日本語-ü.txt", "content": chunk, "lines": [],
            "meta": {"ключ": "значение", "emoji🔑": "👍", "n": 12345678901234, "f": 0.1, "neg": -2.5e-7,
                     "flags": [True, False, None]}}
    # Grow by about 8 KiB a step until the message is target_bytes on the wire.
    step = max(1, 8192 // len(json.dumps(chunk)))
    while size_on_wire(args) < target_bytes:
        args["content"] += ("|" + chunk) * step
        args["lines"] += [f"{seed}-{len(args['lines'])}-λ-€-😀"] * step
    return args


def size_on_wire(args):
    """The tool_call message's size in bytes as the client sends it: UTF-8."""
    return len(json.dumps({"type": "tool_call", "call_id": "py-xxxxxxxx-1", "tool_name": "write", "args": args},
                          ensure_ascii=False).encode("utf-8"))


class TestLargeNonAsciiArguments(ConsoleTest):
    """A few hundred KB of non-ASCII arguments arrive byte-exact, approved or
    edited; a message over the console's 1 MiB cap is denied and not run."""

    def setUp(self):
        super().setUp()
        self.args = large_args(400 * 1024, "asked")
        self.edited = large_args(300 * 1024, "edited")
        self.assertTrue(300 * 1024 < size_on_wire(self.args) < MIB)
        self.too_large = large_args(MIB + 4096, "too large")
        self.assertGreater(size_on_wire(self.too_large), MIB)

    def assertExact(self, got, want):
        # Equal as values, and the same text once serialised: no character
        # normalised, replaced or re-encoded on the way.
        self.assertEqual(got, want)
        self.assertEqual(json.dumps(got, ensure_ascii=False, sort_keys=True).encode(),
                         json.dumps(want, ensure_ascii=False, sort_keys=True).encode())

    def test_client_approved_and_edited(self):
        async def go():
            async with Reviewer(self.console) as reviewer, \
                    HoldpointClient("py-large", data_dir=self.console.data_dir) as client:
                waiting = asyncio.ensure_future(client_run(client, self.tool, "write", self.args))
                item = await reviewer.waiting("write")
                self.assertExact(item["args"], self.args)  # what the reviewer is shown
                await reviewer.review(item, "approve")
                d = await asyncio.wait_for(waiting, DEADLINE_S)
                self.assertEqual(d.decision, "allow")
                self.assertExact(d.args, self.args)

                waiting = asyncio.ensure_future(client_run(client, self.tool, "write", self.args))
                await reviewer.review(await reviewer.waiting("write"), "edit", args=self.edited)
                d = await asyncio.wait_for(waiting, DEADLINE_S)
                self.assertEqual(d.decision, "modify")
                self.assertExact(d.args, self.edited)
        asyncio.run(go())
        self.assertEqual(len(self.tool.runs), 2)
        self.assertExact(self.tool.runs, [self.args, self.edited])

    def test_adapters_run_the_edited_arguments(self):
        async def review_each(count):
            async with Reviewer(self.console) as reviewer:
                for _ in range(count):
                    await reviewer.review(await reviewer.waiting("write"), "edit", args=self.edited)

        async def autogen():
            provider = HoldpointGuardrailProvider(data_dir=self.console.data_dir)
            r = await autogen_run(provider, self.tool, "write", self.args)
            await provider.close()
            return r

        async def go():
            reviewers = asyncio.ensure_future(review_each(3))
            r = await autogen()
            self.assertEqual(r.decision, Decision.MODIFY)
            self.assertExact(r.modified_args, self.edited)

            provider = HoldpointProvider(data_dir=self.console.data_dir)
            self.addCleanup(provider.client.close)
            self.assertIsNone(await asyncio.to_thread(crewai_run, enable_guardrail(provider), self.tool, "write",
                                                      dict(self.args)))

            guard = HoldpointGuardrail(data_dir=self.console.data_dir)
            self.addCleanup(guard.client.close)
            before = await asyncio.to_thread(operator_run, guard, self.tool, "write", self.args)
            self.assertEqual(before.action, "allow")
            self.assertExact(before.modified_input, self.edited)
            await asyncio.wait_for(reviewers, DEADLINE_S)
        asyncio.run(go())
        self.assertExact(self.tool.runs, [self.edited] * 3)

    def test_over_the_cap_denied_in_every_adapter(self):
        async def go():
            async with HoldpointClient("py-huge", data_dir=self.console.data_dir) as client:
                with self.assertRaises(HoldpointError) as e:
                    await client_run(client, self.tool, "write", self.too_large)
                # Refused before sending, against the welcome's limit; the
                # connection serves the next call.
                self.assertEqual(e.exception.code, "too_large")
                self.assertRegex(e.exception.message, r"^the call is \d+ bytes, more than the console takes "
                                                      r"\(1048576 bytes, holdpoint --max-message-bytes\)$")
                self.assertEqual((await client_run(client, self.tool, "read", {"path": "0"})).decision, "allow")
            # fail_closed=False is for a console that is away, not for this.
            for fail_closed in (True, False):
                provider = HoldpointGuardrailProvider(data_dir=self.console.data_dir, fail_closed=fail_closed)
                r = await autogen_run(provider, self.tool, "write", self.too_large)
                self.assertEqual((r.decision, r.metadata["error"]), (Decision.DENY, "too_large"))
                r = await autogen_run(provider, self.tool, "read", {"path": "a"})
                self.assertEqual(r.decision, Decision.ALLOW)
                await provider.close()
        asyncio.run(go())

        for fail_closed in (True, False):
            provider = HoldpointProvider(data_dir=self.console.data_dir, fail_closed=fail_closed)
            self.addCleanup(provider.client.close)
            hook = enable_guardrail(provider, fail_closed=fail_closed)
            self.assertIs(crewai_run(hook, self.tool, "write", dict(self.too_large)), False)
            self.assertIsNone(crewai_run(hook, self.tool, "read", {"path": "b"}))

            guard = HoldpointGuardrail(data_dir=self.console.data_dir, fail_closed=fail_closed)
            self.addCleanup(guard.client.close)
            before = operator_run(guard, self.tool, "write", self.too_large)
            self.assertEqual((before.action, before.metadata["error"]), ("block", "too_large"))
            self.assertEqual(operator_run(guard, self.tool, "read", {"path": "c"}).action, "allow")

        # The small calls only.
        self.assertEqual(self.tool.runs, [{"path": "0"}] + [{"path": "a"}] * 2 + [{"path": "b"}, {"path": "c"}] * 2)
        self.assertEqual(json.loads(self.console.ctl("pending", "--json")), [])


class TestUnknownDecision(unittest.TestCase):
    """A decision an adapter does not know (a newer console's) never runs
    the call. No console here: a client that answers one."""

    def setUp(self):
        self.tool = Tool()

    def tearDown(self):
        self.assertEqual(self.tool.runs, [], "the tool ran")

    @staticmethod
    def answer(tool_name, args, **kwargs):
        return ConsoleDecision("defer", dict(args), "a decision from the future", "human:alice")

    def test_autogen(self):
        outer = self

        class Client(HoldpointClient):
            async def connect(self):
                self._ws = object()
                return self

            async def submit(self, tool_name, args, **kwargs):
                return outer.answer(tool_name, args)

        async def go():
            r = await autogen_run(HoldpointGuardrailProvider(Client("coder")), self.tool, "bash", {"command": "make"})
            self.assertEqual(r.decision, Decision.DENY)
        asyncio.run(go())

    def test_crewai_and_operator(self):
        class Client:
            submit = staticmethod(self.answer)

            def new_call_id(self):
                return "c1"

            def turn_start(self, turn_id):
                pass

        self.assertIs(crewai_run(enable_guardrail(HoldpointProvider(Client())), self.tool, "bash", {"command": "make"}),
                      False)
        guard = HoldpointGuardrail(Client())
        guard.on_turn_start()
        self.assertEqual(operator_run(guard, self.tool, "bash", {"command": "make"}).action, "block")


class CancellationToken:
    """AutoGen's CancellationToken as the provider uses it."""

    def __init__(self):
        self._callbacks = []

    def add_callback(self, callback):
        self._callbacks.append(callback)

    def cancel(self):
        for callback in self._callbacks:
            callback()


class TestAutoGenCancelled(ConsoleTest):
    def test_a_cancelled_call_is_denied(self):
        errors = []  # what the event loop reports: e.g. a task's exception nobody retrieved

        async def go():
            asyncio.get_running_loop().set_exception_handler(lambda loop, context: errors.append(context))
            provider = HoldpointGuardrailProvider(data_dir=self.console.data_dir)
            token = CancellationToken()
            waiting = asyncio.ensure_future(provider.evaluate(tool_name="bash", args={"command": "make"},
                                                              cancellation_token=token))
            await asyncio.to_thread(self.console.wait_pending, "bash")
            token.cancel()
            r = await asyncio.wait_for(waiting, DEADLINE_S)
            self.assertEqual((r.decision, r.metadata["code"], r.metadata["decided_by"]),
                             (Decision.DENY, "cancelled", "agent"))
            # A token that fires once the console is gone changes nothing.
            late = CancellationToken()
            self.assertEqual((await provider.evaluate(tool_name="read", args={}, cancellation_token=late)).decision,
                             Decision.ALLOW)
            self.console.kill()
            late.cancel()
            await provider.close()
        asyncio.run(go())
        gc.collect()
        self.assertEqual(errors, [])
