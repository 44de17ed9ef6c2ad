import { expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';

const e = useTestEngine();

it('state() sees metadata, version and schema changes', async () => {
  const s0 = await e.state();
  expect(s0.version).toBe('1');
  expect(s0.metadata).toBe('{"version":2,"tables":[]}');
  await e.sql('create table a (id int, name text)');
  const s1 = await e.state();
  expect(s1.schema).toBe('public.a:r:id integer,name text');
  expect(s1.version).toBe('1');
  await e.ok({ type: 'track_table', args: 'a' });
  const s2 = await e.state();
  expect(s2.version).toBe('2');
  expect(s2.metadata).not.toBe(s1.metadata);
  expect(s2.rows).toBe('0/0/0');
});
