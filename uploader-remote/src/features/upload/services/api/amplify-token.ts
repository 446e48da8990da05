import { fetchAuthSession } from 'aws-amplify/auth';

/** The signed-in user's id token from Amplify (refreshed by Amplify when it has expired). */
export async function amplifyIdToken(): Promise<string | undefined> {
  const session = await fetchAuthSession();
  return session.tokens?.idToken?.toString();
}
