/**
 * Signing the CLI in to protected HTTP servers: an `OAuthClient` whose tokens live in the user's
 * `FileTokenStore`, and whose user agent is the user's browser. A sign-in listens on a loopback
 * port (127.0.0.1, chosen then) for the redirect, opens the authorization URL with the command in
 * `$BROWSER` (split like a command line, run without a shell, the URL appended) or prints it, and
 * waits for the authorization server to redirect back. `BROWSER="curl -sL"` completes a sign-in
 * without a person against an authorization server that consents at once.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthClient } from '../auth/client/oauth-client.js';
import { FileTokenStore } from '../node/token-store.js';
import { SwitchboardError } from '../protocol/errors.js';
import { splitCommandLine } from '../util/command-line.js';

/** How long a sign-in waits for the browser to come back. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

interface Loopback {
  readonly redirectUri: string;
  /** Resolves with the redirect (code, state, iss) once the browser comes back. */
  readonly callback: Promise<URL>;
  close(): void;
}

async function listen(): Promise<Loopback> {
  let resolve!: (url: URL) => void;
  const callback = new Promise<URL>((r) => (resolve = r));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Signed in: you can close this window and return to the terminal.\n');
    resolve(url);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return {
    redirectUri,
    callback,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

/** Opens `url` with `$BROWSER`, or asks the user to. */
function open(url: URL, report: (text: string) => void, env: NodeJS.ProcessEnv): void {
  const browser = env.BROWSER?.trim();
  if (!browser) {
    report(`switchboard: to sign in, open this URL in a browser:\n  ${url.href}\n`);
    return;
  }
  const [command, ...args] = splitCommandLine(browser);
  report(`switchboard: signing in with ${command} (from $BROWSER)...\n`);
  const child = spawn(command!, [...args, url.href], { stdio: 'ignore', shell: false });
  child.on('error', (error) =>
    report(`switchboard: $BROWSER could not be started (${error.message}); open this URL:\n  ${url.href}\n`),
  );
  child.unref();
}

/** The CLI's OAuth client: file-stored tokens, the browser as user agent. */
export function cliOAuthClient(
  report: (text: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  store: FileTokenStore = new FileTokenStore(),
): OAuthClient {
  let loopback: Loopback | undefined;
  return new OAuthClient({
    clientName: 'Switchboard CLI',
    store,
    redirectUri: async () => {
      loopback?.close();
      loopback = await listen();
      return loopback.redirectUri;
    },
    authorize: async (url) => {
      const current = loopback!;
      let timer: NodeJS.Timeout | undefined;
      try {
        open(url, report, env);
        return await Promise.race([
          current.callback,
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () =>
                reject(
                  new SwitchboardError(
                    'AUTHORIZATION',
                    `No sign-in within ${SIGN_IN_TIMEOUT_MS / 60_000} minutes.`,
                  ),
                ),
              SIGN_IN_TIMEOUT_MS,
            );
            timer.unref();
          }),
        ]);
      } finally {
        clearTimeout(timer);
        current.close();
        if (loopback === current) loopback = undefined;
      }
    },
  });
}

const LOGIN_HELP = `Usage:
  switchboard login <url>
  switchboard logout <url>

login signs in to the protected MCP server at <url> (an http:// or https:// endpoint): it finds
the server's authorization server, registers this CLI there if needed, and opens the sign-in page
with the command in $BROWSER (or prints its URL), listening on 127.0.0.1 for the redirect. The
tokens are kept, readable by you only, in
  ${'$'}XDG_CONFIG_HOME/switchboard/tokens.json (else ~/.config/switchboard/tokens.json)
and every other command uses them (refreshing them as needed); a command that meets a server
answering 401 signs in the same way first. logout forgets the tokens for <url>.

Exit status: 0 on success, 1 when signing in failed, 2 when the command line is wrong.
`;

/** `switchboard login <url>` and `switchboard logout <url>`. */
export async function runSignInCli(
  command: 'login' | 'logout',
  argv: readonly string[],
  io: { out(text: string): void; err(text: string): void },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(LOGIN_HELP);
    return 0;
  }
  const url = argv[0];
  if (argv.length !== 1 || url === undefined || !/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    io.err(
      `switchboard: ${command} takes one http:// or https:// server URL.\nRun "switchboard ${command} --help" for usage.\n`,
    );
    return 2;
  }
  const store = new FileTokenStore();
  const oauth = cliOAuthClient(io.err, env, store);
  try {
    if (command === 'logout') {
      await oauth.signOut(url);
      io.out(`Signed out of ${url}.\n`);
      return 0;
    }
    await oauth.signIn(url);
    io.out(`Signed in to ${url}; the tokens are in ${store.file}.\n`);
    return 0;
  } catch (error) {
    io.err(
      `switchboard: could not ${command === 'login' ? 'sign in to' : 'sign out of'} ${url}: ${(error as Error).message}\n`,
    );
    return 1;
  }
}
