// SPDX-License-Identifier: Apache-2.0
// A scripted model on loopback speaking the Chat Completions wire format:
// asked with a user message last, it calls the tool it was told to call;
// asked with a tool result last, it answers "done: <the tool result>". Every
// request is kept, so tests can check what the model was told.

import { createServer } from 'node:http';

export class ScriptedChatModel {
  constructor() {
    this.requests = [];
    this.next = [];
    this.ids = 0;
  }

  /** The tool call(s) the model makes on its next turn. */
  willCall(...calls) {
    this.next = calls;
  }

  async start() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
          res.writeHead(404).end();
          return;
        }
        const request = JSON.parse(body);
        this.requests.push(request);
        const last = request.messages[request.messages.length - 1];
        let message;
        let finish;
        if (last.role === 'tool' || this.next.length === 0) {
          const results = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
          message = { role: 'assistant', content: `done: ${results.join(' | ')}` };
          finish = 'stop';
        } else {
          message = {
            role: 'assistant',
            content: null,
            tool_calls: this.next.map((c) => ({
              id: `call_${++this.ids}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          };
          this.next = [];
          finish = 'tool_calls';
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          id: `chatcmpl-${this.requests.length}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000),
          model: request.model, choices: [{ index: 0, message, finish_reason: finish }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }));
      });
    });
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseURL = `http://127.0.0.1:${this.server.address().port}/v1`;
    return this;
  }

  /** The tool results the model was sent, over all requests. */
  toolResults() {
    return this.requests.flatMap((r) => r.messages.filter((m) => m.role === 'tool').map((m) => m.content));
  }

  async stop() {
    this.server.closeAllConnections?.();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
