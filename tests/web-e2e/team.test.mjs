// SPDX-License-Identifier: Apache-2.0
// Team mode from a phone (core/web/WEB.md, core/team/TEAM.md): one headless
// web instance under a PostgreSQL login of its own serves the whole team's
// queue; two gateways, each with a real agent, put their calls in it; the
// page's decisions reach those agents as the paired reviewer. The same
// scenario over plain HTTP is tests/team/tst_team_web.cpp.
//
// The PostgreSQL cluster is this file's own (pg.mjs). Without Debian's
// server binaries the test is skipped; CI installs them, so there it runs.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  REVIEWER, SOURCE_DIR, WebConsole, TeamGateway, Agent, teamCtl, launchBrowser, newDevice, pairDevice, openCard,
  openPanel, tapReview, toastText, pageItems, text, until, within, waitFor, cardSelector,
} from './helpers.mjs';
import { PgCluster, findPgBinDir } from './pg.mjs';

// PG* variables in the caller's environment (PGHOST, PGSERVICE, ...) would
// redirect holdpoint's own connections from the cluster the URLs name.
for (const key of Object.keys(process.env)) if (key.startsWith('PG')) delete process.env[key];

const HUMAN = `human:${REVIEWER}`;
const DATABASE = 'team';
const WEB_LOGIN = 'web_login';

let browser;
let pg;
after(async () => {
  await browser?.close();
  await pg?.stop();
});

/**
 * The team database as its owner leaves it for this test: the schema, the
 * roles, a login for the web instance that may decide as REVIEWER only.
 * Resolves with the owner's URL.
 */
async function teamDatabase(cluster) {
  await cluster.createDatabase(DATABASE);
  const admin = cluster.connString(DATABASE);
  await teamCtl(admin, 'team', 'init', admin);
  await cluster.psqlFile(DATABASE, join(SOURCE_DIR, 'resources/team/roles.sql'));
  await cluster.psql(DATABASE, `CREATE ROLE ${WEB_LOGIN} LOGIN IN ROLE holdpoint_reviewer`);
  await teamCtl(admin, 'team', 'reviewer', 'add', REVIEWER, '--role', WEB_LOGIN);
  return admin;
}

/** The agent's write_file call in flight; its call_id names it in the queue. */
function submit(agent, args) {
  const callId = agent.client.newCallId();
  const call = agent.writeFile(args, { callId });
  call.catch(() => {}); // awaited by the test; a failure elsewhere must not go unhandled meanwhile
  return { call, callId };
}

/** The id a gateway joined the team as (`holdpoint: joining the team as gateway ID` on its stderr). */
function gatewayId(gateway) {
  return waitFor('the gateway to join the team', () => /joining the team as gateway (\S+)/.exec(gateway.log)?.[1]);
}

/** The card of `id` leaves the page's queue. */
function cardGone(page, id) {
  return until(`the card of ${id} to go`,
    page.waitForFunction((sel) => !document.querySelector(sel), {}, cardSelector(id)));
}

test('team mode: the page of a headless web instance shows calls from two gateways, and its decisions reach their agents',
  async (t) => {
    const bin = findPgBinDir();
    if (!bin) {
      t.skip('no PostgreSQL server binaries under /usr/lib/postgresql/<major>/bin (apt-get install postgresql)');
      return;
    }
    pg = new PgCluster(bin);
    let admin;
    [browser, admin] = await Promise.all([launchBrowser(), pg.start().then(teamDatabase)]);

    const ci = new TeamGateway({ team: admin });
    const ops = new TeamGateway({ team: admin });
    const web = new WebConsole({ args: ['--team', pg.connString(DATABASE, WEB_LOGIN)] });
    const closers = [];
    try {
      await Promise.all([ci.start(), ops.start(), web.start()]);
      const device = await newDevice(browser);
      closers.push(() => device.context.close());
      const { page } = device;
      const [ciAgent, opsAgent] = await Promise.all([Agent.connect(ci, 'ci-agent'), Agent.connect(ops, 'ops-agent'),
        pairDevice(page, await web.pairLink())]);
      closers.push(() => ciAgent.close(), () => opsAgent.close());
      assert.equal((await pageItems(page)).status, 200);
      assert.equal(await page.evaluate(async () => (await (await fetch('/api/me',
        { headers: { 'X-Holdpoint-Device': localStorage.getItem('holdpoint-device') } })).json()).team), true, 'the page is a team console');

      const built = { path: 'ci/build.log', content: 'built on the CI gateway\n' };
      const restart = { path: 'ops/restart.txt', content: 'should never be written' };
      const ciCall = submit(ciAgent, built);
      const opsCall = submit(opsAgent, restart);

      // Both gateways' calls reach the page's queue, each as a card that
      // names its agent and where it runs.
      await until('the cards of both gateways',
        page.waitForFunction(() => document.querySelectorAll('#queue .card').length === 2, { timeout: 15000 }));
      const { body } = await pageItems(page);
      const ciItem = body.items.find((i) => i.call_id === ciCall.callId);
      const opsItem = body.items.find((i) => i.call_id === opsCall.callId);
      assert.ok(ciItem && opsItem, JSON.stringify(body.items));
      assert.ok(ciItem.team && opsItem.team, 'team items carry their gateway');
      assert.equal(ciItem.team.gateway, await gatewayId(ci));
      assert.equal(opsItem.team.gateway, await gatewayId(ops));
      assert.notEqual(ciItem.team.gateway, opsItem.team.gateway);
      const user = userInfo().username;
      for (const item of [ciItem, opsItem]) {
        assert.equal(item.team.host, hostname());
        assert.equal(item.team.online, true);
        assert.equal(item.agent.user, user);
      }
      // The page names each card's gateway, whose id names its host: both
      // gateways run on this machine, and their cards still tell them apart.
      assert.equal(await text(page, `${cardSelector(ciItem.id)} .card-who`), `ci-agent (${user}) · on ${ciItem.team.gateway}`);
      assert.equal(await text(page, `${cardSelector(opsItem.id)} .card-who`), `ops-agent (${user}) · on ${opsItem.team.gateway}`);
      assert.equal(await text(page, `${cardSelector(ciItem.id)} .tool`), 'write_file');

      // Approve the CI gateway's call: the database settles it (the answer
      // waits for it), the agent writes.
      const shownCi = await openCard(page, ciItem.id);
      assert.match(await text(page, '#detail-body'), /built on the CI gateway/);
      const approved = await tapReview(page, '#approve');
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.deepEqual(approved.request, { action: 'approve', version: shownCi.version, scope: 'call' });
      assert.equal(approved.body.outcome, 'decided');
      assert.equal(approved.body.decided_by, HUMAN);
      assert.equal(await toastText(page), `Approved — ${REVIEWER}`);
      const ciDone = await within('the CI agent\'s decision', ciCall.call);
      assert.equal(ciDone.decision.decision, 'allow');
      assert.equal(ciDone.decision.decidedBy, HUMAN);
      assert.deepEqual(ciDone.decision.args, built);
      assert.equal(ciAgent.file('ci/build.log'), built.content);
      assert.equal(ciAgent.decisionsFor(ciCall.callId).length, 1);
      await cardGone(page, ciItem.id);

      // Deny the other gateway's call with a reason: its agent writes nothing.
      const reason = 'Not during the release';
      const shownOps = await openCard(page, opsItem.id);
      await openPanel(page, 'deny');
      await page.type('#deny-reason', reason);
      await until('Deny to be enabled', page.waitForFunction(() => !document.getElementById('deny-confirm').disabled));
      const denied = await tapReview(page, '#deny-confirm');
      assert.equal(denied.status, 200, JSON.stringify(denied.body));
      assert.deepEqual(denied.request, { action: 'deny', version: shownOps.version, scope: 'call', reason });
      assert.equal(denied.body.outcome, 'decided');
      const opsDone = await within('the ops agent\'s decision', opsCall.call);
      assert.equal(opsDone.decision.decision, 'deny');
      assert.equal(opsDone.decision.reason, reason);
      assert.equal(opsDone.decision.decidedBy, HUMAN);
      assert.equal(opsDone.wrote, null);
      assert.equal(opsAgent.file('ops/restart.txt'), null);
      assert.equal(opsAgent.decisionsFor(opsCall.callId).length, 1);
      await cardGone(page, opsItem.id);
      await until('the empty queue', page.waitForSelector('#empty:not([hidden])'));

      // The team's audit chain holds.
      await teamCtl(admin, 'audit', 'verify');
      assert.deepEqual(page.errors, []);
    } catch (error) {
      for (const [name, hp] of [['web instance', web], ['gateway ci', ci], ['gateway ops', ops]]) {
        if (hp.log) error.message += `\n--- ${name} stderr ---\n${hp.log}`;
      }
      throw error;
    } finally {
      for (const close of closers.reverse()) await close().catch(() => {});
      await Promise.all([web, ci, ops].map((hp) => hp.dispose().catch(() => {})));
    }
  });
