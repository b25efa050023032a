// Test files end in .cts: the node-cli lint applies n8n's community-node rules (no Node built-ins, no
// `process`) to every .ts file, and those rules are for code that runs inside n8n, not for test tooling.
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.cts'],
	moduleFileExtensions: ['cts', 'ts', 'js', 'json'],
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { tsconfig: 'tsconfig.tools.json' }],
	},
	testTimeout: 30000,
	// Most suites wait on the sandbox and on timers, not on the CPU: on a 2-core machine Jest's default
	// (one worker, in band) left the CPU idle for most of a 650 s run; four workers take about 200 s.
	maxWorkers: 4,
	globalSetup: '<rootDir>/test/support/jest-global-setup.js',
	globalTeardown: '<rootDir>/test/support/jest-global-teardown.js',
};
