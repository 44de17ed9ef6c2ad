// Deep imports: the whole `graphql` index costs ~50 ms to load; every build pays for what it imports.
import { GraphQLError } from 'graphql/error/GraphQLError.js';
import { Kind } from 'graphql/language/kinds.js';
import { Lexer } from 'graphql/language/lexer.js';
import { parse } from 'graphql/language/parser.js';
import { print } from 'graphql/language/printer.js';
import { Source } from 'graphql/language/source.js';
import { TokenKind } from 'graphql/language/tokenKind.js';
import type {
  ASTNode, DefinitionNode, DirectiveNode, DocumentNode, FieldDefinitionNode, InputValueDefinitionNode, NamedTypeNode,
  StringValueNode, Token, TypeNode,
} from 'graphql/language/ast.js';
import { compareCodePoints, type Json, type JsonObject } from '../../metadata/json.js';
import { absent, readActionsYaml, where, type Group, type YamlAction, type YamlType } from './actions-yaml.js';
import type { Position, Problems } from '../problems.js';
import type { YamlSource } from '../yaml-source.js';

export { splitActions, type SplitResult } from './actions-print.js';
export { where };

/**
 * The actions merge (cli.md §4.6): `actions.graphql` (SDL, §4.3) and `actions.yaml` (§4.4) become the `actions` and
 * `custom_types` values of the metadata document in canonical form (engine-api.md §6). Pure: problems are collected.
 */

export type { Group };
export const BUILTIN_SCALARS = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);
/** How messages name a group's kind. */
export const GROUP_KIND: Record<Group, string> = {
  input_objects: 'an input object type', objects: 'an object type', scalars: 'a scalar', enums: 'an enum',
};

interface SdlType { group: Group; name: string; description?: string; body: JsonObject; pos: Position }
interface SdlAction { name: string; field: FieldDefinitionNode; pos: Position; root: 'mutation' | 'query' }
interface Sdl { actions: Map<string, SdlAction>; types: Map<string, SdlType> }

export interface MergeResult {
  actions: JsonObject[];
  custom_types: JsonObject | null;
  origins: Map<string, Position>;
}

/** True for text with no GraphQL token: empty, whitespace, comments (§4.1 "empty"). */
export function isBlankSdl(text: string): boolean {
  try {
    return new Lexer(new Source(text)).advance().kind === TokenKind.EOF;
  } catch {
    return false;
  }
}

/** The printed named type inside a type reference (`[Foo!]!` → `Foo`). */
export function namedTypeNode(t: TypeNode): NamedTypeNode {
  return t.kind === Kind.NAMED_TYPE ? t : namedTypeNode(t.type);
}

/** Parses SDL text; a syntax error is a `graphql-syntax-error` problem at its position, and null. */
export function parseSdl(file: string, text: string, problems: Problems): DocumentNode | null {
  try {
    return parse(text);
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    const l = e.locations?.[0];
    problems.error('graphql-syntax-error', e.message, { file, line: l?.line ?? 1, column: l?.column ?? 1 });
    return null;
  }
}

/** Reads actions.graphql; null when it does not parse (its checks are then skipped, not guessed). */
function readSdl(file: string, raw: string, problems: Problems): Sdl | null {
  const sdl: Sdl = { actions: new Map(), types: new Map() };
  const text = raw.replace(/^\uFEFF/, '');
  if (isBlankSdl(text)) return sdl;
  const doc = parseSdl(file, text, problems);
  if (!doc) return null;
  const tokPos = (t: Token): Position => ({ file, line: t.line, column: t.column });
  const nodePos = (n: ASTNode): Position => (n.loc ? tokPos(n.loc.startToken) : { file, line: 1, column: 1 });
  /** Where an element starts after its description (the keyword of a definition, the name of a field). */
  const headPos = (n: ASTNode & { description?: StringValueNode }): Position => {
    let t = n.description?.loc?.endToken.next ?? null;
    while (t && t.kind === TokenKind.COMMENT) t = t.next;
    return t ? tokPos(t) : nodePos(n);
  };
  const unsupported = (what: string, n: ASTNode, at = nodePos(n)): void =>
    problems.error('sdl-unsupported', `${what} is not supported in actions.graphql`, at);
  const directives = (ds: readonly DirectiveNode[] | undefined, deprecatedOk = false): boolean => {
    let deprecated = false;
    for (const d of ds ?? []) {
      if (deprecatedOk && d.name.value === 'deprecated') deprecated = true;
      else unsupported(`directive "@${d.name.value}"`, d);
    }
    return deprecated;
  };
  const implementsCheck = (def: DefinitionNode): void => {
    if (!('interfaces' in def) || !def.interfaces || def.interfaces.length === 0) return;
    let t = 'name' in def ? (def.name?.loc?.endToken.next ?? null) : null;
    while (t && t.kind === TokenKind.COMMENT) t = t.next;
    unsupported('"implements"', def, t && t.value === 'implements' ? tokPos(t) : nodePos(def.interfaces[0] as ASTNode));
  };
  const inputValue = (v: InputValueDefinitionNode): void => {
    if (v.defaultValue) unsupported('a default value', v.defaultValue);
    directives(v.directives);
  };
  const desc = (d: StringValueNode | undefined): JsonObject => (d ? { description: d.value } : {});
  const typeChecks: TypeCheck[] = [];
  const fieldsJson = (fs: readonly (FieldDefinitionNode | InputValueDefinitionNode)[]): Json[] =>
    fs.map((f) => ({ name: f.name.value, type: print(f.type), ...desc(f.description) }));

  for (const def of doc.definitions) {
    switch (def.kind) {
      case Kind.OPERATION_DEFINITION: unsupported('an operation', def); continue;
      case Kind.FRAGMENT_DEFINITION: unsupported('a fragment', def); continue;
      case Kind.SCHEMA_DEFINITION: case Kind.SCHEMA_EXTENSION: unsupported('a schema definition', def, headPos(def)); continue;
      case Kind.DIRECTIVE_DEFINITION: unsupported('a directive definition', def, headPos(def)); continue;
      case Kind.INTERFACE_TYPE_DEFINITION: unsupported('an interface', def, headPos(def)); continue;
      case Kind.UNION_TYPE_DEFINITION: unsupported('a union', def, headPos(def)); continue;
      default: break;
    }
    const name = def.name.value;
    // Actions are the fields of `type Mutation` and, for query actions, of `type Query` (either also as `extend type`).
    if ((def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.OBJECT_TYPE_EXTENSION) && (name === 'Mutation' || name === 'Query')) {
      const root = name === 'Mutation' ? 'mutation' : 'query';
      implementsCheck(def);
      directives(def.directives);
      for (const f of def.fields ?? []) {
        if (f.description) {
          problems.warn('action-description-ignored',
            `the description of action "${f.name.value}" is ignored; use "comment" in actions.yaml`, nodePos(f.description));
        }
        directives(f.directives);
        for (const a of f.arguments ?? []) inputValue(a);
        const pos = headPos(f);
        const first = sdl.actions.get(f.name.value);
        if (first) {
          problems.error('duplicate-object', `duplicate action ${f.name.value} (first defined at ${where(first.pos)})`, pos);
        } else sdl.actions.set(f.name.value, { name: f.name.value, field: f, pos, root });
      }
      continue;
    }
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION && name === 'Subscription') {
      unsupported(`type ${name}`, def, headPos(def));
      continue;
    }
    if (def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.INPUT_OBJECT_TYPE_DEFINITION &&
        def.kind !== Kind.ENUM_TYPE_DEFINITION && def.kind !== Kind.SCALAR_TYPE_DEFINITION) {
      unsupported(`an extension of type "${name}"`, def);
      continue;
    }
    const pos = headPos(def);
    implementsCheck(def);
    directives(def.directives);
    let group: Group;
    let body: JsonObject = {};
    const empty = (n: number): void => {
      if (n === 0) problems.error('sdl-type-invalid', `type "${name}" must define at least one field`, pos);
    };
    if (def.kind === Kind.SCALAR_TYPE_DEFINITION) group = 'scalars';
    else if (def.kind === Kind.ENUM_TYPE_DEFINITION) {
      group = 'enums';
      empty(def.values?.length ?? 0);
      body = {
        values: (def.values ?? []).map((v) => {
          const out: JsonObject = { value: v.name.value, ...desc(v.description) };
          if (directives(v.directives, true)) out['is_deprecated'] = true;
          return out;
        }),
      };
    } else if (def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      group = 'input_objects';
      empty(def.fields?.length ?? 0);
      for (const f of def.fields ?? []) inputValue(f);
      body = { fields: fieldsJson(def.fields ?? []) };
    } else {
      group = 'objects';
      empty(def.fields?.length ?? 0);
      for (const f of def.fields ?? []) {
        directives(f.directives);
        const a = f.arguments?.[0];
        if (a) problems.error('sdl-type-invalid', `field "${name}.${f.name.value}" cannot have arguments`, nodePos(a));
      }
      body = { fields: fieldsJson(def.fields ?? []) };
    }
    const first = sdl.types.get(name);
    if (BUILTIN_SCALARS.has(name)) {
      problems.error('sdl-type-invalid', `"${name}" is a built-in scalar and cannot be redefined`, pos);
    } else if (first) {
      problems.error('sdl-type-invalid', `type "${name}" is defined more than once (first at ${where(first.pos)})`, pos);
    } else {
      sdl.types.set(name, { group, name, body, pos, ...(def.description ? { description: def.description.value } : {}) });
    }
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      typeChecks.push({ def: name, group, fields: def.fields ?? [] });
    }
  }
  checkTypes(sdl, typeChecks, problems, nodePos);
  return sdl;
}

/** A field list waiting for every type to be known. */
interface TypeCheck { def: string; group: Group; fields: readonly (FieldDefinitionNode | InputValueDefinitionNode)[] }

/** §4.3: what arguments, action outputs, input fields and object fields may refer to. */
function checkTypes(sdl: Sdl, lists: TypeCheck[], problems: Problems, nodePos: (n: ASTNode) => Position): void {
  const groupOf = (t: TypeNode): Group | 'builtin' | 'postgres' => {
    const n = namedTypeNode(t).name.value;
    return BUILTIN_SCALARS.has(n) ? 'builtin' : (sdl.types.get(n)?.group ?? 'postgres');
  };
  for (const a of sdl.actions.values()) {
    for (const arg of a.field.arguments ?? []) {
      if (groupOf(arg.type) === 'objects') {
        problems.error('sdl-type-invalid', `argument "${arg.name.value}" of action "${a.name}" must be a scalar, enum or input ` +
          `type, but "${namedTypeNode(arg.type).name.value}" is ${GROUP_KIND.objects}`, nodePos(arg.type));
      }
    }
    const g = groupOf(a.field.type);
    if (g === 'postgres') {
      problems.error('sdl-type-invalid', `unknown type "${namedTypeNode(a.field.type).name.value}" (used by action "${a.name}")`,
        nodePos(a.field.type));
    } else if (g !== 'objects') {
      problems.error('sdl-type-invalid', `action "${a.name}" must return an object type or a list of object types, but ` +
        `returns "${print(a.field.type)}"`, nodePos(a.field.type));
    }
  }
  for (const l of lists) {
    for (const f of l.fields) {
      const g = groupOf(f.type);
      if (l.group === 'input_objects' && g === 'objects') {
        problems.error('sdl-type-invalid', `field "${l.def}.${f.name.value}" of an input type must be a scalar, enum or input type`,
          nodePos(f.type));
      } else if (l.group === 'objects' && g === 'input_objects') {
        problems.error('sdl-type-invalid', `field "${l.def}.${f.name.value}" of an object type must be a scalar, enum or object type`,
          nodePos(f.type));
      }
    }
  }
}

const byName = (a: JsonObject, b: JsonObject): number => compareCodePoints(String(a['name']), String(b['name']));

/** Builds `actions` and `custom_types` from the two files (cli.md §4.6), reporting every problem found. */
export function mergeActions(
  sdlFile: { file: string; text: string } | null, yaml: YamlSource | null, problems: Problems, tables?: ReadonlySet<string>,
): MergeResult {
  const origins = new Map<string, Position>();
  const sdl: Sdl | null = sdlFile ? readSdl(sdlFile.file, sdlFile.text, problems) : { actions: new Map(), types: new Map() };
  const y = readActionsYaml(yaml, problems, tables);
  const yActions = new Map<string, YamlAction>(y.actions.map((a) => [a.name, a]));
  const yTypes = new Map<string, YamlType>(y.types.map((t) => [t.name, t]));
  if (sdl) {
    for (const a of y.actions) {
      if (!sdl.actions.has(a.name)) {
        problems.error('action-not-in-sdl', `action "${a.name}" is listed in actions.yaml but not defined in actions.graphql`, a.pos);
      }
    }
    for (const t of y.types) {
      const s = sdl.types.get(t.name);
      if (!s) {
        problems.error('custom-type-not-in-sdl', `custom type "${t.name}" is listed in actions.yaml but not defined in actions.graphql`, t.pos);
      } else if (s.group !== t.group) {
        problems.error('custom-type-group-mismatch', `custom type "${t.name}" is listed under custom_types.${t.group}, but ` +
          `actions.graphql defines it as ${GROUP_KIND[s.group]}`, t.pos);
      } else {
        const fields = new Set(((s.body['fields'] ?? []) as JsonObject[]).map((f) => f['name']));
        for (const m of t.mapped.filter((x) => !fields.has(x.field))) {
          problems.error('reference-invalid', `relationship "${m.relationship}" of type "${t.name}" maps unknown field "${m.field}"`, m.pos);
        }
      }
    }
  }
  const actions: JsonObject[] = [];
  for (const a of [...(sdl?.actions.values() ?? [])].sort((p, q) => compareCodePoints(p.name, q.name))) {
    origins.set(`action:${a.name}`, a.pos);
    const ya = yActions.get(a.name);
    if (!ya || typeof ya.definition['handler'] !== 'string') {
      problems.error('action-not-in-yaml', `action "${a.name}" is defined in actions.graphql but has no entry with a handler in ` +
        'actions.yaml', ya?.definitionPos ?? a.pos);
    }
    const yd = ya?.definition ?? {};
    const def: JsonObject = {};
    if (!absent(yd['handler'])) def['handler'] = yd['handler'] as Json;
    def['output_type'] = print(a.field.type);
    const args = (a.field.arguments ?? []).map((arg): JsonObject =>
      ({ name: arg.name.value, type: print(arg.type), ...(arg.description ? { description: arg.description.value } : {}) }));
    if (args.length > 0) def['arguments'] = args;
    def['kind'] = absent(yd['kind']) ? 'synchronous' : (yd['kind'] as Json);
    if (a.root === 'query') def['type'] = 'query';
    if (!absent(yd['forward_client_headers']) && yd['forward_client_headers'] !== false) {
      def['forward_client_headers'] = yd['forward_client_headers'] as Json;
    }
    const hs = yd['headers'];
    if (!absent(hs) && !(Array.isArray(hs) && hs.length === 0)) def['headers'] = hs as Json;
    if (!absent(yd['timeout']) && yd['timeout'] !== 30) def['timeout'] = yd['timeout'] as Json;
    const out: JsonObject = { name: a.name, definition: def };
    if (ya && !absent(ya.comment)) out['comment'] = ya.comment as Json;
    if (ya && ya.permissions.length > 0) {
      out['permissions'] = [...ya.permissions].sort((p, q) => compareCodePoints(p.role, q.role)).map((p) => {
        origins.set(`action_permission:${a.name}.${p.role}`, p.pos);
        return p.json;
      });
    }
    actions.push(out);
  }
  const groups: Record<Group, JsonObject[]> = { input_objects: [], objects: [], scalars: [], enums: [] };
  for (const t of sdl?.types.values() ?? []) {
    origins.set(`custom_type:${t.name}`, t.pos);
    const yt = yTypes.get(t.name);
    const same = yt && yt.group === t.group ? yt : undefined;
    const description = t.description ?? (same && !absent(same.description) ? (same.description as Json) : undefined);
    const out: JsonObject = { name: t.name, ...(description !== undefined ? { description } : {}), ...t.body };
    if (t.group === 'objects' && same && same.relationships.length > 0) out['relationships'] = same.relationships;
    groups[t.group].push(out);
  }
  const custom: JsonObject = {};
  for (const g of ['input_objects', 'objects', 'scalars', 'enums'] as const) {
    if (groups[g].length > 0) custom[g] = groups[g].sort(byName);
  }
  return { actions, custom_types: Object.keys(custom).length > 0 ? custom : null, origins };
}
