export * as credentialTest from './credentialTest';
export * as listSearch from './listSearch';
