/**
 * The JSON Schema of `tests/**\/*.test.yaml` for editors (schemas/test.schema.json, written by `npm run schemas`):
 * the shape src/project/test/format.ts enforces, with its messages' wording in the descriptions.
 */
/** `required` with its keys declared beside it, as strict validators (ajv's strictRequired) want in a sub-schema. */
const has = (...keys: string[]) => ({ required: keys, properties: Object.fromEntries(keys.map((k) => [k, true])) });
const ROWS = { type: 'array', items: { type: 'object' } };
const ROWS_BY_PATH = {
  type: 'object', additionalProperties: ROWS,
  description: 'A path in data (dots: article, author.articles) → partial rows; each row matches when it has these keys with these values.',
};
const SEED = {
  description: 'SQL text, or a map of table (table or schema.table) to rows; columns a row leaves out take their defaults.',
  oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: ROWS }],
};
const calls = (key: 'trigger' | 'action', description: string) => ({
  type: 'array', description,
  items: {
    type: 'object', additionalProperties: false, required: [key],
    properties: { [key]: { type: 'string', minLength: 1 }, payload: { type: 'object', description: 'Matched partially: the keys given must be there with these values (nested maps partially too).' } },
  },
});
const SESSION = { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] }, description: 'Session variables: x-engine-* (or x-hasura-*) → value.' };

export const TEST_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: '*.test.yaml',
  description: 'Permission test cases run by `engine test` on an ephemeral engine built from the project (issue 33).',
  type: 'object',
  additionalProperties: false,
  required: ['cases'],
  properties: {
    seed: { ...SEED, description: `Rows on top of the project's seeds for every case of this file. ${SEED.description}` },
    cases: {
      type: 'array', minItems: 1,
      items: {
        type: 'object', additionalProperties: false, required: ['name', 'query', 'expect'],
        anyOf: [has('role'), has('jwt_claims')],
        not: has('session', 'jwt_claims'),
        properties: {
          name: { type: 'string', minLength: 1, description: 'Unique in its file; shown in reports.' },
          role: { type: 'string', minLength: 1, description: 'The role the operation runs as (required unless jwt_claims has a default role).' },
          session: SESSION,
          jwt_claims: { type: 'object', description: "A JWT's claims: the x-engine-*/x-hasura-* claims (of the …/jwt/claims namespace if present) become the session; the default role the role." },
          seed: { ...SEED, description: `Rows for this case only (undone after it). ${SEED.description}` },
          query: { type: 'string', minLength: 1, description: 'One GraphQL document.' },
          variables: { type: 'object' },
          operation_name: { type: 'string' },
          action_responses: {
            type: 'object', description: "Action name → what its handler answers in this case (the project's handlers are never called by engine test).",
            additionalProperties: {
              type: 'object', additionalProperties: false, required: ['body'],
              properties: { status: { type: 'integer', minimum: 100, maximum: 599, description: 'Default 200.' }, body: { description: 'The JSON the handler answers.' } },
            },
          },
          expect: {
            type: 'object', additionalProperties: false, minProperties: 1,
            dependencies: { error: { not: { anyOf: [has('data'), has('rows_include'), has('affected_rows')] } } },
            properties: {
              data: { description: 'The exact data of the response (key order does not matter).' },
              rows_include: ROWS_BY_PATH,
              rows_exclude: { ...ROWS_BY_PATH, description: 'A path in data → partial rows none of which may be there.' },
              affected_rows: {
                description: "The mutation's affected_rows: a number (one root field) or a map of root field → number.",
                oneOf: [{ type: 'integer' }, { type: 'object', additionalProperties: { type: 'integer' } }],
              },
              error: {
                type: 'object', additionalProperties: false, minProperties: 1,
                properties: { code: { type: 'string', description: 'The first error\'s extensions.code.' }, message: { type: 'string', description: 'Contained in the first error\'s message.' } },
              },
              fields_absent: {
                type: 'array', items: { type: 'string', pattern: '^[_A-Za-z][_0-9A-Za-z]*\\.[_A-Za-z][_0-9A-Za-z]*$' },
                description: "Type.field names the role's schema must not have (article.secret, mutation_root.delete_article).",
              },
              events: calls('trigger', 'Every event the operation created, in any order ([] for none); payload is the event as delivered in event: {op, data: {old, new}, session_variables}.'),
              action_calls: calls('action', 'Every call the operation made to an action handler, in any order ([] for none); payload is the body the handler receives: {action, input, session_variables, request_query}.'),
            },
          },
        },
      },
    },
  },
};
