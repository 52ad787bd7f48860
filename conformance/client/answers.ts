/**
 * How the conformance client answers the server's questions, as a user or a model would: a form is
 * accepted as pre-filled, a sampling request gets a fixed completion, and the roots are one test
 * directory. Fields with a `default` are left out of the answer: the Switchboard client fills them
 * in (SEP-1034), which is what `elicitation-sep1034-client-defaults` checks.
 */
import type { CreateMessageResult, ElicitParams, ElicitResult, Root } from 'switchboard';

type FieldSchema = {
  type?: string;
  default?: unknown;
  enum?: unknown[];
  oneOf?: { const?: unknown }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown }[] };
};

/** The value a form field shows before the user touches it. */
export function prefilled(field: FieldSchema): unknown {
  if (field.default !== undefined) return field.default;
  if (field.enum?.length) return field.enum[0];
  if (field.oneOf?.length) return field.oneOf[0]!.const;
  switch (field.type) {
    case 'boolean':
      return true;
    case 'number':
    case 'integer':
      return 1;
    case 'array': {
      const first = field.items?.enum?.[0] ?? field.items?.anyOf?.[0]?.const;
      return first === undefined ? [] : [first];
    }
    default:
      return 'test';
  }
}

export function acceptForm(params: ElicitParams): ElicitResult {
  if (params.mode === 'url') return { action: 'accept' };
  const properties = (params.requestedSchema.properties ?? {}) as Record<string, FieldSchema>;
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(properties)) {
    if (field.default === undefined) content[name] = prefilled(field);
  }
  return { action: 'accept', content: content as ElicitResult['content'] };
}

export const sampled = (): CreateMessageResult => ({
  role: 'assistant',
  content: { type: 'text', text: 'This is a test response from the client' },
  model: 'conformance-test-model',
  stopReason: 'endTurn',
});

export const ROOTS: readonly Root[] = [{ uri: 'file:///test/root', name: 'Test Root' }];
