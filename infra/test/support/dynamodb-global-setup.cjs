// jest's global setup for the infra project (infra/jest.config.cjs): starts ONE DynamoDB Local
// (scripts/dynamodb-local.mjs: Amazon's engine, in memory, one database for every client) for the
// whole run, before any test file, and hands its endpoint to the test files, in their workers too,
// as TRAILSENSE_DYNAMODB_ENDPOINT (support/dynamodb-local.ts reads it). dynamodb-global-teardown.cjs
// stops it. CommonJS, so jest loads it without a transform; it imports the ES module script.
//
// An endpoint already in TRAILSENSE_DYNAMODB_ENDPOINT is used as it is and nothing is started: one
// kept running by `node scripts/dynamodb-local.mjs start` saves the JVM's start-up while iterating.
const path = require('node:path');
const { pathToFileURL } = require('node:url');

/** Where the teardown, which jest loads as another module in the same process, finds the engine. */
const HANDLE = Symbol.for('trailsense.dynamodb-local');

module.exports = async function startDynamoDbLocalForJest() {
  if (process.env.TRAILSENSE_DYNAMODB_ENDPOINT) return;
  const script = pathToFileURL(path.resolve(__dirname, '../../../scripts/dynamodb-local.mjs')).href;
  const { startDynamoDbLocal } = await import(script);
  const dynamo = await startDynamoDbLocal();
  globalThis[HANDLE] = dynamo;
  process.env.TRAILSENSE_DYNAMODB_ENDPOINT = dynamo.endpoint;
};
