import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package-root.js';
import { cycles, importGraph } from './import-graph.js';

describe('the import graph of src/', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']]]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no import cycles', () => {
    expect(cycles(importGraph(join(PACKAGE_ROOT, 'src')))).toEqual([]);
  });
});

// The /v1/graphql pipeline, lowest layer first (docs/decisions.md): a folder may import only from a lower one, and
// only through that folder's index.ts; request/ and execute/ are side by side and independent of each other.
const GRAPHQL = 'server/graphql/';
const LAYERS: Record<string, number> = { schema: 0, compile: 1, actions: 2, plan: 3, request: 4, execute: 4, relay: 4, subscriptions: 5 };

function layerProblems(graph: Map<string, string[]>): string[] {
  const folder = (file: string): string | null => {
    if (!file.startsWith(GRAPHQL)) return null;
    const parts = file.slice(GRAPHQL.length).split('/');
    return parts.length > 1 ? (parts[0] ?? null) : null;
  };
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    const source = folder(from);
    for (const to of targets) {
      const target = folder(to);
      if (target === null || target === source) continue;
      if (!to.endsWith('/index.ts')) problems.push(`${from} → ${to}: not through ${GRAPHQL}${target}/index.ts`);
      if (source !== null && !((LAYERS[source] ?? -1) > (LAYERS[target] ?? 99))) problems.push(`${from} → ${to}: ${source}/ may not import ${target}/`);
    }
    if (source !== null && targets.some((to) => to.startsWith(GRAPHQL) && folder(to) === null && !to.endsWith('/errors.ts'))) {
      problems.push(`${from} imports the pipeline above it`);
    }
  }
  return problems;
}

describe('the /v1/graphql pipeline folders', () => {
  it('reports an import that skips the index or goes up a layer (the check can fail)', () => {
    const graph = new Map([
      [`${GRAPHQL}schema/a.ts`, [`${GRAPHQL}compile/index.ts`]],
      [`${GRAPHQL}execute/b.ts`, [`${GRAPHQL}actions/call.ts`, `${GRAPHQL}service.ts`]],
    ]);
    expect(layerProblems(graph)).toEqual([
      `${GRAPHQL}schema/a.ts → ${GRAPHQL}compile/index.ts: schema/ may not import compile/`,
      `${GRAPHQL}execute/b.ts → ${GRAPHQL}actions/call.ts: not through ${GRAPHQL}actions/index.ts`,
      `${GRAPHQL}execute/b.ts imports the pipeline above it`,
    ]);
  });

  it('import only lower folders, each through its index.ts', () => {
    expect(layerProblems(importGraph(join(PACKAGE_ROOT, 'src')))).toEqual([]);
  });
});
