// What the mutation check covers: Call → Create's decisions (the gate, the guards, the sending). One list, read
// by stryker.config.mjs and by check-listed-mutants.mjs: when the engine's files move, re-point it here.

/** The engine's folder, relative to the repository (its built twin is under dist/). */
export const ENGINE = 'nodes/VoiceAgent/actions/call/create';

/** The TypeScript sources Stryker mutates: the engine's decisions (its layers: create/README.md). */
export const SCOPED_SOURCES = [
	`${ENGINE}/gate/*.ts`,
	`${ENGINE}/guards/*.ts`,
	`${ENGINE}/decide/*.ts`,
	`${ENGINE}/placing/*.ts`,
	// The item's loop of decisions, look-ups and the send (placing/placeOnce.ts before the layers).
	`${ENGINE}/attempts/placeAndWait.ts`,
];

/**
 * The tests that can kill a mutant of those sources, cheapest first (a mutation run takes them in this order
 * and stops at the first failure): the engine tests that name a promise of the gate, the guards or the sending,
 * then the property suites of Call → Create at their default runs. All run in n8n-core's engine against the
 * sandbox. Paths relative to the repository.
 */
export const KILLING_TESTS = [
	'test/node/call/create/guards/skipRecentlyCalled.unit.test.cts',
	'test/node/call/create.skipRecentlyCalled.test.cts',
	'test/node/call/create.spelling.test.cts',
	'test/node/call/create.gate.answers.test.cts',
	'test/node/call/create.gate.kept.test.cts',
	// The live service's ringing call (guards/ringingElsewhere.ts) and the gate full of calls in progress.
	'test/node/call/create/guards/ringingElsewhere.test.cts',
	'test/node/call/create.live.test.cts',
	'test/node/call/create.gate.issue41.test.cts',
	'test/node/call/create.placeOnce.test.cts',
	'test/node/call/create.recovery.test.cts',
	'test/node/call/create.callingHours.test.cts',
	'test/node/call/create.gate.test.cts',
	'test/node/call/create.promises.test.cts',
	'test/node/call/create.executions.test.cts',
	'test/node/call/create.callAgain.test.cts',
	'test/node/call/create.gate.properties.test.cts',
	'test/node/call/create.campaign.properties.test.cts',
	'test/node/call/create.executions.properties.test.cts',
	'test/node/call/create.model.properties.test.cts',
	'test/node/call/create.properties.test.cts',
];

/** Stryker's results, committed: its incremental file (only the mutants that changed are tested again). */
export const REPORT = 'test/mutation/stryker-incremental.json';

/**
 * The lowest mutation score (detected ÷ valid mutants, in %) the measured files may have: stated in
 * CONTRIBUTING.md, checked by check-mutation-report.mjs in `npm test`.
 */
export const MIN_SCORE = 100;
