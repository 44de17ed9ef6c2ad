/**
 * JSON Schemas (draft-07, what yaml-language-server supports best) generated from the shape definitions the validator
 * walks (shapes*.ts), for editors to check config.yaml and the metadata files as they are typed. Pure: definitions in,
 * schema documents out; `npm run schemas` writes them to schemas/, where a unit test keeps them equal to this output.
 *
 * The schema is as strict as the validator where JSON Schema can say it: closed mappings (`additionalProperties:
 * false`, where the validator warns about unknown keys), required keys, exactly-one pairs, bounds and name patterns.
 * Where the validator is optional-friendly the schema is too: an optional key given as `null` is absent (engine-api.md
 * §1.6), and an empty file is valid. Semantic rules (duplicates, references, BoolExp operators, …) stay the validator's.
 */
import { VAR_REF_PATTERN } from './shapes-config.js';
import { TEST_FILE_SCHEMA } from '../test/json-schema.js';
import { BOOL_EXP_LOGICAL, FORMATS, type Key, type ObjectShape, type Shape, type TextShape } from './shapes-core.js';
import { FILE_SHAPES, type SchemaName } from './shapes.js';

type Schema = Record<string, unknown>;

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** The keywords after which adding `null` to `type` would not let `null` through. */
const NOT_BY_TYPE = ['$ref', 'enum', 'const', 'anyOf', 'oneOf', 'allOf'];

/** The schema accepting `null` too (an optional key set to `null`, an empty file). */
function nullable(s: Schema): Schema {
  const { description, title, ...rest } = s;
  const keys = Object.keys(rest);
  const annotated = (x: Schema): Schema => ({ ...(title ? { title } : {}), ...(description ? { description } : {}), ...x });
  if (keys.length === 1 && Array.isArray(rest['enum'])) return annotated({ enum: [...(rest['enum'] as unknown[]), null] });
  if (keys.length === 1 && Array.isArray(rest['anyOf'])) return annotated({ anyOf: [{ type: 'null' }, ...(rest['anyOf'] as Schema[])] });
  const type = s['type'];
  if (type === undefined || NOT_BY_TYPE.some((k) => k in s)) return annotated({ anyOf: [{ type: 'null' }, rest] });
  return { ...s, type: [...(Array.isArray(type) ? (type as string[]) : [type]), 'null'] };
}

/** `s` with `description` after its title, where editors show it. */
function described(s: Schema, description: string | undefined): Schema {
  if (!description) return s;
  const { title, description: _old, ...rest } = s;
  return { ...(title ? { title } : {}), description, ...rest };
}

/** Set, in the validator's sense: present and not `null`. */
const isSet = (key: string): Schema => ({ required: [key], properties: { [key]: { not: { type: 'null' } } } });

class Generator {
  /** Named shapes, each written once under `definitions`; a placeholder is set first so that recursion ends. */
  readonly definitions = new Map<string, Schema>();

  schema(shape: Shape): Schema {
    const s = this.bare(shape);
    if ('$ref' in s) return s;
    return described(shape.kind === 'object' ? s : { ...s, ...shape.schema }, shape.description);
  }

  private definition(id: string, build: () => Schema): Schema {
    if (!this.definitions.has(id)) {
      this.definitions.set(id, {});
      this.definitions.set(id, build());
    }
    return { $ref: `#/definitions/${id}` };
  }

  private bare(shape: Shape): Schema {
    switch (shape.kind) {
      case 'string':
        return {
          type: 'string', ...(shape.nonEmpty ? { minLength: 1 } : {}),
          ...(shape.format ? { description: FORMATS[shape.format].description, ...FORMATS[shape.format].schema } : {}),
        };
      case 'boolean':
        return { type: 'boolean' };
      case 'integer':
        return { type: 'integer', minimum: shape.min };
      case 'enum':
        return { enum: [...shape.values] };
      case 'list':
        return { type: 'array', ...(shape.nonEmpty ? { minItems: 1 } : {}), items: this.schema(shape.items) };
      case 'map':
        return { type: 'object', additionalProperties: this.schema(shape.values) };
      case 'mapping':
        return { type: 'object' };
      case 'any':
        return {};
      case 'presets':
        return { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } };
      case 'boolExp':
        return this.boolExp();
      case 'union': {
        const build = (): Schema => ({
          ...(shape.title ? { title: shape.title } : {}), ...(shape.description ? { description: shape.description } : {}),
          anyOf: shape.options.map((o) => this.schema(o)),
        });
        return shape.id ? this.definition(shape.id, build) : build();
      }
      case 'text':
        return text(shape);
      case 'object': {
        const build = (): Schema => ({ ...this.object(shape), ...shape.schema });
        return shape.id ? this.definition(shape.id, build) : build();
      }
    }
  }

  private object(shape: ObjectShape): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const [name, key] of Object.entries(shape.keys)) {
      const mandatory = key.required === true || key.requiredBy !== undefined;
      if (mandatory) required.push(name);
      properties[name] = this.property(key, mandatory);
    }
    for (const name of shape.sdlOwned?.keys ?? []) {
      properties[name] = { description: 'Ignored: actions.graphql defines it (cli.md §4.4).', not: {} };
    }
    const pairs = (shape.oneOf ?? []).map(([a, b]) => ({ oneOf: [isSet(a), isSet(b)] }));
    return {
      title: shape.title, ...(shape.description ? { description: shape.description } : {}),
      type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false,
      ...(pairs.length === 1 ? pairs[0] : pairs.length > 1 ? { allOf: pairs } : {}),
    };
  }

  private property(key: Key, mandatory: boolean): Schema {
    const s = this.schema(key.shape);
    const description = key.description ?? (s['description'] as string | undefined);
    const value = mandatory ? s : nullable(s);
    // Beside a $ref the keywords are ignored (draft-07), so a description goes around it.
    return description && '$ref' in value ? { description, allOf: [value] } : described(value, description);
  }

  /** *BoolExp* (cli.md §4.13): the logical keys; column and relationship keys take any value, checked by the validator. */
  private boolExp(): Schema {
    const ref = { $ref: '#/definitions/BoolExp' };
    this.definition('BoolExp', () => ({
      title: 'BoolExp',
      description: 'A boolean expression (engine-api.md §4.4): column or relationship keys, and _and, _or, _not, _exists ($ for _ too).',
      type: 'object',
      properties: Object.fromEntries([
        ...BOOL_EXP_LOGICAL.list.map((k) => [k, { type: 'array', items: ref }]),
        ...BOOL_EXP_LOGICAL.not.map((k) => [k, ref]),
        ...BOOL_EXP_LOGICAL.exists.map((k) => [k, {
          type: 'object', required: ['_table', '_where'], additionalProperties: false,
          properties: {
            _table: { anyOf: [{ type: 'string' }, { type: 'object', required: ['name'], properties: { name: { type: 'string' }, schema: { type: ['string', 'null'] } } }] },
            _where: ref,
          },
        }]),
      ]),
    }));
    return ref;
  }
}

/** A config.yaml scalar: its text as the validator reads it, or any string with a `${VAR}` reference (cli.md §2.4). */
function text(shape: TextShape): Schema {
  const fixed: Schema | undefined = shape.values
    ? { enum: shape.values.flatMap((v) => (/^\d+$/.test(v) ? [Number(v), v] : [v])) }
    : shape.pattern
      ? { type: 'string', pattern: shape.pattern, ...(shape.notPattern ? { not: { pattern: shape.notPattern } } : {}) }
      : undefined;
  if (fixed) return { anyOf: [fixed, { type: 'string', pattern: VAR_REF_PATTERN }] };
  // A number or boolean is its source text (`admin_secret: 0123` is "0123"), never blank.
  if (shape.nonBlank) return { anyOf: [{ type: 'string', pattern: '\\S' }, { type: ['number', 'boolean'] }] };
  return { type: ['string', 'number', 'boolean'] };
}

const sortedObject = (m: Map<string, Schema>): Record<string, Schema> =>
  Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The JSON Schema of one file. */
export function jsonSchema(name: SchemaName): Schema {
  const { file, description, shape } = FILE_SHAPES[name];
  const g = new Generator();
  const { title: _title, description: _description, ...root } = nullable(g.schema(shape));
  return {
    $schema: DRAFT_07,
    title: file,
    description,
    ...root,
    ...(g.definitions.size > 0 ? { definitions: sortedObject(g.definitions) } : {}),
  };
}

export const SCHEMA_NAMES = Object.keys(FILE_SHAPES) as SchemaName[];

/** `<name>.schema.json` → its bytes, as schemas/ holds them. */
export function schemaFiles(): Map<string, string> {
  const files = new Map(SCHEMA_NAMES.map((name) => [`${name}.schema.json`, `${JSON.stringify(jsonSchema(name), null, 2)}\n`]));
  // The test files of `engine test` are no metadata: their schema is written by hand beside their parser.
  files.set('test.schema.json', `${JSON.stringify(TEST_FILE_SCHEMA, null, 2)}\n`);
  return files;
}
