// jest's global teardown for the infra project: stops the DynamoDB Local that
// dynamodb-global-setup.cjs started (none when the run was given an endpoint) and waits for its JVM
// to exit.
const HANDLE = Symbol.for('trailsense.dynamodb-local');

module.exports = async function stopDynamoDbLocalForJest() {
  const dynamo = globalThis[HANDLE];
  if (!dynamo) return;
  delete globalThis[HANDLE];
  delete process.env.TRAILSENSE_DYNAMODB_ENDPOINT;
  await dynamo.stop();
};
