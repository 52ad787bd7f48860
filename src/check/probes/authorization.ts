/**
 * Authorization discovery, where a server is protected: the handshake's request sent without the
 * target's Authorization header must get 401 with a Bearer challenge, and the Protected Resource
 * Metadata (RFC 9728) must be found (`resource_metadata` in the challenge, or from 2025-11-25 the
 * well-known URI) and name at least one authorization server. A server that serves the request
 * without a token is not protected: the rules do not apply to it.
 */
import { protectedResourceMetadataUrls } from '../../auth/urls.js';
import { findChallenge } from '../../auth/www-authenticate.js';
import type { Revision } from '../../protocol/revisions.js';
import { errorMessage } from '../../util/guards.js';
import type { Verdicts } from '../results.js';
import type { Json } from '../wire.js';
import { type Answer, describe, type HttpProbe } from './http-probe.js';

const IDS = ['authorization.challenge', 'authorization.metadata-location', 'authorization.metadata'];

/** `anonymous`: the handshake's request, sent without the target's Authorization header. */
export async function probeAuthorization(
  http: HttpProbe,
  v: Verdicts,
  revision: Revision,
  anonymous: () => Promise<Answer>,
): Promise<void> {
  if (revision < '2025-06-18') return;
  const refused = await anonymous();
  if (refused.status >= 200 && refused.status < 300) {
    const session = refused.headers.get('mcp-session-id');
    if (session !== null) await http.send('DELETE', { 'mcp-session-id': session }).catch(() => undefined);
    for (const id of IDS)
      v.notApplicable(id, 'the server serves a request without a token: it is not protected');
    return;
  }
  if (refused.status !== 401) {
    for (const id of IDS) {
      v.notTested(
        id,
        `a request without a token was answered with ${describe(refused)}, neither served nor refused with 401`,
      );
    }
    return;
  }
  const header = refused.headers.get('www-authenticate');
  const challenge = findChallenge(header, 'Bearer');
  v.expect(
    'authorization.challenge',
    challenge !== undefined,
    'a request without a token gets 401 with a Bearer challenge',
    () =>
      `a request without a token was answered with 401 and WWW-Authenticate ${JSON.stringify(header)}; the spec requires a WWW-Authenticate header (a Bearer challenge) on the 401`,
  );
  const named = challenge?.params.resource_metadata;
  // 2025-06-18: the challenge names the metadata. From 2025-11-25 the well-known URI may instead.
  const candidates = named
    ? [named]
    : revision === '2025-06-18'
      ? []
      : protectedResourceMetadataUrls(http.url);
  const tried: string[] = [];
  let found: { url: string; document: Json } | undefined;
  for (const url of candidates) {
    let answer: Answer;
    try {
      answer = await http.send('GET', { accept: 'application/json' }, undefined, { url, anonymous: true });
    } catch (error) {
      tried.push(`${url}: ${errorMessage(error)}`);
      continue;
    }
    if (answer.status === 200 && answer.message) {
      found = { url, document: answer.message };
      break;
    }
    tried.push(`${url}: ${describe(answer)}`);
  }
  v.expect(
    'authorization.metadata-location',
    found !== undefined,
    named ? 'the challenge names the resource metadata' : 'the resource metadata is at the well-known URI',
    () =>
      named
        ? `the 401 challenge names resource_metadata ${named}, which does not serve a JSON document (${tried.join('; ')})`
        : revision === '2025-06-18'
          ? `the 401 challenge (${JSON.stringify(header)}) has no resource_metadata; 2025-06-18 requires the server to name its metadata's URL there`
          : `the 401 challenge (${JSON.stringify(header)}) has no resource_metadata, and no well-known URI serves the metadata (${tried.join('; ')})`,
  );
  if (!found) {
    v.notTested('authorization.metadata', 'the Protected Resource Metadata could not be found');
    return;
  }
  const problems = metadataProblems(found.document, http.url);
  v.expect(
    'authorization.metadata',
    problems.length === 0,
    'the Protected Resource Metadata names the resource and its authorization servers',
    () => `the Protected Resource Metadata at ${found.url}: ${problems.join('; ')}`,
  );
}

function metadataProblems(document: Json, serverUrl: string): string[] {
  const problems: string[] = [];
  const { resource, authorization_servers: servers } = document;
  if (typeof resource !== 'string') {
    problems.push(`resource is ${JSON.stringify(resource)}; RFC 9728 requires the resource identifier`);
  } else if (!URL.canParse(resource) || new URL(resource).origin !== new URL(serverUrl).origin) {
    problems.push(`resource ${JSON.stringify(resource)} is not a URL of the server's origin`);
  }
  if (
    !Array.isArray(servers) ||
    servers.length === 0 ||
    !servers.every((s) => typeof s === 'string' && URL.canParse(s))
  ) {
    problems.push(
      `authorization_servers is ${JSON.stringify(servers)}; the spec requires at least one authorization server's issuer URL`,
    );
  }
  return problems;
}
