/** The Lambda functions' one reader of the variables their stacks set (src/lambda-env.ts). */
import { requiredEnv } from '../src/lambda-env';

test('answers a variable that is set', () => {
  expect(requiredEnv('sweep', 'BUCKET_NAME', { BUCKET_NAME: 'uploads' })).toBe('uploads');
});

test('refuses a variable that is missing or empty, naming the function and the variable', () => {
  expect(() => requiredEnv('uploads-api', 'LEDGER_TABLE_NAME', {})).toThrow(new Error('uploads-api: the environment variable LEDGER_TABLE_NAME is not set'));
  expect(() => requiredEnv('object-created', 'RANCHES_TABLE_NAME', { RANCHES_TABLE_NAME: '' })).toThrow(
    new Error('object-created: the environment variable RANCHES_TABLE_NAME is not set'),
  );
});

test('reads the process environment by default', () => {
  process.env['TRAILSENSE_LAMBDA_ENV_TEST'] = 'set';
  try {
    expect(requiredEnv('sweep', 'TRAILSENSE_LAMBDA_ENV_TEST')).toBe('set');
  } finally {
    delete process.env['TRAILSENSE_LAMBDA_ENV_TEST'];
  }
});
