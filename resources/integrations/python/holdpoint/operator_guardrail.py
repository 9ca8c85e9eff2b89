# SPDX-License-Identifier: Apache-2.0
"""An Operator-style guardrail: before_call and after_call around every tool
invocation, and turns mapped onto the console's turn messages (which reset
loop detection)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Optional

from .client import ConsoleUnavailable, HoldpointError, HoldpointSyncClient, fails_open


@dataclass
class GuardrailDecision:
    action: str  # allow, warn, block, halt
    reason: str = ""
    modified_input: Optional[dict] = None
    metadata: dict = field(default_factory=dict)


def _field(obj: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


class HoldpointGuardrail:
    """``invocation`` may be a dict or an object with the tool's name
    (``name``/``tool_name``), arguments (``arguments``/``args``/``input``) and
    optionally an id (``id``/``call_id``)."""

    def __init__(self, client: Optional[HoldpointSyncClient] = None, *, agent_name: str = "operator",
                 fail_closed: bool = True, data_dir: Optional[str] = None):
        self.client = client or HoldpointSyncClient(agent_name, "operator", data_dir=data_dir)
        self.fail_closed = fail_closed
        self.turn_id: Optional[str] = None
        self._calls: dict[int, str] = {}

    def on_turn_start(self, turn_id: Optional[str] = None) -> None:
        """Starts a turn. Without a console the turn still starts: every
        call in it names the turn, and ``before_call`` blocks them (or allows
        them, without ``fail_closed``) instead of the agent crashing here."""
        self.turn_id = turn_id or f"turn-{secrets.token_hex(6)}"
        self._calls.clear()
        try:
            self.client.turn_start(self.turn_id)
        except ConsoleUnavailable:
            pass

    def on_turn_end(self) -> None:
        try:
            if self.turn_id:
                self.client.turn_end(self.turn_id)
        except ConsoleUnavailable:
            pass  # the console is gone: the turn ended with it
        finally:
            self.turn_id = None

    def before_call(self, invocation: Any, context: Any = None) -> GuardrailDecision:
        name = _field(invocation, "name", "tool_name")
        args = _field(invocation, "arguments", "args", "input", default={}) or {}
        call_id = _field(invocation, "id", "call_id") or self.client.new_call_id()
        self._calls[id(invocation)] = call_id
        try:
            d = self.client.submit(name, dict(args), call_id=call_id, turn_id=self.turn_id,
                                   context=context if isinstance(context, dict) else None)
        except (ConsoleUnavailable, HoldpointError) as e:
            return GuardrailDecision("allow" if fails_open(e, self.fail_closed) else "block", f"Holdpoint: {e}", None,
                                     {"error": e.code})
        metadata = {"call_id": call_id, "decided_by": d.decided_by, "warnings": d.warnings}
        if d.decision == "halt":
            return GuardrailDecision("halt", d.reason, None, metadata)
        if d.decision not in ("allow", "modify"):  # deny, or anything this adapter does not know
            return GuardrailDecision("block", d.reason, None, metadata)
        modified = d.args if d.decision == "modify" else None
        if d.warnings:
            return GuardrailDecision("warn", "; ".join(w.get("message", "") for w in d.warnings), modified, metadata)
        return GuardrailDecision("allow", d.reason, modified, metadata)

    def after_call(self, invocation: Any, result: Any, context: Any = None) -> GuardrailDecision:
        call_id = self._calls.pop(id(invocation), None) or _field(invocation, "id", "call_id")
        if not call_id:
            return GuardrailDecision("allow", "no before_call for this invocation")
        ok = not (isinstance(result, BaseException)
                  or (isinstance(result, dict) and (result.get("is_error") or result.get("isError") or result.get("error"))))
        payload = repr(result) if isinstance(result, BaseException) else result
        try:
            after = self.client.report_result(call_id, ok, payload)
        except (ConsoleUnavailable, HoldpointError) as e:
            if e.code == "unknown_call":
                return GuardrailDecision("allow", "the console did not know this call")
            return GuardrailDecision("allow" if fails_open(e, self.fail_closed) else "halt", f"Holdpoint: {e}", None,
                                     {"error": e.code})
        return GuardrailDecision(after.action, after.reason, None, {"warnings": after.warnings})
