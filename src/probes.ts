/**
 * Where the engine reports what metrics count (issue 31.3) and traces time: statements sent, schema caches adopted.
 * Every probe is absent unless `/v1/metrics` or tracing is enabled, so a call site costs one property read and no
 * import: `probes.statements?.(n)`. Set by server/http/metrics.ts; one engine per process serves, so one set.
 */
export interface Probes {
  /** `n` statements were sent to the database (a pipelined batch counts each; BEGIN and COMMIT are not counted). */
  statements?: (n: number) => void;
  /** The engine took a new schema cache: after a metadata change here (`change`) or a reload from the database (`reload`). */
  schemaCache?: (reason: 'change' | 'reload') => void;
  /** An event trigger's or a scheduled event's delivery attempt ended (`seconds`: the attempt, webhook call included). */
  delivery?: (queue: 'event_trigger' | 'scheduled', outcome: 'delivered' | 'retry' | 'error', seconds: number) => void;
}

export const probes: Probes = {};
