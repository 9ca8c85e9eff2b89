# SPDX-License-Identifier: Apache-2.0
"""A CrewAI-style guardrail provider, and a before-tool-call hook for CrewAI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .client import ConsoleUnavailable, HoldpointError, HoldpointSyncClient, fails_open


@dataclass
class GuardrailRequest:
    tool_name: str
    tool_input: dict
    agent_role: Optional[str] = None
    task_description: Optional[str] = None
    metadata: dict = field(default_factory=dict)


@dataclass
class GuardrailDecision:
    allow: bool
    reason: str = ""
    metadata: dict = field(default_factory=dict)


class HoldpointProvider:
    """Asks the Holdpoint console about each tool call (synchronous).

    An allowed call whose arguments a guardrail or a person edited carries
    them in ``metadata["modified_args"]``; a halt sets ``metadata["halt"]``.
    """

    name = "holdpoint"

    def __init__(self, client: Optional[HoldpointSyncClient] = None, *, agent_name: str = "crewai",
                 fail_closed: bool = True, data_dir: Optional[str] = None):
        self.client = client or HoldpointSyncClient(agent_name, "crewai", data_dir=data_dir)
        self.fail_closed = fail_closed

    def evaluate(self, request: GuardrailRequest) -> GuardrailDecision:
        context = {k: v for k, v in (("agent_role", request.agent_role),
                                     ("task_description", request.task_description)) if v}
        try:
            d = self.client.submit(request.tool_name, dict(request.tool_input), context=context or None)
        except (ConsoleUnavailable, HoldpointError) as e:
            return GuardrailDecision(fails_open(e, self.fail_closed), f"Holdpoint: {e}", {"error": e.code})
        metadata = {"decided_by": d.decided_by, "holdpoint_decision": d.decision, "warnings": d.warnings}
        if d.decision == "modify":
            metadata["modified_args"] = d.args
        if d.decision == "halt":
            metadata["halt"] = True
        return GuardrailDecision(d.allowed, d.reason, metadata)

    def health_check(self) -> bool:
        try:
            self.client.ensure_connected()
            return True
        except (ConsoleUnavailable, HoldpointError, OSError):
            return False


def enable_guardrail(provider: HoldpointProvider, fail_closed: bool = True) -> Callable[[Any], Optional[bool]]:
    """Makes CrewAI ask ``provider`` before every tool call.

    Returns the hook, a ``before_tool_call(context)`` in CrewAI's form: it
    returns False to block the call and edits ``context.tool_input`` in place
    when the arguments were modified. When crewai is importable the hook is
    also registered globally (``crewai.hooks.register_before_tool_call_hook``).
    With ``fail_closed`` an error inside the provider blocks the call.
    """

    def before_tool_call(context: Any) -> Optional[bool]:
        agent = getattr(context, "agent", None)
        task = getattr(context, "task", None)
        request = GuardrailRequest(tool_name=context.tool_name, tool_input=dict(context.tool_input),
                                   agent_role=getattr(agent, "role", None),
                                   task_description=getattr(task, "description", None))
        try:
            decision = provider.evaluate(request)
        except Exception:  # a broken provider must not let calls through
            return False if fail_closed else None
        if not decision.allow:
            return False
        modified = decision.metadata.get("modified_args")
        if modified is not None:
            context.tool_input.clear()  # CrewAI reads the same dict: edit in place
            context.tool_input.update(modified)
        return None

    try:
        from crewai.hooks import register_before_tool_call_hook  # type: ignore
    except ImportError:
        pass
    else:
        register_before_tool_call_hook(before_tool_call)
    return before_tool_call
