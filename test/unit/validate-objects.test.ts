import { describe, expect, it } from 'vitest';
import { objectOrigins } from '../../src/project/validate/validate.js';
import { shown, sources } from './validate-helpers.js';

describe('duplicates', () => {
  it('reports duplicate tables, however they are named', () => {
    expect(shown({ tables: '- table: author\n- table: {schema: public, name: author}\n- table: {schema: other, name: author}\n' })).toEqual([
      'error duplicate-object tables.yaml:2:3 duplicate table public.author (first defined at metadata/tables.yaml:1:3)',
    ]);
  });

  it('reports duplicate permissions per (table, kind, role)', () => {
    const tables = [
      '- table: author',
      '  select_permissions:',
      '    - {role: user, permission: {columns: "*", filter: {}}}',
      '    - {role: user, permission: {columns: [id], filter: {}}}',
      '  delete_permissions:',
      '    - {role: user, permission: {filter: {}}}',
      '',
    ].join('\n');
    expect(shown({ tables })).toEqual([
      'error duplicate-object tables.yaml:4:7 duplicate select_permission public.author.user (first defined at metadata/tables.yaml:3:7)',
    ]);
  });

  it('keeps relationships and computed fields of a table in one namespace', () => {
    const tables = [
      '- table: author',
      '  object_relationships: [{name: a, using: {foreign_key_constraint_on: x}}]',
      '  array_relationships:',
      '    - {name: a, using: {manual_configuration: {remote_table: b, column_mapping: {id: id}}}}',
      '    - {name: b, using: {manual_configuration: {remote_table: b, column_mapping: {id: id}}}}',
      '    - {name: b, using: {manual_configuration: {remote_table: b, column_mapping: {id: id}}}}',
      '  computed_fields: [{name: b, definition: {function: f}}]',
      '  remote_relationships: [{name: c, definition: {}}]',
      '- table: other',
      '  computed_fields: [{name: a, definition: {function: f}}]',
      '',
    ].join('\n');
    expect(shown({ tables })).toEqual([
      'error duplicate-object tables.yaml:4:7 "a" is used by more than one relationship or computed field of public.author',
      'error duplicate-object tables.yaml:6:7 duplicate array_relationship public.author.b (first defined at metadata/tables.yaml:5:7)',
      'error duplicate-object tables.yaml:7:21 "b" is used by more than one relationship or computed field of public.author',
    ]);
  });

  it('reports event-trigger names over all tables', () => {
    const et = (name: string) => `{name: ${name}, definition: {}, webhook: "http://x"}`;
    const tables = ['- table: author', `  event_triggers: [${et('e')}]`, '- table: article', `  event_triggers: [${et('f')}, ${et('e')}]`, ''].join('\n');
    expect(shown({ tables })).toEqual([
      'error duplicate-object tables.yaml:4:68 duplicate event_trigger public.article.e (first defined at metadata/tables.yaml:2:20)',
    ]);
  });

  it('reports duplicates in every other file', () => {
    const texts = {
      functions: '- search\n- function: {name: search}\n',
      remoteSchemas: '- {name: r, definition: {url: "http://a"}}\n- {name: r, definition: {url: "http://b"}}\n',
      queryCollections: '- {name: c, definition: {queries: [{name: q, query: "{a}"}, {name: q, query: "{b}"}]}}\n- {name: c, definition: {queries: [{name: q, query: "{a}"}]}}\n',
      allowList: '- collection: c\n- collection: c\n',
      cronTriggers: '- {name: n, webhook: "http://x", schedule: "* * * * *", include_in_metadata: true}\n- {name: n, webhook: "http://x", schedule: "* * * * *", include_in_metadata: false}\n',
    };
    expect(shown(texts)).toEqual([
      'error duplicate-object allow_list.yaml:2:3 duplicate allowlist_entry c (first defined at metadata/allow_list.yaml:1:3)',
      'error duplicate-object cron_triggers.yaml:2:3 duplicate cron_trigger n (first defined at metadata/cron_triggers.yaml:1:3)',
      'error duplicate-object functions.yaml:2:3 duplicate function public.search (first defined at metadata/functions.yaml:1:3)',
      'error duplicate-object query_collections.yaml:1:61 duplicate query c.q (first defined at metadata/query_collections.yaml:1:36)',
      'error duplicate-object query_collections.yaml:2:3 duplicate query_collection c (first defined at metadata/query_collections.yaml:1:3)',
      'error duplicate-object remote_schemas.yaml:2:3 duplicate remote_schema r (first defined at metadata/remote_schemas.yaml:1:3)',
    ]);
  });
});

describe('objectOrigins', () => {
  it('maps every object of cli.md §4.12 to the position of its entry', () => {
    const tables = [
      '- table: author',
      '  array_relationships: [{name: articles, using: {foreign_key_constraint_on: {table: article, column: author_id}}}]',
      '  computed_fields: [{name: full_name, definition: {function: f}}]',
      '  select_permissions: [{role: user, permission: {columns: "*", filter: {}}}]',
      '- table: {schema: billing, name: invoice}',
      '  object_relationships: [{name: customer, using: {foreign_key_constraint_on: customer_id}}]',
      '  remote_relationships: [{name: r, definition: {}}]',
      '  insert_permissions: [{role: user, permission: {check: {}}}]',
      '  update_permissions: [{role: user, permission: {columns: "*", filter: {}}}]',
      '  delete_permissions: [{role: user, permission: {filter: {}}}]',
      '  event_triggers: [{name: e, definition: {}, webhook: "http://x"}]',
      '- table: author',
      '',
    ].join('\n');
    const src = sources({
      tables,
      functions: '- search\n- {function: {schema: s, name: f}}\n',
      remoteSchemas: '- {name: r, definition: {url: "http://a"}}\n',
      queryCollections: '- {name: c, definition: {queries: [{name: q, query: "{a}"}]}}\n',
      allowList: '- collection: c\n',
      cronTriggers: '- {name: n, webhook: "http://x", schedule: "* * * * *", include_in_metadata: true}\n',
    });
    const origins = Object.fromEntries([...objectOrigins(src)].map(([k, p]) => [k, `${p.file.replace('metadata/', '')}:${p.line}:${p.column}`]));
    expect(origins).toEqual({
      'table:public.author': 'tables.yaml:1:3',
      'array_relationship:public.author.articles': 'tables.yaml:2:25',
      'computed_field:public.author.full_name': 'tables.yaml:3:21',
      'select_permission:public.author.user': 'tables.yaml:4:24',
      'table:billing.invoice': 'tables.yaml:5:3',
      'object_relationship:billing.invoice.customer': 'tables.yaml:6:26',
      'remote_relationship:billing.invoice.r': 'tables.yaml:7:26',
      'insert_permission:billing.invoice.user': 'tables.yaml:8:24',
      'update_permission:billing.invoice.user': 'tables.yaml:9:24',
      'delete_permission:billing.invoice.user': 'tables.yaml:10:24',
      'event_trigger:billing.invoice.e': 'tables.yaml:11:20',
      'function:public.search': 'functions.yaml:1:3',
      'function:s.f': 'functions.yaml:2:3',
      'remote_schema:r': 'remote_schemas.yaml:1:3',
      'query_collection:c': 'query_collections.yaml:1:3',
      'allowlist_entry:c': 'allow_list.yaml:1:3',
      'cron_trigger:n': 'cron_triggers.yaml:1:3',
    });
  });
});
