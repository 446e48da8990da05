import { StrictMode, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
// The light entry by its package name: its contexts must be the ones the screens read.
import { BrandProvider, ConfigProvider, loadRuntimeConfig, UserProvider } from '@trailsense/shared';
import { configureAmplifyOnce } from '../amplify/configure';
import { amplifySessionSource } from '../user/amplify-session-source';

export interface StandaloneOptions {
  /** The remote's package name and version, shown in the page header. */
  name: string;
  version: string;
  /** The screens the remote exposes, by name; `?screen=Name` picks one (default: the first). */
  screens: Record<string, ComponentType>;
}

/**
 * A remote's standalone page: the same config, Amplify setup and user context as inside the
 * shell, without the shell. Lets the team that owns a remote run and check it alone.
 */
export async function startStandalone({ name, version, screens }: StandaloneOptions): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
  const result = await loadRuntimeConfig();
  if (!result.ok) {
    console.error('/config.json has problems:\n- ' + result.problems.join('\n- '));
    root.render(
      <main>
        <h1>{name}: /config.json has problems</h1>
        <ul>
          {result.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      </main>,
    );
    return;
  }
  configureAmplifyOnce(result.config);
  const names = Object.keys(screens);
  const requested = new URLSearchParams(window.location.search).get('screen');
  const current = requested && requested in screens ? requested : names[0]!;
  const Screen = screens[current]!;
  root.render(
    <StrictMode>
      <ConfigProvider value={result.config}>
        <BrandProvider value={result.config.brand}>
          <UserProvider source={amplifySessionSource}>
            <header className="standalone-header">
              <strong>
                {name} {version}
              </strong>{' '}
              — standalone page.{' '}
              <nav aria-label="Screens" style={{ display: 'inline' }}>
                {names.map((screen) => (
                  <a key={screen} href={`?screen=${screen}`} aria-current={screen === current ? 'page' : undefined} style={{ marginRight: '1em' }}>
                    {screen}
                  </a>
                ))}
              </nav>
            </header>
            <Screen />
          </UserProvider>
        </BrandProvider>
      </ConfigProvider>
    </StrictMode>,
  );
}
