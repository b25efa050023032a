/**
 * The documentation as readers reach it: the README (the npm page) in the community-node template's shape with
 * links that work outside GitHub, each node's Docs link opening its own page, and links between the pages
 * that lead somewhere.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const REPO = 'https://github.com/n8n-nodes-voice-agent/n8n-nodes-voice-agent';
const RAW = 'https://raw.githubusercontent.com/n8n-nodes-voice-agent/n8n-nodes-voice-agent/main/';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const readme = read('README.md');

/** Every link and image target of a Markdown text: inline `](x)` and reference definitions `[x]: y`. */
function linksOf(markdown: string): string[] {
	const inline = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
	const references = [...markdown.matchAll(/^\[[^\]]+\]:\s+(\S+)/gm)].map((match) => match[1]);
	return [...inline, ...references];
}

/** The anchors GitHub gives a page's headings. */
function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	for (const [, heading] of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
		anchors.add(
			heading
				.trim()
				.toLowerCase()
				.replace(/[^\p{L}\p{N} _-]/gu, '')
				.replace(/ /g, '-'),
		);
	}
	return anchors;
}

/** The repository file an absolute link to this repository on GitHub names, or undefined. */
function repositoryFileOf(url: string): string | undefined {
	for (const prefix of [`${REPO}/blob/main/`, `${REPO}/tree/main/`, RAW]) {
		if (url.startsWith(prefix)) return url.slice(prefix.length).split('#')[0];
	}
	return undefined;
}

describe('README (the npm page)', () => {
	test("is at most about 250 lines, opens with how to try it, then the community-node template's sections in order", () => {
		expect(readme.split('\n').length).toBeLessThanOrEqual(250);
		const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
		// A newcomer's first screen: the two commands, the Node.js version, the first run's cost, the login, Ctrl-C.
		expect(sections[0]).toBe('Try it locally');
		const tryIt = readme.slice(
			readme.indexOf('## Try it locally'),
			readme.indexOf('## Installation'),
		);
		expect(readme.indexOf('## Try it locally')).toBeLessThan(1200);
		for (const needed of [
			'npm ci && npm run demo',
			'Node.js 20 or newer',
			'about 10 minutes and 3 GB',
			'the login',
			'Ctrl-C',
			'EBADENGINE',
		])
			expect(tryIt).toContain(needed);
		expect(sections.slice(1, 8)).toEqual([
			'Installation',
			'Operations',
			'Credentials',
			'Compatibility',
			'Usage',
			'Resources',
			'Version history',
		]);
		expect(readme).toContain('**n8n Cloud:** only community nodes that n8n has verified');
		// n8n 3 and the choice between the triggers, as the README's first screens say them.
		expect(readme).toContain('`N8N_UNVERIFIED_PACKAGES_ENABLED=true`');
		expect(readme).toContain('**Which trigger when:**');
	});

	test('shows the four jobs under Usage, one picture each', () => {
		const usage = readme.slice(readme.indexOf('## Usage'), readme.indexOf('## Resources'));
		const jobs = usage.split(/^### /m).slice(1);
		expect(jobs.map((job) => job.split('\n')[0])).toEqual([
			'Wire agents into your CRM',
			'Call a list of leads',
			'Export call transcripts on a schedule',
			'Push context into a live call',
			'Example workflows',
		]);
		for (const job of jobs.slice(0, 4)) expect(job.match(/^!\[/gm)).toHaveLength(1);
	});

	test('links only absolutely (npm shows it outside GitHub), to files that exist', () => {
		for (const link of linksOf(readme)) {
			if (link.startsWith('#')) {
				expect(anchorsOf(readme)).toContain(link.slice(1));
				continue;
			}
			expect(link).toMatch(/^https:\/\//);
			const file = repositoryFileOf(link);
			if (file !== undefined) expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
		}
	});

	test('points its version history at the changelog', () => {
		const history = readme.slice(
			readme.indexOf('## Version history'),
			readme.indexOf('## Development'),
		);
		expect(history).toContain('[changelog][changelog]');
		expect(readme).toContain(`[changelog]: ${REPO}/blob/main/CHANGELOG.md`);
	});
});

describe('the Docs links in the editor', () => {
	const codex = (node: string) => JSON.parse(read(`nodes/${node}/${node}.node.json`));
	const pages: Array<[string, string, string[]]> = [
		['VoiceAgent', 'docs/voice-agent-node.md', ['# The Voice Agent node']],
		['VoiceAgentTrigger', 'docs/triggers.md', ['## The Voice Agent Trigger']],
		[
			'VoiceAgentCallHistoryTrigger',
			'docs/triggers.md',
			['## The Voice Agent Call History Trigger'],
		],
	];

	test.each(pages)(
		'%s opens the page about it, %s, and its credential the credential page',
		(node, page, headings) => {
			const { resources } = codex(node);

			expect(resources.primaryDocumentation).toEqual([{ url: `${REPO}/blob/main/${page}` }]);
			expect(resources.credentialDocumentation).toEqual([
				{ url: `${REPO}/blob/main/docs/credentials.md` },
			]);
			for (const heading of headings) expect(read(page)).toMatch(new RegExp(`^${heading}$`, 'm'));
		},
	);

	test('the credential links to its page', () => {
		// The built credential, as n8n loads it (npm test builds before Jest runs).
		const { VoiceAgentApi } = require(
			path.join(ROOT, 'dist/credentials/VoiceAgentApi.credentials.js'),
		);
		expect(new VoiceAgentApi().documentationUrl).toBe(`${REPO}/blob/main/docs/credentials.md`);
		expect(read('docs/credentials.md')).toMatch(/^# The Voice Agent API credential$/m);
	});
});

describe('the pages under docs/ and beside the README', () => {
	const files = [
		...fs
			.readdirSync(path.join(ROOT, 'docs'))
			.filter((file) => file.endsWith('.md'))
			.map((file) => `docs/${file}`),
		'CONTRIBUTING.md',
		'RELEASING.md',
		'CHANGELOG.md',
	];

	test.each(files)('%s links to files and headings that exist', (file) => {
		const markdown = read(file);
		for (const link of linksOf(markdown)) {
			if (/^(https?|mailto):/.test(link)) continue;
			const [target, anchor] = link.split('#');
			const resolved = target
				? path.join(path.dirname(path.join(ROOT, file)), target)
				: path.join(ROOT, file);
			expect({ link, exists: fs.existsSync(resolved) }).toEqual({ link, exists: true });
			if (anchor && resolved.endsWith('.md')) {
				expect({ link, anchors: [...anchorsOf(fs.readFileSync(resolved, 'utf8'))] }).toEqual({
					link,
					anchors: expect.arrayContaining([anchor]),
				});
			}
		}
	});

	test('every section the long README had lives on in docs/ or CONTRIBUTING.md', () => {
		const moved: Array<[string, string]> = [
			['docs/credentials.md', '# The Voice Agent API credential'],
			['docs/voice-agent-node.md', '## Operations'],
			['docs/voice-agent-node.md', '## Rate limits, retries and errors'],
			['docs/safety.md', '## Creating calls never dials twice'],
			['docs/safety.md', '## As an AI Agent tool'],
			['docs/performance.md', '## What makes it fast'],
			['docs/performance.md', '## Results'],
			['docs/performance.md', '## Reproduce'],
			['docs/performance.md', '## Event throughput'],
			['docs/triggers.md', '## The Voice Agent Trigger'],
			['docs/triggers.md', '## The Voice Agent Call History Trigger'],
			['docs/triggers.md', '## Which trigger when'],
			['docs/scaling.md', '# Running at scale'],
			['CONTRIBUTING.md', '## The sandbox'],
			['CONTRIBUTING.md', '## The demo'],
			['CONTRIBUTING.md', '## Screenshots'],
			['CONTRIBUTING.md', '## Layout'],
			['CONTRIBUTING.md', '## Compatibility, as tested'],
			['README.md', '### Example workflows'],
		];
		for (const [file, heading] of moved) {
			expect({ file, heading, found: new RegExp(`^${heading}$`, 'm').test(read(file)) }).toEqual({
				file,
				heading,
				found: true,
			});
		}
	});
});
