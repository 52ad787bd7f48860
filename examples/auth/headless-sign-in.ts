/**
 * A user agent without a user, for authorization servers that consent at once (the development
 * server beside this file, the conformance suite's servers) — what `BROWSER="curl -sL"` is to the
 * CLI. It follows the redirects from the authorization URL until one points at
 * the redirect URI, and returns that URL (code, state, iss). A server that shows a sign-in page
 * instead fails here with its status.
 */
export async function headlessSignIn(authorizationUrl: URL, redirectUri: string): Promise<URL> {
  let next = authorizationUrl.href;
  for (let hops = 0; hops < 10; hops++) {
    if (next.startsWith(redirectUri)) return new URL(next);
    const response = await fetch(next, { redirect: 'manual' });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location) throw new Error(`the authorization server answered ${response.status} without a redirect`);
    next = new URL(location, next).href;
  }
  throw new Error('the authorization server redirected more than 10 times');
}
