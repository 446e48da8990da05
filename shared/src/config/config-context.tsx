import { createContext, useContext } from 'react';
import type { RuntimeConfig } from './types';

const ConfigContext = createContext<RuntimeConfig | null>(null);

/** Supplies the validated runtime config to every app and remote on the page. */
export const ConfigProvider = ConfigContext.Provider;

/** The validated runtime config. Throws when rendered outside a ConfigProvider (a wiring bug). */
export function useConfig(): RuntimeConfig {
  const config = useContext(ConfigContext);
  if (!config) {
    throw new Error('useConfig() was called outside <ConfigProvider>: the shared package may be duplicated.');
  }
  return config;
}
