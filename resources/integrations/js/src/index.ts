// SPDX-License-Identifier: Apache-2.0
// holdpoint: send a JavaScript agent's tool calls to the Holdpoint console
// before they run. The adapters are separate entry points:
// holdpoint/openai-agents, holdpoint/ai-sdk, holdpoint/langchain.

export {
  HoldpointClient,
  type AfterCall,
  type Capabilities,
  type ClientOptions,
  type Decision,
  type DecisionKind,
  type JsonObject,
  type Pending,
  type SubmitOptions,
  type Warning,
} from './client.js';
export { findEndpoint, resolveDataDir, type Endpoint } from './endpoint.js';
export {
  ClientClosedError,
  ConnectionLostError,
  ConsoleRefusedError,
  ConsoleUnavailableError,
  HoldpointError,
  NoConsoleError,
  ProtocolViolationError,
  failsOpen,
} from './errors.js';
export {
  Guard,
  HoldpointDeniedError,
  HoldpointHaltError,
  type GuardOptions,
} from './guard.js';
