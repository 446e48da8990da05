/**
 * A CSS Module (webpack/index.js): its class names, scoped to the app, by their names in the file.
 * Declared before '*.css': of two patterns that match, TypeScript takes the first.
 */
declare module '*.module.css' {
  const classes: Readonly<Record<string, string>>;
  export default classes;
}
declare module '*.css';
declare module '*.svg' {
  const url: string;
  export default url;
}

/** The app's package version plus an optional release marker, fixed at build time (DefinePlugin). */
declare const __APP_VERSION__: string;
/** The app's package name, fixed at build time. */
declare const __APP_NAME__: string;
/** Versions of the federation singletons by package (webpack/shared-singletons.js), for the shell's runtime host. */
declare const __SHARED_VERSIONS__: Record<string, { version: string; requiredVersion: string }>;
