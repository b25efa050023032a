import { searchAgents } from '../parameters/agent';

export * as credentialTest from './credentialTest';
export const listSearch = { searchAgents };
