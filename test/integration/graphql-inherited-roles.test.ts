import { describe, expect, it } from 'vitest';
import { as, gqlErr, q, useExampleEngine } from './graphql-fixture.js';

// Issue 12: an inherited role selects the union of its member roles' select permissions — a row is visible when any
// member's filter shows it, a column when any member lists it (its cell only on rows such a member selects, issue 27);
// aggregates when any member allows them. Its own permissions win; mutations need permissions of its own.

const e = useExampleEngine();

const inherit = (name: string, set: string[]) => e.ok({ type: 'add_inherited_role', args: { role_name: name, role_set: set } });

describe('inherited roles in /v1/graphql', () => {
  it('rows and columns of any member role; session variables of each member filter', async () => {
    await e.ok({ type: 'create_select_permission', args: { table: 'article', role: 'reviewer', permission: { columns: ['id', 'views'], filter: { id: { _eq: 2 } } } } });
    await inherit('both', ['anonymous', 'reviewer']);
    expect(await q(e, '{ article(order_by: {id: asc}) { id title views } }', as('both')))
      // A cell only a member that does not select the row grants is null (issue 27): views is reviewer's (id 2), title anonymous's (published).
      .toEqual({ data: { article: [{ id: 1, title: 'Intro', views: null }, { id: 2, title: null, views: 0 }, { id: 3, title: 'News', views: null }] } });
    expect(await q(e, '{ article_aggregate { aggregate { count } } }', as('both')))
      .toEqual(gqlErr('field "article_aggregate" not found in type: \'query_root\'', '$.selectionSet.article_aggregate', 'validation-failed'));
    await inherit('nested', ['both', 'user']);
    expect(await q(e, '{ article_aggregate { aggregate { count } } author(order_by: {id: asc}) { id } }', as('nested', 3)))
      .toEqual({ data: { article_aggregate: { aggregate: { count: 3 } }, author: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
  });

  it('a member without permissions adds nothing; the inherited role has no mutations of its own', async () => {
    await inherit('viewer', ['anonymous', 'nobody']);
    expect(await q(e, '{ article(order_by: {id: asc}) { id } }', as('viewer'))).toEqual({ data: { article: [{ id: 1 }, { id: 3 }] } });
    expect(await q(e, 'mutation { delete_article(where: {}) { affected_rows } }', as('viewer'))).toEqual(gqlErr('no mutations exist', '$', 'validation-failed'));
  });

  it('its own select permission wins over the union', async () => {
    await inherit('own', ['user']);
    await e.ok({ type: 'create_select_permission', args: { table: 'article', role: 'own', permission: { columns: ['id'], filter: { id: { _eq: 3 } } } } });
    expect(await q(e, '{ article { id } }', as('own', 1))).toEqual({ data: { article: [{ id: 3 }] } });
  });
});
