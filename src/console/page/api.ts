/** The page's side of the console API (see ../api-types.ts): fetch with the token, and the event stream. */
import {
  type ApiAnswer,
  type ConnectionSummary,
  type ConnectRequest,
  type ConsoleEvent,
  type OperationName,
  type Operations,
  TOKEN_HEADER,
} from '../api-types.js';

/** The token came in the page's own URL; it goes back on every request. */
export const token = new URLSearchParams(location.search).get('token') ?? '';

async function send(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(path, {
    method,
    headers: { [TOKEN_HEADER]: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error((await response.text()).trim() || `HTTP ${response.status}`);
  return response.json();
}

export const connect = (request: ConnectRequest) =>
  send('POST', '/api/connections', request) as Promise<ConnectionSummary>;

export const disconnect = (id: string) => send('DELETE', `/api/connections/${encodeURIComponent(id)}`);

/** One operation; never rejects: a request the console refused, or that never arrived, is an answer too. */
export async function run<K extends OperationName>(
  connectionId: string,
  op: K,
  body: Operations[K]['request'],
): Promise<ApiAnswer<Operations[K]['result']>> {
  try {
    return (await send(
      'POST',
      `/api/connections/${encodeURIComponent(connectionId)}/${op}`,
      body,
    )) as ApiAnswer<Operations[K]['result']>;
  } catch (error) {
    return { ok: false, error: { message: (error as Error).message } };
  }
}

/** Every event from the start of the console's log, then live; EventSource reconnects by itself. */
export function streamEvents(
  onEvent: (event: ConsoleEvent) => void,
  onState: (open: boolean) => void,
): () => void {
  const source = new EventSource(`/api/events?after=0&token=${encodeURIComponent(token)}`);
  source.onmessage = (message) => onEvent(JSON.parse(message.data) as ConsoleEvent);
  source.onopen = () => onState(true);
  source.onerror = () => onState(false);
  return () => source.close();
}
