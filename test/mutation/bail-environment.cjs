// The test environment of mutation runs (stryker.config.mjs): Node's, plus a bail. Stryker's Jest runner runs
// a mutant's tests in band and cannot stop Jest at the first failure, so a killed mutant would still run every
// test that covers it (minutes of engine tests each). Once a test failed under a mutant, every later test and
// hook of that mutant's run is skipped: the mutant is killed already. The dry run (no mutant) never bails.
const { TestEnvironment } = require('jest-environment-node');

const FAILED_UNDER = Symbol.for('voice-agent.mutation.failedUnder');
const activeMutant = () => process.env.__STRYKER_ACTIVE_MUTANT__;

class MutationRunEnvironment extends TestEnvironment {
	async handleTestEvent(event, state) {
		await super.handleTestEvent?.(event, state);
		const mutant = activeMutant();
		if (mutant === undefined) return;
		if (event.name === 'test_fn_failure' || event.name === 'hook_failure')
			process[FAILED_UNDER] = mutant;
		if (process[FAILED_UNDER] !== mutant) return;
		if (event.name === 'run_describe_start') event.describeBlock.mode = 'skip';
		if (event.name === 'test_start') event.test.mode = 'skip';
	}
}

module.exports = MutationRunEnvironment;
