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
