import { getNamedType, Kind, type FieldNode, type GraphQLField, type GraphQLObjectType, type SelectionNode } from 'graphql';
import { quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import { validationFailed } from '../errors.js';
import { listClauses, NumLit, resolveVars, SelectionCompiler, type GValue } from '../compile/index.js';
import { fieldInfo, type RowSource, type TableView } from '../schema/index.js';
import { decodeCursor, decodeNodeId, keyValues } from './ids.js';
import { connectionOrder, cursorSql, orderSql, splitSql } from './order.js';

type Field = GraphQLField<unknown, unknown>;

/** base64 of a JSON value's text, without the line breaks PostgreSQL's encoder puts every 76 characters. */
const base64 = (json: string): string => `replace(encode(convert_to((${json})::text, 'UTF8'), 'base64'), chr(10), '')`;

const given = (v: GValue | undefined): v is Exclude<GValue, null> => v !== undefined && v !== null;
const num = (v: GValue): number => (v instanceof NumLit ? Number(v.text) : Number(v));

/**
 * The Relay selections (issue 30.6) on top of the ordinary ones: global ids, connections (one correlated subquery
 * each: the ordered rows numbered once, the page cut from them, `pageInfo` from both), and the `node` root field.
 */
export class RelayCompiler extends SelectionCompiler {
  /** The SQL depends on a variable's value (a node id, a cursor): the plan serves this request only. */
  dynamic = false;

  /** An argument's value with bound variables replaced by the request's (noted: the plan then is not kept). */
  private resolved(v: GValue | undefined): GValue | undefined {
    if (v === undefined) return v;
    const r = resolveVars(v, this.sel.variables);
    if (r !== v) this.dynamic = true;
    return r;
  }

  protected override fieldJson(field: Field, nodes: FieldNode[], row: string, path: string, parent: TableView | null): string {
    const i = fieldInfo(field);
    if (i?.kind === 'node_id') return this.nodeId(i.view, row);
    if (i?.kind === 'connection') {
      const json = this.connectionJson(field, i.view, i.source, nodes, row, path);
      const c = parent && i.source.kind === 'rel' ? this.b.cellCondition(parent, `r:${i.source.rel.name}`, row) : null;
      return c ? `CASE WHEN ${c} THEN ${json} END` : json;
    }
    return super.fieldJson(field, nodes, row, path, parent);
  }

  /** `[1, "<schema>", "<table>", <key values>…]` in base64. */
  private nodeId(view: TableView, row: string): string {
    const t = view.rt.entry.table;
    const keys = (view.pk ?? []).map((c) => this.b.cell(view, `c:${c.name}`, row, `(${row}).${quoteIdent(c.name)}`));
    return base64(`json_build_array(1, ${this.b.value(t.schema, 'text')}, ${this.b.value(t.name, 'text')}, ${keys.join(', ')})`);
  }

  connectionJson(field: Field, view: TableView, source: RowSource, nodes: FieldNode[], row: string | null, path: string): string {
    const node = nodes[0] as FieldNode;
    const args = this.sel.args(node);
    const first = this.resolved(args.get('first'));
    const last = this.resolved(args.get('last'));
    const after = this.resolved(args.get('after'));
    const before = this.resolved(args.get('before'));
    if (given(first) && given(last)) throw validationFailed(`${path}.args`, '"first" and "last" are not allowed at once');
    if (given(after) && given(before)) throw validationFailed(`${path}.args`, '"after" and "before" are not allowed at once');
    for (const [name, v] of [['first', first], ['last', last]] as const) {
      if (given(v) && num(v) < 0) throw validationFailed(`${path}.args.${name}`, 'unexpected negative value');
    }
    const a = this.b.alias();
    const { from, conds } = this.from(view, source, args, a, row, { node, path });
    const where = args.get('where');
    const c = listClauses(this.b, this.role, new Map(where === undefined ? [] : [['where', where]]), view, a, path, null);
    const terms = connectionOrder(this.b, this.role, args.get('order_by'), view, a, path);
    const cursorArg = given(after) ? { v: after, after: true, name: 'after' } : given(before) ? { v: before, after: false, name: 'before' } : null;
    const split = cursorArg
      ? splitSql(this.b, terms, decodeCursor(String(cursorArg.v), `${path}.args.${cursorArg.name}`), cursorArg.after, `${path}.args.${cursorArg.name}`)
      : null;
    const whereSql = [...conds, ...c.conditions];
    const base = this.b.alias();
    const page = this.b.alias();
    // The split (after/before) is computed with the base's rows, as "s": the base itself keeps every row for pageInfo.
    const baseSql = `SELECT ${a} AS "r", row_number() OVER (ORDER BY ${orderSql(terms)}) AS "n", ${cursorSql(terms)} AS "c"${split ? `, ${split} AS "s"` : ''}` +
      ` FROM ${from}${whereSql.length > 0 ? ` WHERE ${whereSql.join(' AND ')}` : ''}`;
    // The permission's limit caps a page (the rows a role reads at once).
    const cap = (n: number | null): number | null => (n === null ? view.limit : view.limit === null ? n : Math.min(n, view.limit));
    const size = given(last) ? last : first;
    const n = cap(given(size) ? num(size) : null);
    const rows = `SELECT * FROM ${base}${split ? ' WHERE "s"' : ''}`;
    const pageSql = given(last)
      ? `SELECT * FROM (${rows} ORDER BY "n" DESC LIMIT ${this.b.value(String(n), 'integer')}) AS "_l"`
      : `${rows} ORDER BY "n"${n === null ? '' : ` LIMIT ${this.b.value(String(n), 'integer')}`}`;
    const type = getNamedType(field.type) as GraphQLObjectType;
    const pairs: [string, string][] = [];
    for (const [key, fns] of this.sel.subfields(nodes)) {
      const f = (fns[0] as FieldNode).name.value;
      const p = `${path}.selectionSet.${key}`;
      if (f === '__typename') pairs.push([key, `'${type.name}'::text`]);
      else if (f === 'edges') pairs.push([key, this.edges(this.typeOf(type, 'edges'), view, fns, page, p)]);
      else if (f === 'pageInfo') pairs.push([key, this.pageInfo(fns, base, page)]);
    }
    const obj = pairs.length > 0 ? `json_build_object(${pairs.map(([k, e]) => `'${k}', ${e}`).join(', ')})` : `'{}'::json`;
    return `(WITH ${base} AS (${baseSql}), ${page} AS (${pageSql}) SELECT ${obj})`;
  }

  private typeOf(t: GraphQLObjectType, name: string): GraphQLObjectType {
    return getNamedType(t.getFields()[name]?.type) as GraphQLObjectType;
  }

  private edges(edgeType: GraphQLObjectType, view: TableView, nodes: FieldNode[], page: string, path: string): string {
    const pairs: [string, string][] = [];
    for (const [key, fns] of this.sel.subfields(nodes)) {
      const f = (fns[0] as FieldNode).name.value;
      if (f === '__typename') pairs.push([key, `'${edgeType.name}'::text`]);
      else if (f === 'cursor') pairs.push([key, base64(`${page}."c"`)]);
      else if (f === 'node') pairs.push([key, this.objectJson(this.typeOf(edgeType, 'node'), fns, `${page}."r"`, `${path}.selectionSet.${key}`, view)]);
    }
    const obj = pairs.length > 0 ? `json_build_object(${pairs.map(([k, e]) => `'${k}', ${e}`).join(', ')})` : `'{}'::json`;
    return `(SELECT coalesce(json_agg(${obj} ORDER BY ${page}."n"), '[]'::json) FROM ${page})`;
  }

  /** The incumbent's pageInfo: whether the base has rows before the page's first and after its last. */
  private pageInfo(nodes: FieldNode[], base: string, page: string): string {
    const pairs: [string, string][] = [];
    for (const [key, fns] of this.sel.subfields(nodes)) {
      const f = (fns[0] as FieldNode).name.value;
      if (f === '__typename') pairs.push([key, `'PageInfo'::text`]);
      else if (f === 'startCursor') pairs.push([key, `(SELECT ${base64(`${page}."c"`)} FROM ${page} ORDER BY ${page}."n" LIMIT 1)`]);
      else if (f === 'endCursor') pairs.push([key, `(SELECT ${base64(`${page}."c"`)} FROM ${page} ORDER BY ${page}."n" DESC LIMIT 1)`]);
      else if (f === 'hasPreviousPage') pairs.push([key, `EXISTS (SELECT 1 FROM ${base} WHERE ${base}."n" < (SELECT min("n") FROM ${page}))`]);
      else if (f === 'hasNextPage') pairs.push([key, `EXISTS (SELECT 1 FROM ${base} WHERE ${base}."n" > (SELECT max("n") FROM ${page}))`]);
    }
    return pairs.length > 0 ? `json_build_object(${pairs.map(([k, e]) => `'${k}', ${e}`).join(', ')})` : `'{}'::json`;
  }

  /** `node(id:)`: the row of the id's table with its key, when the role sees it; else null. */
  nodeRoot(nodeTypes: GraphQLObjectType[], nodes: FieldNode[], path: string): string {
    const node = nodes[0] as FieldNode;
    const id = this.resolved(this.sel.args(node).get('id'));
    const ref = decodeNodeId(String(id), path);
    let found: { type: GraphQLObjectType; view: TableView } | null = null;
    for (const type of nodeTypes) {
      const info = fieldInfo(type.getFields()['id'] as Field);
      if (info?.kind !== 'node_id') continue;
      const t = info.view.rt.entry.table;
      if (t.schema === ref.schema && t.name === ref.name) found = { type, view: info.view };
    }
    if (!found) throw validationFailed(`${path}.args.id`, `invalid node id: no such table found: "${ref.schema}.${ref.name}"`);
    const { type, view } = found;
    const keys = keyValues(ref, view, path);
    const a = this.b.alias();
    const where = (view.pk ?? []).map((c, i) => {
      const k = keys[i];
      return k === null || k === undefined ? 'false' : `${a}.${quoteIdent(c.name)} = ${this.b.value(k, c.castType)}`;
    });
    const perm = this.b.permission(view, a);
    if (perm !== 'true') where.push(perm);
    const obj = this.objectJson(type, narrow(nodes, type.name, this.sel.fragments), a, path, view);
    return `(SELECT ${obj} FROM ${quoteTable(view.rt.entry.table)} AS ${a} WHERE ${where.join(' AND ')} LIMIT 1)`;
  }
}

/** The `node` field's selections that apply to one type: fragments on other types are left out. */
function narrow(nodes: FieldNode[], typeName: string, fragments: Map<string, { typeCondition: { name: { value: string } } }>): FieldNode[] {
  const applies = (t: string | undefined): boolean => t === undefined || t === typeName || t === 'Node';
  const keep = (sels: readonly SelectionNode[]): SelectionNode[] => sels.flatMap((s): SelectionNode[] => {
    if (s.kind === Kind.INLINE_FRAGMENT) {
      if (!applies(s.typeCondition?.name.value)) return [];
      return [{ ...s, selectionSet: { ...s.selectionSet, selections: keep(s.selectionSet.selections) } }];
    }
    if (s.kind === Kind.FRAGMENT_SPREAD) return applies(fragments.get(s.name.value)?.typeCondition.name.value) ? [s] : [];
    return [s];
  });
  return nodes.map((n) => (n.selectionSet ? { ...n, selectionSet: { ...n.selectionSet, selections: keep(n.selectionSet.selections) } } : n));
}
