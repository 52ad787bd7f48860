/**
 * Verdicts on everything the server sent during a revision's probes, whichever probe caused it:
 * the official schema, the JSON-RPC envelope, stdout hygiene, requests it should not send, and the
 * 2026-07-28 result fields (resultType, serverInfo, cache hints).
 */
import { META } from '../../protocol/meta.js';
import { brief } from '../wire.js';
import { checkerCapabilities, type ProbeContext } from './context.js';

/** Results that are cacheable in 2026-07-28. */
const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);
const RESULT_TYPES = new Set(['complete', 'input_required']);
/** The client capability each server request needs. */
const CAPABILITY_OF: Record<string, string> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * A revision whose handshake failed: only what broke the framing or the ids is judged (a server
 * that answered with the wrong id, or split a message over lines, fails those rules, and the report
 * says so, rather than calling the revision unspoken without a word).
 */
export function judgeBroken(ctx: ProbeContext): void {
  const { wire, verdicts: v } = ctx;
  for (const problem of wire.envelopeProblems) v.fail(problem.rule, problem.evidence);
  // A line that begins a JSON value is a message broken over lines; other text means no MCP at all.
  if (ctx.transport === 'stdio') {
    for (const line of wire.malformed.filter((l) => /not valid JSON: "[{[]/.test(l)))
      v.fail('stdio.messages-only', `stdout carried something that is not a JSON-RPC message: ${line}`);
  }
}

export function judgeObserved(ctx: ProbeContext): void {
  const { wire, verdicts: v } = ctx;
  const seen = wire.inbound.length;
  if (seen === 0) return;

  const violations = wire.violations;
  if (violations.length === 0) {
    v.pass('schema.server-messages', `${seen} message(s) checked against the ${ctx.revision} schema`);
  }
  for (const violation of violations) v.fail('schema.server-messages', violation.message);
  if (wire.extraFields.length === 0) {
    v.pass('schema.revision-fields', `no message carries fields ${ctx.revision} does not define`);
  }
  for (const extra of wire.extraFields) v.fail('schema.revision-fields', extra.message);

  const envelopeRules = [
    'jsonrpc.version',
    'jsonrpc.response-id',
    'jsonrpc.result-or-error',
    'jsonrpc.error-code',
  ] as const;
  for (const rule of envelopeRules) {
    const problems = wire.envelopeProblems.filter((p) => p.rule === rule);
    if (problems.length === 0) v.pass(rule, `${seen} message(s) keep the rule`);
    for (const problem of problems) v.fail(rule, problem.evidence);
  }

  if (ctx.transport === 'stdio') {
    if (wire.malformed.length === 0) v.pass('stdio.messages-only', 'stdout carried only JSON-RPC messages');
    for (const line of wire.malformed)
      v.fail('stdio.messages-only', `stdout carried something that is not a JSON-RPC message: ${line}`);
  }

  if (ctx.modern) {
    const requests = wire.serverRequests;
    v.expect(
      'lifecycle.no-server-requests',
      requests.length === 0,
      'the server sent no requests',
      () =>
        `the server sent ${requests.map((r) => r.method).join(', ')}: a 2026-07-28 server sends no requests`,
    );
    for (const { method, result } of wire.results) {
      const type = result.resultType;
      v.expect(
        'envelope.result-type',
        typeof type === 'string' && RESULT_TYPES.has(type),
        'every result carries resultType',
        () => `the result of ${method} has resultType ${brief(type)}: ${brief(result)}`,
      );
      const meta = result._meta as Record<string, unknown> | undefined;
      v.expect(
        'envelope.server-info',
        typeof meta?.[META.serverInfo] === 'object',
        'results carry serverInfo',
        () => `the result of ${method} has no _meta["${META.serverInfo}"]`,
      );
      if (CACHEABLE.has(method) && type !== 'input_required') {
        const ttl = result.ttlMs;
        const scope = result.cacheScope;
        v.expect(
          'caching.fields',
          Number.isInteger(ttl) && (ttl as number) >= 0 && (scope === 'public' || scope === 'private'),
          'cacheable results carry ttlMs and cacheScope',
          () => `the result of ${method} has ttlMs ${brief(ttl)} and cacheScope ${brief(scope)}`,
        );
      }
    }
  } else {
    const early = wire.serverRequests.filter((r) => r.beforeInitialized && r.method !== 'ping');
    v.expect(
      'lifecycle.no-requests-before-initialized',
      early.length === 0,
      'no requests before initialized',
      () => `the server sent ${early.map((r) => r.method).join(', ')} before the initialized notification`,
    );
    const declared = checkerCapabilities(ctx.revision);
    const undeclared = wire.serverRequests.filter(
      (r) => CAPABILITY_OF[r.method] !== undefined && !(CAPABILITY_OF[r.method]! in declared),
    );
    v.expect(
      'capabilities.client-respected',
      undeclared.length === 0,
      'no requests for capabilities the client lacks',
      () =>
        `the server sent ${undeclared.map((r) => r.method).join(', ')} to a client that declared only ${JSON.stringify(declared)}`,
    );
  }
}
