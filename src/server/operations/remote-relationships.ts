import { badRequest } from '../../errors.js';
import type { JsonObject } from '../../metadata/json.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { parseRemoteRelDefinition, remoteRelDefinitionJson } from '../../metadata/kinds/remote-relationships.js';
import { at, graphqlName, obj, opt, qualifiedName, req, reqStr } from '../../metadata/reader.js';
import type { QualifiedName, TableEntry } from '../../metadata/types.js';
import { cloneMetadata } from '../../metadata/document.js';
import { parseToTable, remoteRelId, remoteRelPrefix, remoteRelRecord, toTableId } from '../remote-schemas/index.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { requireTracked, takenName, withEntry } from './table-objects.js';

/**
 * Table → remote schema relationships (issue 35.3), named as the incumbent names them: `create_remote_relationship`,
 * `update_remote_relationship`, `delete_remote_relationship` (and their `pg_` forms, with `source`). The arguments
 * are the older flat form (`hasura_fields`, `remote_schema`, `remote_field`) or `definition` in either form; the
 * table's `remote_relationships` keeps `{name, definition}` as given.
 */

interface RelArgs {
  table: QualifiedName;
  entry: JsonObject;
}

function parseRelArgs(args: unknown, path: string): RelArgs {
  const o = obj(args, path);
  const table = qualifiedName(req(o, 'table', path), at(path, 'table'));
  const name = graphqlName(req(o, 'name', path), at(path, 'name'));
  const d = opt(o, 'definition');
  const definition = d === undefined ? remoteRelDefinitionJson(o) : obj(d, at(path, 'definition'));
  parseRemoteRelDefinition(definition, d === undefined ? path : at(path, 'definition'));
  return { table, entry: { name, definition } };
}

const relsOf = (e: TableEntry): JsonObject[] => e.extras?.remote_relationships ?? [];

function withRels(e: TableEntry, rels: JsonObject[]): Partial<TableEntry> {
  const extras = { ...e.extras };
  if (rels.length > 0) extras.remote_relationships = [...rels].sort((a, b) => (String(a['name']) < String(b['name']) ? -1 : 1));
  else delete extras.remote_relationships;
  return { extras };
}

function existing(entry: TableEntry | undefined, table: QualifiedName, name: string): JsonObject {
  const r = entry ? relsOf(entry).find((x) => x['name'] === name) : undefined;
  if (!r) throw badRequest('not-exists', '$.args.name', `remote relationship "${name}" does not exist on table ${qnQuoted(table)}`);
  return r;
}

function createOrUpdate(update: boolean): Operation<RelArgs> {
  return {
    write: true,
    parse: (args, path) => parseRelArgs(args, path),
    async run(ctx, { table, entry }) {
      requireTracked(ctx, table);
      await ctx.refreshTables([table], []);
      const name = String(entry['name']);
      const current = ctx.metadata.tables.get(qnKey(table));
      if (update) existing(current, table, name);
      else {
        const taken = takenName(ctx, table, name) ?? (current && relsOf(current).some((r) => r['name'] === name) ? 'remote relationship' : undefined);
        if (taken) throw badRequest('already-exists', '$.args.name', `"${name}" conflicts with an existing ${taken} of table ${qnQuoted(table)}`);
      }
      const md = withEntry(ctx, table, (e) => withRels(e, [...relsOf(e).filter((r) => r['name'] !== name), entry]));
      ctx.apply(md, 'incremental', {
        id: remoteRelId(table, name), table, prefix: remoteRelPrefix(table, name), record: () => remoteRelRecord(table, entry, 'inconsistent'),
      });
      return SUCCESS;
    },
  };
}

const deleteRel: Operation<{ table: QualifiedName; name: string }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return { table: qualifiedName(req(o, 'table', path), at(path, 'table')), name: reqStr(o, 'name', path) };
  },
  async run(ctx, { table, name }) {
    requireTracked(ctx, table);
    existing(ctx.metadata.tables.get(qnKey(table)), table, name);
    ctx.apply(withEntry(ctx, table, (e) => withRels(e, relsOf(e).filter((r) => r['name'] !== name))));
    return SUCCESS;
  },
};

const tableRelationshipOperations: Record<string, Operation<unknown>> = {
  create_remote_relationship: op(createOrUpdate(false)),
  update_remote_relationship: op(createOrUpdate(true)),
  delete_remote_relationship: op(deleteRel),
};

/**
 * A remote schema's type → table relationships (`to_source`): `create_remote_schema_remote_relationship`,
 * `update_…` and `delete_…`, kept in the remote schema's `remote_relationships` by type name, as the incumbent.
 */
interface TypeRelArgs {
  remote: string;
  typeName: string;
  name: string;
  entry: JsonObject | null;
}

function parseTypeRel(withDefinition: boolean) {
  return (args: unknown, path: string): TypeRelArgs => {
    const o = obj(args, path);
    const remote = reqStr(o, 'remote_schema', path);
    const typeName = graphqlName(req(o, 'type_name', path), at(path, 'type_name'));
    const name = graphqlName(req(o, 'name', path), at(path, 'name'));
    if (!withDefinition) return { remote, typeName, name, entry: null };
    const entry: JsonObject = { name, definition: obj(req(o, 'definition', path), at(path, 'definition')) };
    parseToTable(remote, typeName, entry, path);
    return { remote, typeName, name, entry };
  };
}

type Groups = JsonObject[];

const hasRel = (groups: Groups, typeName: string, name: string): boolean =>
  groups.some((g) => g['type_name'] === typeName && ((g['relationships'] ?? []) as JsonObject[]).some((r) => r['name'] === name));

/** The groups with `name` of `typeName` removed, then `entry` added (when given); empty groups go. */
function regroup(groups: Groups, typeName: string, name: string, entry: JsonObject | null): Groups {
  let found = false;
  const out = groups.map((g) => {
    if (g['type_name'] !== typeName) return g;
    found = true;
    const rels = ((g['relationships'] ?? []) as JsonObject[]).filter((r) => r['name'] !== name);
    return { ...g, relationships: entry ? [...rels, entry] : rels };
  });
  if (!found && entry) out.push({ type_name: typeName, relationships: [entry] });
  return out.filter((g) => ((g['relationships'] ?? []) as JsonObject[]).length > 0);
}

function typeRelOperation(kind: 'create' | 'update' | 'delete'): Operation<TypeRelArgs> {
  return {
    write: true,
    parse: parseTypeRel(kind !== 'delete'),
    async run(ctx, { remote, typeName, name, entry }) {
      const r = ctx.metadata.remote_schemas.get(remote);
      if (!r) throw badRequest('not-exists', '$.args.remote_schema', `remote schema with name "${remote}" does not exist`);
      const exists = hasRel(r.remote_relationships, typeName, name);
      if (kind === 'create' && exists) throw badRequest('already-exists', '$.args.name', `remote relationship "${name}" already exists on type "${typeName}" of remote schema "${remote}"`);
      if (kind !== 'create' && !exists) throw badRequest('not-exists', '$.args.name', `remote relationship "${name}" does not exist on type "${typeName}" of remote schema "${remote}"`);
      const md = cloneMetadata(ctx.metadata);
      md.remote_schemas.set(remote, { ...r, remote_relationships: regroup(r.remote_relationships, typeName, name, entry) });
      if (!entry) {
        ctx.apply(md);
        return SUCCESS;
      }
      const id = toTableId(remote, typeName, name);
      const prefix = `in remote schema "${remote}": in remote relationship "${typeName}.${name}": `;
      ctx.apply(md, 'incremental', {
        id, prefix, record: () => ({ id, type: 'remote_schema_remote_relationship', definition: { remote_schema: remote, type_name: typeName, ...entry }, reason: `${prefix}inconsistent` }),
      });
      return SUCCESS;
    },
  };
}

const remoteSchemaRelationshipOperations: Record<string, Operation<unknown>> = {
  create_remote_schema_remote_relationship: op(typeRelOperation('create')),
  update_remote_schema_remote_relationship: op(typeRelOperation('update')),
  delete_remote_schema_remote_relationship: op(typeRelOperation('delete')),
};

export const remoteRelationshipOperations: Record<string, Operation<unknown>> = { ...tableRelationshipOperations, ...remoteSchemaRelationshipOperations };
