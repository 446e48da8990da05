import { use, type ComponentType } from 'react';

/** A page whose code downloads on demand, and can be downloaded ahead (before hydration). */
export interface LazyPage {
  /** Renders the page; suspends (inside the caller's Suspense) until its code is here. */
  Component: ComponentType;
  /** Downloads the page's code; resolves when it can render without suspending. */
  preload(): Promise<void>;
}

/**
 * Like React.lazy, plus `preload`: the page that was prerendered is downloaded before the page
 * hydrates, so hydration renders it at once and matches the server's HTML; the other pages load
 * when visited (or ahead, when the browser is idle). A failed download is tried again next time.
 */
export function lazyPage(load: () => Promise<ComponentType>): LazyPage {
  let loaded: ComponentType | null = null;
  let loading: Promise<void> | null = null;
  const preload = () => {
    loading ??= load().then(
      (component) => {
        loaded = component;
      },
      (error: unknown) => {
        loading = null;
        throw error;
      },
    );
    return loading;
  };
  function Component() {
    if (!loaded) use(preload());
    const Page = loaded!;
    return <Page />;
  }
  return { Component, preload };
}
