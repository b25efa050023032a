// Engine benchmarks (`npm run bench:engine`): Jest runs them for the TypeScript harness, but they only measure and
// print; no time is asserted, so a slow machine cannot make them fail.
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
	...base,
	roots: ['<rootDir>/bench'],
	testMatch: ['**/*.bench.cts'],
	testTimeout: 600000,
};
