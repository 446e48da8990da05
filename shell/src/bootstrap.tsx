import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { amplifySessionSource, configureAmplifyOnce, loadRuntimeConfig, sharedInstanceId } from '@trailsense/shared';
import { App } from './app/app';
import { AppErrorBoundary } from './app/app-error-boundary';
import { ConfigErrorPage } from './app/config-error-page';
import { registerRemotesFromConfig } from './remotes/remote-loader';
import './app/theme.css';
import './app/layout.css';

async function start() {
  const root = createRoot(document.getElementById('root')!);
  // Visible marker for tests and support: a remote showing another id has its own shared copy.
  document.documentElement.dataset.sharedInstance = sharedInstanceId;
  const result = await loadRuntimeConfig();
  if (!result.ok) {
    console.error('TrailSense cannot start: /config.json has problems:\n- ' + result.problems.join('\n- '));
    root.render(<ConfigErrorPage problems={result.problems} />);
    return;
  }
  configureAmplifyOnce(result.config);
  registerRemotesFromConfig(result.config);
  root.render(
    <StrictMode>
      <AppErrorBoundary>
        <App config={result.config} sessionSource={amplifySessionSource} />
      </AppErrorBoundary>
    </StrictMode>,
  );
}

void start();
