/** Reading the Base URL and webhook URLs in linear time, and telling where a request goes. */
import {
	checkBaseUrl,
	describeLocation,
	goesOnlyTo,
	parseHttpUrl,
} from '../../../nodes/shared/baseUrl';
import { InputValidator } from '../../../nodes/shared/validation';
import { stubNode } from '../../support/stubNode.cts';

const MEGABYTE = 1_048_576;

/** Values that made the old `^https?:\/\/[^\s/]+\S*$` pattern backtrack for minutes. */
const HOSTILE = [
	`https://${'a'.repeat(MEGABYTE)} `,
	`http://${'a'.repeat(MEGABYTE)}\n`,
	`https://example.com/${'/'.repeat(MEGABYTE)}x`,
	`https://${'a'.repeat(MEGABYTE)}`,
];

describe('checkBaseUrl', () => {
	test.each([
		['https://api.example.com/v1', 'https://api.example.com/v1', 'https://api.example.com'],
		[' https://api.example.com/v1/ ', 'https://api.example.com/v1', 'https://api.example.com'],
		['http://127.0.0.1:4010/v1//', 'http://127.0.0.1:4010/v1', 'http://127.0.0.1:4010'],
		['HTTPS://API.Example.com:443/v1', 'https://api.example.com/v1', 'https://api.example.com'],
		['https://api.example.com', 'https://api.example.com', 'https://api.example.com'],
	])('%j is %j on %j', (value, baseUrl, origin) => {
		expect(checkBaseUrl(value)).toEqual({ ok: true, value: { baseUrl, origin } });
	});

	test.each<[unknown, string]>([
		['api.example.com/v1', 'is not an http:// or https:// address'],
		['ftp://api.example.com/v1', 'is not an http:// or https:// address'],
		['http:///v1', 'is not an http:// or https:// address'],
		['https://api example.com/v1', 'is not an http:// or https:// address'],
		['', 'is not an http:// or https:// address'],
		[undefined, 'is not an http:// or https:// address'],
		[
			'https://user:pass@api.example.com/v1',
			'must not contain a user name or password (user:password@): the API key goes in the API Key field',
		],
		[
			'https://user@api.example.com/v1',
			'must not contain a user name or password (user:password@): the API key goes in the API Key field',
		],
		[
			'https://api.example.com/v1?tenant=a',
			'must not contain a query (?...): the nodes add their own',
		],
		['https://api.example.com/v1?', 'must not contain a query (?...): the nodes add their own'],
		['https://api.example.com/v1#top', 'must not contain a fragment (#...)'],
		['https://api.example.com/v1#a?b', 'must not contain a fragment (#...)'],
		[`https://api.example.com/${'v'.repeat(2048)}`, 'is longer than 2,048 characters'],
	])('%j: the Base URL %s', (value, problem) => {
		expect(checkBaseUrl(value)).toEqual({ ok: false, problem });
	});

	test('a megabyte of hostile text is refused fast', () => {
		for (const value of HOSTILE) {
			const started = performance.now();
			expect(checkBaseUrl(value).ok).toBe(false);
			expect(performance.now() - started).toBeLessThan(200);
		}
	});
});

describe('parseHttpUrl and the Webhook URL', () => {
	test('a megabyte of hostile text is refused fast, by parseHttpUrl and by the Webhook URL check', () => {
		const validate = new InputValidator(stubNode(), 0);
		for (const value of HOSTILE) {
			const started = performance.now();
			expect(parseHttpUrl(value)).toBeUndefined();
			expect(() => validate.urlOrEmpty(value, 'Webhook URL')).toThrow(
				/^Webhook URL must be at most 2,048 characters \(got 1,048,5\d\d\) \[item 0\]$/,
			);
			expect(performance.now() - started).toBeLessThan(200);
		}
	});

	test('webhook URLs keep their query', () => {
		expect(parseHttpUrl('https://example.com/hook?token=abc')?.search).toBe('?token=abc');
	});
});

describe('describeLocation: where a redirect pointed, without what may be secret', () => {
	test.each<[unknown, string]>([
		['https://other.example.com/v1/agents?token=abc#x', 'https://other.example.com/v1/agents'],
		['https://user:pw@other.example.com/in', 'https://other.example.com/in'],
		['/login?next=%2F', 'https://api.example.com/login'],
		[['https://other.example.com/a', 'https://b.example.com/'], 'https://other.example.com/a'],
		[undefined, 'an address it did not name'],
		['', 'an address it did not name'],
		['javascript:alert(1)', 'an address that is no http(s) URL'],
		['http://', 'an address that is no URL'],
	])('%j: %j', (location, described) => {
		expect(describeLocation(location, 'https://api.example.com/v1/agents')).toBe(described);
	});

	test('a long Location is cut at 200 characters', () => {
		const described = describeLocation(
			`https://other.example.com/${'p'.repeat(5_000)}`,
			'https://api.example.com/v1',
		);
		expect(described).toBe(`https://other.example.com/${'p'.repeat(174)}…`);
	});
});

describe('goesOnlyTo: where a request of n8n’s helpers goes', () => {
	const origin = 'https://api.example.com';

	test.each<[string, object]>([
		['an absolute url on the origin', { url: 'https://api.example.com/v1/agents' }],
		['a legacy uri on the origin', { uri: 'https://api.example.com/v1/agents' }],
		['baseURL and a relative url', { baseURL: 'https://api.example.com/v1', url: '/agents' }],
		['baseURL and a url without a slash', { baseURL: 'https://api.example.com/v1', url: 'agents' }],
		['baseURL alone', { baseURL: 'https://api.example.com/v1' }],
		[
			'a relative url that looks like a user',
			{ baseURL: 'https://api.example.com', url: '@evil.example/x' },
		],
	])('%s: yes', (_what, request) => {
		expect(goesOnlyTo(request, origin)).toBe(true);
	});

	test.each<[string, object]>([
		['another host', { url: 'https://evil.example/v1/agents' }],
		['another port', { url: 'https://api.example.com:8443/v1/agents' }],
		['another scheme', { url: 'http://api.example.com/v1/agents' }],
		['a host that starts like it', { url: 'https://api.example.com.evil.example/v1' }],
		['credentials before another host', { url: 'https://api.example.com@evil.example/v1' }],
		[
			'an absolute url beside baseURL',
			{ baseURL: 'https://api.example.com', url: 'https://evil.example/' },
		],
		[
			'a protocol-relative url beside baseURL',
			{ baseURL: 'https://api.example.com', url: '//evil.example/x' },
		],
		[
			'a url with a leading space',
			{ baseURL: 'https://api.example.com', url: ' https://evil.example/' },
		],
		['a relative url without baseURL', { url: '/v1/agents' }],
		['no url at all', {}],
		['baseURL elsewhere', { baseURL: 'https://evil.example', url: '/v1' }],
	])('%s: no', (_what, request) => {
		expect(goesOnlyTo(request, origin)).toBe(false);
	});
});
