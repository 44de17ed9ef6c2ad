import type { Cohort } from './cohort.js';
import type { LivePlan } from './multiplex.js';

/** Cohorts of one shape in one multiplexed statement per root field. */
export interface Batch {
  lp: LivePlan;
  cohorts: Cohort[];
}

/**
 * A refetch round's batches: cohorts planned to the same statements (the plan cache's shared `plans` array) go
 * together, `size` at most per batch; cohorts without a plan (not multiplexable) run alone.
 */
export function batchesOf(cohorts: Cohort[], size: number): { batches: Batch[]; alone: Cohort[] } {
  const groups = new Map<LivePlan['plans'], Batch>();
  const alone: Cohort[] = [];
  for (const c of cohorts) {
    if (!c.plan) {
      alone.push(c);
      continue;
    }
    const g = groups.get(c.plan.plans);
    if (g) g.cohorts.push(c);
    else groups.set(c.plan.plans, { lp: c.plan, cohorts: [c] });
  }
  const batches: Batch[] = [];
  for (const { lp, cohorts: all } of groups.values()) {
    for (let i = 0; i < all.length; i += size) batches.push({ lp, cohorts: all.slice(i, i + size) });
  }
  return { batches, alone };
}

/** Runs the tasks `concurrency` at a time, in order; none starts once `stopped()`. */
export async function runTasks(tasks: (() => Promise<void>)[], concurrency: number, stopped: () => boolean): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length && !stopped()) await (tasks[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
}
