// SPDX-License-Identifier: Apache-2.0
// The holdpoint client as a user's program calls it: one call the policy
// allows, one it denies, one it rewrites. Prints what each call got, as JSON.
// The console is found through $HOLDPOINT_DATA_DIR.

import { HoldpointClient, type Decision } from 'holdpoint';

const client = await HoldpointClient.connect({ agentName: 'consumer-client', framework: 'consumer' });
const got: Record<string, string> = {};
const show = (d: Decision): string => (d.allowed ? `${d.decision} ${JSON.stringify(d.args)}` : `${d.decision}: ${d.reason}`);
got.read_note = show(await client.submit('read_note', { path: 'a.txt' }));
got.delete_note = show(await client.submit('delete_note', { path: 'a.txt' }));
got.write_note = show(await client.submit('write_note', { path: 'b.txt', text: 'hi' }));
await client.close();
console.log(JSON.stringify(got));
