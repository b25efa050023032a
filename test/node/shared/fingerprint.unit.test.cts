import { fingerprint } from '../../../nodes/shared/fingerprint';

describe('fingerprint (the account in claims kept by the n8n process)', () => {
	test('is FNV-1a 64: the published check values', () => {
		expect(fingerprint('')).toBe('cbf29ce484222325');
		expect(fingerprint('a')).toBe('af63dc4c8601ec8c');
		expect(fingerprint('foobar')).toBe('85944171f73967e8');
	});

	test('tells two keys of one Base URL apart and never contains the key', () => {
		const first = fingerprint('https://api.example.test\nsk_live_first');
		const second = fingerprint('https://api.example.test\nsk_live_second');
		expect(first).not.toBe(second);
		expect(first).toMatch(/^[0-9a-f]{16}$/);
		expect(first).not.toContain('sk_live');
	});
});
