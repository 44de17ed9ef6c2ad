import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TABLE_TYPES, TypeNames } from '../../src/server/graphql/schema/index.js';

// The schema's name claims (graphql-api.md §2.2) decide type collisions without building a table's eighteen type
// names: the same decisions as a set of every generated name, for names made to collide (stems and suffix pieces).

/** The plain rule: every generated name in one set. */
class AllNames {
  private readonly names: Set<string>;
  constructor(reserved: string[]) {
    this.names = new Set(reserved);
  }
  tableFree = (t: string): boolean => TABLE_TYPES.every((s) => !this.names.has(t + s));
  addTable = (t: string): void => TABLE_TYPES.forEach((s) => this.names.add(t + s));
  singleFree = (x: string): boolean => !this.names.has(x);
  addSingle = (x: string): void => void this.names.add(x);
}

const piece = fc.constantFrom('a', 'b', '_aggregate', '_fields', '_sum', '_sum_fields', '_aggregate_fields', '_bool_exp', '_input', '_insert', '_insert_input', '_order_by', 'order_by', '_args', '_column', 'query_root');
const name = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
const step = fc.record({ single: fc.boolean(), name });

describe('schema name claims', () => {
  it('TypeNames decides like the set of every generated type name', () => {
    fc.assert(fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const reserved = ['query_root', 'mutation_root', 'order_by', 'Int', 'String'];
      const fast = new TypeNames(reserved);
      const plain = new AllNames(reserved);
      for (const s of steps) {
        const free = s.single ? fast.singleFree(s.name) : fast.tableFree(s.name);
        expect(free).toBe(s.single ? plain.singleFree(s.name) : plain.tableFree(s.name));
        if (!free) continue;
        if (s.single) {
          fast.addSingle(s.name);
          plain.addSingle(s.name);
        } else {
          fast.addTable(s.name);
          plain.addTable(s.name);
        }
      }
    }), { numRuns: 2000 });
  });
});
