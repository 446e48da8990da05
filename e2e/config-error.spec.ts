import { expect, test } from './support/test';
import { startStack } from './support/servers';

test('a broken /config.json shows one readable list of every problem, never a blank page', async ({ page }) => {
  const stack = await startStack(3130, (config) => ({ ...config, auth: undefined, api: { baseUrl: 'nope' } }));
  const logged: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') logged.push(message.text());
  });
  try {
    await page.goto(`${stack.shellUrl}/support`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('TrailSense can’t start right now');
    await expect(page.getByRole('listitem')).toHaveText([
      '"auth" is missing.',
      '"api.baseUrl" is "nope", which is not an http(s) URL.',
      '"api.uploadsBaseUrl" is missing.',
    ]);
    expect(logged.join('\n')).toContain('"auth" is missing.');
  } finally {
    await stack.close();
  }
});

test('a /config.json that is not JSON is reported the same way', async ({ page }) => {
  const stack = await startStack(3140);
  try {
    const fs = await import('node:fs');
    fs.writeFileSync(stack.configFile, '{ "auth": ');
    await page.goto(stack.shellUrl);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('TrailSense can’t start right now');
    await expect(page.getByRole('listitem')).toContainText('/config.json is not valid JSON');
  } finally {
    await stack.close();
  }
});
