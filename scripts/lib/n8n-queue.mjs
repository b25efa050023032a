// n8n in queue mode, as teams run it at scale: Redis and PostgreSQL, one main (`n8n start`), workers
// (`n8n worker`) that run the executions from the queue, and webhook processors (`n8n webhook`)
// behind a round-robin load balancer that receive production webhooks. Every process has its own
// user folder with the package installed the way users install it, and all share the database, the
// queue and the encryption key. Node built-ins only.

import { randomBytes } from 'node:crypto';

import { installPackage } from './community-package.mjs';
import { startLoadBalancer } from './load-balancer.mjs';
import { dialectFor } from './n8n-dialect.mjs';
import { startN8nProcess, startN8nServer } from './n8n-server.mjs';
import { startPostgres } from './postgres-server.mjs';
import { findFreePort, groupAlive, killGroup, sleep } from './processes.mjs';
import { startRedis } from './redis-server.mjs';
import { runtimePaths } from './runtime-folder.mjs';
import { createUserFolder, removeUserFolder } from './user-folder.mjs';

/**
 * Starts a queue-mode n8n with the package (an `npm pack` tarball) on every process.
 * `env` holds what every n8n command on this cluster needs (database, queue, encryption key): pass it
 * to imports (`importWorkflows(cluster.main.userFolder, list, { env: cluster.env })`).
 * `webhookProcessors` n8n webhook processes run behind the load balancer at `webhookBase`.
 * @param {{ tarball: string, runtime?: ReturnType<typeof runtimePaths>, workers?: number,
 *   webhookProcessors?: number, concurrency?: number, extraEnv?: Record<string, string>,
 *   log?: (line: string) => void }} options
 */
export async function startQueueCluster({
	tarball,
	runtime = runtimePaths(),
	workers = 2,
	webhookProcessors = 1,
	concurrency = 10,
	extraEnv = {},
	log = () => {},
}) {
	const stops = [];
	const stopAll = async () => {
		for (const stop of stops.splice(0).reverse()) await stop();
	};
	try {
		const [redis, postgres] = await Promise.all([startRedis({ log }), startPostgres({ log })]);
		stops.push(redis.stop, postgres.stop);
		log(`PostgreSQL ${postgres.version} on port ${postgres.port}`);
		const env = {
			...postgres.settingsFor('n8n'),
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: redis.host,
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			// n8n's default of 2 connections per process is too few for a burst of webhooks: requests
			// queue for a connection, n8n's database health check times out, and it answers 503.
			DB_POSTGRESDB_POOL_SIZE: '10',
			...extraEnv,
		};

		const folders = Array.from({ length: 1 + webhookProcessors + workers }, () =>
			createUserFolder(),
		);
		stops.push(async () => folders.forEach(removeUserFolder));
		await Promise.all(folders.map((folder) => installPackage(folder, tarball)));
		const [mainFolder, ...others] = folders;
		const webhookFolders = others.slice(0, webhookProcessors);
		const workerFolders = others.slice(webhookProcessors);

		// The agent must call the load balancer: production URLs are made with its address, and the
		// main answers none (as when the balancer sends /webhook/ to webhook processors only).
		const webhookPorts = await Promise.all(webhookFolders.map(() => findFreePort()));
		const balancer = await startLoadBalancer(
			webhookPorts.map((port) => `http://127.0.0.1:${port}`),
		);
		stops.push(balancer.close);
		const webhookBase = balancer.url;
		const mainEnv = {
			...env,
			[dialectFor(runtime).webhookUrlSetting]: `${webhookBase}/`,
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		};
		const startMain = () => startN8nServer(mainFolder, { runtime, env: mainEnv });
		const cluster = { env, redis, postgres, balancer, webhookBase, runtime };
		// The main first: it creates the database's tables.
		cluster.main = await startMain();
		stops.push(() => cluster.main.stop());

		const workerProcesses = workerFolders.map(async (folder) => {
			const healthPort = await findFreePort();
			const worker = await startN8nProcess(runtime, folder, {
				command: 'worker',
				args: [`--concurrency=${concurrency}`],
				env: {
					...env,
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(healthPort),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				},
				healthUrl: `http://127.0.0.1:${healthPort}/healthz/readiness`,
				readyLine: /n8n worker is now ready/,
			});
			stops.push(worker.stop);
			return worker;
		});
		const webhookProcesses = webhookFolders.map(async (folder, index) => {
			const port = webhookPorts[index];
			const webhook = await startN8nProcess(runtime, folder, {
				command: 'webhook',
				env: { ...env, N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1' },
				healthUrl: `http://127.0.0.1:${port}/healthz/readiness`,
				readyLine: /Webhook listener waiting for requests/,
			});
			stops.push(webhook.stop);
			return webhook;
		});
		cluster.workers = await Promise.all(workerProcesses);
		cluster.webhookProcessors = await Promise.all(webhookProcesses);
		Object.assign(cluster, {
			/** A production webhook URL, at the load balancer. */
			webhookUrl: (webhookPath) =>
				`${webhookBase}/webhook/${String(webhookPath).replace(/^\//, '')}`,
			/** Stops the main and starts it again on the same folder and database; logs in again. */
			async restartMain() {
				await cluster.main.stop();
				cluster.main = await startMain();
				await cluster.main.setupOwnerAndLogin();
				return cluster.main;
			},
			/**
			 * Kills a worker at once (SIGKILL to its process group, as when a machine or container dies),
			 * and waits until it is gone.
			 */
			async killWorker(worker) {
				killGroup(worker.pid, 'SIGKILL');
				const until = Date.now() + 10_000;
				while (groupAlive(worker.pid) && Date.now() < until) await sleep(100);
			},
			/** Executions each worker started: ids from its log. */
			executionsByWorker: () =>
				cluster.workers.map((worker) =>
					[...worker.output().matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]),
				),
			stop: stopAll,
		});
		return cluster;
	} catch (error) {
		await stopAll();
		throw error;
	}
}
