// Reading n8n's run data (IRun): the run JSON among the output of `n8n execute --rawOutput`, and
// the items a node output. Node built-ins only.

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

const looksLikeRun = (value) =>
	value && typeof value === 'object' && value.data && value.data.resultData;

/**
 * Finds the run JSON in the output of `n8n execute --rawOutput`: the last pretty-printed top-level
 * object (a line that is exactly `{` up to the next line that is exactly `}`) that looks like a run.
 * Log lines before, after and around it are ignored.
 * @returns {object | undefined}
 */
export function extractRunJson(output) {
	const lines = String(output).replace(ANSI, '').split(/\r?\n/);
	for (let start = lines.length - 1; start >= 0; start--) {
		if (lines[start] !== '{') continue;
		const end = lines.indexOf('}', start + 1);
		if (end < 0) continue;
		try {
			const parsed = JSON.parse(lines.slice(start, end + 1).join('\n'));
			if (looksLikeRun(parsed)) return parsed;
		} catch {
			/* not this one */
		}
	}
	try {
		const parsed = JSON.parse(String(output).trim());
		if (looksLikeRun(parsed)) return parsed;
	} catch {
		/* no plain JSON either */
	}
	return undefined;
}

/** The items (their `json`) a node output in a run: `runData[node][runIndex].data.main[output]`. */
export function nodeOutput(run, nodeName, { runIndex = 0, output = 0 } = {}) {
	const runData = run?.data?.resultData?.runData ?? {};
	const nodeRuns = runData[nodeName];
	if (!nodeRuns)
		throw new Error(
			`node "${nodeName}" did not run; nodes that ran: ${Object.keys(runData).join(', ') || 'none'}`,
		);
	const nodeRun = nodeRuns[runIndex];
	if (nodeRun?.error) throw new Error(`node "${nodeName}" failed: ${nodeRun.error.message}`);
	return (nodeRun?.data?.main?.[output] ?? []).map((item) => item.json);
}
