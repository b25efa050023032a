// Running npm from the scripts: a clean environment, quick look-ups, long commands logged to a file
// with a heartbeat, and a plain-words reading of why npm failed. Node built-ins only.

import { spawnSync } from 'node:child_process';

import { runCaptured, duration, tail } from './processes.mjs';

export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// npm settings passed through from the caller's environment: where and how to reach the registry.
// Everything else that `npm run` puts into the environment (ignore_scripts from the project's
// .npmrc, save, omit, ...) would change what gets installed, so it is dropped.
const NPM_ENV_KEEP =
	/^npm_config_(registry|@[^:]+:registry|_auth|_authtoken|\/\/.*|always_auth|proxy|https_proxy|http_proxy|noproxy|no_proxy|cafile|ca|cert|key|strict_ssl|cache|userconfig|globalconfig|prefer_offline|offline|fetch_[a-z_]+|maxsockets|local_address)$/i;

/** Environment for npm processes: the caller's registry settings kept, other npm settings dropped. */
export function cleanNpmEnv(extra = {}) {
	const env = { ...process.env };
	for (const name of Object.keys(env)) {
		if (/^npm_/i.test(name) && !NPM_ENV_KEEP.test(name)) delete env[name];
	}
	return {
		...env,
		npm_config_fund: 'false',
		npm_config_audit: 'false',
		npm_config_update_notifier: 'false',
		npm_config_progress: 'false',
		npm_config_yes: 'true',
		...extra,
	};
}

/** Runs a short command synchronously (npm look-ups, `node --version`). */
export function check(command, args, options = {}) {
	const result = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, ...options });
	return {
		ok: result.status === 0,
		out: `${result.stdout || ''}${result.stderr || ''}`.trim(),
		stdout: (result.stdout || '').trim(),
	};
}

/** What an npm failure's output says went wrong, in plain words. */
export function diagnoseNpmFailure(output) {
	if (
		/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|network|socket hang up/i.test(output)
	) {
		return 'npm could not reach the package registry (network error)';
	}
	if (/E404|ETARGET|No matching version|notarget/i.test(output)) {
		return 'the registry does not have a package version the pins need (E404/ETARGET); see the log for which';
	}
	if (/ENOSPC/i.test(output)) return 'the disk is full (ENOSPC); a runtime needs about 2-3 GB';
	if (/ERESOLVE/i.test(output)) return 'npm could not resolve the dependency tree (ERESOLVE)';
	if (/gyp ERR!/i.test(output)) return 'a native module failed to build (node-gyp)';
	return 'npm failed';
}

/**
 * Runs a long npm command with its output going to `logStream`. Every 10 s a heartbeat line goes to
 * `progress` (which the caller also writes to the log, so a process waiting for this one can show
 * it); npm's error lines, not its many deprecation warnings, go there too.
 * @returns {Promise<{ code: number, tail: string, ms: number }>}
 */
export async function runNpmLogged(args, { cwd, env, label, logStream, progress, heartbeat }) {
	logStream.write(`\n$ npm ${args.join(' ')}\n`);
	const started = Date.now();
	const timer = setInterval(() => {
		const extra = heartbeat ? `, ${heartbeat()}` : '';
		progress(`${label}: still running (${duration(Date.now() - started)}${extra})`);
	}, 10_000);
	try {
		const result = await runCaptured(NPM, args, {
			cwd,
			env,
			timeoutMs: 60 * 60 * 1000,
			onOutput: (chunk) => {
				logStream.write(chunk);
				for (const line of chunk.toString().split('\n')) {
					if (/\b(ERR!|error)\b/i.test(line) && !/deprecated/i.test(line))
						progress(`  npm: ${line.trim()}`);
				}
			},
		});
		return { code: result.code ?? 1, tail: tail(result.output, 25), ms: result.ms };
	} finally {
		clearInterval(timer);
	}
}
