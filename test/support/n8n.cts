/**
 * The package inside n8n-core's real engine: loaded by n8n's own PackageDirectoryLoader from the built
 * `dist/`, with the credential's generic authentication applied by resolving its expressions, as n8n
 * does. node.cts runs the Voice Agent node on it; trigger.cts drives the trigger.
 */
import * as path from 'node:path';

// Node errors are what the tests assert on; n8n's logger would print each one again.
process.env.N8N_LOG_LEVEL ??= 'silent';
// n8n-core keeps its settings in a user folder: Jest's global set-up makes a throwaway one.
if (!process.env.N8N_USER_FOLDER)
	throw new Error('N8N_USER_FOLDER is not set: run the tests through Jest');

import { ExecutionLifecycleHooks, PackageDirectoryLoader } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
	IVersionedNodeType,
} from 'n8n-workflow';
import { ICredentialsHelper, Workflow } from 'n8n-workflow';

export const PACKAGE_NAME = 'n8n-nodes-voice-agent';
export const CREDENTIAL_NAME = 'voiceAgentApi';
const PACKAGE_DIR = path.resolve(__dirname, '../..');

/** A node's reference to its Voice Agent credential, as a saved workflow holds it. */
export function nodeCredentials(): INode['credentials'] {
	return { [CREDENTIAL_NAME]: { id: '1', name: 'Voice Agent account' } };
}

/** A resource locator parameter (e.g. the agent), as n8n stores the user's choice. */
export function rl(value: string, mode: 'id' | 'list' | 'name' | 'phoneNumber' = 'id') {
	return { __rl: true, mode, value };
}

export interface LoadedPackage {
	nodeTypes: INodeTypes;
	node(name: string): INodeType;
	credentialType(name: string): ICredentialType;
}

let loaded: Promise<LoadedPackage> | undefined;

/** The built package as n8n loads it (from package.json's "n8n" section and `dist/`). */
export function loadPackage(): Promise<LoadedPackage> {
	loaded ??= (async () => {
		const loader = new PackageDirectoryLoader(PACKAGE_DIR);
		await loader.loadAll();
		const byName = (type: string) => {
			const short = type.startsWith(`${PACKAGE_NAME}.`)
				? type.slice(PACKAGE_NAME.length + 1)
				: type;
			// n8n makes the tool variant (`voiceAgentTool`) of a node usable as a tool from the node itself:
			// the same execute, run with the tool's type in the workflow.
			const entry =
				loader.nodeTypes[short] ??
				(short.endsWith('Tool') ? loader.nodeTypes[short.slice(0, -'Tool'.length)] : undefined);
			if (!entry) throw new Error(`Unknown node type ${type}`);
			return entry.type;
		};
		const nodeTypes: INodeTypes = {
			getByName: (type: string) => byName(type) as INodeType | IVersionedNodeType,
			getByNameAndVersion: (type: string) => byName(type) as INodeType,
			getKnownTypes: () => ({}),
		};
		return {
			nodeTypes,
			node: (name: string) => byName(name) as INodeType,
			credentialType: (name: string) => {
				const entry = loader.credentialTypes[name];
				if (!entry) throw new Error(`Unknown credential type ${name}`);
				return entry.type;
			},
		};
	})();
	return loaded;
}

/** Credentials held in memory, authenticated the way n8n's own helper resolves generic auth. */
export class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly pkg: LoadedPackage,
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const { credentials = [] } = this.pkg.node(nodeType).description;
		return credentials.some((credential) => credential.name === credentialType);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = this.pkg.credentialType(typeName).authenticate;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (!authenticate || authenticate.type !== 'generic') return requestOptions;
		const resolve = (value: unknown) =>
			workflow.expression.getParameterValue(
				value as string,
				null,
				0,
				0,
				node.name,
				[],
				'internal',
				{
					$credentials: credentials,
				},
			);
		const result: IHttpRequestOptions = { ...requestOptions };
		for (const target of ['headers', 'qs', 'body'] as const) {
			const entries = authenticate.properties[target] as IDataObject | undefined;
			if (!entries) continue;
			const resolved: IDataObject = { ...((result[target] as IDataObject | undefined) ?? {}) };
			for (const [key, value] of Object.entries(entries)) resolved[key] = resolve(value) as string;
			(result as unknown as IDataObject)[target] = resolved;
		}
		return result;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	/** How many times a credential was read and decrypted, as n8n reads it from its database. */
	decryptions = 0;

	async getDecrypted(_additionalData: unknown, _nodeCredentials: unknown, type: string) {
		this.decryptions++;
		const credentials = this.data[type];
		if (!credentials) throw new Error(`No test credentials of type ${type}`);
		return { ...credentials };
	}

	async getCredentials(): Promise<never> {
		throw new Error('Not used by these tests');
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return [];
	}
}

export interface VoiceAgentCredentials {
	apiKey: string;
	baseUrl: string;
}

export function additionalDataFor(
	pkg: LoadedPackage,
	credentials: VoiceAgentCredentials,
	hooks: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new TestCredentialsHelper(pkg, {
			[CREDENTIAL_NAME]: credentials as unknown as ICredentialDataDecryptedObject,
		}),
		hooks,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not part of these tests');
		},
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		currentNodeParameters: undefined,
		variables: {},
		userId: 'test-user',
		logAiEvent: () => {},
		getRunExecutionData: async () => undefined,
		startRunnerTask: async () => {
			throw new Error('No task runner in these tests');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}
