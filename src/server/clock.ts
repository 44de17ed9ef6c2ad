/**
 * The time scheduled events are judged by (issue 20): when a cron time falls due, whether a retry is due, how late
 * an event is. Injected so that tests can move it; the database's now() still stamps rows and locks.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
