/** The upload ledger's rules and port, for the sandbox's adapter (sandbox/src/ledger.ts). */
export * from './port';
export * from './rules';
