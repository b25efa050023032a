// What differs between the n8n majors the harness drives (the nodes never know): environment
// settings, the words of the editor, and the REST calls that make a workflow live.

const DIALECTS = {
	2: {
		// What the editor calls making a workflow live.
		activate: 'publish',
		// Activation answers before the triggers are registered (a publication outbox); the REST
		// client polls the publication status.
		publishesAfterAnswering: true,
		// The setting for the base of production webhook URLs (2.x warns that WEBHOOK_URL is deprecated).
		webhookUrlSetting: 'N8N_WEBHOOK_URL',
		// A sub-workflow called from a production run runs in its published version.
		subWorkflowsRunPublished: true,
		activatesWithPatch: false,
		// POST /rest/workflows/:id/run runs the saved workflow: the body names only the trigger.
		manualRunSendsWorkflow: false,
		env: {
			// The MCP server registry refreshes its list from n8n's API at start-up; nothing here needs it.
			N8N_DISABLED_MODULES: 'mcp-registry',
			// Set to their current defaults only to silence start-up deprecation notices.
			N8N_RUNNERS_TASK_TIMEOUT: '300',
			N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(2 * 1024 ** 3),
			N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '5000',
		},
	},
	1: {
		activate: 'activate',
		publishesAfterAnswering: false,
		webhookUrlSetting: 'WEBHOOK_URL',
		subWorkflowsRunPublished: false,
		// Workflows go live through POST /rest/workflows/:id/activate and .../deactivate.
		activatesWithPatch: false,
		// POST /rest/workflows/:id/run runs the workflow the body carries, as the editor sends it.
		manualRunSendsWorkflow: true,
		env: {},
	},
};

/** Older releases of a major that differ from its newest, up to the minor version named (checked pins). */
const OLDER_RELEASES = [
	{
		major: 1,
		throughMinor: 85, // checked in 1.85.4
		changes: {
			// No activate/deactivate endpoints yet: PATCH /rest/workflows/:id with `active`, as its editor.
			activatesWithPatch: true,
		},
	},
];

/** The dialect of a runtime (from ensureRuntime or runtimePaths, or anything with its `version`). */
export function dialectFor(runtime) {
	const [major, minor] = String(runtime.version).split('.').map(Number);
	const dialect = DIALECTS[major];
	if (!dialect) throw new Error(`the harness does not know n8n ${runtime.version}`);
	const older = OLDER_RELEASES.find(
		(release) => release.major === major && minor <= release.throughMinor,
	);
	return { major, ...dialect, ...older?.changes };
}
