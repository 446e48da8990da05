/**
 * Makes Node's `navigator` report the `appName` every browser reports ("Netscape"), for code that
 * runs aws-amplify (or amazon-cognito-identity-js) in Node: sandbox tests, the browser tests'
 * sign-in helper. Import it before either library.
 *
 * Both carry a copy of jsbn for SRP's 3072-bit arithmetic, which picks its inner loop when it is
 * loaded by sniffing `navigator.appName`: "Netscape" (every current browser) gets `am3`; a
 * `navigator` without one gets `am1`. Node has had a global `navigator` without `appName` since
 * 21, so Node gets `am1`, whose float division inside jest's vm context on Node 26 takes 9.4 s per
 * modPow instead of 0.1 s — a sign-in took about 10 s there. With this, Node runs the arithmetic
 * production's browsers run.
 */
const nav = (globalThis as { navigator?: { appName?: string } }).navigator;
if (nav && nav.appName === undefined) Object.defineProperty(nav, 'appName', { value: 'Netscape', configurable: true });

export {};
