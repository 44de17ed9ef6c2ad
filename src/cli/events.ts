import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import type { CommandRunner } from './globals.js';

/** `engine events list|show|redeliver|invoke`: inspect and drive event deliveries (issue 15; docs/decisions.md). */

interface ListFlags { status?: string; limit?: string; scheduled?: boolean }

const invalid = (flag: string, v: string, reason: string) => new CliError('invalid-flag-value', `invalid value "${v}" for --${flag}: ${reason}`, 64);

export function registerEvents(program: Command, run: CommandRunner): void {
  const events = program.command('events').description('inspect, redeliver and invoke event trigger events');

  const list = events.command('list').alias('ls').argument('[trigger]', 'only the events of this event trigger')
    .description('list events, newest first')
    .option('--status <status>', 'a state the list shows (pending: every unfinished one; processing, waiting, delivered, error, archived) or all (default all)')
    .option('--limit <n>', 'at most this many events, 1 to 1000 (default 100)')
    .option('--scheduled', 'list scheduled events (cron triggers and one-off) instead; [trigger] is then a cron trigger');
  run(list, async (g, out) => {
    const f = list.opts<ListFlags>();
    const { EVENT_STATUSES, SCHEDULED_STATUSES, MAX_EVENTS, listEvents, listScheduled } = await import('../client/events.js');
    const statuses: readonly string[] = f.scheduled ? SCHEDULED_STATUSES : EVENT_STATUSES;
    if (f.status !== undefined && !statuses.includes(f.status)) {
      throw invalid('status', f.status, `expected one of ${statuses.join(', ')}`);
    }
    let limit: number | undefined;
    if (f.limit !== undefined) {
      limit = /^\d+$/.test(f.limit) ? Number(f.limit) : NaN;
      if (!(limit >= 1 && limit <= MAX_EVENTS)) throw invalid('limit', f.limit, `expected an integer from 1 to ${MAX_EVENTS}`);
    }
    const { context } = await import('./context.js');
    const { client } = await context(g, out, { project: false });
    if (f.scheduled) {
      const scheduled = await listScheduled(client, { trigger: list.args[0], status: f.status, limit });
      if (out.mode === 'text') {
        const { scheduledTable } = await import('./events-text.js');
        if (scheduled.length === 0) out.logger.info('No scheduled events.');
        else out.data(scheduledTable(scheduled));
      }
      out.success({ scheduled_events: scheduled });
      return;
    }
    const found = await listEvents(client, { trigger: list.args[0], status: f.status, limit });
    if (out.mode === 'text') {
      const { eventsTable } = await import('./events-text.js');
      if (found.length === 0) out.logger.info('No events.');
      else out.data(eventsTable(found));
    }
    out.success({ events: found });
  });

  const show = events.command('show').argument('<event-id>', 'the event').description('show an event and its delivery attempts');
  run(show, async (g, out) => {
    const { context } = await import('./context.js');
    const { client } = await context(g, out, { project: false });
    const { showEvent } = await import('../client/events.js');
    const { event, invocations } = await showEvent(client, show.args[0] as string);
    if (out.mode === 'text') out.data((await import('./events-text.js')).eventText(event, invocations));
    out.success({ event, invocations });
  });

  const redeliver = events.command('redeliver').argument('<event-id>', 'the event').description('deliver an event again, its retries reset');
  run(redeliver, async (g, out) => {
    const id = redeliver.args[0] as string;
    const { context } = await import('./context.js');
    const { client } = await context(g, out, { project: false });
    await (await import('../client/events.js')).redeliverEvent(client, id);
    out.logger.info(`Event ${id} will be delivered again.`);
    out.success({ event_id: id });
  });

  const invoke = events.command('invoke').argument('<trigger>', 'the event trigger').description('create an event with a payload of your own (op MANUAL)')
    .option('--payload <json>', 'the event data as JSON; - reads stdin (required)');
  run(invoke, async (g, out) => {
    const text = invoke.opts<{ payload?: string }>().payload;
    if (text === undefined) throw new CliError('missing-argument', 'missing required flag --payload', 64);
    const source = text === '-' ? readFileSync(0, 'utf8') : text;
    let payload: unknown;
    try {
      payload = JSON.parse(source);
    } catch {
      throw invalid('payload', text === '-' ? '-' : text, text === '-' ? 'stdin is not valid JSON' : 'expected JSON');
    }
    const { context } = await import('./context.js');
    const { client } = await context(g, out, { project: false });
    const id = await (await import('../client/events.js')).invokeTrigger(client, invoke.args[0] as string, payload);
    if (out.mode === 'text') out.data(id);
    out.success({ event_id: id });
  });
}
