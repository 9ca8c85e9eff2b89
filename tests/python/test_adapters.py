# SPDX-License-Identifier: Apache-2.0
"""The Python adapters against a real headless console.

Run by CTest with Debian's /usr/bin/python3 and python3-websockets:
HOLDPOINT_BIN and HOLDPOINT_CTL_BIN point at the built binaries, and
PYTHONPATH at resources/integrations/python.
"""

import asyncio
import json
import os
import pwd
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

import holdpoint
from holdpoint import (ConsoleUnavailable, Decision, GuardrailRequest, HoldpointClient, HoldpointGuardrail,
                       HoldpointGuardrailProvider, HoldpointProvider, HoldpointSyncClient, enable_guardrail)

HOLDPOINT = os.environ["HOLDPOINT_BIN"]
CTL = os.environ["HOLDPOINT_CTL_BIN"]

# One tool per decision kind; "review" waits for a person.
POLICY = {
    "default": "ask",
    "guardrails": [
        {"type": "rules", "rules": [
            {"when": {"tool": "read"}, "action": "allow", "reason": "reads are fine"},
            {"when": {"tool": "write"}, "action": "modify", "set": {"path": "/sandbox/out.txt"}, "reason": "sandboxed"},
            {"when": {"tool": "delete"}, "action": "deny", "reason": "no deleting"},
            {"when": {"tool": "shutdown"}, "action": "halt", "reason": "stop everything"},
            {"when": {"tool": "flaky"}, "action": "allow", "reason": "try it"},
        ]},
        {"type": "rules", "name": "writes-ok", "rules": [
            {"when": {"tool": "write"}, "action": "allow", "reason": "writes are fine once sandboxed"}]},
        {"type": "loop_detection", "exact_failure": {"warn": 1, "block": 5}, "same_tool_failure": {"warn": 1, "halt": 2}},
    ],
}

state = {}


def setUpModule():
    work = tempfile.TemporaryDirectory()
    policy = Path(work.name) / "policy.json"
    policy.write_text(json.dumps(POLICY))
    data_dir = str(Path(work.name) / "data")
    console = subprocess.Popen([HOLDPOINT, "--headless", "--port", "0", "--data-dir", data_dir, "--policy", str(policy),
                                "--timeout", "60"])  # a call no reviewer decides fails its test
    deadline = time.time() + 15
    while not (Path(data_dir) / "endpoint.json").exists():
        if time.time() > deadline or console.poll() is not None:
            raise RuntimeError("the console did not start")
        time.sleep(0.02)
    state.update(work=work, console=console, data_dir=data_dir)


def tearDownModule():
    state["console"].terminate()
    state["console"].wait(timeout=15)
    state["work"].cleanup()


def ctl(*args):
    return subprocess.run([CTL, "--data-dir", state["data_dir"], *args], check=True, capture_output=True, text=True).stdout


class Reviewer(threading.Thread):
    """A reviewer in another thread: decides the first pending call of
    `tool_name` as soon as it shows up. join() returns that queue item, or
    raises what went wrong (the call never showed up, holdpoint-ctl failed);
    the console's --timeout then denies the call the test waits on."""

    def __init__(self, tool_name, *action):
        super().__init__()
        self.tool_name, self.action = tool_name, action
        self.item = self.error = None
        self.start()

    def run(self):
        try:
            deadline = time.time() + 30
            while time.time() < deadline:
                for item in json.loads(ctl("pending", "--json")):
                    if item["tool_name"] == self.tool_name:
                        ctl(self.action[0], item["id"], *self.action[1:])
                        self.item = item
                        return
                time.sleep(0.02)
            raise AssertionError(f"no pending {self.tool_name} call to decide")
        except BaseException as e:  # handed to the test by join()
            self.error = e

    def join(self, timeout=None):
        super().join(timeout)
        if self.error is not None:
            raise self.error
        return self.item


class TestClient(unittest.TestCase):
    def test_every_decision_kind(self):
        async def go():
            async with HoldpointClient("py-client", "tests", data_dir=state["data_dir"]) as c:
                allow = await c.submit("read", {"path": "a.txt"})
                self.assertEqual((allow.decision, allow.args, allow.decided_by), ("allow", {"path": "a.txt"}, "guardrail:rules"))
                modify = await c.submit("write", {"path": "/tmp/x", "text": "hi"})
                self.assertEqual(modify.decision, "modify")
                self.assertEqual(modify.args, {"path": "/sandbox/out.txt", "text": "hi"})
                deny = await c.submit("delete", {"path": "a.txt"})
                self.assertEqual((deny.decision, deny.reason, deny.args), ("deny", "no deleting", None))
                halt = await c.submit("shutdown", {})
                self.assertEqual(halt.decision, "halt")
                reviewer = Reviewer("review", "edit", "--args", '{"n": 2}')
                edited = await c.submit("review", {"n": 1})
                self.assertEqual(reviewer.join()["args"], {"n": 1})
                self.assertEqual((edited.decision, edited.args), ("modify", {"n": 2}))
                self.assertTrue(edited.decided_by.startswith("human:"))
        asyncio.run(go())

    def test_results_feed_loop_detection_and_turns_reset_it(self):
        async def go():
            async with HoldpointClient("py-loop", data_dir=state["data_dir"]) as c:
                await c.turn_start("t1")
                d = await c.submit("flaky", {"x": 1})
                after = await c.report_result(d.raw["call_id"], False, "boom")
                self.assertEqual(after.action, "warn")
                self.assertEqual(after.warnings[0]["code"], "exact_failure")
                d = await c.submit("flaky", {"x": 2})
                after = await c.report_result(d.raw["call_id"], False, "boom")
                self.assertEqual((after.action, after.reason), ("halt", "flaky failed 2 times in this turn; halting the turn"))
                await c.turn_start("t2")
                d = await c.submit("flaky", {"x": 3})
                self.assertEqual(d.decision, "allow")
                self.assertEqual((await c.report_result(d.raw["call_id"], True, "ok")).action, "allow")
        asyncio.run(go())

    def test_cancel_and_errors(self):
        async def go():
            async with HoldpointClient("py-cancel", data_dir=state["data_dir"]) as c:
                call_id = c.new_call_id()
                waiting = asyncio.ensure_future(c.submit("review", {"wait": True}, call_id=call_id))
                deadline = time.time() + 10
                while not (items := [i for i in json.loads(ctl("pending", "--json")) if i["call_id"] == call_id]):
                    self.assertLess(time.time(), deadline)
                    await asyncio.sleep(0.02)
                # hello names the OS user who started the agent (exclude_requester).
                self.assertEqual(items[0]["agent"]["user"], pwd.getpwuid(os.geteuid()).pw_name)
                await c.cancel(call_id)
                d = await waiting
                self.assertEqual((d.decision, d.code, d.decided_by), ("deny", "cancelled", "agent"))
                with self.assertRaises(holdpoint.HoldpointError) as e:
                    await c.submit("read", {"bad": [1] * 0}, call_id=call_id)  # the same call_id, other args
                self.assertEqual(e.exception.code, "call_id_conflict")
        asyncio.run(go())

    def test_unreachable_console(self):
        with tempfile.TemporaryDirectory() as nowhere:
            with self.assertRaises(ConsoleUnavailable):
                asyncio.run(HoldpointClient(data_dir=nowhere).connect())

    def test_sync_client(self):
        with HoldpointSyncClient("py-sync", data_dir=state["data_dir"]) as c:
            self.assertEqual(c.submit("read", {"p": 1}).decision, "allow")
            self.assertEqual(c.submit("delete", {"p": 1}).decision, "deny")


class TestAutoGen(unittest.TestCase):
    def test_every_decision_kind(self):
        async def go():
            p = HoldpointGuardrailProvider(data_dir=state["data_dir"])
            r = await p.evaluate(tool_name="read", args={"path": "a"}, agent_name="coder")
            self.assertEqual((r.decision, r.modified_args), (Decision.ALLOW, None))
            self.assertEqual(r.metadata["decided_by"], "guardrail:rules")
            r = await p.evaluate(tool_name="write", args={"path": "/tmp/x"}, agent_name="coder")
            self.assertEqual((r.decision, r.modified_args), (Decision.MODIFY, {"path": "/sandbox/out.txt"}))
            r = await p.evaluate(tool_name="delete", args={}, agent_name="coder")
            self.assertEqual((r.decision, r.reason), (Decision.DENY, "no deleting"))
            self.assertNotIn("halt", r.metadata)
            r = await p.evaluate(tool_name="shutdown", args={}, agent_name="coder", call_id="ag-halt-1")
            self.assertEqual((r.decision, r.metadata["halt"], r.metadata["call_id"]), (Decision.DENY, True, "ag-halt-1"))
            reviewer = Reviewer("review", "deny", "--reason", "not now")
            r = await p.evaluate(tool_name="review", args={"a": 1}, agent_name="planner", call_id="ag-review-1")
            item = reviewer.join()
            self.assertEqual((r.decision, r.reason), (Decision.DENY, "not now"))
            # The console got the caller's call_id, and a session per agent name.
            self.assertEqual((item["call_id"], item["agent"]["name"], item["agent"]["framework"], item["args"]),
                             ("ag-review-1", "planner", "autogen", {"a": 1}))
            self.assertEqual(r.metadata["call_id"], "ag-review-1")
            await p.close()
        asyncio.run(go())

    def test_fail_closed_and_fail_open(self):
        async def go():
            with tempfile.TemporaryDirectory() as nowhere:
                closed = await HoldpointGuardrailProvider(data_dir=nowhere).evaluate(tool_name="read", args={})
                self.assertEqual(closed.decision, Decision.DENY)
                self.assertEqual(closed.metadata["error"], "console_unavailable")
                opened = await HoldpointGuardrailProvider(data_dir=nowhere, fail_closed=False).evaluate(tool_name="read", args={})
                self.assertEqual(opened.decision, Decision.ALLOW)
        asyncio.run(go())


class FakeAgent:
    role = "researcher"


class FakeTask:
    description = "summarise the repository"


class FakeHookContext:
    """What CrewAI hands a before-tool-call hook."""

    def __init__(self, tool_name, tool_input):
        self.tool_name = tool_name
        self.tool_input = tool_input
        self.agent = FakeAgent()
        self.task = FakeTask()


class TestCrewAI(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.provider = HoldpointProvider(data_dir=state["data_dir"])

    @classmethod
    def tearDownClass(cls):
        cls.provider.client.close()

    def test_every_decision_kind(self):
        p = self.provider
        self.assertEqual(p.name, "holdpoint")
        allow = p.evaluate(GuardrailRequest("read", {"path": "a"}, agent_role="researcher"))
        self.assertEqual((allow.allow, allow.reason), (True, "reads are fine"))
        modify = p.evaluate(GuardrailRequest("write", {"path": "/tmp/x"}))
        self.assertEqual((modify.allow, modify.metadata["modified_args"]), (True, {"path": "/sandbox/out.txt"}))
        deny = p.evaluate(GuardrailRequest("delete", {}))
        self.assertEqual((deny.allow, deny.reason), (False, "no deleting"))
        halt = p.evaluate(GuardrailRequest("shutdown", {}))
        self.assertEqual((halt.allow, halt.metadata["halt"]), (False, True))
        reviewer = Reviewer("review", "approve")
        approved = p.evaluate(GuardrailRequest("review", {"b": 1}, agent_role="researcher", task_description="summarise"))
        item = reviewer.join()
        self.assertEqual((approved.allow, approved.metadata["holdpoint_decision"]), (True, "allow"))
        self.assertTrue(approved.metadata["decided_by"].startswith("human:"))
        # The reviewer sees who asked and why.
        self.assertEqual(item["context"], {"agent_role": "researcher", "task_description": "summarise"})

    def test_health_check(self):
        self.assertTrue(self.provider.health_check())
        with tempfile.TemporaryDirectory() as nowhere:
            lonely = HoldpointProvider(data_dir=nowhere)
            self.assertFalse(lonely.health_check())
            self.assertFalse(lonely.evaluate(GuardrailRequest("read", {})).allow)  # fail closed
            lonely.client.close()

    def test_before_tool_call_hook(self):
        hook = enable_guardrail(self.provider)
        ctx = FakeHookContext("write", {"path": "/tmp/x"})
        before = ctx.tool_input
        self.assertIsNone(hook(ctx))
        self.assertIs(ctx.tool_input, before)  # edited in place, as CrewAI requires
        self.assertEqual(ctx.tool_input, {"path": "/sandbox/out.txt"})
        self.assertIsNone(hook(FakeHookContext("read", {"path": "a"})))
        self.assertIs(hook(FakeHookContext("delete", {"path": "a"})), False)
        self.assertIs(hook(FakeHookContext("shutdown", {})), False)

        class Broken:
            def evaluate(self, request):
                raise RuntimeError("boom")
        self.assertIs(enable_guardrail(Broken())(FakeHookContext("read", {})), False)
        self.assertIsNone(enable_guardrail(Broken(), fail_closed=False)(FakeHookContext("read", {})))


class Invocation:
    def __init__(self, name, arguments):
        self.name = name
        self.arguments = arguments


class TestOperator(unittest.TestCase):
    def test_every_decision_kind_and_after_call(self):
        g = HoldpointGuardrail(data_dir=state["data_dir"])
        g.on_turn_start("op-turn-1")
        self.assertEqual(g.before_call({"name": "read", "arguments": {"p": 1}}).action, "allow")
        modified = g.before_call(Invocation("write", {"path": "/tmp/x"}))
        self.assertEqual((modified.action, modified.modified_input), ("allow", {"path": "/sandbox/out.txt"}))
        self.assertEqual(g.before_call({"tool_name": "delete", "args": {}}).action, "block")
        self.assertEqual(g.before_call({"name": "shutdown", "arguments": {}}).action, "halt")
        # A halted turn stays halted: its next call is halted too.
        self.assertEqual(g.before_call({"name": "read", "arguments": {"p": 2}}).action, "halt")
        g.on_turn_end()

        g.on_turn_start("op-turn-2")
        first = Invocation("flaky", {"try": 1})
        self.assertEqual(g.before_call(first).action, "allow")
        warn = g.after_call(first, {"error": "exit 1"})
        self.assertEqual(warn.action, "warn")
        second = Invocation("flaky", {"try": 2})
        self.assertEqual(g.before_call(second).action, "allow")
        halt = g.after_call(second, RuntimeError("exit 1"))
        self.assertEqual((halt.action, halt.reason), ("halt", "flaky failed 2 times in this turn; halting the turn"))
        g.on_turn_end()

        g.on_turn_start()  # a new turn: loop detection starts afresh
        third = Invocation("flaky", {"try": 3})
        self.assertEqual(g.before_call(third).action, "allow")
        self.assertEqual(g.after_call(third, {"ok": True}).action, "allow")
        g.client.close()

    def test_fail_closed(self):
        with tempfile.TemporaryDirectory() as nowhere:
            g = HoldpointGuardrail(data_dir=nowhere)
            self.assertEqual(g.before_call({"name": "read", "arguments": {}}).action, "block")
            g.client.close()


if __name__ == "__main__":
    unittest.main()
