import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { InputHandlers } from '../../src/client/input-handlers.js';
import type { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import { featuresOf, type Revision } from '../../src/protocol/revisions.js';
import type { ElicitParams } from '../../src/protocol/types.js';
import { advance, controlClock, settleOnClock } from '../helpers/clock.js';
import { connectPair } from '../helpers/pair.js';
import { gate } from '../helpers/wait.js';
import { openWire } from '../helpers/wire.js';

const FORM_REVISIONS: Revision[] = ['2026-07-28', '2025-11-25', '2025-06-18'];
const textOf = (result: { content: { type: string }[] }) =>
  (result.content[0] as { type: 'text'; text: string }).text;

function profileServer(onRun?: () => void) {
  const server = new Server({ name: 'elicit', version: '1.0.0' });
  server.registerTool('profile', { description: 'Asks for a profile' }, async (_args, ctx) => {
    onRun?.();
    const answer = await ctx.elicit({
      message: 'Who are you?',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name', minLength: 1 },
          age: { type: 'integer', minimum: 0 },
          admin: { type: 'boolean', default: false },
        },
        required: ['name'],
      },
    });
    if (answer.action !== 'accept') return `no profile (${answer.action})`;
    // Typed from the schema: name is string, age number | undefined, admin boolean | undefined.
    const { name, age, admin } = answer.content;
    return `${name.toUpperCase()} ${age ?? '?'} ${admin === true}`;
  });
  return server;
}

for (const revision of FORM_REVISIONS) {
  describe(`elicitation on ${revision}`, () => {
    test('form: the accepted answer reaches the handler, checked and typed', async () => {
      let runs = 0;
      const seen: ElicitParams[] = [];
      const pair = await connectPair(
        profileServer(() => runs++),
        { version: { pin: revision } },
        (client) =>
          client.onElicitation((params) => {
            seen.push(params);
            return { action: 'accept', content: { name: 'ada', age: 36, extra: 'dropped' } as never };
          }),
      );
      const result = await pair.client.callTool('profile', {});
      assert.equal(textOf(result), 'ADA 36 false');
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.message, 'Who are you?');
      // Modern: the handler ran once per round (asked, then answered); legacy: once.
      assert.equal(runs, revision === '2026-07-28' ? 2 : 1);
      pair.assertClean();
      await pair.close();
    });

    test('form: decline and cancel reach the handler without content', async () => {
      for (const action of ['decline', 'cancel'] as const) {
        const pair = await connectPair(profileServer(), { version: { pin: revision } }, (client) =>
          client.onElicitation(() => ({ action })),
        );
        assert.equal(textOf(await pair.client.callTool('profile', {})), `no profile (${action})`);
        pair.assertClean();
        await pair.close();
      }
    });

    test('a client without the elicitation capability is never asked', async () => {
      const pair = await connectPair(profileServer(), { version: { pin: revision } });
      if (revision === '2026-07-28') {
        await assert.rejects(pair.client.callTool('profile', {}), (error: unknown) => {
          assert.ok(error instanceof ProtocolError);
          assert.equal(error.code, ErrorCode.MissingRequiredClientCapability);
          assert.deepEqual(error.data, { requiredCapabilities: { elicitation: { form: {} } } });
          return true;
        });
      } else {
        const result = await pair.client.callTool('profile', {});
        assert.equal(result.isError, true);
        assert.match(textOf(result), /did not declare the capability \{"elicitation":\{"form":\{\}\}\}/);
      }
      pair.assertClean();
      await pair.close();
    });

    test('the client refuses to send an answer that does not match the form', async () => {
      const pair = await connectPair(profileServer(), { version: { pin: revision } }, (client) =>
        client.onElicitation(() => ({ action: 'accept', content: { age: -1 } })),
      );
      if (revision === '2026-07-28') {
        await assert.rejects(pair.client.callTool('profile', {}), (error: unknown) => {
          assert.ok(error instanceof SwitchboardError);
          assert.equal(error.code, 'CONFIG');
          assert.match(error.message, /"name": required; "age": must be >= 0/);
          return true;
        });
      } else {
        // Legacy: the client answers the server's request with an error; the tool reports it.
        const result = await pair.client.callTool('profile', {});
        assert.equal(result.isError, true);
        assert.match(textOf(result), /"name": required; "age": must be >= 0/);
      }
      pair.assertClean();
      await pair.close();
    });

    test('a zod form validates and types the answer', async () => {
      const server = new Server({ name: 'zod-elicit', version: '1.0.0' });
      const Contact = z.object({
        email: z.email(),
        newsletter: z.boolean().default(true),
        plan: z.enum(['free', 'pro']),
      });
      server.registerTool('contact', {}, async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'Contact?', requestedSchema: Contact });
        if (answer.action !== 'accept') return 'none';
        const { email, newsletter, plan } = answer.content;
        return `${email} ${newsletter} ${plan}`;
      });
      const pair = await connectPair(server, { version: { pin: revision } }, (client) =>
        client.onElicitation((params) => {
          assert.ok(params.mode !== 'url');
          assert.deepEqual(Object.keys(params.requestedSchema.properties), ['email', 'newsletter', 'plan']);
          assert.equal('pattern' in params.requestedSchema.properties.email!, false);
          return { action: 'accept', content: { email: 'a@b.io', plan: 'pro' } };
        }),
      );
      assert.equal(textOf(await pair.client.callTool('contact', {})), 'a@b.io true pro');
      pair.assertClean();
      await pair.close();
    });
  });
}

describe('elicitation schemas', () => {
  const every = {
    type: 'object',
    properties: {
      text: { type: 'string', format: 'email', default: 'a@b.io', description: 'd' },
      count: { type: 'number', maximum: 5, default: 2 },
      flag: { type: 'boolean', default: true },
      color: { type: 'string', enum: ['r', 'g'], default: 'g' },
      titled: {
        type: 'string',
        oneOf: [
          { const: 'r', title: 'Red' },
          { const: 'g', title: 'Green' },
        ],
        default: 'r',
      },
      legacy: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
      many: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, minItems: 1, default: ['x'] },
      manyTitled: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] }, maxItems: 1 },
    },
  } as const;

  async function ask(
    revision: Revision,
    schema: object,
    answer: Record<string, unknown> = {},
  ): Promise<{
    client: Client;
    seen: ElicitParams[];
    text: string;
    isError: boolean | undefined;
    close(): Promise<void>;
    assertClean(): void;
  }> {
    const server = new Server({ name: 's', version: '1' });
    server.registerTool('ask', {}, async (_args, ctx) => {
      const r = await ctx.elicit({ message: 'm', requestedSchema: schema as never });
      return JSON.stringify(r.content ?? null);
    });
    const seen: ElicitParams[] = [];
    const pair = await connectPair(server, { version: { pin: revision } }, (client) =>
      client.onElicitation((params) => {
        seen.push(params);
        return { action: 'accept', content: answer as never };
      }),
    );
    const result = await pair.client.callTool('ask', {});
    return { ...pair, seen, text: textOf(result), isError: result.isError };
  }

  test('every field kind travels as is on 2025-11-25 and 2026-07-28', async () => {
    for (const revision of ['2025-11-25', '2026-07-28'] as const) {
      const run = await ask(revision, every, { count: 3, many: ['y'], manyTitled: ['x'], titled: 'g' });
      assert.deepEqual((run.seen[0] as { requestedSchema: unknown }).requestedSchema, every);
      // What the answer left out comes back as its default (SEP-1034).
      assert.equal(
        run.text,
        '{"text":"a@b.io","count":3,"flag":true,"color":"g","titled":"g","many":["y"],"manyTitled":["x"]}',
      );
      run.assertClean();
      await run.close();
    }
  });

  test('2025-06-18: titled choices become enum + enumNames, defaults it lacks are dropped', async () => {
    const { many: _many, manyTitled: _manyTitled, ...single } = every.properties;
    const run = await ask('2025-06-18', { type: 'object', properties: single }, { titled: 'g' });
    assert.deepEqual((run.seen[0] as { requestedSchema: unknown }).requestedSchema, {
      type: 'object',
      properties: {
        text: { type: 'string', format: 'email', description: 'd' },
        count: { type: 'number', maximum: 5 },
        flag: { type: 'boolean', default: true },
        color: { type: 'string', enum: ['r', 'g'] },
        titled: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
        legacy: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
      },
    });
    // The defaults the client never saw are applied by the server.
    assert.equal(run.text, '{"text":"a@b.io","count":2,"flag":true,"color":"g","titled":"g"}');
    run.assertClean();
    await run.close();
  });

  test('2025-06-18: a multi-select field cannot be asked', async () => {
    const run = await ask('2025-06-18', every);
    assert.equal(run.isError, true);
    assert.match(run.text, /multi-select field "many" needs protocol 2025-11-25/);
    assert.equal(run.seen.length, 0);
    run.assertClean();
    await run.close();
  });

  test('anything but a flat form is refused, naming the field', async () => {
    const cases: [object, RegExp][] = [
      [{ type: 'object', properties: { a: { type: 'object' } } }, /field "a" has type "object"/],
      [{ type: 'object', properties: { a: { type: 'string', pattern: 'x' } } }, /field "a" has "pattern"/],
      [
        { type: 'object', properties: { a: { type: 'string', format: 'phone' } } },
        /field "a" has format "phone"/,
      ],
      [
        { type: 'object', properties: { a: { type: 'array', items: { type: 'number' } } } },
        /field "a" is an array; only multi-select/,
      ],
      [
        { type: 'object', properties: { a: { type: 'string', enum: ['x'], default: 'y' } } },
        /field "a" "default" must be one of the choices/,
      ],
      [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
        /"required" must list names/,
      ],
      [{ type: 'object', properties: {}, anyOf: [] }, /has "anyOf"/],
    ];
    for (const [schema, message] of cases) {
      const run = await ask('2026-07-28', schema);
      assert.equal(run.isError, true, JSON.stringify(schema));
      assert.match(run.text, message);
      assert.match(run.text, /ctx\.elicit\(\) requestedSchema/);
      run.assertClean();
      await run.close();
    }
  });

  test('answers are checked field by field (formats, bounds, choices)', async () => {
    const server = new Server({ name: 's', version: '1' });
    const schema = {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        day: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri' },
        n: { type: 'integer', maximum: 3 },
        pick: { type: 'array', items: { type: 'string', enum: ['a'] }, maxItems: 1 },
      },
    } as const;
    let content: Record<string, unknown> = {};
    server.registerTool('ask', {}, async (_args, ctx) => {
      const r = await ctx.elicit({ message: 'm', requestedSchema: schema });
      return JSON.stringify(r.content);
    });
    const pair = await connectPair(server, { version: { pin: '2026-07-28' } }, (client) =>
      client.onElicitation(() => ({ action: 'accept', content: content as never })),
    );
    content = {
      email: 'x@y.io',
      day: '2026-02-28',
      at: '2026-07-28T12:00:00Z',
      site: 'https://a.b/c',
      n: 3,
      pick: ['a'],
    };
    assert.equal(textOf(await pair.client.callTool('ask', {})), JSON.stringify(content));
    content = {
      email: 'nope',
      day: '2026-02-30',
      at: '2026-07-28 12:00',
      site: 'relative/path',
      n: 2.5,
      pick: ['a', 'a'],
    };
    await assert.rejects(pair.client.callTool('ask', {}), (error: unknown) => {
      assert.ok(error instanceof SwitchboardError);
      for (const part of [
        '"email": expected an email address',
        '"day": expected a date',
        '"at": expected a date-time',
        '"site": expected an absolute URI',
        '"n": expected integer, received 2.5',
        '"pick": choose at most 1',
      ]) {
        assert.ok(error.message.includes(part), `${error.message} lacks ${part}`);
      }
      return true;
    });
    pair.assertClean();
    await pair.close();
  });
});

describe('URL-mode elicitation', () => {
  function linkServer(state: { linked: boolean }) {
    const server = new Server({ name: 'url', version: '1.0.0' });
    server.registerTool('consent', {}, async (_args, ctx) => {
      const r = await ctx.elicit({
        mode: 'url',
        message: 'Open to continue',
        url: 'https://example.com/consent',
      });
      return r.action;
    });
    server.registerTool('linked-call', {}, async (_args, ctx) => {
      if (!state.linked) {
        await ctx.requireUrlElicitation({ message: 'Link your account', url: 'https://example.com/link' });
      }
      return 'linked';
    });
    return server;
  }

  test('2025-11-25: an elicitationId, and the completion notification to that client only', async () => {
    const state = { linked: false };
    const server = linkServer(state);
    const seen: ElicitParams[] = [];
    const completed: unknown[] = [];
    const pair = await connectPair(server, { version: { pin: '2025-11-25' } }, (client) => {
      client.onElicitation(
        (params) => {
          seen.push(params);
          return { action: 'accept' };
        },
        { url: true },
      );
      client.on('notifications/elicitation/complete', (params) => completed.push(params.elicitationId));
    });
    assert.equal(textOf(await pair.client.callTool('consent', {})), 'accept');
    const params = seen[0] as { mode: string; elicitationId: string; url: string };
    assert.equal(params.mode, 'url');
    assert.match(params.elicitationId, /^[0-9a-f-]{36}$/);
    assert.equal(server.completeElicitation(params.elicitationId), true);
    assert.equal(server.completeElicitation(params.elicitationId), false);
    assert.equal(server.completeElicitation('unknown'), false);

    let required = '';
    await assert.rejects(pair.client.callTool('linked-call', {}), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ErrorCode.UrlElicitationRequired);
      const [elicitation] = (error.data as { elicitations: { elicitationId: string; url: string }[] })
        .elicitations;
      assert.equal(elicitation!.url, 'https://example.com/link');
      required = elicitation!.elicitationId;
      return true;
    });
    assert.equal(server.completeElicitation(required), true);
    await pair.client.listTools(); // lets the notification arrive
    assert.deepEqual(completed, [params.elicitationId, required]);
    state.linked = true;
    assert.equal(textOf(await pair.client.callTool('linked-call', {})), 'linked');
    pair.assertClean();
    await pair.close();
  });

  test('2026-07-28: no elicitationId; a required URL elicitation answers input_required until done', async () => {
    const state = { linked: false };
    const seen: ElicitParams[] = [];
    const pair = await connectPair(linkServer(state), { version: { pin: '2026-07-28' } }, (client) =>
      client.onElicitation(
        (params) => {
          seen.push(params);
          // The user completed the flow in the browser.
          if (params.message === 'Link your account') state.linked = true;
          return { action: 'accept' };
        },
        { url: true },
      ),
    );
    assert.equal(textOf(await pair.client.callTool('consent', {})), 'accept');
    assert.deepEqual(seen[0], {
      mode: 'url',
      message: 'Open to continue',
      url: 'https://example.com/consent',
    });
    assert.equal(textOf(await pair.client.callTool('linked-call', {})), 'linked');
    assert.deepEqual(seen[1], { mode: 'url', message: 'Link your account', url: 'https://example.com/link' });
    pair.assertClean();
    await pair.close();
  });

  test('URL mode needs elicitation.url, and protocol 2025-11-25+', async () => {
    const formOnly = (client: Client) => client.onElicitation(() => ({ action: 'accept' }));
    const modern = await connectPair(
      linkServer({ linked: false }),
      { version: { pin: '2026-07-28' } },
      formOnly,
    );
    await assert.rejects(modern.client.callTool('consent', {}), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.deepEqual(error.data, { requiredCapabilities: { elicitation: { url: {} } } });
      return true;
    });
    await modern.close();
    const old = await connectPair(
      linkServer({ linked: false }),
      { version: { pin: '2025-06-18' } },
      (client) => client.onElicitation(() => ({ action: 'accept' }), { url: true }),
    );
    const result = await old.client.callTool('consent', {});
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /URL-mode elicitation needs protocol 2025-11-25 or later; this client speaks 2025-06-18/,
    );
    old.assertClean();
    await old.close();
  });
});

describe('legacy server→client requests', () => {
  test('a declared capability without a handler answers -32601, which the tool reports', async () => {
    const pair = await connectPair(profileServer(), {
      version: { pin: '2025-11-25' },
      capabilities: { elicitation: {} },
    });
    const result = await pair.client.callTool('profile', {});
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /The client could not answer elicitation\/create: Method not found: elicitation\/create\. This client has no handler for it \(error -32601\)/,
    );
    pair.assertClean();
    await pair.close();
  });

  test('our pending call does not time out while the user answers (controlled clock)', async (t) => {
    const user = gate();
    let asked = 0;
    const pair = await connectPair(
      profileServer(),
      { version: { pin: '2025-11-25' }, timeoutMs: 40 },
      (client) =>
        client.onElicitation(async () => {
          asked++;
          await user.wait;
          return { action: 'accept', content: { name: 'slow' } };
        }),
    );
    controlClock(t);
    const call = pair.client.callTool('profile', {});
    // The user takes 10 s of virtual time, 250 times the call's timeout, to answer.
    await advance(t, 10_000, 50);
    assert.equal(asked, 1, 'the question reached the user');
    user.open();
    const outcome = await settleOnClock(t, call);
    assert.ok('value' in outcome, String((outcome as { error?: unknown }).error));
    assert.equal(textOf(outcome.value), 'SLOW ? false');
    pair.assertClean();
    await pair.close();
  });
});

describe('the client reading a server form', () => {
  test('keywords a form does not define are ignored, not refused; non-flat forms are refused', async () => {
    const handlers = new InputHandlers();
    handlers.setElicitation(() => ({ action: 'accept', content: { code: 'AB' } }));
    const ctx = {
      signal: new AbortController().signal,
      revision: '2025-11-25' as const,
      era: 'legacy' as const,
    };
    const f = featuresOf('2025-11-25');
    const loose = {
      message: 'm',
      requestedSchema: {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^[A-Z]+$', 'x-widget': 'big' } },
        additionalProperties: true,
      },
    };
    assert.deepEqual(await handlers.answer('elicitation/create', loose, ctx, f), {
      action: 'accept',
      content: { code: 'AB' },
    });
    const nested = {
      message: 'm',
      requestedSchema: { type: 'object', properties: { a: { type: 'object' } } },
    };
    await assert.rejects(handlers.answer('elicitation/create', nested, ctx, f), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.match(error.message, /field "a" has type "object"/);
      return true;
    });
  });
});

describe('elicitation defaults (SEP-1034)', () => {
  const form = {
    type: 'object',
    properties: {
      name: { type: 'string', default: 'ada' },
      count: { type: 'integer', default: 3 },
      subscribe: { type: 'boolean', default: true },
      color: { type: 'string', enum: ['red', 'green'], default: 'green' },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['b'] },
      note: { type: 'string' },
    },
    required: ['name', 'count'],
  } as const;

  test('the client fills in what the handler left out, and still refuses a missing required field', async () => {
    const ctx = {
      signal: new AbortController().signal,
      revision: '2025-11-25' as const,
      era: 'legacy' as const,
    };
    const f = featuresOf('2025-11-25');
    const handlers = new InputHandlers();
    handlers.setElicitation(() => ({ action: 'accept', content: { count: 7 } }));
    assert.deepEqual(
      await handlers.answer('elicitation/create', { message: 'm', requestedSchema: form }, ctx, f),
      {
        action: 'accept',
        content: { name: 'ada', count: 7, subscribe: true, color: 'green', tags: ['b'] },
      },
    );
    const noDefault = { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] };
    handlers.setElicitation(() => ({ action: 'accept', content: {} }));
    await assert.rejects(
      handlers.answer('elicitation/create', { message: 'm', requestedSchema: noDefault }, ctx, f),
      /"code": required/,
    );
  });

  test('the server fills them in too, for a client that did not (raw 2025-11-25 client)', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.registerTool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'm', requestedSchema: form });
      return JSON.stringify(answer.content);
    });
    const wire = await openWire(server, { check: true });
    await wire.initialize('2025-11-25', { elicitation: {} });
    wire.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask', arguments: {} } });
    const ask = await wire.next();
    assert.equal(ask.method, 'elicitation/create');
    assert.deepEqual(ask.params.requestedSchema.properties.count, { type: 'integer', default: 3 });
    wire.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'grace' } } });
    const reply = await wire.next();
    assert.equal(reply.id, 'call');
    assert.deepEqual(JSON.parse(reply.result.content[0].text), {
      name: 'grace',
      count: 3,
      subscribe: true,
      color: 'green',
      tags: ['b'],
    });
    wire.assertClean();
    await wire.close();
  });

  test('2025-06-18 forms carry only boolean defaults; the server applies the rest', async () => {
    const { tags: _tags, ...properties } = form.properties;
    const single = { ...form, properties };
    const server = new Server({ name: 's', version: '1' });
    server.registerTool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'm', requestedSchema: single });
      return JSON.stringify(answer.content);
    });
    const seen: ElicitParams[] = [];
    const pair = await connectPair(server, { version: { pin: '2025-06-18' } }, (client) =>
      client.onElicitation((params) => {
        seen.push(params);
        // The required fields: their defaults (a string, a number) do not travel on 2025-06-18.
        return { action: 'accept', content: { name: 'grace', count: 5 } };
      }),
    );
    const result = await pair.client.callTool('ask', {});
    const asked = seen[0]!;
    assert.ok(asked.mode !== 'url');
    const sent = asked.requestedSchema.properties as Record<string, { default?: unknown }>;
    assert.equal(sent.count!.default, undefined, 'no number default on 2025-06-18');
    assert.equal(sent.subscribe!.default, true);
    assert.deepEqual(JSON.parse(textOf(result)), {
      name: 'grace',
      count: 5,
      subscribe: true,
      color: 'green',
    });
    pair.assertClean();
    await pair.close();
  });
});
