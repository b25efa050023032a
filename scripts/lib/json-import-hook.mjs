// A module hook for @actions/workflow-parser, which is published for bundlers: it imports its JSON
// schemas without `with { type: 'json' }`, which Node refuses. This adds the attribute for .json files.

export async function load(url, context, nextLoad) {
	if (url.endsWith('.json') && context.importAttributes?.type === undefined) {
		return nextLoad(url, {
			...context,
			importAttributes: { ...context.importAttributes, type: 'json' },
		});
	}
	return nextLoad(url, context);
}
