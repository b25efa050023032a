// The mutation check of Call → Create's decisions (`npm run test:mutation`, CONTRIBUTING.md): StrykerJS mutates
// the TypeScript sources in scripts/mutation/scope.mjs, type-checks each mutant (a mutant that does not compile
// is no test's business), builds the package once with every mutant in it (mutant schemata: each switched on by
// Stryker at run time), and runs the engine tests and property suites that load dist/ in n8n-core's engine.
import { createRequire } from 'node:module';

import { KILLING_TESTS, REPORT, SCOPED_SOURCES } from './scripts/mutation/scope.mjs';

const require = createRequire(import.meta.url);
const jestConfig = require('./jest.config.js');

// Read by test/mutation/sequencer.cjs in Stryker's test runner processes (started after this is loaded).
process.env.VOICE_AGENT_MUTATION_ORDER = JSON.stringify(KILLING_TESTS);
// A property that fails is a kill: its smallest counterexample is not needed (test/support/properties.cts).
process.env.VOICE_AGENT_PROPERTY_NO_SHRINK = '1';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	packageManager: 'npm',
	mutate: SCOPED_SOURCES,
	checkers: ['typescript'],
	tsconfigFile: 'tsconfig.json',
	// The tests load dist/ (built by `npm run build` before Stryker starts, and copied into its sandbox):
	// TypeScript compiles the instrumented sources over it, their type checks off. (Stryker links node_modules
	// only after the build: `tsc` comes from the project's, on the PATH Stryker gives the build.)
	buildCommand: 'tsc -p tsconfig.json',
	disableTypeChecks: 'nodes/**/*.ts',
	testRunner: 'jest',
	jest: {
		projectType: 'custom',
		config: {
			...jestConfig,
			testMatch: KILLING_TESTS.map((file) => `<rootDir>/${file}`),
			testEnvironment: './test/mutation/bail-environment.cjs',
			testSequencer: './test/mutation/sequencer.cjs',
		},
		// The tests reach the sources through dist/ and n8n's loader, which Jest's module graph cannot follow.
		enableFindRelatedTests: false,
	},
	coverageAnalysis: 'perTest',
	// Every killing test once, in band (about 10 minutes on a busy 2-core machine).
	dryRunTimeoutMinutes: 45,
	incremental: true,
	incrementalFile: REPORT,
	reporters: ['clear-text', 'progress', 'json'],
	jsonReporter: { fileName: 'reports/mutation/mutation.json' },
	thresholds: { high: 100, low: 90, break: null },
	concurrency: 2,
	// A mutant that makes a test wait for ever: killed once its tests take this much longer than without it.
	timeoutMS: 60_000,
	timeoutFactor: 2,
	tempDirName: '.stryker-tmp',
	ignorePatterns: ['.e2e', '.demo', '.cache', 'reports', 'coverage', 'test/e2e/screenshots'],
};
