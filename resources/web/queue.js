// SPDX-License-Identifier: Apache-2.0
'use strict';

// The queue's cards and the countdowns. An agent can send hundreds of calls
// in a second, and the live feed says "added" for each: rebuilding every
// card per message kept the page's main thread busy for seconds, taps and
// typing waiting behind it. So a change marks only its own card, and the
// marked cards are made, redone or removed a few milliseconds' worth at a
// time, each batch a task of its own, so whatever a person does gets in
// between. A waiting call keeps its card's node while it waits; a change
// redoes what is inside it, so the focus, the scroll position and a press
// in progress stay where they are.
// Loaded after json.js and before app.js, whose state, el() and h() it uses.

// The longest a batch of cards may take before the rest waits for a task of
// its own. Long tasks start at 50 ms; a phone's CPU can be many times slower
// than the one that measured this.
const QUEUE_SLICE_MS = 6;

const queueView = {
  cards: new Map(), // id → the <li> of its card on the page
  marked: new Set(), // ids whose card is to be made, redone or removed, in the order they changed
  reorder: false, // a snapshot came: the cards may stand in another order than state.items
  scheduled: false,
};

// state.items changed for `id`: added, updated or removed.
function queueChanged(id) {
  queueView.marked.add(id);
  scheduleQueue();
}

// state.items was replaced (a snapshot): every card may have changed.
function queueReset() {
  for (const id of queueView.cards.keys()) queueView.marked.add(id);
  for (const id of state.items.keys()) queueView.marked.add(id);
  queueView.reorder = true;
  scheduleQueue();
}

function scheduleQueue() {
  if (queueView.scheduled) return;
  queueView.scheduled = true;
  // A task, not an animation frame: a tab in the background gets no frames,
  // and its title still says how many calls wait.
  setTimeout(renderQueue, 0);
}

function renderQueue() {
  queueView.scheduled = false;
  const list = el('queue');
  const now = serverNow();
  const started = performance.now();
  for (const id of queueView.marked) {
    queueView.marked.delete(id);
    renderCard(list, id, now);
    if (performance.now() - started >= QUEUE_SLICE_MS) break;
  }
  if (queueView.marked.size) {
    scheduleQueue();
  } else if (queueView.reorder) {
    queueView.reorder = false;
    orderCards(list);
  }
  const count = state.items.size;
  el('queue-count').textContent = count ? String(count) : '';
  el('empty').hidden = !state.loaded || count > 0;
  el('loading').hidden = state.loaded;
  document.title = count ? `(${count}) Holdpoint` : 'Holdpoint';
}

function renderCard(list, id, now) {
  const item = state.items.get(id);
  const node = queueView.cards.get(id);
  if (!item) {
    if (!node) return;
    queueView.cards.delete(id);
    handOnFocus(node);
    node.remove();
  } else if (node) {
    fillCard(node.firstElementChild, item, now);
  } else {
    // A call the feed adds is the newest: its card goes last. A snapshot's
    // order is put right once all its cards are made (orderCards).
    const card = fillCard(document.createElement('a'), item, now);
    queueView.cards.set(id, list.appendChild(h('li', null, card)));
  }
}

// A card about to go has the focus: the next card (or the one before) takes
// it, so a keyboard user stays in the queue.
function handOnFocus(node) {
  if (!node.contains(document.activeElement)) return;
  const next = node.nextElementSibling || node.previousElementSibling;
  if (next) next.firstElementChild.focus({ preventScroll: true });
}

// The cards in the order of state.items (oldest first), moving only the
// ones out of place.
function orderCards(list) {
  let at = list.firstElementChild;
  for (const id of state.items.keys()) {
    const node = queueView.cards.get(id);
    if (!node) continue;
    if (node === at) at = at.nextElementSibling;
    else list.insertBefore(node, at);
  }
}

function fillCard(link, item, now) {
  learnMixedScript(item); // again: a full list of names may have been dropped since
  link.className = item.agent_connected === false ? 'card card--disconnected' : 'card';
  link.href = `#item=${encodeURIComponent(item.id)}`;
  link.dataset.id = item.id;
  const clock = countdown(item.deadline);
  setCountdown(clock, now);
  link.replaceChildren(...[
    h('div', 'card-top', h('span', 'tool', item.tool_name), clock),
    h('p', 'card-who', agentLine(item)),
    h('p', 'card-why', item.reason),
    chips(item),
  ].filter(Boolean));
  return link;
}

function agentLine(item) {
  const agent = item.agent || {};
  const name = agent.user ? `${agent.name} (${agent.user})` : agent.name;
  // The gateway's id names its host and tells two gateways on one host apart.
  const place = item.team && (item.team.gateway || item.team.host);
  return place ? `${name} · on ${place}` : name;
}

// The loop marker shows the finding with the highest count.
function topFinding(item) {
  const findings = item.turn_findings || [];
  return findings.reduce((top, f) => (!top || f.count > top.count ? f : top), null);
}

function chips(item) {
  const list = [];
  const add = (text, tone) => list.push(h('span', `chip chip--${tone}`, text));
  if ((item.hidden_characters || []).length) add('⚠ Hidden characters', 'bad');
  const loop = topFinding(item);
  if (loop) add(`⟲ ${loop.count}/${loop.stop_at}`, loop.level === 'warn' ? 'warn' : 'bad');
  if (item.approvals_required) add(`Approvals ${item.approvals_given || 0}/${item.approvals_required}`, 'info');
  if (item.edited_args) add('Edited', 'info');
  if (item.agent_connected === false) add('Agent disconnected', 'bad');
  if (item.team && item.team.online === false) add('Gateway offline', 'warn');
  if (item.team && item.team.being_edited_by) add(`${item.team.being_edited_by} is editing`, 'muted');
  return list.length ? h('div', 'chips', ...list) : null;
}

// ---- countdowns -------------------------------------------------------------

// Now on the server's clock.
const serverNow = () => Date.now() + state.skewMs;

function duration(ms) {
  const s = Math.floor(ms / 1000);
  const pad = (n) => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m`;
}

function countdown(deadline) {
  const node = h('span', 'countdown');
  node.dataset.deadline = deadline;
  return node;
}

// Writes only what changed: with hundreds of cards, a rewrite of each every
// second would have the browser lay them all out again.
function setCountdown(node, now) {
  const left = Date.parse(node.dataset.deadline) - now;
  const text = left > 0 ? `${duration(left)} left` : 'Time is up';
  if (node.textContent !== text) node.textContent = text;
  const urgent = left < 60000;
  if (node.classList.contains('countdown--urgent') !== urgent) node.classList.toggle('countdown--urgent', urgent);
}

// Counts every deadline on the page down, on the server's clock.
function tick() {
  const now = serverNow();
  for (const node of document.querySelectorAll('.countdown[data-deadline]')) setCountdown(node, now);
}
