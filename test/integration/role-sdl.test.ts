/**
 * `engine metadata schema` prints the role's schema object of the ephemeral engine (role-schema.ts) instead of reading
 * it back from an introspection request: for every role of the example project, and for admin and a role without
 * permissions, the SDL is the one a client builds from the standard introspection query over HTTP, but in the
 * schema's declaration order (introspection answers in the incumbent's order, by name: issue 30).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildClientSchema, buildSchema, getIntrospectionQuery, lexicographicSortSchema, printSchema, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { metadataRoles, roleSdl, startEphemeralEngine, type EphemeralEngine } from '../../src/project/test/index.js';
import { silentLogger } from '../../src/logger.js';
import { post } from '../helpers/engine.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));
let engine: EphemeralEngine;
let roles: string[];

beforeAll(async () => {
  const built = buildMetadata(join(EXAMPLE, 'metadata'), EXAMPLE, 2);
  if (!built.document) throw new Error(JSON.stringify(built.problems.errors));
  roles = metadataRoles(built.document);
  engine = await startEphemeralEngine({
    projectDir: EXAMPLE, migrationsDirectory: join(EXAMPLE, 'migrations'), built: { ...built, document: built.document }, seeds: false, logger: silentLogger,
  });
}, 240_000);
afterAll(async () => {
  await engine?.close();
});

it("prints the SDL a client of the role reads by introspection, for each role", async () => {
  expect(roles).toEqual(['user']);
  for (const role of [...roles, 'admin', 'nobody']) {
    const r = await post(`${engine.url}/v1/graphql`, { query: getIntrospectionQuery({ descriptions: true }) },
      { 'x-engine-admin-secret': engine.adminSecret, 'x-engine-role': role });
    const introspected = printSchema(lexicographicSortSchema(buildClientSchema((r.body as { data: IntrospectionQuery }).data)));
    const printed = await roleSdl(engine.schemaFor, role);
    expect(printSchema(lexicographicSortSchema(buildSchema(printed))), role).toBe(introspected);
    expect(printed).toContain('type query_root {');
  }
}, 120_000);
