/**
 * A fault of POST /call, as the property suites of Call → Create draw it: a 5xx before or after the
 * service acted, a connection reset, a refusal (4xx, 429), after `skip` good answers, `times` times.
 */
import fc from 'fast-check';

import type { FaultSettings } from './sandbox.cts';

export type PostFaultKind =
	| '500 before'
	| '500 after'
	| 'reset before'
	| 'reset after'
	| '400'
	| '429';

/** One fault or none; `times` drawn when given, else 1. */
export function postCallFault(
	kinds: PostFaultKind[],
	times?: fc.Arbitrary<number>,
): fc.Arbitrary<FaultSettings | undefined> {
	const base = { kind: fc.constantFrom(...kinds), skip: fc.integer({ min: 0, max: 3 }) };
	const drawn = times
		? fc.record({ ...base, times })
		: fc.record(base).map((fault) => ({ ...fault, times: 1 }));
	return fc.option(
		drawn.map(({ kind, skip, times: count }) => {
			const [what, when] = kind.split(' ');
			const action = what === 'reset' ? { reset_rate: 1 } : { error_rate: 1, status: Number(what) };
			return {
				match: 'POST /call',
				skip,
				times: count,
				when: (when ?? 'before') as 'before',
				...action,
			};
		}),
		{ nil: undefined },
	);
}
