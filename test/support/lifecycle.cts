/**
 * Something a suite starts once and its tests share (a sandbox, a proxy): started in beforeAll, closed
 * in afterAll, and reset before each test when it has a reset. The suite holds a stand-in that forwards
 * to what was started, so tests read `sandbox.api(...)` as if they held the sandbox itself.
 */
export interface SuiteResource<T> {
	/** What it is, for the error when it is used outside the suite's tests and hooks. */
	name: string;
	start(): Promise<T>;
	close(value: T): unknown;
	/** Runs before each test; without it, tests share what earlier tests left. */
	reset?(value: T): unknown;
}

/** Registers the suite's hooks for the resource (where it is called: top level or in a describe). */
export function forSuite<T extends object>(resource: SuiteResource<T>): T {
	let current: T | undefined;
	const started = (): T => {
		if (current === undefined)
			throw new Error(`${resource.name} is only there in the tests and hooks of its suite`);
		return current;
	};
	beforeAll(async () => {
		current = await resource.start();
	});
	afterAll(async () => {
		const value = current;
		current = undefined;
		if (value !== undefined) await resource.close(value);
	});
	const { reset } = resource;
	if (reset) {
		beforeEach(async () => {
			await reset(started());
		});
	}
	return new Proxy({} as T, {
		get: (_target, property) => Reflect.get(started(), property),
		has: (_target, property) => Reflect.has(started(), property),
	});
}
