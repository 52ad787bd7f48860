/** What the console tests share: a console connected to nothing, raw HTTP to it, its event stream. */
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { ConsoleEvent } from '../../src/console/api-types.js';

/** The example server, as `node build/examples/server.js`. */
export const EXAMPLE_SERVER = fileURLToPath(new URL('../../examples/server.js', import.meta.url));

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request with exactly the headers given (Host and Origin included, which fetch would not allow). */
export function raw(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const url = new URL(path, origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        headers: options.headers,
        setHost: !options.headers?.host,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The API as the page uses it: token in the header, JSON bodies. */
export function api(origin: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<RawAnswer & { json: () => any }> => {
    const answer = await raw(origin, path, {
      method,
      headers: {
        'x-switchboard-console-token': token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { ...answer, json: () => JSON.parse(answer.body) };
  };
}

/** Reads the event stream from the start; `next(predicate)` resolves with the first matching event not yet taken. */
export function events(
  origin: string,
  token: string,
): {
  next<K extends ConsoleEvent['kind']>(
    kind: K,
    predicate?: (e: Extract<ConsoleEvent, { kind: K }>) => boolean,
  ): Promise<Extract<ConsoleEvent, { kind: K }>>;
  close(): void;
} {
  const seen: ConsoleEvent[] = [];
  const waiters = new Set<() => void>();
  const req = request(new URL(`/api/events?after=0&token=${token}`, origin), (res) => {
    let buffer = '';
    res.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        buffer = buffer.slice(end + 2);
        if (data) seen.push(JSON.parse(data) as ConsoleEvent);
        end = buffer.indexOf('\n\n');
      }
      for (const waiter of waiters) waiter();
    });
  });
  req.on('error', () => undefined);
  req.end();
  const taken = new Set<ConsoleEvent>();
  return {
    next(kind, predicate = () => true) {
      return new Promise((resolve) => {
        const look = () => {
          const found = seen.find((e) => !taken.has(e) && e.kind === kind && predicate(e as never)) as
            | Extract<ConsoleEvent, { kind: typeof kind }>
            | undefined;
          if (!found) return;
          taken.add(found);
          waiters.delete(look);
          resolve(found as never);
        };
        waiters.add(look);
        look();
      });
    },
    close: () => req.destroy(),
  };
}
