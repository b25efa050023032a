// A client for the REST API of a running n8n (the endpoints its editor uses): owner set-up, login,
// making workflows live, executions. Where n8n 1.x and 2.x differ, it asks the dialect.
// Runs under the system Node; only Node built-ins.

import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';

import { dialectFor } from './n8n-dialect.mjs';
import { sleep } from './processes.mjs';

/**
 * A client for n8n's internal REST API (the editor's), with cookie auth.
 * Every response body is n8n's `{ data: ... }`; methods return the `data`.
 */
export class N8nRestClient {
	/**
	 * @param {string} baseUrl
	 * @param {{ version: string, n8nDir: string }} runtime the runtime the server runs (runtimePaths)
	 */
	constructor(baseUrl, runtime) {
		this.baseUrl = baseUrl.replace(/\/$/, '');
		this.runtime = runtime;
		this.dialect = dialectFor(runtime);
		this.cookies = new Map();
		// n8n binds the auth cookie to this header; keep it the same for every request.
		this.browserId = randomUUID();
	}

	async request(method, urlPath, body, { expectStatus, raw = false, timeoutMs = 30000 } = {}) {
		const headers = { accept: 'application/json', 'browser-id': this.browserId };
		if (this.cookies.size)
			headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
		if (body !== undefined) headers['content-type'] = 'application/json';
		const res = await fetch(`${this.baseUrl}${urlPath}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		});
		for (const c of res.headers.getSetCookie?.() ?? []) {
			const [pair] = c.split(';');
			const eq = pair.indexOf('=');
			if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
		}
		const text = await res.text();
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		const okStatus = expectStatus === undefined ? res.ok : res.status === expectStatus;
		if (!okStatus) {
			const msg = json?.message ?? text.slice(0, 500);
			const err = new Error(`${method} ${urlPath} -> HTTP ${res.status}: ${msg}`);
			err.status = res.status;
			err.body = json ?? text;
			throw err;
		}
		if (raw) return { status: res.status, headers: res.headers, body: json ?? text };
		return json && typeof json === 'object' && 'data' in json ? json.data : json;
	}

	/** Decodes n8n's "flatted" execution data (what GET /rest/executions/:id returns in `data`). */
	parseFlatted(text) {
		// The runtime's own copy of the format's reference implementation.
		const require = createRequire(path.join(this.runtime.n8nDir, 'package.json'));
		return require('flatted').parse(text);
	}

	/** POST /rest/owner/setup: makes the instance's owner (only once per folder); also logs in. */
	async setupOwner({ email, firstName = 'E2E', lastName = 'Owner', password }) {
		return await this.request('POST', '/rest/owner/setup', {
			email,
			firstName,
			lastName,
			password,
		});
	}

	/** POST /rest/login with { emailOrLdapLoginId, password }; keeps the n8n-auth cookie. */
	async login({ email, password }) {
		return await this.request('POST', '/rest/login', { emailOrLdapLoginId: email, password });
	}

	async getWorkflow(id) {
		return await this.request('GET', `/rest/workflows/${encodeURIComponent(id)}`);
	}

	/**
	 * GET /rest/workflows/:id/publication-status (n8n 2.x publication service; 1.x has none):
	 * `{ status: 'not_published'|'in_progress'|'published'|'partial'|'failed', liveVersionId,
	 * pendingVersionId, triggers: [{ nodeId, status, errorMessage }] }`.
	 */
	async getPublicationStatus(id) {
		return await this.request(
			'GET',
			`/rest/workflows/${encodeURIComponent(id)}/publication-status`,
		);
	}

	/**
	 * Waits until a (de)activation has taken effect (n8n 2.x). n8n 2.41 applies it asynchronously (an outbox
	 * drained right after the request), so the REST call returns before triggers are registered.
	 * Throws with the trigger errors when publishing failed (e.g. a trigger's create method threw).
	 */
	async waitForPublication(id, { published = true, timeoutMs = 30000, intervalMs = 100 } = {}) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const st = await this.getPublicationStatus(id);
			if (published && st.status === 'published') return st;
			if (!published && st.status === 'not_published') return st;
			if (published && (st.status === 'failed' || st.status === 'partial')) {
				const errs = st.triggers
					.filter((t) => t.status === 'failed')
					.map((t) => `${t.nodeId}: ${t.errorMessage}`);
				const err = new Error(
					`activating workflow ${id} failed (${st.status}): ${errs.join('; ')}`,
				);
				err.publication = st;
				throw err;
			}
			if (Date.now() > deadline) {
				throw new Error(
					`workflow ${id} did not become ${published ? 'published' : 'unpublished'} in ${timeoutMs} ms: ${JSON.stringify(st)}`,
				);
			}
			await sleep(intervalMs);
		}
	}

	/**
	 * POST /rest/workflows/:id/activate with { versionId } (what the editor's "Publish" does in 2.x,
	 * "Activate" in 1.x): registers its triggers and webhooks. Without versionId the workflow's
	 * current version is activated. n8n 1.x answers once the triggers are live, or with the error
	 * that stopped them; 2.x answers first, so by default this waits (see waitForPublication).
	 * @returns the workflow as the endpoint returned it (active: true, activeVersionId, ...)
	 */
	async activateWorkflow(id, { versionId, wait = true, timeoutMs } = {}) {
		const vid = versionId ?? (await this.getWorkflow(id)).versionId;
		const wf = this.dialect.activatesWithPatch
			? await this.request('PATCH', `/rest/workflows/${encodeURIComponent(id)}`, {
					active: true,
					versionId: vid,
				})
			: await this.request('POST', `/rest/workflows/${encodeURIComponent(id)}/activate`, {
					versionId: vid,
				});
		if (wait && this.dialect.publishesAfterAnswering)
			await this.waitForPublication(id, { published: true, timeoutMs });
		return wf;
	}

	/**
	 * POST /rest/workflows/:id/deactivate with {}: removes its triggers (a trigger's webhook
	 * `delete` method runs here). By default waits until that has happened.
	 */
	async deactivateWorkflow(id, { wait = true, timeoutMs } = {}) {
		const wf = this.dialect.activatesWithPatch
			? await this.request('PATCH', `/rest/workflows/${encodeURIComponent(id)}`, {
					active: false,
					versionId: (await this.getWorkflow(id)).versionId,
				})
			: await this.request('POST', `/rest/workflows/${encodeURIComponent(id)}/deactivate`, {});
		if (wait && this.dialect.publishesAfterAnswering)
			await this.waitForPublication(id, { published: false, timeoutMs });
		return wf;
	}

	/**
	 * Saves changes (nodes, connections, name...) to a live workflow and makes them live, as the
	 * editor's Save does in 1.x (a saved active workflow is activated again) and Save then Publish
	 * in 2.x (the saved version is a draft until published).
	 * @returns the saved workflow
	 */
	async updateLiveWorkflow(id, changes) {
		const { versionId } = await this.getWorkflow(id);
		const saved = await this.request('PATCH', `/rest/workflows/${encodeURIComponent(id)}`, {
			...changes,
			versionId,
		});
		if (this.dialect.publishesAfterAnswering)
			await this.activateWorkflow(id, { versionId: saved.versionId });
		return saved;
	}

	/**
	 * Makes a workflow that starts with "When called by another workflow" callable from production
	 * runs of other workflows. n8n 2.x runs a sub-workflow's published version, so it is published;
	 * n8n 1.x runs its saved version and refuses to activate a workflow without a trigger.
	 */
	async enableSubWorkflow(id) {
		if (this.dialect.subWorkflowsRunPublished) await this.activateWorkflow(id);
	}

	/** Undoes enableSubWorkflow. */
	async disableSubWorkflow(id) {
		if (this.dialect.subWorkflowsRunPublished) await this.deactivateWorkflow(id);
	}

	/**
	 * POST /rest/workflows/:id/run from the trigger named `trigger`: what the editor's "Execute workflow"
	 * on that trigger does, with the saved workflow (n8n 1.x gets it in the body, 2.x reads it itself).
	 * @returns {Promise<string>} the execution's id; see waitForExecution
	 */
	async runManually(id, trigger) {
		const body = { triggerToStartFrom: { name: trigger } };
		if (this.dialect.manualRunSendsWorkflow) body.workflowData = await this.getWorkflow(id);
		const started = await this.request(
			'POST',
			`/rest/workflows/${encodeURIComponent(id)}/run`,
			body,
		);
		if (!started?.executionId)
			throw new Error(
				`running workflow ${id} from "${trigger}" started no execution: ${JSON.stringify(started)}`,
			);
		return started.executionId;
	}

	/** Polls an execution until it finished (status not new/running/waiting); returns it decoded. */
	async waitForExecution(executionId, { timeoutMs = 120_000, intervalMs = 250 } = {}) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const summary = await this.request(
				'GET',
				`/rest/executions/${encodeURIComponent(executionId)}`,
			);
			if (!['new', 'running', 'waiting'].includes(summary.status) && summary.stoppedAt)
				return await this.getExecution(executionId);
			if (Date.now() > deadline)
				throw new Error(
					`execution ${executionId} did not finish in ${timeoutMs} ms (${summary.status})`,
				);
			await sleep(intervalMs);
		}
	}

	/** GET /rest/projects/personal: the logged-in user's own project (where imports and new tables go). */
	async personalProject() {
		return await this.request('GET', '/rest/projects/personal');
	}

	/**
	 * POST /rest/projects/:projectId/data-tables (n8n 1.113+): a Data Table with `columns`
	 * ({ name, type: 'string' | 'number' | 'boolean' | 'date' }). Returns it (`id`, `name`, `columns`).
	 */
	async createDataTable(projectId, { name, columns }) {
		return await this.request(
			'POST',
			`/rest/projects/${encodeURIComponent(projectId)}/data-tables`,
			{
				name,
				columns,
			},
		);
	}

	/** POST .../data-tables/:id/insert: adds rows; returns them with their `id`. */
	async insertDataTableRows(projectId, tableId, rows) {
		return await this.request(
			'POST',
			`/rest/projects/${encodeURIComponent(projectId)}/data-tables/${encodeURIComponent(tableId)}/insert`,
			{ data: rows, returnType: 'all' },
		);
	}

	/** GET .../data-tables/:id/rows: every row (up to 1,000), as the editor's table view lists them. */
	async dataTableRows(projectId, tableId) {
		const page = await this.request(
			'GET',
			`/rest/projects/${encodeURIComponent(projectId)}/data-tables/${encodeURIComponent(tableId)}/rows?take=1000`,
		);
		return page.data;
	}

	/**
	 * GET /rest/executions?filter=...&limit=... ; newest first. Filter fields n8n accepts:
	 * workflowId, status (array), mode, startedAfter, startedBefore, ...
	 * @returns {Promise<object[]>} summaries (id, workflowId, status, mode, startedAt, stoppedAt, ...)
	 */
	async listExecutions({ workflowId, status, limit = 50, ...rest } = {}) {
		const filter = { ...rest };
		if (workflowId !== undefined) filter.workflowId = workflowId;
		if (status !== undefined) filter.status = Array.isArray(status) ? status : [status];
		const qs = new URLSearchParams({ limit: String(limit) });
		if (Object.keys(filter).length) qs.set('filter', JSON.stringify(filter));
		const data = await this.request('GET', `/rest/executions?${qs}`);
		return data.results ?? data;
	}

	/**
	 * How many executions match (the filter of listExecutions), without listing them. Without a
	 * status n8n counts only finished executions: one still new or running is left out.
	 */
	async countExecutions({ workflowId, status } = {}) {
		const filter = {};
		if (workflowId !== undefined) filter.workflowId = workflowId;
		if (status !== undefined) filter.status = Array.isArray(status) ? status : [status];
		const qs = new URLSearchParams({ limit: '1', filter: JSON.stringify(filter) });
		return (await this.request('GET', `/rest/executions?${qs}`)).count;
	}

	/**
	 * How many executions the workflow has, in every status, once none of them is new or running
	 * (a queue-mode worker saves an execution after its last node has already reported), or when
	 * `timeoutMs` has passed.
	 */
	async settledExecutionCount(workflowId, { timeoutMs = 60000, intervalMs = 250 } = {}) {
		const deadline = Date.now() + timeoutMs;
		while (
			(await this.countExecutions({ workflowId, status: ['new', 'running'] })) > 0 &&
			Date.now() < deadline
		) {
			await sleep(intervalMs);
		}
		// Every status the runtime's n8n knows, from its own n8n-workflow.
		const require = createRequire(path.join(this.runtime.n8nDir, 'package.json'));
		const { ExecutionStatusList } = require('n8n-workflow');
		return await this.countExecutions({ workflowId, status: ExecutionStatusList });
	}

	/**
	 * GET /rest/executions/:id with its data decoded: `execution.data` is the run data
	 * (`data.resultData.runData[node][0].data.main[0][i].json`), `execution.workflowData` the workflow.
	 */
	async getExecution(id) {
		const ex = await this.request('GET', `/rest/executions/${encodeURIComponent(id)}`);
		if (ex && typeof ex.data === 'string') ex.data = this.parseFlatted(ex.data);
		return ex;
	}

	/**
	 * Polls until `count` finished executions of the workflow exist (status not new/running/waiting),
	 * and returns them (newest first) with their data decoded.
	 */
	async waitForExecutions(workflowId, { count = 1, timeoutMs = 30000, intervalMs = 250 } = {}) {
		const deadline = Date.now() + timeoutMs;
		let last = [];
		for (;;) {
			last = await this.listExecutions({ workflowId });
			const done = last.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
			if (done.length >= count) {
				return await Promise.all(done.slice(0, count).map((e) => this.getExecution(e.id)));
			}
			if (Date.now() > deadline) {
				throw new Error(
					`timed out waiting for ${count} finished execution(s) of workflow ${workflowId}; saw ${JSON.stringify(last.map((e) => ({ id: e.id, status: e.status })))}`,
				);
			}
			await sleep(intervalMs);
		}
	}
}
