import { badRequest } from '../../errors.js';
import type { JsonObject } from '../../metadata/json.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { parseRemoteRelDefinition, remoteRelDefinitionJson } from '../../metadata/kinds/remote-relationships.js';
import { at, graphqlName, obj, opt, qualifiedName, req, reqStr } from '../../metadata/reader.js';
import type { QualifiedName, TableEntry } from '../../metadata/types.js';
import { remoteRelId, remoteRelPrefix, remoteRelRecord } from '../remote-schemas/index.js';
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

export const remoteRelationshipOperations: Record<string, Operation<unknown>> = {
  create_remote_relationship: op(createOrUpdate(false)),
  update_remote_relationship: op(createOrUpdate(true)),
  delete_remote_relationship: op(deleteRel),
};
