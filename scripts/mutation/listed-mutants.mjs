// The mutants an outside review planted in the built engine (issue 41): each must stay killed by the default
// property run or a named engine test, however the code moves. Each is a small patch to the JavaScript in dist/
// (what the tests load): `find` must match exactly once in exactly one file under dist/nodes/, so a patch that
// no longer applies fails loudly and is re-written against the new code, never skipped. `killers` are the
// tests expected to fail on it, cheapest first: `file` (relative to the repository) and an optional `name`
// (Jest's -t). check-listed-mutants.mjs applies each one and asserts that a killer fails. The review's
// mutants, plus issue 41 row 4's own (the gate full dropping a call in progress).

/** @typedef {{ find: RegExp, replace: string }} Edit */
/** @typedef {{ file: string, name?: string }} Killer */
/** @typedef {{ id: string, what: string, edits: Edit[], killers: Killer[] }} ListedMutant */

const MODEL = 'test/node/call/create.model.properties.test.cts';
const KEPT = 'test/node/call/create.gate.kept.test.cts';

/** @type {ListedMutant[]} */
export const LISTED_MUTANTS = [
	{
		id: 'gate-without-placed',
		what: 'the gate with no "placed" state at all: a number is let go as soon as its POST /call landed',
		edits: [
			{
				find: /if \(entry\.state !== 'placed'\)\s*forget\(key, entry\);/,
				replace: 'forget(key, entry);',
			},
		],
		killers: [{ file: 'test/node/call/create.gate.test.cts', name: 'row 1:' }, { file: MODEL }],
	},
	{
		id: 'read-lag-zero',
		what: 'READ_LAG_MS at 0 (the bound a missing call is held for): a call the list does not show yet (or a 404 for it) frees its number at once',
		edits: [
			{
				// A call nobody could name, not found in the list: let go instead of held to its bound.
				find: /const unknown = as\(\{ callId: undefined, state: 'unknown' \}\);/,
				replace:
					"{ (0, numberGate_1.letGo)(met); return again(facts); } const unknown = as({ callId: undefined, state: 'unknown' });",
			},
			{
				// GET /call answering 404 for a named call: let go instead of kept in progress.
				find: /catch \{\s*\(0, cancel_1\.throwIfCancelled\)\(context\);\s*facts\.heldCall = \{ id: callId, to: item\.body\.to \};/,
				replace:
					"catch (error) { (0, cancel_1.throwIfCancelled)(context); if (require('../../../../../shared/errors').isNotFound(error)) { (0, numberGate_1.letGo)(facts.met); facts.met = undefined; return; } facts.heldCall = { id: callId, to: item.body.to };",
			},
		],
		killers: [
			{ file: 'test/node/call/create.gate.answers.test.cts', name: 'GET /call answers 404 once' },
			{ file: KEPT, name: 'POST /call answered 500 after' },
			{ file: MODEL },
		],
	},
	{
		id: 'ended-let-go-at-once',
		what: 'ended calls let go at once: a call seen to end is not kept the minute a lagging list needs',
		edits: [{ find: /const ENDED_KEPT_MS = 60_000;/, replace: 'const ENDED_KEPT_MS = 0;' }],
		killers: [{ file: KEPT, name: 'a call seen to end' }, { file: MODEL }],
	},
	{
		id: 'gate-cap-one',
		what: 'the cap at 1: every new number drops the placed ones, calls in progress included',
		edits: [
			{ find: /exports\.MAX_ENTRIES = 50_000;/, replace: 'exports.MAX_ENTRIES = 1;' },
			{
				find: /if \(entry\.endedAt !== undefined\)\s*forget\(key, entry\);/,
				replace: "if (entry.state === 'placed') forget(key, entry);",
			},
		],
		killers: [{ file: 'test/node/call/create.gate.test.cts', name: 'row 1:' }, { file: MODEL }],
	},
	{
		id: 'gate-full-drops-live-call',
		what: 'the gate full (50,000 numbers) drops the oldest placed number, its call in progress (issue 41 row 4)',
		edits: [
			{
				find: /if \(entry\.endedAt !== undefined\)\s*forget\(key, entry\);/,
				replace: "if (entry.state === 'placed') forget(key, entry);",
			},
		],
		killers: [{ file: 'test/node/call/create.gate.issue41.test.cts', name: 'issue 41 row 4' }],
	},
	{
		id: 'unknown-outcome-let-go',
		what: 'a call of unknown outcome let go: no answer to POST /call, and the number is free again',
		edits: [
			{
				find: /unknown\(\) \{\s*if \(entry\.state === 'placed'\)\s*return;\s*entry\.state = 'placed';/,
				replace: "unknown() { if (entry.state === 'placed') return; forget(key, entry);",
			},
		],
		killers: [{ file: KEPT, name: 'POST /call answered 500 after' }, { file: MODEL }],
	},
	{
		id: 'surely-ended-as-has-ended',
		what: '`surelyEnded` replaced by `hasEnded` where the gate meets a placed call: a status nobody listed ends it',
		edits: [
			{
				find: /const ended = \(0, callStatus_1\.surelyEnded\)\(call\);/,
				replace: 'const ended = (0, callStatus_1.hasEnded)(call);',
			},
		],
		killers: [
			{ file: 'test/node/call/create.gate.answers.test.cts', name: 'a status nobody listed' },
			{ file: MODEL },
		],
	},
	{
		id: 'holder-wait-ignores-stop',
		what: 'a wait for a held number that ignores a stop: the stopped execution waits for the holder',
		edits: [
			{
				find: /if \(signal\?\.aborted\)\s*return;\s*pendingWaits\+\+;/,
				replace: 'pendingWaits++;',
			},
			{ find: /signal\?\.addEventListener\('abort', done, \{ once: true \}\);/, replace: '' },
		],
		killers: [{ file: 'test/node/call/create.gate.test.cts', name: 'row 6:' }, { file: MODEL }],
	},
	{
		id: 'freed-slot-wakes-nobody',
		what: 'a freed slot that wakes nobody: an execution waiting for a Calls at Once slot waits on',
		edits: [{ find: /share\.inUse--;\s*wakeAll\(\);/, replace: 'share.inUse--;' }],
		killers: [
			{ file: 'test/node/call/create.executions.test.cts', name: 'two passes overlapping' },
			{ file: MODEL },
		],
	},
	{
		id: 'no-look-up-before-sending',
		what: 'no look-up before sending: a call placed elsewhere while the item waited for a slot is missed',
		edits: [
			{ find: /if \(recheck && record\.state === 'claimed'\)/, replace: 'if (false && recheck)' },
		],
		killers: [
			{
				file: 'test/node/call/create.skipRecentlyCalled.test.cts',
				name: 'while this execution waited',
			},
			{ file: MODEL },
		],
	},
	{
		id: 'calling-hours-not-rechecked',
		what: 'Calling Hours not checked again at send: a window that closed while the item waited is missed',
		edits: [
			{
				find: /const deferred = \(0, window_1\.deferralOf\)\(node, hours, body\.to, Date\.now\(\)\);\s*if \(deferred\)\s*throw deferred;/,
				replace: '',
			},
		],
		killers: [
			{
				file: 'test/node/call/create.callingHours.test.cts',
				name: 'a window that closes while an item waits',
			},
			{ file: MODEL },
		],
	},
	{
		id: 'attempt-ignores-live-previous-call',
		what: "attempt 2 ignoring the previous attempt's live call: it dials while that call is in progress",
		edits: [
			{ find: /else if \(\(0, callStatus_1\.isLive\)\(call\)\) \{/, replace: 'else if (false) {' },
		],
		killers: [{ file: KEPT, name: 'attempt 2 fed while' }, { file: MODEL }],
	},
	{
		id: 'hour-ignores-calls-being-placed',
		what: 'Max Calls per Hour ignoring calls being placed: two executions both take the last call',
		edits: [
			{
				find: /else if \(!shown\)\s*times\.push\(read\.serviceNowMs\);/,
				replace: 'else if (!shown && entry.landedAt !== undefined) times.push(read.serviceNowMs);',
			},
		],
		killers: [{ file: 'test/node/call/create.executions.properties.test.cts' }, { file: MODEL }],
	},
];
