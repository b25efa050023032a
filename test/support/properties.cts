/**
 * How the property suites (`*.properties.test.cts`) run. `npm test` runs each with its fixed number of
 * runs from a fixed seed, so a run is reproducible and CI never turns red by chance; `npm run
 * test:properties` runs many more from a new seed each time to search for counterexamples. Either way a
 * failure prints its seed and path: VOICE_AGENT_PROPERTY_SEED=<seed> reproduces it, and the
 * counterexample then becomes a named regression test beside the property.
 *
 *   VOICE_AGENT_PROPERTY_RUNS       runs per property (default: the suite's own number)
 *   VOICE_AGENT_PROPERTY_SEED       a seed, or "random" (default: the fixed seed)
 *   VOICE_AGENT_PROPERTY_NO_SHRINK  1: stop at the first counterexample, unshrunk (the mutation check only
 *                                   needs to know that a property fails)
 */
import type { Parameters } from 'fast-check';

const FIXED_SEED = 20_261_125;

function runsFromEnvironment(): number | undefined {
	const raw = process.env.VOICE_AGENT_PROPERTY_RUNS;
	if (raw === undefined || raw === '') return undefined;
	const runs = Number(raw);
	if (!Number.isInteger(runs) || runs < 1)
		throw new Error(`VOICE_AGENT_PROPERTY_RUNS must be a whole number from 1 (got ${raw})`);
	return runs;
}

function seedFromEnvironment(): number | undefined {
	const raw = process.env.VOICE_AGENT_PROPERTY_SEED;
	if (raw === 'random') return undefined;
	if (raw === undefined || raw === '') return FIXED_SEED;
	const seed = Number(raw);
	if (!Number.isInteger(seed))
		throw new Error(`VOICE_AGENT_PROPERTY_SEED must be a whole number or "random" (got ${raw})`);
	return seed;
}

/** fast-check's parameters for one property: `runs` in `npm test`, more under test:properties. */
export function propertyParameters<T>(runs: number, extra: Parameters<T> = {}): Parameters<T> {
	const seed = seedFromEnvironment();
	return {
		...extra,
		numRuns: runsFromEnvironment() ?? runs,
		...(seed === undefined ? {} : { seed }),
		...(process.env.VOICE_AGENT_PROPERTY_NO_SHRINK === '1' ? { endOnFailure: true } : {}),
	};
}

/** Time for a property suite's test: its runs at about `perRunMs` each, and a margin for shrinking. */
export function propertyTimeout(runs: number, perRunMs: number): number {
	return (runsFromEnvironment() ?? runs) * perRunMs * 3 + 30_000;
}
