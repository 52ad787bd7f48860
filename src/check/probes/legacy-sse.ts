/**
 * The HTTP+SSE transport of 2024-11-05 (deprecated; servers keep it for old clients). A URL target
 * is an HTTP+SSE endpoint when, as the spec's backwards-compatibility steps go, a POSTed
 * `initialize` fails with 400, 404 or 405 and a GET opens a stream whose first event is
 * `endpoint`. Its rules: that `endpoint` event, POSTs to the URI it names accepted, and every
 * answer sent back as a `message` event on the stream.
 */
import { clip } from '../../util/clip.js';
import { errorMessage } from '../../util/guards.js';
import type { Verdicts } from '../results.js';
import { brief, type Json } from '../wire.js';
import { CHECKER_INFO, checkerCapabilities } from './context.js';
import { describe, type HttpProbe, openStream, parse } from './http-probe.js';
import { EventReader } from './sse.js';

/** The rules of the HTTP+SSE transport. */
export const LEGACY_SSE_IDS: readonly string[] = [
  'http.sse-endpoint-event',
  'http.sse-post-accepted',
  'http.sse-messages-on-stream',
];

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const initialize = (id: number): Json => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2024-11-05',
    capabilities: checkerCapabilities('2024-11-05'),
    clientInfo: CHECKER_INFO,
  },
});

/** Whether the target URL serves the HTTP+SSE transport rather than Streamable HTTP. */
export async function isSseEndpoint(http: HttpProbe): Promise<boolean> {
  let post: Awaited<ReturnType<HttpProbe['send']>>;
  try {
    post = await http.send('POST', JSON_HEADERS, initialize(1));
  } catch {
    return false;
  }
  if (post.status >= 200 && post.status < 300) {
    const session = post.headers.get('mcp-session-id');
    if (session !== null) await http.send('DELETE', { 'mcp-session-id': session }).catch(() => undefined);
    return false;
  }
  if (![400, 404, 405].includes(post.status)) return false;
  try {
    const { response, close } = await openStream(http, {});
    try {
      const type = response.headers.get('content-type') ?? '';
      if (response.status !== 200 || !type.startsWith('text/event-stream') || !response.body) return false;
      // The endpoint event should come first (a rule of its own); a few events are looked at.
      const reader = new EventReader(response.body);
      for (let i = 0; i < 5; i++) {
        const event = await reader.next();
        if (event === undefined) return false;
        if (event.event === 'endpoint') return true;
      }
      return false;
    } finally {
      close();
    }
  } catch {
    return false;
  }
}

/** The 2024-11-05 transport's rules, on one stream of its own. */
export async function probeSseTransport(http: HttpProbe, v: Verdicts): Promise<void> {
  const ids = LEGACY_SSE_IDS;
  let opened: Awaited<ReturnType<typeof openStream>>;
  try {
    opened = await openStream(http, {});
  } catch (error) {
    for (const id of ids) v.notTested(id, `GET on the endpoint failed: ${errorMessage(error)}`);
    return;
  }
  const { response, close } = opened;
  try {
    const type = response.headers.get('content-type') ?? '';
    const reader =
      response.body && type.startsWith('text/event-stream') ? new EventReader(response.body) : undefined;
    const first = await reader?.next();
    const endpoint = first?.event === 'endpoint' && first.data !== '' ? first.data : undefined;
    v.expect(
      'http.sse-endpoint-event',
      response.status === 200 && endpoint !== undefined,
      'the stream begins with an endpoint event',
      () =>
        `GET on the endpoint was answered with HTTP ${response.status} (${type || 'no Content-Type'})${first ? `, first event ${clip(JSON.stringify(first), 200)}` : ''}; the spec requires an endpoint event with the URI to POST to`,
    );
    if (!reader || endpoint === undefined) {
      for (const id of ids.slice(1)) v.notTested(id, 'the stream named no endpoint to POST to');
      return;
    }
    const target = new URL(endpoint, http.url).href;
    const post = await http.send('POST', JSON_HEADERS, initialize(1), { url: target });
    v.expect(
      'http.sse-post-accepted',
      post.status >= 200 && post.status < 300,
      'a POST to the endpoint is accepted',
      () =>
        `POST initialize to ${target} was answered with ${describe(post)}; the spec requires it to be accepted`,
    );
    // The answer must come on the stream, as a message event.
    const seen: string[] = [];
    let answer: Json | undefined;
    for (let event = await reader.next(); event; event = await reader.next()) {
      seen.push(clip(JSON.stringify(event), 120));
      if (event.data === '') continue;
      const message = parse(event.data);
      if (message?.id === 1 && ('result' in message || 'error' in message)) {
        answer = { ...message, event: event.event ?? 'message' };
        break;
      }
    }
    v.expect(
      'http.sse-messages-on-stream',
      answer !== undefined && answer.event === 'message',
      'the answer to a POSTed request arrives as a message event on the stream',
      () =>
        answer
          ? `the answer to initialize arrived as an event of type ${JSON.stringify(answer.event)}; the spec sends server messages as message events`
          : `the answer to initialize never arrived on the stream (events: ${seen.join(', ') || 'none'}${post.message ? `; the POST's body held ${brief(post.message, 200)}` : ''})`,
    );
  } catch (error) {
    v.notTested('http.sse-messages-on-stream', `reading the stream failed: ${errorMessage(error)}`);
  } finally {
    close();
  }
}
