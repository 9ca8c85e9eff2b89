// SPDX-License-Identifier: Apache-2.0
'use strict';

// JSON as the page reads, shows and diffs it, numbers kept exactly as
// written. JSON.parse turns every number into a double, so
// 9007199254740993 comes back as …992 and 1.0 as 1; an edit of another
// field would then send the changed value on to the agent. Here a number
// whose text a double does not give back unchanged stays a JsonNumber
// holding its text, and stringifyJson writes that text again. Plain numbers
// (counts, 3, 0.5) stay JS numbers, so the page reads them as before.
// Loaded before app.js, whose h(), isObject() and pretty() it uses.

class JsonNumber {
  constructor(text) {
    this.text = text;
  }

  toString() {
    return this.text;
  }
}

class JsonSyntaxError extends SyntaxError {}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const JSON_LITERALS = [['true', true], ['false', false], ['null', null]];

// One JSON text → values; objects are plain objects (a "__proto__" key is
// an own property), numbers are JS numbers or JsonNumber. A key twice in one
// object is refused, as the console refuses it.
function parseJson(text) {
  let at = 0;
  const fail = (what) => {
    const line = text.slice(0, at).split('\n').length;
    throw new JsonSyntaxError(`${what} at line ${line}, column ${at - text.lastIndexOf('\n', at - 1)}`);
  };
  const space = () => {
    for (let c = text.charCodeAt(at); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(at)) at++;
  };
  const expect = (char) => {
    space();
    if (text[at] !== char) fail(at >= text.length ? `expected ${char}, found the end` : `expected ${char}`);
    at++;
  };
  const string = () => {
    const start = at;
    let escaped = false;
    at++;
    while (at < text.length && text[at] !== '"') {
      const code = text.charCodeAt(at);
      if (code < 0x20) fail('a control character in a string (write it as \\n, \\t, …)');
      if (code === 0x5c) escaped = true;
      at += code === 0x5c ? 2 : 1;
    }
    if (at >= text.length) fail('a string that never ends');
    at++;
    // Most strings have no escape: their text is their value.
    if (!escaped) return text.slice(start + 1, at - 1);
    try {
      return JSON.parse(text.slice(start, at));
    } catch {
      at = start;
      return fail('a bad escape in a string');
    }
  };
  const number = () => {
    JSON_NUMBER.lastIndex = at;
    const match = JSON_NUMBER.exec(text);
    if (!match) fail('unexpected character');
    at = JSON_NUMBER.lastIndex;
    const raw = match[0];
    const value = Number(raw);
    return String(value) === raw && Number.isFinite(value) ? value : new JsonNumber(raw);
  };
  const value = (depth) => {
    if (depth > 200) fail('nested too deeply');
    space();
    const char = text[at];
    if (char === '{') {
      at++;
      const object = {};
      space();
      if (text[at] === '}') {
        at++;
        return object;
      }
      for (;;) {
        space();
        if (text[at] !== '"') fail('expected a key in double quotes');
        const key = string();
        if (Object.prototype.hasOwnProperty.call(object, key)) fail(`the key ${JSON.stringify(key)} twice`);
        expect(':');
        // Assigned "__proto__" would set the prototype: that one key is defined.
        if (key === '__proto__') {
          Object.defineProperty(object, key, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
        } else {
          object[key] = value(depth + 1);
        }
        space();
        if (text[at] === ',') { at++; continue; }
        expect('}');
        return object;
      }
    }
    if (char === '[') {
      at++;
      const array = [];
      space();
      if (text[at] === ']') {
        at++;
        return array;
      }
      for (;;) {
        array.push(value(depth + 1));
        space();
        if (text[at] === ',') { at++; continue; }
        expect(']');
        return array;
      }
    }
    if (char === '"') return string();
    for (const [word, literal] of JSON_LITERALS) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return literal;
      }
    }
    if (at >= text.length) fail('unexpected end');
    return number();
  };
  const result = value(0);
  space();
  if (at < text.length) fail('more after the value');
  return result;
}

// ---- characters a person cannot see or would misread --------------------------
// The page's twin of core/common/visibletext.h (the Chromium suite holds the
// two to one table). Hidden code points are found here and shown as ⟨U+202E⟩.
// Names that mix scripts to look like others (pаypal.com with a Cyrillic а)
// are found by the console with ICU (common/mixedscript.h), which the page
// does not have: each item's `mixed_script` lists them with their marks, and
// the page marks those names wherever they appear, ⟨а U+0430 CYRILLIC⟩ in
// text and \u0430 in JSON, which parses back to the same.

const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Zs}\u115F\u1160\u3164\uFFA0]/u;
const isHidden = (ch) => ch !== '\t' && ch !== '\n' && ch !== ' ' && HIDDEN.test(ch);
const PLAIN = /^[\t\n\x20-\x7e]*$/;
const NAME_PART = /[\p{L}\p{M}\p{Nd}._-]/u;

// name → [[code point index in the name, how the mark is shown]], from the
// items' `mixed_script` lists (PROTOCOL.md, "Hidden characters"). A name's
// marks are the same wherever it stands.
const MIXED_NAMES = new Map();
const MIXED_NAMES_MAX = 4096;

function learnMixedScript(item) {
  for (const entry of item?.mixed_script || []) {
    if (typeof entry?.name !== 'string' || PLAIN.test(entry.name) || MIXED_NAMES.has(entry.name)) continue;
    if (MIXED_NAMES.size >= MIXED_NAMES_MAX) MIXED_NAMES.clear();
    const length = [...entry.name].length;
    const marks = (entry.marks || [])
      .filter((m) => Number.isInteger(m?.at) && m.at >= 0 && m.at < length && typeof m.shown === 'string')
      .map((m) => [m.at, m.shown]);
    if (marks.length) MIXED_NAMES.set(entry.name, marks);
  }
}

// How each code point of `chars` is shown when marked (undefined when not).
// Names are found as the console finds them, as runs of letters, marks,
// digits, `.`, `-` and `_`, and looked up whole: one pass, whatever the
// number of names known.
function marksOf(chars) {
  const mark = chars.map((ch) => (isHidden(ch) ? `⟨U+${hex(ch)}⟩` : undefined));
  if (!MIXED_NAMES.size) return mark;
  for (let i = 0; i < chars.length;) {
    if (!NAME_PART.test(chars[i])) { i++; continue; }
    const start = i;
    while (i < chars.length && NAME_PART.test(chars[i])) i++;
    const marks = MIXED_NAMES.get(chars.slice(start, i).join(''));
    for (const [k, shown] of marks || []) if (mark[start + k] === undefined) mark[start + k] = shown;
  }
  return mark;
}

const hex = (ch) => ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');

// `text` as a person may see it: each marked code point as its mark.
function visibleText(text) {
  if (typeof text !== 'string' || PLAIN.test(text)) return text;
  const chars = [...text];
  const mark = marksOf(chars);
  return chars.map((ch, i) => mark[i] ?? ch).join('');
}

// A JSON string literal whose marked code points are \u escapes.
function visibleString(text) {
  const quoted = JSON.stringify(text);
  if (PLAIN.test(text)) return quoted;
  const chars = [...text];
  const mark = marksOf(chars);
  return `"${chars.map((ch, i) => {
    if (mark[i] === undefined) return JSON.stringify(ch).slice(1, -1);
    return [...Array(ch.length).keys()].map((u) => `\\u${ch.charCodeAt(u).toString(16).toUpperCase().padStart(4, '0')}`).join('');
  }).join('')}"`;
}

// Values → JSON text, JsonNumber as its own text; `indent` as JSON.stringify's.
// Strings and keys with characters a person cannot see carry them as \u escapes.
function stringifyJson(value, indent = 0) {
  const pad = typeof indent === 'number' ? ' '.repeat(indent) : indent;
  const write = (v, outer) => {
    if (v instanceof JsonNumber) return v.text;
    if (typeof v === 'string') return visibleString(v);
    if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
    const inner = outer + pad;
    const open = pad ? `\n${inner}` : '';
    const close = pad ? `\n${outer}` : '';
    const comma = pad ? `,\n${inner}` : ',';
    if (Array.isArray(v)) {
      return v.length ? `[${open}${v.map((item) => write(item, inner)).join(comma)}${close}]` : '[]';
    }
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    const colon = pad ? ': ' : ':';
    return keys.length
      ? `{${open}${keys.map((k) => `${visibleString(k)}${colon}${write(v[k], inner)}`).join(comma)}${close}}`
      : '{}';
  };
  return write(value, '');
}

// JSON text with keys sorted, so equal values compare equal.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return stringifyJson(v);
}
const sameJson = (a, b) => canonical(a) === canonical(b);

// ---- showing JSON and diffs (h() is app.js's) --------------------------------

const JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(?:true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

// Pretty JSON with keys, strings, numbers and literals marked for colour.
// JSON text from stringifyJson shows its hidden characters as \u escapes
// already; h() must not read the escapes' letters as words again.
const jsonText = (text) => document.createTextNode(text);

function jsonBlock(value) {
  const text = pretty(value);
  const pre = h('pre', 'json');
  let last = 0;
  for (const m of text.matchAll(JSON_TOKEN)) {
    let kind = 'lit';
    if (m[2]) kind = 'key';
    else if (m[1]) kind = 'str';
    else if (/[-\d]/.test(m[0][0])) kind = 'num';
    pre.append(text.slice(last, m.index), h('span', `j-${kind}`, jsonText(m[1] || m[0])), m[2] || '');
    last = m.index + m[0].length;
  }
  pre.append(text.slice(last));
  return pre;
}

// Lines of `after` against `before`: [' ' | '-' | '+', line]. Common ends are
// trimmed first; the middle is diffed by longest common subsequence unless it
// is too large, when it shows as replaced.
function lineDiff(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) { endA--; endB--; }
  const head = a.slice(0, start).map((line) => [' ', line]);
  const tail = a.slice(endA).map((line) => [' ', line]);
  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  if (x.length * y.length > 1e6) {
    return [...head, ...x.map((l) => ['-', l]), ...y.map((l) => ['+', l]), ...tail];
  }
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const middle = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) { middle.push([' ', x[i]]); i++; j++; }
    else if (j >= y.length || (i < x.length && lcs[i + 1][j] >= lcs[i][j + 1])) middle.push(['-', x[i++]]);
    else middle.push(['+', y[j++]]);
  }
  return [...head, ...middle, ...tail];
}

const DIFF_CLASS = { ' ': 'diff-same', '-': 'diff-del', '+': 'diff-add' };

function diffBlock(before, after) {
  const lines = lineDiff(pretty(before), pretty(after));
  const pre = h('pre', 'diff', ...lines.map(([sign, line]) => h('span', DIFF_CLASS[sign], jsonText(`${sign} ${line}`))));
  pre.setAttribute('aria-label', 'Changes from the call’s own arguments: lines starting with - are removed, + added');
  return pre;
}
