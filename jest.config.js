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
	globalSetup: '<rootDir>/test/support/jest-global-setup.js',
	globalTeardown: '<rootDir>/test/support/jest-global-teardown.js',
};
