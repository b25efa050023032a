// Runs the test files of a mutation run in the order stryker.config.mjs lists them (VOICE_AGENT_MUTATION_ORDER,
// quick engine tests first, property suites last), so that a mutant is killed by its cheapest test first.
const Sequencer = require('@jest/test-sequencer').default;
const path = require('node:path');

class MutationOrder extends Sequencer {
	sort(tests) {
		const order = JSON.parse(process.env.VOICE_AGENT_MUTATION_ORDER ?? '[]');
		const rank = (test) => {
			const index = order.findIndex((file) => test.path.endsWith(path.normalize(file)));
			return index === -1 ? order.length : index;
		};
		return [...tests].sort((a, b) => rank(a) - rank(b));
	}
}

module.exports = MutationOrder;
