export * from './agents';
export * from './calls';
