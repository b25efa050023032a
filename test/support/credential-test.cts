/**
 * "Test connection" of the Voice Agent API credential as n8n's CredentialsTester runs it: it finds the
 * node that declares the credential with `testedBy` and calls that node's credentialTest method in
 * n8n-core's real CredentialTestContext, whose only HTTP helper is n8n's legacy `request`.
 */
import { CredentialTestContext } from 'n8n-core';
import type {
	ICredentialsDecrypted,
	INodeCredentialTestResult,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { CREDENTIAL_NAME, loadPackage, type VoiceAgentCredentials } from './n8n.cts';

export async function testConnection(
	data: VoiceAgentCredentials,
): Promise<INodeCredentialTestResult> {
	const pkg = await loadPackage();
	const nodeType = pkg.node('voiceAgent');
	const declared = nodeType.description.credentials?.find(
		(entry) => entry.name === CREDENTIAL_NAME,
	);
	const testedBy = declared?.testedBy;
	if (typeof testedBy !== 'string')
		throw new Error('The Voice Agent node names no credential test');
	const method = nodeType.methods?.credentialTest?.[testedBy];
	if (!method) throw new Error(`The Voice Agent node has no credentialTest.${testedBy}`);
	const credential: ICredentialsDecrypted = {
		id: '1',
		name: 'Voice Agent account',
		type: CREDENTIAL_NAME,
		data: { ...data },
	};
	const context = new CredentialTestContext({} as IWorkflowExecuteAdditionalData);
	return await method.call(context, credential);
}
