/**
 * The vocabulary of the shape definitions (shapes*.ts): one declarative description of every mapping of config.yaml
 * and the metadata YAML files — its keys, which are required, exactly-one pairs, each value's type — read by two
 * consumers, so that they cannot drift: the offline validator (walk.ts walks a value along its shape and
 * words the messages of core.ts) and the JSON Schema generator (json-schema.ts) behind editor support.
 *
 * What a shape cannot say is named, not implemented, here: a `hook` is a semantic rule of the validator (references,
 * the admin role, the event-trigger operations, …) that the schema ignores; `naming` says how the validator names an
 * entry in its messages (the `<thing>` of core.ts), which the schema has no use for.
 */

export type Obj = Record<string, unknown>;

/** A piece of JSON Schema (draft-07). */
export type SchemaFragment = Readonly<Record<string, unknown>>;

/** String formats: the validator checks each with its own message; the schema uses `schema`. */
export type FormatId = 'graphqlName' | 'eventTriggerName' | 'urlTemplate' | 'envName' | 'cronSchedule' | 'graphqlQuery';

/** Semantic rules and bookkeeping of the validator, run on a value once its shape is right (or, `onInvalid`, when not). */
export type HookId =
  | 'adminRole' | 'computedFieldRef' | 'eventTriggerOps' | 'collectionRef' | 'tableRef' | 'metadataVersion'
  | 'actionKind' | 'action' | 'actionPermission' | 'customType' | 'customTypeRelationship';

interface Base {
  description?: string;
  /** Run by the validator after the value passed the shape's own check. */
  hook?: HookId;
  /** The hook's rule in JSON Schema, where JSON Schema can say it (added to the shape's own schema). */
  schema?: SchemaFragment;
  /**
   * Reported as one `permission-invalid` `"<key>" must be <what>` instead of the shape's own messages
   * (cli.md §4.13 "Permissions"); `what` defaults to the shape's own wording.
   */
  report?: { what?: string };
}

export interface StringShape extends Base {
  kind: 'string';
  nonEmpty?: boolean;
  format?: FormatId;
  /** For `graphqlName`: the kind of name in `invalid <nameOf> name`. */
  nameOf?: string;
}
export interface BooleanShape extends Base { kind: 'boolean' }
export interface IntegerShape extends Base { kind: 'integer'; min: number }
export interface EnumShape extends Base {
  kind: 'enum';
  values: readonly (string | number)[];
  /** Words the mismatch instead of `expected "a" or "b" for "<key>"`. */
  onInvalid?: HookId;
}
export interface ListShape extends Base { kind: 'list'; items: Shape; nonEmpty?: boolean }
/** A mapping from names the user chooses (columns, fields) to values of one shape. */
export interface MapShape extends Base { kind: 'map'; values: Shape }
/** A mapping the engine stores without looking inside (engine-api.md §6.5). */
export interface OpaqueShape extends Base { kind: 'mapping' }
export interface AnyShape extends Base { kind: 'any' }
/** *Presets* of cli.md §4.2: column → scalar. */
export interface PresetsShape extends Base { kind: 'presets' }
/** *BoolExp* of cli.md §4.13. */
export interface BoolExpShape extends Base { kind: 'boolExp' }
/** One of several shapes; `pick` says which one a value is meant to be (its messages are that option's). */
export interface UnionShape extends Base {
  kind: 'union';
  id?: string;
  title?: string;
  options: readonly Shape[];
  pick: (v: unknown) => number;
}
/**
 * A config.yaml scalar (cli.md §2): checked on its source text, so `2`, `"2"` and `0123` are texts; a string holding
 * a `${VAR}` reference (§2.4) is only known once interpolated.
 */
export interface TextShape extends Base {
  kind: 'text';
  values?: readonly string[];
  /** The schema's approximation of a rule the validator checks in code (URLs). */
  pattern?: string;
  notPattern?: string;
  nonBlank?: boolean;
}

/** How the validator names a mapping in messages (core.ts `<thing>`). */
export type Naming =
  /** `"<key>" of <the enclosing mapping>` (the default), or `of <the enclosing entry>`. */
  | { nested: 'parent' | 'entity' }
  /** Named like the enclosing mapping (a permission's `permission`). */
  | { same: true }
  /** A file's root mapping. */
  | { fixed: string }
  /** An entry: `<entity> "<value of by>"` or `<entity> #<n>`, plus ` of <owner>` inside another entry. */
  | { entity: string; by: string }
  | { custom: (o: Obj, i: number, owner: Entity | undefined) => { thing: string; ownerText?: string; named: boolean } };

/** An entry being validated, for the names and hooks of what it holds. */
export interface Entity {
  thing: string;
  /** How children name it after `of`: `public.author` for `table public.author`. */
  ownerText: string;
  value: Obj;
  index: number;
  /** Whether it has a real name (references to it are checked only then). */
  named: boolean;
  parent: Entity | undefined;
}

export interface Key {
  shape: Shape;
  required?: boolean;
  /**
   * Required by a rule checked elsewhere (named here): the schema requires the key, the validator reports its absence
   * through that rule, with that rule's message.
   */
  requiredBy?: string;
  description?: string;
}

export interface ObjectShape extends Base {
  kind: 'object';
  /** The name under `definitions` in the JSON Schema, for mappings used in several places. */
  id?: string;
  title: string;
  /** In the order the validator checks them (the canonical order, engine-api.md §6.1, where there is one). */
  keys: Readonly<Record<string, Key>>;
  /** Exactly one of each pair must be set (not absent, not `null`). */
  oneOf?: readonly (readonly [string, string])[];
  /** Keys actions.graphql defines: warned about as `sdl-key-ignored` (cli.md §4.4), named `<prefix><key>`. */
  sdlOwned?: { keys: readonly string[]; prefix: string };
  naming?: Naming;
}

export type Shape =
  | StringShape | BooleanShape | IntegerShape | EnumShape | ListShape | MapShape | OpaqueShape | AnyShape | PresetsShape
  | BoolExpShape | UnionShape | TextShape | ObjectShape;

// Builders, so that the definitions read like the spec's tables.
export const str = (o: Omit<StringShape, 'kind'> = {}): StringShape => ({ kind: 'string', ...o });
export const nonEmptyStr = (o: Omit<StringShape, 'kind' | 'nonEmpty'> = {}): StringShape => ({ kind: 'string', nonEmpty: true, ...o });
export const bool = (o: Omit<BooleanShape, 'kind'> = {}): BooleanShape => ({ kind: 'boolean', ...o });
export const int = (min: number, o: Omit<IntegerShape, 'kind' | 'min'> = {}): IntegerShape => ({ kind: 'integer', min, ...o });
export const oneOfValues = (values: readonly (string | number)[], o: Omit<EnumShape, 'kind' | 'values'> = {}): EnumShape =>
  ({ kind: 'enum', values, ...o });
export const listOf = (items: Shape, o: Omit<ListShape, 'kind' | 'items'> = {}): ListShape => ({ kind: 'list', items, ...o });
export const mapOf = (values: Shape, o: Omit<MapShape, 'kind' | 'values'> = {}): MapShape => ({ kind: 'map', values, ...o });
export const opaque = (description?: string): OpaqueShape => ({ kind: 'mapping', ...(description ? { description } : {}) });
export const anything = (description?: string): AnyShape => ({ kind: 'any', ...(description ? { description } : {}) });
export const object = (o: Omit<ObjectShape, 'kind'>): ObjectShape => ({ kind: 'object', ...o });
export const union = (o: Omit<UnionShape, 'kind'>): UnionShape => ({ kind: 'union', ...o });
export const text = (o: Omit<TextShape, 'kind'> = {}): TextShape => ({ kind: 'text', ...o });
export const req = (shape: Shape, description?: string): Key => ({ shape, required: true, ...(description ? { description } : {}) });
export const opt = (shape: Shape, description?: string): Key => ({ shape, ...(description ? { description } : {}) });

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** cli.md §4.13: relationship, computed-field, action and custom-type names. */
export const GRAPHQL_NAME_PATTERN = '^[_A-Za-z][_0-9A-Za-z]*$';
/** cli.md §4.13: event-trigger names. */
export const EVENT_TRIGGER_NAME = { pattern: '^[A-Za-z][A-Za-z0-9_-]*$', maxLength: 42 } as const;

const RESERVED = '[Ee][Nn][Gg][Ii][Nn][Ee]_[Gg][Rr][Aa][Pp][Hh][Qq][Ll]_';
const CRON_ITEM = '(?:\\*|\\d+(?:-\\d+)?)(?:/\\d+)?';
const CRON_FIELD = `${CRON_ITEM}(?:,${CRON_ITEM})*`;

/** Each format's JSON Schema; the validator checks the same rule in code (walk.ts), exactly. */
export const FORMATS: Readonly<Record<FormatId, { description: string; schema: SchemaFragment }>> = {
  graphqlName: { description: 'A GraphQL name: [_A-Za-z][_0-9A-Za-z]*.', schema: { pattern: GRAPHQL_NAME_PATTERN } },
  eventTriggerName: {
    description: 'Letters, digits, "_" and "-", starting with a letter, at most 42 characters.',
    schema: { ...EVENT_TRIGGER_NAME },
  },
  urlTemplate: {
    description: 'An http(s) URL, or a value with {{ENV_VAR}} templates (engine-api.md §4.0); no ENGINE_GRAPHQL_* variable.',
    schema: {
      // Every "{{" opens a well-formed template; without one, an http(s) URL (the validator parses it).
      pattern: '^(?:[^{]|\\{(?!\\{)|\\{\\{\\s*[A-Za-z_][A-Za-z0-9_]*\\s*\\}\\})*$',
      anyOf: [{ pattern: '\\{\\{' }, { pattern: '^\\s*[Hh][Tt][Tt][Pp][Ss]?:.' }],
      not: { pattern: `\\{\\{\\s*${RESERVED}` },
    },
  },
  envName: {
    description: 'The name of an environment variable of the engine; not one starting with ENGINE_GRAPHQL_.',
    schema: { not: { pattern: `^${RESERVED}` } },
  },
  cronSchedule: {
    description: 'Five cron fields: minute hour day-of-month month day-of-week (numbers, *, ranges, lists, /steps).',
    schema: { pattern: `^\\s*${CRON_FIELD}(?:\\s+${CRON_FIELD}){4}\\s*$` },
  },
  graphqlQuery: { description: 'A GraphQL document (checked with graphql\'s parse).', schema: {} },
};

/** The text `<schema>.<name>` of a QName (a string is in schema public), or undefined when it is malformed. */
export function qnameText(v: unknown): string | undefined {
  if (typeof v === 'string') return `public.${v}`;
  if (!isObj(v) || typeof v['name'] !== 'string') return undefined;
  const schema = v['schema'] ?? 'public';
  return typeof schema === 'string' ? `${schema}.${v['name']}` : undefined;
}

/** `<kind> "<name>"` when the entry has a string name, else `<kind> #<n>`. */
export const named = (kind: string, name: unknown, i: number): string =>
  typeof name === 'string' ? `${kind} "${name}"` : `${kind} #${i + 1}`;

/** *QName* (cli.md §4.2): a string (schema public) or `{schema, name}`; anything else reads "expected a mapping". */
export const QNAME: UnionShape = union({
  id: 'QName',
  title: 'QName',
  description: 'A table or function name: "name" (schema public) or {schema, name}.',
  options: [str(), object({ title: 'QName', keys: { name: req(str()), schema: opt(str(), 'Default: public.') } })],
  pick: (v) => (typeof v === 'string' ? 0 : 1),
});

/** *Header* (cli.md §4.2): `{name, value}` or `{name, value_from_env}`. */
export const HEADER: ObjectShape = object({
  id: 'Header',
  title: 'Header',
  description: 'An HTTP header sent to the webhook: a value, or the name of an environment variable holding it.',
  naming: { entity: 'header', by: 'name' },
  keys: {
    name: req(nonEmptyStr()),
    value: opt(str()),
    value_from_env: opt(str({ format: 'envName' })),
  },
  oneOf: [['value', 'value_from_env']],
});

export const HEADERS = opt(listOf(HEADER));

/** The logical keys of a BoolExp (cli.md §4.13); every other key is a column or relationship. */
export const BOOL_EXP_LOGICAL = {
  list: ['_and', '_or', '$and', '$or'],
  not: ['_not', '$not'],
  exists: ['_exists', '$exists'],
} as const;
export const COMMENT = opt(str(), 'A comment, kept in the metadata.');
