# SPDX-License-Identifier: Apache-2.0
"""Holdpoint adapters: send an agent's tool calls to the Holdpoint console.

- ``HoldpointClient`` / ``HoldpointSyncClient``: the console's protocol v1.
- ``HoldpointGuardrailProvider``: an AutoGen-style guardrail provider.
- ``HoldpointProvider`` and ``enable_guardrail``: a CrewAI-style provider.
- ``HoldpointGuardrail``: an Operator-style before/after-call guardrail.

The only dependency is ``websockets`` (Debian's python3-websockets, 10.x).
"""

try:  # written by resources/packaging/python-dist.sh from CMake's project version
    from ._version import __version__
except ImportError:  # a checkout on PYTHONPATH: not a built package
    __version__ = "0+checkout"

from .client import (
    AfterCall,
    ConsoleUnavailable,
    Decision as ConsoleDecision,
    HoldpointClient,
    HoldpointError,
    HoldpointSyncClient,
    find_endpoint,
)
from .autogen_provider import Decision, GuardrailResult, HoldpointGuardrailProvider
from .crewai_provider import GuardrailDecision, GuardrailRequest, HoldpointProvider, enable_guardrail
from .operator_guardrail import GuardrailDecision as OperatorDecision, HoldpointGuardrail

__all__ = [
    "AfterCall", "ConsoleDecision", "ConsoleUnavailable", "HoldpointClient", "HoldpointError",
    "HoldpointSyncClient", "find_endpoint",
    "Decision", "GuardrailResult", "HoldpointGuardrailProvider",
    "GuardrailDecision", "GuardrailRequest", "HoldpointProvider", "enable_guardrail",
    "OperatorDecision", "HoldpointGuardrail",
]
