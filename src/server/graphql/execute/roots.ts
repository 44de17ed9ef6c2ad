import type { RootPlan } from '../plan/index.js';

/**
 * The `data` object of an answer: each root field's JSON text in the order of the plans. The statements of one
 * `update_<t>_many` (`of`) become the items of its list, in their order.
 */
export function dataJson(plans: RootPlan[], values: Map<string, string>): string {
  const entries: [string, string[] | string][] = [];
  const lists = new Map<string, string[]>();
  for (const p of plans) {
    const of = p.kind === 'sql' ? p.of : undefined;
    const v = values.get(p.key) ?? 'null';
    if (of === undefined) {
      entries.push([p.key, v]);
      continue;
    }
    let items = lists.get(of);
    if (!items) {
      items = [];
      lists.set(of, items);
      entries.push([of, items]);
    }
    items.push(v);
  }
  return `{"data":{${entries.map(([k, v]) => `${JSON.stringify(k)}:${typeof v === 'string' ? v : `[${v.join(',')}]`}`).join(',')}}}`;
}
