// SPDX-License-Identifier: Apache-2.0
// A scripted model behind the Anthropic Messages API, on loopback, for
// tests that run the real Claude Code CLI (directly or through the Claude
// Agent SDK) with ANTHROPIC_BASE_URL pointing here.
//
// It speaks the wire format the CLI's client reads: POST /v1/messages with
// `stream: true` answered as server-sent events (message_start,
// content_block_start / content_block_delta / content_block_stop for text
// and tool_use blocks, message_delta with the stop_reason, message_stop),
// and a plain JSON message when `stream` is false. Anything else the CLI
// asks for (e.g. `HEAD /`, which 2.1.197 sends before its first request)
// gets a 404 in the API's error format, which the CLI tolerates.
//
// A test scripts the model's turns in order. Each turn is an array of
// blocks, or a function (request body) -> blocks:
//   { text: 'I will run it' }
//   { tool: 'Bash', input: { command: 'echo hi' } }   (id generated if absent)
// A turn with a tool block ends with stop_reason "tool_use", else "end_turn".
// Every request the agent loop sent is recorded in `requests` (parsed body),
// so a test can check what reached the model, e.g. a tool_result's content.
// Requests without tools (the CLI's side calls, such as a title) are not
// part of the script: they get a short text and land in `sideRequests`.
// Once the script is used up the model ends the turn with "(script done)"
// and counts it in `overruns`.

import http from 'node:http';

let nextId = 0;

function blocksOf(turn, body) {
  const blocks = typeof turn === 'function' ? turn(body) : turn;
  return blocks.map((b) =>
    b.tool
      ? { type: 'tool_use', id: b.id ?? `toolu_${(++nextId).toString().padStart(6, '0')}`, name: b.tool, input: b.input ?? {} }
      : { type: 'text', text: b.text ?? '' });
}

function usage() {
  return { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function message(model, content) {
  const stop = content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn';
  return {
    id: `msg_${(++nextId).toString().padStart(6, '0')}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: usage(),
  };
}

function stream(res, msg) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { ...msg, content: [], stop_reason: null, usage: { ...usage(), output_tokens: 0 } } });
  msg.content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      // The input arrives as partial JSON, split to exercise the client's join.
      const json = JSON.stringify(block.input);
      const cut = Math.floor(json.length / 2);
      for (const part of [json.slice(0, cut), json.slice(cut)])
        event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } });
  event('message_stop', {});
  res.end();
}

// The text of a tool_result block's content (a string or text blocks).
export function resultText(block) {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

// Every tool_result block the agent sent in any recorded request, by
// tool_use_id (the latest wins; the history repeats in later requests).
export function toolResults(requests) {
  const out = new Map();
  for (const body of requests)
    for (const m of body.messages ?? [])
      if (m.role === 'user' && Array.isArray(m.content))
        for (const c of m.content) if (c.type === 'tool_result') out.set(c.tool_use_id, { text: resultText(c), isError: c.is_error === true });
  return out;
}

export class ScriptedModel {
  constructor() {
    this.turns = [];
    this.requests = [];
    this.sideRequests = [];
    this.otherRequests = [];
    this.overruns = 0;
    this.server = http.createServer((req, res) => this.#handle(req, res));
  }

  // Starts listening on a free loopback port; resolves to the base URL.
  async start() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${this.server.address().port}`;
    return this.url;
  }

  // Replaces the script and forgets what was recorded.
  script(turns) {
    this.turns = [...turns];
    this.requests = [];
    this.sideRequests = [];
    this.overruns = 0;
  }

  async close() {
    this.server.closeAllConnections?.();
    await new Promise((resolve) => this.server.close(resolve));
  }

  #handle(req, res) {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = req.url.split('?')[0];
      let body = null;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      } catch {
        body = null;
      }
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ input_tokens: 10 }));
      }
      if (req.method !== 'POST' || path !== '/v1/messages' || !body) {
        this.otherRequests.push({ method: req.method, url: req.url });
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `${req.method} ${path}: not scripted` } }));
      }
      let content;
      if (!Array.isArray(body.tools) || body.tools.length === 0) {
        this.sideRequests.push(body);
        content = [{ type: 'text', text: 'ok' }];
      } else {
        this.requests.push(body);
        const turn = this.turns.shift();
        if (turn === undefined) this.overruns++;
        content = blocksOf(turn ?? [{ text: '(script done)' }], body);
      }
      const msg = message(body.model, content);
      if (body.stream) return stream(res, msg);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(msg));
    });
  }
}
