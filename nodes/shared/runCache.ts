/**
 * Values read or made once per node run and shared by its items: the credential's Base URL, the agent
 * list for names, an agent's phone number, the calls the run placed. A run is n8n's context object: every execution gets a new one,
 * but a polling trigger keeps one for as long as its workflow is published, so each poll starts a new
 * run (`startNewRun`) and never acts on what an earlier poll read.
 */
const runs = new WeakMap<object, Map<string, unknown>>();

function cacheOf(context: object): Map<string, unknown> {
	let cache = runs.get(context);
	if (!cache) {
		cache = new Map();
		runs.set(context, cache);
	}
	return cache;
}

/** The value under `key` for this run, made by `make` the first time. */
export function oncePerRun<T>(context: object, key: string, make: () => T): T {
	const cache = cacheOf(context);
	if (!cache.has(key)) cache.set(key, make());
	return cache.get(key) as T;
}

/** The value under `key` for this run, read by `read` the first time; a failed read is not kept. */
export function readOncePerRun<T>(
	context: object,
	key: string,
	read: () => Promise<T>,
): Promise<T> {
	const cache = cacheOf(context);
	let value = cache.get(key) as Promise<T> | undefined;
	if (!value) {
		value = read();
		cache.set(key, value);
		const entries = cache;
		value.catch(() => entries.delete(key));
	}
	return value;
}

/** Forgets what this context read before, so that the next read asks the service again. */
export function startNewRun(context: object): void {
	runs.delete(context);
}
