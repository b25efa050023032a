// The performance targets of the Voice Agent node, checked against one run of the benchmark (ratios of
// medians taken side by side in that run). A target whose jobs did not run is left out.

const times = (value) => `${value.toFixed(2)}×`;
const ms = (value) => `${Math.round(value).toLocaleString('en')} ms`;

/** Each target: what it asks, the figures it reads from the report, and whether they meet it. */
function targets(report, { maxInFlight }) {
	const time = (id, variant) => report.median(id, variant);
	const ratio = (id, other) => time(id, 'node') / time(id, other);
	return [
		{
			target: 'Return All, 20,000 calls: at most 0.5× the HTTP Request node',
			needs: [['list-20k', 'http']],
			measured: () => times(ratio('list-20k', 'http')),
			met: () => ratio('list-20k', 'http') <= 0.5,
		},
		{
			target: 'Return All, 20,000 calls: at most 2× the fetch floor',
			needs: [['list-20k', 'floor']],
			measured: () => times(ratio('list-20k', 'floor')),
			met: () => ratio('list-20k', 'floor') <= 2,
		},
		{
			target: 'Return All: time(100,000) / time(10,000) at most 10.5',
			needs: [
				['list-100k', 'node'],
				['list-10k', 'node'],
			],
			measured: () => (time('list-100k', 'node') / time('list-10k', 'node')).toFixed(2),
			met: () => time('list-100k', 'node') / time('list-10k', 'node') <= 10.5,
		},
		{
			target: 'One page (Limit 50): at most 50 ms',
			needs: [['limit', 'node']],
			measured: () => ms(time('limit', 'node')),
			met: () => time('limit', 'node') <= 50,
		},
		{
			target: `Include Transcripts, 20 ms per request: no slower than the HTTP Request node, at most ${maxInFlight} in flight`,
			needs: [['transcripts', 'http']],
			measured: () =>
				`${times(ratio('transcripts', 'http'))}, at most ${report.max('transcripts', 'node', 'maxInFlight')} in flight`,
			met: () =>
				ratio('transcripts', 'http') <= 1 &&
				report.max('transcripts', 'node', 'maxInFlight') <= maxInFlight,
		},
		{
			target: 'Under the rate limit: fewer 429s than a fixed pool of 20, and at least as fast',
			needs: [['rate-limit', 'floor']],
			measured: () =>
				`${report.median('rate-limit', 'node', 'rateLimited')} vs ${report.median('rate-limit', 'floor', 'rateLimited')} 429s; ${times(ratio('rate-limit', 'floor'))} the time`,
			met: () =>
				report.median('rate-limit', 'node', 'rateLimited') <
					report.median('rate-limit', 'floor', 'rateLimited') && ratio('rate-limit', 'floor') <= 1,
		},
		{
			target:
				'HTTPS, Return All, 20,000 calls: at most 0.5× the HTTP Request node and 2× the floor',
			needs: [
				['tls-list', 'http'],
				['tls-list', 'floor'],
			],
			measured: () => `${times(ratio('tls-list', 'http'))} / ${times(ratio('tls-list', 'floor'))}`,
			met: () => ratio('tls-list', 'http') <= 0.5 && ratio('tls-list', 'floor') <= 2,
		},
		{
			target: 'HTTPS, Include Transcripts: no slower than the HTTP Request node',
			needs: [['tls-transcripts', 'http']],
			measured: () => times(ratio('tls-transcripts', 'http')),
			met: () => ratio('tls-transcripts', 'http') <= 1,
		},
	];
}

/** The targets as a Markdown table: target, what this run measured, whether it is met. */
export function renderTargets(report, options) {
	const rows = targets(report, options).filter(({ needs }) =>
		needs.every(([id, variant]) => report.median(id, variant) !== undefined),
	);
	if (rows.length === 0) return '';
	const lines = ['### Targets', '', '| Target | This run | Met |', '|---|---:|:---:|'];
	for (const row of rows) {
		lines.push(`| ${row.target} | ${row.measured()} | ${row.met() ? 'yes' : '**no**'} |`);
	}
	return `${lines.join('\n')}\n\n`;
}
