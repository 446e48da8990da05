// Sandbox tests start servers and do SRP sign-ins (3072-bit arithmetic): seconds on a busy
// 2-core machine. `testTimeout` in a project's config is ignored when jest runs several
// projects (it is a global option), so the project sets its timeout here.
jest.setTimeout(60_000);
