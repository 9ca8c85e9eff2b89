# SPDX-License-Identifier: Apache-2.0
"""An AutoGen-style guardrail provider, following the GuardrailProvider
proposal for AutoGen's ``BaseTool.run_json``: ``evaluate`` returns ALLOW,
DENY or MODIFY with a reason, modified arguments and metadata."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Optional

from .client import ConsoleUnavailable, HoldpointClient, HoldpointError, fails_open

try:  # autogen_core's own types, when this AutoGen has them
    from autogen_core.guardrails import Decision, GuardrailResult  # type: ignore
except ImportError:  # compatible definitions otherwise

    class Decision(str, Enum):
        ALLOW = "allow"
        DENY = "deny"
        MODIFY = "modify"

    @dataclass
    class GuardrailResult:
        decision: Decision
        reason: str = ""
        modified_args: Optional[dict] = None
        metadata: dict = field(default_factory=dict)


class HoldpointGuardrailProvider:
    """Asks the Holdpoint console about every tool call.

    A halt comes back as DENY with ``metadata["halt"] = True``. With
    ``fail_closed`` (the default) a console that cannot be reached denies.
    """

    def __init__(self, client: Optional[HoldpointClient] = None, *, agent_name: str = "autogen",
                 fail_closed: bool = True, data_dir: Optional[str] = None):
        self._default_agent = agent_name
        self._clients: dict[str, HoldpointClient] = {}
        if client is not None:
            self._clients[client.agent_name] = client
            self._default_agent = client.agent_name
        self.fail_closed = fail_closed
        self._data_dir = data_dir

    async def _client(self, agent_name: str) -> HoldpointClient:
        # One console session per agent, so the reviewer sees who asked.
        client = self._clients.get(agent_name)
        if client is None or client._ws is None or client._closed_reason is not None:
            client = client or HoldpointClient(agent_name, "autogen", data_dir=self._data_dir)
            await client.connect()
            self._clients[agent_name] = client
        return client

    async def evaluate(self, *, tool_name: str, args: dict, agent_name: Optional[str] = None,
                       call_id: Optional[str] = None, cancellation_token: Any = None) -> GuardrailResult:
        try:
            client = await self._client(agent_name or self._default_agent)
            call_id = call_id or client.new_call_id()
            if cancellation_token is not None and hasattr(cancellation_token, "add_callback"):
                loop = asyncio.get_running_loop()

                async def cancel() -> None:
                    try:
                        await client.cancel(call_id)
                    except HoldpointError:
                        pass  # no console: the call is denied anyway
                cancellation_token.add_callback(lambda: loop.call_soon_threadsafe(lambda: asyncio.ensure_future(cancel())))
            d = await client.submit(tool_name, args, call_id=call_id)
        except (ConsoleUnavailable, HoldpointError) as e:
            if not fails_open(e, self.fail_closed):
                return GuardrailResult(Decision.DENY, f"Holdpoint: {e}", None, {"error": e.code})
            return GuardrailResult(Decision.ALLOW, f"Holdpoint unavailable, allowed (fail open): {e}", None,
                                   {"error": e.code})
        metadata = {"call_id": call_id, "decided_by": d.decided_by, "holdpoint_decision": d.decision,
                    "warnings": d.warnings}
        if d.code:
            metadata["code"] = d.code
        if d.decision == "allow":
            return GuardrailResult(Decision.ALLOW, d.reason, None, metadata)
        if d.decision == "modify":
            return GuardrailResult(Decision.MODIFY, d.reason, d.args, metadata)
        if d.decision == "halt":
            metadata["halt"] = True
        return GuardrailResult(Decision.DENY, d.reason, None, metadata)

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
