// The shell is not a federation build (it hosts remotes through the runtime API, see
// remotes/federation.ts), so it needs no async boundary: the page starts in one request.
import './bootstrap';
