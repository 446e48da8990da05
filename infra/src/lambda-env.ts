/**
 * The environment of the Lambda functions (src/object-created/lambda.ts, src/sweep/lambda.ts,
 * src/uploads-api/lambda.ts, src/uploads-api/events-lambda.ts): the variables their stacks set
 * (src/stacks/uploads-stack.ts, src/stacks/uploads-api.ts).
 */

/**
 * The value of the environment variable `name`; throws, naming the function (`source`, the name its
 * log lines carry) and the variable, when it is not set or empty.
 */
export function requiredEnv(source: string, name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new Error(`${source}: the environment variable ${name} is not set`);
  return value;
}
