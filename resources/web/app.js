// SPDX-License-Identifier: Apache-2.0
'use strict';

// Holdpoint's reviewer page: pairing, the live queue, and the review of one
// call. Everything the server sends is put on the page as text (textContent,
// text nodes), never parsed as HTML, and read with parseJson (json.js), so
// the arguments' numbers are never rounded through JavaScript's doubles.
// The queue's cards and the countdowns are queue.js's.

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 10000;
const PING_MS = 25000;
const TOAST_MS = 4000;

const state = {
  csrf: '',
  key: '', // the device key this page signed in with
  items: new Map(), // id → item, oldest first, as the live feed has it
  loaded: false, // a snapshot has arrived
  skewMs: 0, // the server's clock minus ours
  openId: null, // the item the detail view shows
  shown: null, // that item as shown: its version is what a review decides on
  editArgs: null, // the edit in progress, when it is valid
  busyId: null, // the item a review is in flight for
  openedAt: 0, // when the detail opened (performance.now())
  cameFromQueue: false, // the detail was opened by tapping a card (so Back is history.back)
  socket: null,
  retryMs: RETRY_MIN_MS,
  stopped: false,
};

const el = (id) => document.getElementById(id);

// ---- small helpers ------------------------------------------------------

// Makes an element; children are nodes or strings (text), null is skipped.
// Every text goes on the page through here: characters a person cannot see
// or would misread show as ⟨U+XXXX⟩, look-alike letters the console found
// as ⟨а U+0430 CYRILLIC⟩ (visibleText, json.js).
function h(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) {
    if (child != null && child !== false) node.append(typeof child === 'string' ? visibleText(child) : child);
  }
  return node;
}

// What the server found hidden in a call (PROTOCOL.md, "Hidden characters").
const HIDDEN_KINDS = { invisible: 'invisible or control characters', mixed_script: 'look-alike letters of another script in a name' };
const hiddenKinds = (item) => (item.hidden_characters || []).map((k) => HIDDEN_KINDS[k] || k);

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);
const isEmpty = (v) => v === undefined || v === null || (isObject(v) && Object.keys(v).length === 0);
const pretty = (v) => stringifyJson(v, 2);


// "human:alice,human:bob" → "alice, bob"
const who = (decidedBy) => (decidedBy || 'someone else').split(',').map((s) => s.replace(/^human:/, '')).join(', ');

function clock(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
const at = (iso) => (clock(iso) ? ` at ${clock(iso)}` : '');

// ---- the API --------------------------------------------------------------

// The session's second half (WEB.md "Who gets in"): the device key pairing
// gave this page. The cookie reaches every port of this host; this storage
// is this origin's alone (scheme, host and port), and so is the key.
const DEVICE_KEY = 'holdpoint-device';

function deviceKey() {
  try {
    return localStorage.getItem(DEVICE_KEY) || '';
  } catch {
    return '';
  }
}

function setDeviceKey(key) {
  try {
    if (key) localStorage.setItem(DEVICE_KEY, key);
    else localStorage.removeItem(DEVICE_KEY);
  } catch {
    // Storage refused (a private window's policy): the page then cannot sign in.
  }
}

// The server's messages are lower-case clauses: "this pairing link expired; …".
function sentence(text) {
  const s = String(text).trim();
  return s && `${s[0].toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;
}

class ApiError extends Error {
  constructor(status, body) {
    super(sentence(body.message || `Holdpoint answered with an error (${status})`));
    this.status = status;
    this.code = body.error || '';
    this.body = body;
  }
}

async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (deviceKey()) init.headers['X-Holdpoint-Device'] = deviceKey();
  if (method !== 'GET') {
    init.headers['Content-Type'] = 'application/json';
    if (state.csrf) init.headers['X-CSRF-Token'] = state.csrf;
    init.body = stringifyJson(body || {});
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, { error: 'network', message: 'Holdpoint cannot be reached. Check your connection and try again.' });
  }
  let data = {};
  try {
    data = parseJson(await response.text());
  } catch {
    // Not JSON (a proxy's error page): the status speaks.
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// ---- screens, banner, toast ------------------------------------------------

function showView(id) {
  for (const view of document.querySelectorAll('.view')) view.hidden = view.id !== id;
}

function showGate(title, error, { hint = true, retry = false } = {}) {
  el('gate-title').textContent = title;
  el('pair-error').textContent = error || '';
  el('pair-error').hidden = !error;
  el('gate-hint').hidden = !hint;
  el('retry').hidden = !retry;
  el('whoami').hidden = true;
  setStatus(null);
  hideBanner();
  showView('gate');
}

function showBanner(text, kind = 'error') {
  el('banner-text').textContent = text;
  el('banner').className = `banner banner--${kind}`;
  el('banner').hidden = false;
}

function hideBanner() {
  el('banner').hidden = true;
}

// The confirmation of a decision. It stands over the top bar (app.css), where
// there is nothing to tap: the next call's Approve, Deny and Edit are where
// a person's thumb goes next, and a tap on them is never lost under it.
let toastTimer = 0;
function toast(text) {
  const node = el('toast');
  node.textContent = text;
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.hidden = true; }, TOAST_MS);
}

const STATUS_TEXT = { connecting: 'Connecting…', live: 'Live', down: 'Reconnecting…' };

function setStatus(kind) {
  const node = el('status');
  node.textContent = STATUS_TEXT[kind] || '';
  node.className = kind ? `status status--${kind}` : 'status';
  node.hidden = !kind;
  document.body.classList.toggle('is-offline', kind === 'down');
}

// ---- signing in -------------------------------------------------------------

async function start() {
  bindEvents();
  setInterval(tick, 1000);
  if (location.pathname === '/pair' && !(await pair())) return;
  await signIn();
}

// The code (URL-safe) sits in the fragment of a link that works once: take it
// out of the address, and so of history, before anything else.
async function pair() {
  const code = location.hash.slice(1);
  history.replaceState(null, '', '/');
  if (!code) {
    showGate('Pairing failed', 'This pairing link has no code in it.');
    return false;
  }
  try {
    const paired = await api('POST', '/api/pair', { code });
    setDeviceKey(paired.device);
    return true;
  } catch (err) {
    showGate('Pairing failed', err.message);
    return false;
  }
}

async function signIn() {
  let me;
  try {
    me = await api('GET', '/api/me');
  } catch (err) {
    if (err.status === 401) showGate('Not paired', err.message);
    else showGate('Holdpoint is not reachable', err.message, { hint: false, retry: true });
    return;
  }
  state.csrf = me.csrf;
  state.key = deviceKey();
  state.stopped = false;
  el('whoami').textContent = `Deciding as ${me.reviewer}`;
  el('whoami').hidden = false;
  queueReset();
  route();
  connect();
}

function signedOut(message) {
  state.stopped = true;
  state.csrf = '';
  // Another tab may have paired again since: its key is not this one's to drop.
  if (deviceKey() === state.key) setDeviceKey('');
  if (state.socket) state.socket.close();
  showGate('Signed out', message);
}

async function logout() {
  try {
    await api('POST', '/api/logout');
  } catch (err) {
    if (err.status !== 401) return showBanner(err.message);
  }
  signedOut('This device was signed out.');
}

// ---- the live feed ----------------------------------------------------------

function connect() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(`${scheme}//${location.host}/api/live`);
  let pingTimer = 0;
  state.socket = socket;
  setStatus(state.loaded ? 'down' : 'connecting');
  socket.onopen = () => {
    // The feed says nothing until this proves the session (WEB.md).
    socket.send(stringifyJson({ type: 'hello', device: deviceKey() }));
    pingTimer = setInterval(() => socket.send('{"type":"ping"}'), PING_MS);
  };
  socket.onmessage = (event) => {
    let message;
    try {
      message = parseJson(event.data);
    } catch {
      return;
    }
    const handle = feed[message.type];
    if (handle) handle(message);
  };
  socket.onclose = () => {
    clearInterval(pingTimer);
    if (!state.stopped) retryLater();
  };
}

function retryLater() {
  setStatus('down');
  setTimeout(reconnect, state.retryMs);
  state.retryMs = Math.min(state.retryMs * 2, RETRY_MAX_MS);
}

// A socket refused for a lost session looks like any other drop, so ask
// who we are before opening another.
async function reconnect() {
  try {
    state.csrf = (await api('GET', '/api/me')).csrf;
  } catch (err) {
    // A name the team database does not admit (not_a_reviewer) will not be
    // admitted by retrying either.
    if (err.status === 401 || err.code === 'not_a_reviewer') signedOut(err.message);
    else retryLater();
    return;
  }
  connect();
}

const feed = {
  snapshot(m) {
    state.skewMs = Date.parse(m.now) - Date.now() || 0;
    m.items.forEach(learnMixedScript);
    state.items = new Map(m.items.map((item) => [item.id, item]));
    state.loaded = true;
    state.retryMs = RETRY_MIN_MS;
    // Back in touch: a "cannot be reached" from before is no longer true.
    if (el('banner').classList.contains('banner--error')) hideBanner();
    setStatus('live');
    queueReset();
    route();
  },
  added(m) {
    learnMixedScript(m.item);
    state.items.set(m.item.id, m.item);
    queueChanged(m.item.id);
  },
  updated(m) {
    learnMixedScript(m.item);
    state.items.set(m.item.id, m.item);
    queueChanged(m.item.id);
    if (m.item.id === state.openId) refreshDetail(m.item);
  },
  voted(m) {
    const item = state.items.get(m.id);
    if (!item) return;
    item.approvals_given = m.approvals;
    item.approvals_required = m.required;
    queueChanged(m.id);
    if (m.id === state.openId) renderDetail(item);
  },
  removed(m) {
    state.items.delete(m.id);
    queueChanged(m.id);
    // Our own review reports itself when its answer comes back.
    if (m.id === state.openId && m.id !== state.busyId) {
      showBanner(removalText(m), 'notice');
      closeDetail();
    }
  },
  refused(m) {
    showBanner(sentence(m.message || 'the team database refused your decision'));
  },
  revoked() {
    signedOut('This device was signed out.');
  },
};

function removalText(m) {
  switch (m.state) {
    case 'timed_out': return `This call timed out${at(m.decided_at)}.`;
    case 'cancelled': return `The agent cancelled this call${at(m.decided_at)}.`;
    case 'abandoned': return `The agent went away; this call was dropped${at(m.decided_at)}.`;
    default: return `Decided by ${who(m.decided_by)}${at(m.decided_at)}.`;
  }
}

// ---- routing: "#item=ID" is the detail of one call --------------------------

function hashItemId() {
  const match = /^#item=(.+)$/.exec(location.hash);
  try {
    return match ? decodeURIComponent(match[1]) : null;
  } catch {
    return null;
  }
}

function route() {
  if (!state.csrf || state.stopped) return;
  const id = hashItemId();
  if (!id || !state.loaded) {
    if (!id) state.cameFromQueue = false;
    return showQueue();
  }
  const item = state.items.get(id);
  if (!item) {
    showBanner('This call is no longer waiting.', 'notice');
    closeDetail();
  } else if (id === state.openId) {
    refreshDetail(item);
  } else {
    openDetail(item);
  }
}

function showQueue() {
  state.openId = null;
  state.shown = null;
  showView('queue-view');
}

function closeDetail() {
  showQueue();
  if (state.cameFromQueue) {
    history.back();
  } else if (location.hash) {
    history.replaceState(null, '', '/');
  }
}

// ---- the detail of one call -----------------------------------------------------

function openDetail(item) {
  state.openId = item.id;
  state.openedAt = performance.now();
  hideBanner();
  el('scope').value = 'call';
  el('deny-reason').value = '';
  el('edit-args').value = '';
  togglePanel(null);
  renderDetail(item);
  showView('detail');
  window.scrollTo(0, 0);
}

function refreshDetail(item) {
  // A change our own review in flight made is reported by its answer.
  const changed = state.shown && state.shown.version !== item.version && state.busyId !== item.id;
  renderDetail(item);
  if (changed) showBanner('This call changed while you were looking at it; review it again.', 'notice');
}

function renderDetail(item) {
  learnMixedScript(item); // again: a full list of names may have been dropped since
  state.shown = item;
  el('detail-countdown').dataset.deadline = item.deadline;
  el('detail-body').replaceChildren(...[
    detailHead(item),
    section('Why', h('p', null, item.reason)),
    warningsSection(item),
    findingsSection(item),
    argsSection(item),
    rewriteSection(item),
    editedSection(item),
    votesSection(item),
    trailSection(item),
    !isEmpty(item.context) && section('Context', jsonBlock(item.context)),
    !isEmpty(item.annotations) && section('Annotations', jsonBlock(item.annotations)),
    factsSection(item),
  ].filter(Boolean));
  validateEdit();
  tick();
}

function section(title, ...children) {
  return h('section', 'block', h('h2', null, title), ...children);
}

function detailHead(item) {
  const title = h('h1', 'detail-tool', item.tool_name);
  title.id = 'detail-tool';
  const kinds = hiddenKinds(item);
  // Each name a text of its own, so h() marks it as the console does.
  const names = (item.mixed_script || []).slice(0, 3).map((n) => n.name).filter((n) => typeof n === 'string');
  const hidden = kinds.length
    ? h('p', 'hidden-banner', `⚠ HIDDEN CHARACTERS: ${kinds.join(', ')}, shown as ⟨…⟩.`,
      ...(names.length ? [' Look-alike names: ', ...names.flatMap((n, i) => (i ? [', ', n] : [n])), '.'] : []),
      ' Read them before you decide: what runs is the agent’s own text.')
    : null;
  if (hidden) hidden.id = 'hidden-characters';
  return h('div', 'detail-head', title, hidden, h('p', 'card-who', agentLine(item)), chips(item));
}

function warningsSection(item) {
  const warnings = item.warnings || [];
  if (!warnings.length) return null;
  return section('Warnings', h('ul', 'list', ...warnings.map((w) =>
    h('li', 'tone-warn', `⚠ ${w.guardrail}: ${w.message}`, w.code && h('span', 'code', w.code)))));
}

function findingsSection(item) {
  const findings = item.turn_findings || [];
  if (!findings.length) return null;
  return section('Loop in this turn', h('ul', 'list', ...findings.map((f) =>
    h('li', f.level === 'warn' ? 'tone-warn' : 'tone-bad',
      h('p', 'finding', `⟲ ${f.message}`),
      h('p', 'muted', `${f.count} of ${f.stop_at} (warns at ${f.warn_at}) · ${f.level} · ${f.pattern} · ${f.tool_name} · ${f.guardrail}`),
      f.call_ids && f.call_ids.length ? h('p', 'muted', `Calls ${f.call_ids.join(', ')}`) : null))));
}

function argsSection(item) {
  const redacted = item.redacted || [];
  const secrets = redacted.length
    ? h('p', 'note', 'Secrets masked: ', redacted.map((r) => `${r.kind} as ${r.placeholder}`).join(', '))
    : null;
  let standing = null;
  if (item.edited_args) standing = 'Approve approves the edited arguments below.';
  else if (item.proposed_args) standing = 'Approve approves the guardrails’ rewrite below.';
  return section('Arguments', secrets, jsonBlock(item.args), standing && h('p', 'hint', standing));
}

function rewriteSection(item) {
  if (!item.proposed_args) return null;
  const ops = (item.patch || []).map((op) =>
    h('li', 'mono', `${op.op} ${op.path}${'value' in op ? ` → ${stringifyJson(op.value)}` : ''}`));
  return section('Rewritten by guardrails', diffBlock(item.args, item.proposed_args), ops.length ? h('ul', 'list patch', ...ops) : null);
}

function editedSection(item) {
  if (!item.edited_args) return null;
  const editor = (item.votes || []).filter((v) => v.edit).pop();
  return section(editor ? `Edited by ${editor.reviewer}` : 'Edited', diffBlock(item.args, item.edited_args));
}

const standingArgs = (item) => item.edited_args || item.proposed_args || item.args;

function votesSection(item) {
  const votes = item.votes || [];
  if (!item.approvals_required && !votes.length) return null;
  const keep = item.approvals && item.approvals.on_edit === 'keep';
  const rows = votes.map((v) => {
    const counts = keep || !v.args || sameJson(v.args, standingArgs(item));
    const facts = [v.via, clock(v.at), v.edit ? 'edit' : '', counts ? '' : 'no longer counts'].filter(Boolean).join(' · ');
    return h('li', counts ? 'vote' : 'vote vote--stale', `${v.edit ? '✎' : '✓'} `, h('strong', null, v.reviewer), h('span', 'muted', ` · ${facts}`));
  });
  const title = item.approvals_required ? `Approvals ${item.approvals_given || 0}/${item.approvals_required}` : 'Votes';
  return section(title, rows.length ? h('ul', 'list', ...rows) : h('p', 'muted', 'No approvals yet.'));
}

const ACTION_TONE = { allow: 'ok', modify: 'info', warn: 'warn', ask: 'warn', deny: 'bad', block: 'bad', halt: 'bad' };

function trailSection(item) {
  const rows = (item.trail || []).map((v) => h('li', 'verdict',
    h('span', `chip chip--${ACTION_TONE[v.action] || 'muted'}`, v.action),
    ' ', h('strong', null, v.guardrail),
    v.reason ? ` — ${v.reason}` : '',
    v.code && h('span', 'code', v.code)));
  return section('Guardrails', rows.length ? h('ul', 'list', ...rows) : h('p', 'muted', 'No guardrail gave a verdict.'));
}

function factsSection(item) {
  const facts = [
    ['Call', item.call_id],
    ['Session', item.session_id],
    ['Turn', item.turn_id],
    ['Requester', item.requester],
    ['Received', clock(item.received_at)],
  ].filter(([, value]) => value);
  return section('Details', h('dl', 'facts', ...facts.flatMap(([k, v]) => [h('dt', null, k), h('dd', 'mono', v)])));
}

// ---- reviewing ------------------------------------------------------------------

const PANELS = ['deny', 'edit', 'halt'];

// Opens one of the action panels (or none), closing the others.
function togglePanel(name) {
  for (const panel of PANELS) {
    const open = panel === name;
    el(`${panel}-panel`).hidden = !open;
    el(panel).setAttribute('aria-expanded', String(open));
  }
  syncButtons();
}

const isOpen = (name) => !el(`${name}-panel`).hidden;

function onPanelButton(name) {
  if (isOpen(name)) return togglePanel(null);
  if (name === 'edit') {
    if (!el('edit-args').value) el('edit-args').value = pretty(standingArgs(state.shown));
    el('edit-secrets').hidden = !(state.shown.redacted || []).length;
  }
  togglePanel(name);
  validateEdit();
  keepPanelInView(name);
  const focus = { deny: 'deny-reason', edit: 'edit-args', halt: 'halt-confirm' }[name];
  el(focus).focus({ preventScroll: true });
}

// Keeps an open panel's field and its buttons between the top bar (and a
// banner under it) and the sticky action bar, scrolling only as far as
// needed, and at once: typing while a smooth scroll runs stops it halfway.
// When both do not fit, the field's top wins: that is where the caret is.
function keepPanelInView(name) {
  const panel = el(`${name}-panel`);
  const row = panel.querySelector('.panel-row').getBoundingClientRect();
  const field = (panel.querySelector('textarea') || panel).getBoundingClientRect();
  const banner = el('banner').hidden ? null : el('banner').getBoundingClientRect();
  const top = Math.max(document.querySelector('.topbar').getBoundingClientRect().bottom, banner ? banner.bottom : 0) + 8;
  const bottom = Math.min(el('actions').getBoundingClientRect().top, window.innerHeight) - 8;
  let by = 0;
  if (row.bottom > bottom) by = row.bottom - bottom;
  if (field.top - by < top) by = field.top - top;
  if (by) window.scrollBy({ top: by, behavior: 'instant' });
}

// The edit must be a JSON object that differs from the call's own arguments.
function checkEdit(text, original) {
  let args;
  try {
    args = parseJson(text);
  } catch (err) {
    return { problem: `Not valid JSON: ${err.message}` };
  }
  if (!isObject(args)) return { problem: 'The arguments must be a JSON object, in { }.' };
  if (sameJson(args, original)) return { problem: 'These are the call’s own arguments: change something, or use Approve.', hint: true };
  return { args };
}

function validateEdit() {
  state.editArgs = null;
  if (!state.shown || !isOpen('edit')) return;
  const result = checkEdit(el('edit-args').value, state.shown.args);
  state.editArgs = result.args || null;
  el('edit-error').textContent = result.problem || '';
  el('edit-error').classList.toggle('is-hint', Boolean(result.hint));
  el('edit-diff').replaceChildren(...(result.args ? [diffBlock(state.shown.args, result.args)] : []));
  syncButtons();
}

function syncButtons() {
  const busy = state.busyId !== null;
  for (const id of ['approve', 'deny', 'edit', 'halt', 'halt-confirm', 'scope']) el(id).disabled = busy;
  // While a deny reason or an edit is being written, Approve is one stray
  // tap away from the opposite: it waits until the panel is closed.
  el('approve').disabled = busy || isOpen('deny') || isOpen('edit');
  el('deny-confirm').disabled = busy || !el('deny-reason').value.trim();
  el('edit-confirm').disabled = busy || !state.editArgs;
  el('detail').setAttribute('aria-busy', String(busy));
}

// The second tap of a double tap on a card can land where Approve appears;
// a review that soon after opening is not taken as meant.
const SETTLE_MS = 600;

async function review(action, extra = {}) {
  const item = state.shown;
  if (!item || state.busyId !== null || performance.now() - state.openedAt < SETTLE_MS) return;
  state.busyId = item.id;
  syncButtons();
  try {
    const body = { action, version: item.version, scope: el('scope').value, ...extra };
    const result = await api('POST', `/api/items/${encodeURIComponent(item.id)}/review`, body);
    reviewed(item, action, result);
  } catch (err) {
    reviewFailed(item, err);
  } finally {
    state.busyId = null;
    syncButtons();
  }
}

const DONE = { approve: 'Approved', edit: 'Approved with edits', deny: 'Denied', halt: 'Turn halted' };

function reviewed(item, action, result) {
  if (result.outcome === 'voted') {
    toast(result.required ? `Your approval counted (${result.approvals}/${result.required})` : 'Your approval counted');
  } else if (result.outcome === 'sent') {
    toast('Sent');
  } else {
    toast(`${DONE[action]} — ${who(result.decided_by)}`);
  }
  if (state.openId === item.id) closeDetail();
}

function reviewFailed(item, err) {
  if (err.status === 401 || err.code === 'not_a_reviewer') return signedOut(err.message);
  if (err.code === 'already_decided') {
    state.items.delete(item.id);
    queueChanged(item.id);
    showBanner(`Already decided by ${who(err.body.decided_by)}${at(err.body.decided_at)}.`);
  } else if (err.code === 'changed' && state.items.has(item.id)) {
    if (state.openId === item.id) renderDetail(state.items.get(item.id));
    showBanner('This call changed since you looked; review it again.');
  } else {
    showBanner(err.code === 'changed' ? 'This call is no longer waiting.' : err.message);
  }
  // The call may have left the queue while the review was in flight.
  if (state.openId === item.id && !state.items.has(item.id)) closeDetail();
}

// ---- wiring ---------------------------------------------------------------------

function bindEvents() {
  window.addEventListener('hashchange', route);
  el('queue').addEventListener('click', (event) => {
    if (event.target.closest('.card')) state.cameFromQueue = true;
  });
  el('back').addEventListener('click', closeDetail);
  el('approve').addEventListener('click', () => review('approve'));
  for (const name of PANELS) el(name).addEventListener('click', () => onPanelButton(name));
  for (const button of document.querySelectorAll('.panel-cancel')) button.addEventListener('click', () => togglePanel(null));
  el('deny-reason').addEventListener('input', () => {
    syncButtons();
    keepPanelInView('deny');
  });
  el('deny-confirm').addEventListener('click', () => {
    const reason = el('deny-reason').value.trim();
    if (reason) review('deny', { reason });
  });
  el('edit-args').addEventListener('input', () => {
    validateEdit();
    keepPanelInView('edit');
  });
  el('edit-confirm').addEventListener('click', () => {
    if (state.editArgs) review('edit', { args: state.editArgs });
  });
  el('halt-confirm').addEventListener('click', () => review('halt'));
  el('banner-close').addEventListener('click', hideBanner);
  el('retry').addEventListener('click', signIn);
  el('logout').addEventListener('click', logout);
}

start();
