/**
 * Resources: read what is listed, parse every template, and read a URI that names nothing (the
 * not-found error of the revision in use).
 */
import { UriTemplate } from '../../server/uri-template.js';
import { errorMessage } from '../../util/guards.js';
import { brief, describeReply, type Json, type Reply } from '../wire.js';
import type { ProbeContext } from './context.js';

/** Listed resources read at most per revision. */
const MAX_READ = 5;
const MISSING = 'switchboard-check://no-such-resource/d41d8cd98f00b204';
/** The value of a template variable the server offers no completion for. */
const MADE_UP = 'switchboard-check';

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
  if (templates.length === 0)
    v.notApplicable('resources.template-read', 'the server lists no resource templates');
  for (const [index, template] of templates.entries()) {
    const text = String(template.uriTemplate);
    let problem: string | undefined;
    let parsed: UriTemplate | undefined;
    try {
      parsed = new UriTemplate(text);
    } catch (error) {
      problem = errorMessage(error);
    }
    v.expect(
      'resources.template-syntax',
      problem === undefined,
      'every resource template parses as RFC 6570',
      () => `resource template ${brief(text)} is not a valid RFC 6570 template: ${problem}`,
    );
    if (parsed && index < MAX_READ) await readExpanded(ctx, parsed);
  }

  const reply = await ctx.request('resources/read', { uri: MISSING });
  judgeNotFound(ctx, reply);
}

/**
 * Expands a template with values its completion offers (when the server completes) or made-up
 * ones, and reads the URI: offered values must name a resource; made-up ones may be refused.
 */
async function readExpanded(ctx: ProbeContext, template: UriTemplate): Promise<void> {
  const values: Record<string, string> = {};
  let offered = template.variableNames.length > 0;
  for (const name of template.variableNames) {
    const value = await completed(ctx, template.template, name);
    offered &&= value !== undefined;
    values[name] = value ?? MADE_UP;
  }
  const uri = template.expand(values);
  const reply = await ctx.request('resources/read', { uri });
  if (reply.kind === 'result' && reply.result.resultType === 'input_required') return;
  const read = reply.kind === 'result' && Array.isArray(reply.result.contents);
  ctx.verdicts.expect(
    'resources.template-read',
    offered ? read : read || reply.kind === 'error',
    offered ? 'URIs expanded with completed values are read' : 'URIs expanded from templates are answered',
    () =>
      `resources/read of ${JSON.stringify(uri)}, expanded from ${JSON.stringify(template.template)} with ${brief(values)}${offered ? ' (values the server completed)' : ''}, was answered with ${describeReply(reply)}`,
  );
}

/** The first value completion/complete offers for a template variable, if the server completes. */
async function completed(ctx: ProbeContext, uriTemplate: string, name: string): Promise<string | undefined> {
  if (!ctx.declares('completions')) return undefined;
  const reply = await ctx.request('completion/complete', {
    ref: { type: 'ref/resource', uri: uriTemplate },
    argument: { name, value: '' },
  });
  const values = reply.kind === 'result' ? (reply.result.completion as Json | undefined)?.values : undefined;
  return Array.isArray(values) && typeof values[0] === 'string' ? values[0] : undefined;
}

function judgeNotFound(ctx: ProbeContext, reply: Reply): void {
  const v = ctx.verdicts;
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
