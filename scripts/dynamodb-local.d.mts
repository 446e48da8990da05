// Types of dynamodb-local.mjs, for the TypeScript that starts it (bench/ledger.ts).
export default function installDynamoDbLocal(): Promise<void>;
export function startDynamoDbLocal(): Promise<{ endpoint: string; stop: () => Promise<void>; exited: Promise<unknown> }>;
