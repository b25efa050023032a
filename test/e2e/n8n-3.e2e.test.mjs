// End-to-end: what docs/n8n-3.md tells a user of n8n 3, checked against the migration report n8n 2.41
// already computes for its next major version (GET /rest/breaking-changes/report?version=v3, the
// editor's Settings → Migration report), with the packed package installed in the n8n folder's `nodes`
// as docs/n8n-3.md installs it. Its rule `unverified-packages-v3` says that in n8n 3 unverified
// community packages stop loading unless N8N_UNVERIFIED_PACKAGES_ENABLED=true:
// - set to true, as the page says until the package is verified: the rule finds nothing to report, and
//   the package's nodes are loaded;
// - not set (n8n 2.x's default): the rule reports the instance, and n8n 2.41 still loads the nodes;
// - false: n8n 2.41 still loads a package installed in the folder (the variable refuses only installs of
//   unverified packages from the editor), and the rule finds nothing to report (a choice was made).
// n8n 2.x only: n8n 1.x has no rules for n8n 3. Docker is not tested here (see docs/n8n-3.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startN8nServer } from '../../scripts/lib/n8n-server.mjs';
import { runtimePaths } from '../../scripts/lib/runtime-folder.mjs';
import { majorOf, RUNTIMES } from '../../scripts/lib/runtime-pins.mjs';
import { installedPackage } from './support/installed-package.mjs';

const RULE = 'unverified-packages-v3';
const VERSION = RUNTIMES.find((pin) => majorOf(pin) === 2).n8n;
const NODE_TYPES = [
	'n8n-nodes-voice-agent.voiceAgent',
	'n8n-nodes-voice-agent.voiceAgentTrigger',
	'n8n-nodes-voice-agent.voiceAgentCallHistoryTrigger',
];
const log = (line) => console.log(`[e2e n8n 3] ${line}`);

let setup;

before(async () => {
	setup = await installedPackage({ version: VERSION });
});

after(() => setup?.remove());

/**
 * Starts n8n on the folder with N8N_UNVERIFIED_PACKAGES_ENABLED as given (undefined: not set), and
 * returns what the v3 migration report says of the rule and which of the package's node types n8n loaded.
 */
async function startWith(unverifiedEnabled) {
	const server = await startN8nServer(setup.userFolder, {
		runtime: runtimePaths(VERSION),
		env: { N8N_UNVERIFIED_PACKAGES_ENABLED: unverifiedEnabled },
	});
	try {
		await server.setupOwnerAndLogin();
		const { instanceResults } = await server.rest
			.request('GET', '/rest/breaking-changes/report?version=v3')
			.then((answer) => answer.report);
		// What the editor reads to know the node types n8n loaded.
		const types = await server.rest.request('GET', '/types/nodes.json');
		const loaded = NODE_TYPES.filter((type) => types.some((node) => node.name === type));
		log(`N8N_UNVERIFIED_PACKAGES_ENABLED=${unverifiedEnabled}: started in ${server.startMs} ms`);
		return { reported: instanceResults.find((result) => result.ruleId === RULE), loaded };
	} finally {
		await server.stop();
	}
}

describe(
	`n8n ${VERSION}'s migration report for n8n 3, with the package in the nodes folder`,
	{ timeout: 300_000 },
	() => {
		test('N8N_UNVERIFIED_PACKAGES_ENABLED=true, as docs/n8n-3.md says: nothing to report, the nodes load', async () => {
			const { reported, loaded } = await startWith('true');
			assert.equal(reported, undefined);
			assert.deepEqual(loaded, NODE_TYPES);
		});

		test('not set: the report names the rule and its remedy; n8n 2.41 still loads the nodes', async () => {
			const { reported, loaded } = await startWith(undefined);
			assert.equal(reported?.ruleTitle, 'Unverified community packages are disabled by default');
			assert.match(
				JSON.stringify(reported.recommendations),
				/set N8N_UNVERIFIED_PACKAGES_ENABLED=true before updating/,
			);
			assert.deepEqual(loaded, NODE_TYPES);
		});

		test('false: n8n 2.41 still loads a package installed in the folder', async () => {
			const { reported, loaded } = await startWith('false');
			assert.equal(reported, undefined);
			assert.deepEqual(loaded, NODE_TYPES);
		});
	},
);
