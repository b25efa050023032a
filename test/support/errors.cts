/** Proving that an error a node reports carries no secret: everything it holds, as text. */
import type { NodeRun } from './node.cts';
import { API_KEY } from './fixtures.cts';

/** Everything an error carries, as text: message, description, stack and the whole object (context, cause...). */
export function serializeError(error: unknown): string {
	const parts: string[] = [];
	const seen = new Set<unknown>();
	let current: unknown = error;
	for (
		let depth = 0;
		depth < 6 && current && typeof current === 'object' && !seen.has(current);
		depth++
	) {
		seen.add(current);
		const record = current as Record<string, unknown>;
		parts.push(String(record.message), String(record.description), String(record.stack));
		parts.push(safeStringify(current));
		for (const key of Object.getOwnPropertyNames(current))
			parts.push(`${key}=${safeStringify(record[key])}`);
		current = record.cause;
	}
	return parts.join('\n');
}

function safeStringify(value: unknown): string {
	const seen = new WeakSet<object>();
	try {
		return (
			JSON.stringify(value, (_key, inner: unknown) => {
				if (inner && typeof inner === 'object') {
					if (seen.has(inner)) return '[circular]';
					seen.add(inner);
				}
				return inner;
			}) ?? String(value)
		);
	} catch (error) {
		return `unserializable: ${(error as Error).message}`;
	}
}

/** The run failed, and the key appears nowhere: not in the error (message, description, context, cause...) nor in the run data. */
export function expectNoKey(run: NodeRun, key: string = API_KEY): void {
	expect(run.error).toBeDefined();
	expect(serializeError(run.error)).not.toContain(key);
	expect(JSON.stringify(run.run.data)).not.toContain(key);
}
