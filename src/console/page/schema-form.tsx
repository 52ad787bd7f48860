/**
 * A form generated from a JSON Schema object (a tool's inputSchema, an elicitation's requestedSchema):
 * strings (with formats, enums and titled `oneOf` choices), numbers, integers, booleans, arrays of
 * choices or of values, nested objects; defaults filled in, required fields marked, and the value
 * checked before it is sent. What a form cannot show goes through the raw JSON editor beside it.
 */
import { useId, useState } from 'preact/hooks';

export type Schema = Record<string, unknown>;
type Value = Record<string, unknown>;

const schemaOf = (value: unknown): Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : {};
const typeOf = (schema: Schema): string | undefined => {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') as string | undefined;
  return typeof type === 'string' ? type : schema.properties ? 'object' : undefined;
};

interface Choice {
  readonly value: unknown;
  readonly label: string;
}

/** `enum` (with the legacy `enumNames`), or `oneOf`/`anyOf` of `{ const, title }`. */
function choicesOf(schema: Schema): Choice[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({ value, label: String(names[i] ?? value) }));
  }
  const options = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(options) && options.length > 0 && options.every((o) => 'const' in schemaOf(o))) {
    return options.map((o) => {
      const option = schemaOf(o);
      return { value: option.const, label: String(option.title ?? option.const) };
    });
  }
  return undefined;
}

/** The starting value: every default the schema gives. */
export function defaultsOf(schema: Schema): Value {
  const value: Value = {};
  for (const [name, property] of Object.entries(schemaOf(schema.properties))) {
    const p = schemaOf(property);
    if (p.default !== undefined) value[name] = p.default;
    else if (typeOf(p) === 'object' && p.properties) {
      const nested = defaultsOf(p);
      if (Object.keys(nested).length > 0) value[name] = nested;
    }
  }
  return value;
}

/** The problems with `value`, by field path ("" for the whole), as a person should read them. */
export function validate(schema: Schema, value: unknown, path = ''): Map<string, string> {
  const problems = new Map<string, string>();
  const properties = schemaOf(schema.properties);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const object = schemaOf(value);
  for (const name of required) {
    if (object[name] === undefined || object[name] === '') problems.set(join(path, name), 'Required.');
  }
  for (const [name, raw] of Object.entries(object)) {
    const p = schemaOf(properties[name]);
    const at = join(path, name);
    const problem = checkValue(p, raw);
    if (problem) problems.set(at, problem);
    else if (typeOf(p) === 'object' && raw !== undefined)
      for (const [k, v] of validate(p, raw, at)) problems.set(k, v);
  }
  return problems;
}

function checkValue(schema: Schema, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const type = typeOf(schema);
  const choices = choicesOf(schema);
  if (choices && !choices.some((c) => c.value === value))
    return `Choose one of ${choices.map((c) => c.label).join(', ')}.`;
  if ((type === 'number' || type === 'integer') && typeof value !== 'number') return 'Enter a number.';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'Enter a number.';
    if (type === 'integer' && !Number.isInteger(value)) return 'Enter a whole number.';
    if (typeof schema.minimum === 'number' && value < schema.minimum) return `At least ${schema.minimum}.`;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return `At most ${schema.maximum}.`;
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      return `At least ${schema.minLength} character${schema.minLength === 1 ? '' : 's'}.`;
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
      return `At most ${schema.maxLength} characters.`;
    if (typeof schema.pattern === 'string') {
      try {
        if (!new RegExp(schema.pattern, 'u').test(value)) return `Must match ${schema.pattern}.`;
      } catch {
        // A pattern JavaScript cannot read is the server's to check.
      }
    }
    if (schema.format === 'email' && !/^[^@\s]+@[^@\s]+$/.test(value)) return 'Enter an email address.';
    if (schema.format === 'uri' && !URL.canParse(value)) return 'Enter a full URI.';
    if (schema.format === 'date-time' && !DATE_TIME.test(value))
      return 'Enter a date and time with its offset, like 2026-11-28T09:30:00Z.';
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      return `Choose at least ${schema.minItems}.`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      return `Choose at most ${schema.maxItems}.`;
  }
  return undefined;
}

/** RFC 3339 date-time, as JSON Schema's `date-time` format asks. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

interface FormProps {
  readonly schema: Schema;
  readonly value: Value;
  readonly onChange: (value: Value) => void;
  /** Problems to show (after a send was refused), by field path. */
  readonly problems: Map<string, string>;
  readonly path?: string;
}

/** The fields of an object schema. */
export function SchemaFields({ schema, value, onChange, problems, path = '' }: FormProps) {
  const properties = Object.entries(schemaOf(schema.properties));
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  if (properties.length === 0) return <p class="muted">No arguments.</p>;
  return (
    <div class="fields">
      {properties.map(([name, property]) => (
        <Field
          key={name}
          name={name}
          path={join(path, name)}
          schema={schemaOf(property)}
          required={required.has(name)}
          value={value[name]}
          problems={problems}
          onChange={(next) => {
            const copy = { ...value };
            if (next === undefined) delete copy[name];
            else copy[name] = next;
            onChange(copy);
          }}
        />
      ))}
    </div>
  );
}

interface FieldProps {
  readonly name: string;
  readonly path: string;
  readonly schema: Schema;
  readonly required: boolean;
  readonly value: unknown;
  readonly problems: Map<string, string>;
  readonly onChange: (value: unknown) => void;
}

function Field({ name, path, schema, required, value, problems, onChange }: FieldProps) {
  const id = useId();
  const problem = problems.get(path);
  const label = String(schema.title ?? name);
  const type = typeOf(schema);
  const choices = choicesOf(schema);
  const describedBy = [schema.description ? `${id}-d` : '', problem ? `${id}-e` : '']
    .filter(Boolean)
    .join(' ');
  const common = {
    id,
    name: path,
    'aria-required': required,
    'aria-invalid': problem !== undefined,
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
  };
  const caption = (
    <>
      {schema.description ? (
        <small id={`${id}-d`} class="hint">
          {String(schema.description)}
        </small>
      ) : null}
      {problem ? (
        <small id={`${id}-e`} class="problem" role="alert">
          {problem}
        </small>
      ) : null}
    </>
  );
  const heading = (
    <>
      {label}
      {required ? (
        <span class="required" title="required">
          {' *'}
        </span>
      ) : null}
    </>
  );

  if (type === 'object' && schema.properties) {
    return (
      <fieldset class="field nested">
        <legend>{heading}</legend>
        {caption}
        <SchemaFields
          schema={schema}
          value={schemaOf(value)}
          path={path}
          problems={problems}
          onChange={(next) => onChange(Object.keys(next).length === 0 ? undefined : next)}
        />
      </fieldset>
    );
  }
  if (type === 'boolean') {
    return (
      <div class="field check">
        <input
          type="checkbox"
          {...common}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked ? true : required ? false : undefined)}
        />
        <label for={id}>{heading}</label>
        {caption}
      </div>
    );
  }
  const itemChoices = type === 'array' ? choicesOf(schemaOf(schema.items)) : undefined;
  if (itemChoices) {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset class="field">
        <legend>{heading}</legend>
        {itemChoices.map((choice) => (
          <label key={String(choice.value)} class="choice">
            <input
              type="checkbox"
              name={path}
              checked={chosen.includes(choice.value)}
              onChange={(e) => {
                const next = e.currentTarget.checked
                  ? [...chosen, choice.value]
                  : chosen.filter((v) => v !== choice.value);
                onChange(next.length === 0 && !required ? undefined : next);
              }}
            />
            {choice.label}
          </label>
        ))}
        {caption}
      </fieldset>
    );
  }
  let input: preact.JSX.Element;
  if (choices) {
    input = (
      <select
        {...common}
        value={value === undefined ? '' : String(choices.findIndex((c) => c.value === value))}
        onChange={(e) => {
          const index = e.currentTarget.value;
          onChange(index === '' ? undefined : choices[Number(index)]?.value);
        }}
      >
        <option value="">{required ? 'Choose…' : '(none)'}</option>
        {choices.map((choice, i) => (
          <option key={String(choice.value)} value={String(i)}>
            {choice.label}
          </option>
        ))}
      </select>
    );
  } else if (type === 'number' || type === 'integer') {
    input = (
      <input
        type="number"
        {...common}
        step={type === 'integer' ? 1 : 'any'}
        {...(typeof schema.minimum === 'number' ? { min: schema.minimum } : {})}
        {...(typeof schema.maximum === 'number' ? { max: schema.maximum } : {})}
        value={typeof value === 'number' ? String(value) : ''}
        onInput={(e) => {
          const text = e.currentTarget.value;
          onChange(text === '' ? undefined : Number(text));
        }}
      />
    );
  } else if (type === 'string' || type === undefined) {
    const multiline =
      schema.format === undefined && (typeof schema.maxLength !== 'number' || schema.maxLength > 200);
    const inputType = (INPUT_TYPES[String(schema.format)] ?? 'text') as 'text';
    input =
      type === undefined ? (
        <JsonValueInput common={common} value={value} onChange={onChange} />
      ) : multiline ? (
        <textarea
          {...common}
          rows={2}
          value={typeof value === 'string' ? value : ''}
          onInput={(e) => onChange(emptyToUndefined(e.currentTarget.value, required))}
        />
      ) : (
        <input
          type={inputType}
          {...common}
          value={typeof value === 'string' ? value : ''}
          onInput={(e) => onChange(emptyToUndefined(e.currentTarget.value, required))}
        />
      );
  } else {
    // Arrays of values, and whatever else: edited as JSON.
    input = <JsonValueInput common={common} value={value} onChange={onChange} />;
  }
  return (
    <div class="field">
      <label for={id}>
        {heading} <span class="type">{type === 'array' ? 'array (JSON)' : (type ?? 'any (JSON)')}</span>
      </label>
      {input}
      {caption}
    </div>
  );
}

/** String formats with an input of their own (the browser's pickers and keyboards). */
const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date' };

const emptyToUndefined = (text: string, required: boolean) => (text === '' && !required ? undefined : text);

/** A value typed as JSON; shown as the person typed it until it parses. */
function JsonValueInput({
  common,
  value,
  onChange,
}: {
  common: Record<string, unknown>;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value));
  return (
    <textarea
      {...common}
      class="mono"
      rows={2}
      value={text}
      onInput={(e) => {
        const next = e.currentTarget.value;
        setText(next);
        if (next.trim() === '') return onChange(undefined);
        try {
          onChange(JSON.parse(next));
        } catch {
          // Not JSON yet: the raw text waits, the value keeps its last good state.
        }
      }}
    />
  );
}

/** A form and a raw JSON editor over one value; either can be used, they stay in step. */
export function ArgumentsEditor({
  schema,
  value,
  onChange,
  problems,
}: {
  schema: Schema;
  value: Value;
  onChange: (value: Value) => void;
  problems: Map<string, string>;
}) {
  const [raw, setRaw] = useState<string | undefined>(undefined);
  const [rawProblem, setRawProblem] = useState<string | undefined>(undefined);
  const id = useId();
  return (
    <div class="arguments">
      <fieldset class="switch">
        <legend class="sr-only">Edit arguments as</legend>
        <button type="button" aria-pressed={raw === undefined} onClick={() => setRaw(undefined)}>
          Form
        </button>
        <button
          type="button"
          aria-pressed={raw !== undefined}
          onClick={() => setRaw(JSON.stringify(value, null, 2))}
        >
          JSON
        </button>
      </fieldset>
      {raw === undefined ? (
        <SchemaFields schema={schema} value={value} onChange={onChange} problems={problems} />
      ) : (
        <div class="field">
          <label for={id}>Arguments (JSON object)</label>
          <textarea
            id={id}
            class="mono"
            rows={8}
            value={raw}
            aria-invalid={rawProblem !== undefined}
            onInput={(e) => {
              const text = e.currentTarget.value;
              setRaw(text);
              try {
                const parsed = JSON.parse(text || '{}');
                if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
                  throw new Error('Arguments must be a JSON object.');
                setRawProblem(undefined);
                onChange(parsed as Value);
              } catch (error) {
                setRawProblem((error as Error).message);
              }
            }}
          />
          {rawProblem ? (
            <small class="problem" role="alert">
              {rawProblem}
            </small>
          ) : null}
        </div>
      )}
    </div>
  );
}
