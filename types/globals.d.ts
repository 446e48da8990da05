declare module '*.css';
declare module '*.svg' {
  const url: string;
  export default url;
}

/** The app's package version plus an optional release marker, fixed at build time (DefinePlugin). */
declare const __APP_VERSION__: string;
/** The app's package name, fixed at build time. */
declare const __APP_NAME__: string;
