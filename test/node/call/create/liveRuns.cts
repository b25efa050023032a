/**
 * Call → Create runs against the sandbox, as the live-service suites use them: one execution in this n8n
 * process, or one in "another process" (the package loaded afresh with jest.isolateModulesAsync, sharing
 * nothing with this one but the service), and what the service dialled.
 */
import { rl } from '../../../support/n8n.cts';
import { runNode, type NodeRun, type RunNodeOptions } from '../../../support/node.cts';
import type { TestSandbox } from '../../../support/sandbox.cts';

/** Call → Create from the agent "Front Desk" to `$json.to`. */
export function create(more: Record<string, unknown> = {}, options: Record<string, unknown> = {}) {
	return {
		resource: 'call',
		operation: 'create',
		from: rl('Front Desk', 'name'),
		to: '={{ $json.to }}',
		context: 'Renewal for Ada',
		options: { allowedDestinations: '+1415', ...options },
		...more,
	};
}

function runOptions(
	sandbox: TestSandbox,
	id: string,
	more: Partial<RunNodeOptions>,
): RunNodeOptions {
	return {
		parameters: create(),
		credentials: { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl },
		typeVersion: 1.4,
		executionId: id,
		...more,
	};
}

/** One execution in this n8n process. */
export function execution(sandbox: TestSandbox, id: string, more: Partial<RunNodeOptions>) {
	return runNode(runOptions(sandbox, id, more));
}

/** The same, in another n8n process: the package loaded afresh (its gate, its memory, its own). */
export async function inAnotherProcess(
	sandbox: TestSandbox,
	id: string,
	more: Partial<RunNodeOptions>,
): Promise<NodeRun> {
	let result: NodeRun | undefined;
	await jest.isolateModulesAsync(async () => {
		const fresh =
			require('../../../support/node.cts') as typeof import('../../../support/node.cts');
		result = await fresh.runNode(runOptions(sandbox, id, more));
	});
	return result as NodeRun;
}

/** Every POST /call that created a call, whatever it answered (a 500 after the phone rang too), by number. */
export async function dials(sandbox: TestSandbox): Promise<Record<string, number>> {
	const counts: Record<string, number> = {};
	for (const request of await sandbox.requests()) {
		if (request.method !== 'POST' || !request.path.endsWith('/call')) continue;
		if (!request.created_call_id) continue;
		const to = (request.body as { to: string }).to;
		counts[to] = (counts[to] ?? 0) + 1;
	}
	return counts;
}
