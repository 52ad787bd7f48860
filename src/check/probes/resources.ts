/**
 * Resources: read what is listed, parse every template, and read a URI that names nothing (the
 * not-found error of the revision in use).
 */
import { UriTemplate } from '../../server/uri-template.js';
import { errorMessage } from '../../util/guards.js';
import { brief, describeReply, type Json } from '../wire.js';
import type { ProbeContext } from './context.js';

/** Listed resources read at most per revision. */
const MAX_READ = 5;
const MISSING = 'switchboard-check://no-such-resource/d41d8cd98f00b204';

export async function probeResources(
  ctx: ProbeContext,
  resources: readonly Json[],
  templates: readonly Json[],
): Promise<void> {
  const v = ctx.verdicts;
  if (resources.length === 0) v.notApplicable('resources.read-listed', 'the server lists no resources');
  for (const resource of resources.slice(0, MAX_READ)) {
    const uri = String(resource.uri);
    const reply = await ctx.request('resources/read', { uri });
    if (reply.kind === 'result' && reply.result.resultType === 'input_required') continue;
    const contents = reply.kind === 'result' ? reply.result.contents : undefined;
    v.expect(
      'resources.read-listed',
      Array.isArray(contents) &&
        contents.every((c) => typeof c === 'object' && c !== null && typeof (c as Json).uri === 'string'),
      'listed resources can be read',
      () =>
        `resources/read of listed resource ${JSON.stringify(uri)} was answered with ${describeReply(reply)}`,
    );
  }
  if (templates.length === 0)
    v.notApplicable('resources.template-syntax', 'the server lists no resource templates');
  for (const template of templates) {
    const text = String(template.uriTemplate);
    let problem: string | undefined;
    try {
      new UriTemplate(text);
    } catch (error) {
      problem = errorMessage(error);
    }
    v.expect(
      'resources.template-syntax',
      problem === undefined,
      'every resource template parses as RFC 6570',
      () => `resource template ${brief(text)} is not a valid RFC 6570 template: ${problem}`,
    );
  }

  const reply = await ctx.request('resources/read', { uri: MISSING });
  if (ctx.modern) {
    v.expect(
      'resources.not-found-modern',
      reply.kind === 'error' && reply.code === -32602,
      'reading a resource that does not exist is refused with -32602',
      () =>
        `resources/read of ${MISSING} was answered with ${describeReply(reply)}; 2026-07-28 requires error -32602`,
    );
  } else {
    v.expect(
      'resources.not-found',
      reply.kind === 'error' && reply.code === -32002,
      'reading a resource that does not exist is refused with -32002',
      () =>
        `resources/read of ${MISSING} was answered with ${describeReply(reply)}; the spec names error -32002 (Resource not found)`,
    );
  }
}
