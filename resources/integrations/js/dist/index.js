// SPDX-License-Identifier: Apache-2.0
// holdpoint: send a JavaScript agent's tool calls to the Holdpoint console
// before they run. The adapters are separate entry points:
// holdpoint/openai-agents, holdpoint/ai-sdk, holdpoint/langchain.
export { HoldpointClient, } from './client.js';
export { findEndpoint, resolveDataDir } from './endpoint.js';
export { ClientClosedError, ConnectionLostError, ConsoleRefusedError, ConsoleUnavailableError, HoldpointError, NoConsoleError, ProtocolViolationError, failsOpen, } from './errors.js';
export { Guard, HoldpointDeniedError, HoldpointHaltError, } from './guard.js';
