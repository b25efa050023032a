// The benchmark's tables: per job, the median time with min–max of each variant, the ratios of the node to
// the others, and what the sandbox and the processes saw (requests, connections, requests in flight, 429s,
// peak memory). Ratios compare medians of one run of the benchmark.

const VARIANTS = [
	['node', 'Voice Agent node'],
	['http', 'HTTP Request node'],
	['floor', 'fetch floor'],
];

const SECTIONS = {
	list: 'Call → Get Many over HTTP',
	transcripts: 'Include Transcripts over HTTP',
	'rate-limit': 'Include Transcripts under a rate limit',
	tls: 'Over HTTPS',
};

export function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const ms = (value) => `${Math.round(value).toLocaleString('en')} ms`;
const mb = (value) => `${Math.round(value)} MB`;

/** One figure per variant, "a / b / c", from the median of each variant's runs. */
function perVariant(runs, read, format = String) {
	return VARIANTS.filter(([key]) => runs[key])
		.map(([key]) => format(median(runs[key].map(read))))
		.join(' / ');
}

export class Report {
	constructor(runs) {
		this.runs = runs;
		/** @type {{ id: string, section: string, title: string, runs: Record<string, object[]>, calls: number }[]} */
		this.jobs = [];
	}

	/** `id` names the job for the targets (bench/targets.mjs); `calls` is how many items each run outputs. */
	add(id, section, title, runs, { calls }) {
		for (const [variant, list] of Object.entries(runs)) {
			const wrong = list.find((run) => run.items !== calls);
			if (wrong) {
				process.stderr.write(
					`[bench] ${title}: ${variant} output ${wrong.items} items, not ${calls}${wrong.error ? ` (${wrong.error})` : ''}\n`,
				);
			}
		}
		this.jobs.push({ id, section, title, runs, calls });
	}

	/** The median of a figure (`ms`, `rateLimited`, ...) of a variant's runs in a job, if it ran. */
	median(id, variant, figure = 'ms') {
		const runs = this.jobs.find((job) => job.id === id)?.runs[variant];
		return runs ? median(runs.map((run) => run[figure])) : undefined;
	}

	/** The largest figure of a variant's runs in a job, if it ran. */
	max(id, variant, figure) {
		const runs = this.jobs.find((job) => job.id === id)?.runs[variant];
		return runs ? Math.max(...runs.map((run) => run[figure])) : undefined;
	}

	render() {
		const out = [];
		for (const [section, heading] of Object.entries(SECTIONS)) {
			const jobs = this.jobs.filter((job) => job.section === section);
			if (jobs.length === 0) continue;
			out.push(`### ${heading}`, '');
			out.push(
				'| Job | Voice Agent node | HTTP Request node | fetch floor | node ÷ HTTP Request | node ÷ floor |',
				'|---|---:|---:|---:|---:|---:|',
			);
			for (const { title, runs } of jobs) {
				const cells = VARIANTS.map(([key]) => {
					if (!runs[key]) return '–';
					const times = runs[key].map((run) => run.ms);
					const failed = runs[key].filter((run) => run.error).length;
					return `${ms(median(times))} (${Math.round(Math.min(...times))}–${Math.round(Math.max(...times))})${failed ? `, ${failed} failed` : ''}`;
				});
				const node = median(runs.node.map((run) => run.ms));
				const ratio = (key) =>
					runs[key] ? `${(node / median(runs[key].map((run) => run.ms))).toFixed(2)}×` : '–';
				out.push(`| ${title} | ${cells.join(' | ')} | ${ratio('http')} | ${ratio('floor')} |`);
			}
			out.push('');
			out.push(
				'| Job | requests | connections | most in flight | 429 answers | peak memory |',
				'|---|---:|---:|---:|---:|---:|',
			);
			for (const { title, runs } of jobs) {
				const figures = [
					perVariant(runs, (run) => run.requests),
					perVariant(runs, (run) => run.connections),
					perVariant(runs, (run) => run.maxInFlight),
					perVariant(runs, (run) => run.rateLimited),
					perVariant(runs, (run) => run.memoryMb, mb),
				];
				out.push(`| ${title} | ${figures.join(' | ')} |`);
			}
			out.push(
				'',
				'Second table: Voice Agent node / HTTP Request node / fetch floor. Peak memory: JavaScript heap and',
				'buffers in use at the peak of the run, above what was in use when it started.',
				'',
			);
		}
		out.push(
			`Medians of ${this.runs} runs per variant, taken in turn after one warm-up run each.`,
			'',
		);
		return `${out.join('\n')}\n`;
	}
}
