/**
 * Thrown by `refreshCredentials` when no session is left to refresh: the batch pauses for a sign-in.
 * In a file of its own because both the Amplify adapter (amplify-storage.ts, which throws it) and the
 * services' interfaces (uploader-services.ts, which import a type from that adapter) refer to it.
 */
export class SessionEndedError extends Error {
  constructor(message = 'The session has ended') {
    super(message);
    this.name = 'SessionEndedError';
  }
}
