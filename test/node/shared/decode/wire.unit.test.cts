/** The decoders of agents, list pages and error answers, for both wire formats. */
import { decodeAgent } from '../../../../nodes/shared/decode/agent';
import { parsedBody, plainTextMessage } from '../../../../nodes/shared/decode/body';
import { decodeErrorAnswer } from '../../../../nodes/shared/decode/errorBody';
import { wireIdOf } from '../../../../nodes/shared/decode/ids';
import { decodePage } from '../../../../nodes/shared/decode/page';
import { decodeTranscript } from '../../../../nodes/shared/decode/transcript';

describe('bodies', () => {
	test('JSON text is parsed whatever its header said; other text stays text', () => {
		expect(parsedBody('{"a":1}\n')).toEqual({ a: 1 });
		expect(parsedBody('[1]')).toEqual([1]);
		expect(parsedBody('Call not found\n')).toBe('Call not found\n');
		expect(parsedBody('{"cut": ')).toBe('{"cut": ');
		expect(parsedBody({ a: 1 })).toEqual({ a: 1 });
	});

	test('a plain-text message is one short line that is not markup', () => {
		expect(plainTextMessage('Call not found\n')).toBe('Call not found');
		expect(plainTextMessage('<html><body>502</body></html>')).toBeUndefined();
		expect(plainTextMessage('a\nb\nc')).toBeUndefined();
		expect(plainTextMessage('x'.repeat(301))).toBeUndefined();
		expect(plainTextMessage('')).toBeUndefined();
	});
});

describe('error answers', () => {
	test("the documented body and the live service's plain text both say what the service said", () => {
		expect(decodeErrorAnswer({ error: 'Not Found', message: 'Call x not found' })).toEqual({
			message: 'Call x not found',
			fromService: true,
		});
		expect(decodeErrorAnswer('Call not found\n')).toEqual({
			message: 'Call not found',
			fromService: true,
		});
		expect(decodeErrorAnswer("Invalid 'from' phone number\n")).toEqual({
			message: "Invalid 'from' phone number",
			fromService: true,
		});
	});

	test("a missing route, a proxy's page or nothing is not the service's answer", () => {
		expect(decodeErrorAnswer('404 page not found\n').fromService).toBe(false);
		expect(decodeErrorAnswer('<html>Bad Gateway</html>').fromService).toBe(false);
		expect(decodeErrorAnswer('').fromService).toBe(false);
		expect(decodeErrorAnswer(undefined).fromService).toBe(false);
	});
});

describe('agents', () => {
	test('a live row: numeric ids as text, the id goes back as a number', () => {
		const agent = decodeAgent({
			id: 42,
			user_id: 7,
			name: 'Front Desk',
			phone_number: '+14155550100',
		});
		expect(agent).toMatchObject({ id: '42', user_id: '7', name: 'Front Desk' });
		expect(wireIdOf(agent!)).toBe(42);
	});

	test('no id is no agent', () => {
		expect(decodeAgent({ name: 'x' })).toBeUndefined();
		expect(decodeAgent('nope')).toBeUndefined();
	});
});

describe('list pages', () => {
	test('items and the next cursor; the last page has none (missing, null, empty, or no items)', () => {
		expect(decodePage({ num_items: 1, cursor: 'c2', calls: [{ id: 1 }] }, 'calls')).toEqual({
			items: [{ id: 1 }],
			next: 'c2',
		});
		expect(decodePage({ num_items: 1, calls: [{ id: 1 }] }, 'calls')).toEqual({
			items: [{ id: 1 }],
		});
		expect(decodePage({ cursor: null, calls: [] }, 'calls')).toEqual({ items: [] });
		expect(decodePage({ cursor: 'c', calls: [] }, 'calls')).toEqual({ items: [] });
		expect(decodePage('{"num_items":0,"agents":[]}\n', 'agents')).toEqual({ items: [] });
	});

	test('an answer without the list is no page', () => {
		expect(decodePage({ agents: [] }, 'calls')).toBeUndefined();
		expect(decodePage({ calls: {} }, 'calls')).toBeUndefined();
		expect(decodePage('<html/>', 'calls')).toBeUndefined();
	});
});

describe('transcripts', () => {
	test('none yet (null) is no transcript; entries of neither shape are left out', () => {
		expect(decodeTranscript(null)).toBeUndefined();
		expect(decodeTranscript([1, 'x', { role: 'assistant', content: 'Hi' }])).toEqual({
			turns: [{ speaker: 'agent', text: 'Hi' }],
			system: [],
		});
	});

	test('another chat role keeps its name; content given as parts is joined', () => {
		expect(
			decodeTranscript([
				{ role: 'tool', content: 'booked' },
				{
					role: 'user',
					content: [
						{ type: 'text', text: 'Yes ' },
						{ type: 'text', text: 'please' },
					],
				},
			])?.turns,
		).toEqual([
			{ speaker: 'tool', text: 'booked' },
			{ speaker: 'customer', text: 'Yes please' },
		]);
	});
});
