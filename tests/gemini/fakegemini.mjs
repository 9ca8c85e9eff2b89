// SPDX-License-Identifier: Apache-2.0
// A scripted stand-in for the Gemini API on loopback: it answers
// streamGenerateContent (SSE, as @google/genai asks for it with ?alt=sse) and
// generateContent from a script per case, and keeps every request so a test
// can read what the CLI sent back (functionResponse parts).
//
// A case is named by "holdpoint-case:<name>" in the prompt. Its script is a
// list of model turns; turn i answers the request that carries i function
// responses. A turn is a list of parts, e.g. [{functionCall: {name, args}}].

import http from 'node:http';

export class FakeGemini {
  constructor() {
    this.scripts = new Map();
    this.requests = new Map(); // case -> [request body]
    this.unexpected = [];
  }

  script(name, turns) {
    this.scripts.set(name, turns);
    this.requests.set(name, []);
  }

  // The function responses in the latest request of a case, oldest first.
  functionResponses(name) {
    const reqs = this.requests.get(name) ?? [];
    const last = reqs[reqs.length - 1];
    if (!last) return [];
    return last.contents.flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse).map((p) => p.functionResponse);
  }

  async start() {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => (body += d));
      req.on('end', () => this.answer(req, body, res));
    });
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${this.server.address().port}`;
  }

  stop() {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve()));
  }

  answer(req, body, res) {
    const route = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)/.exec(req.url);
    let json;
    try {
      json = JSON.parse(body);
    } catch {
      json = null;
    }
    if (req.method !== 'POST' || !route || !json) {
      this.unexpected.push(`${req.method} ${req.url}`);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: 'not scripted', status: 'NOT_FOUND' } }));
      return;
    }
    const text = JSON.stringify(json.contents ?? []);
    const name = /holdpoint-case:([a-z0-9-]+)/.exec(text)?.[1];
    const turns = this.scripts.get(name);
    let parts;
    if (!turns) {
      this.unexpected.push(`${req.url} for case ${name}`);
      parts = [{ text: 'no script' }];
    } else {
      this.requests.get(name).push(json);
      const answered = (json.contents ?? []).flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse).length;
      parts = turns[answered] ?? [{ text: 'done' }];
    }
    const response = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: route[1],
    };
    if (route[2] === 'streamGenerateContent') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(response)}\r\n\r\n`);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response));
    }
  }
}
