export * from './agents';
export * from './calls';
export * from './callsInFull';
