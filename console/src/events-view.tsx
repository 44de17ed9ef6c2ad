import { useEffect, useState } from 'react';
import { exported, metadata } from './api.js';
import { Invocations, type Invocation } from './invocations.js';

interface Trigger { name: string; table: string; manual: boolean }
interface EventRow { id: string; op: string; state: string; tries: number; created_at: string; payload: unknown }

const STATES = ['all', 'pending', 'delivered', 'error'];

function triggersOf(doc: unknown): Trigger[] {
  const tables = ((doc as { tables?: Record<string, unknown>[] })?.tables ?? []);
  return tables.flatMap((t) => {
    const q = t['table'] as { schema: string; name: string };
    return ((t['event_triggers'] as { name: string; definition?: { enable_manual?: boolean } }[] | undefined) ?? [])
      .map((e) => ({ name: e.name, table: `${q.schema}.${q.name}`, manual: e.definition?.enable_manual === true }));
  });
}

/** Event triggers, their events by state, each event's invocations (request and response); redeliver and invoke. */
export function EventsView() {
  const [triggers, setTriggers] = useState<Trigger[] | null>(null);
  const [trigger, setTrigger] = useState<Trigger | null>(null);
  const [state, setState] = useState('all');
  const [events, setEvents] = useState<EventRow[] | null>(null);
  const [event, setEvent] = useState<EventRow | null>(null);
  const [invocations, setInvocations] = useState<Invocation[] | null>(null);
  const [payload, setPayload] = useState('{}');
  const [status, setStatus] = useState<{ error: boolean; text: string } | null>(null);
  const [tick, setTick] = useState(0);
  const fail = (e: Error) => setStatus({ error: true, text: e.message });
  useEffect(() => void exported(true).then((d) => setTriggers(triggersOf(d)), fail), []);
  useEffect(() => {
    if (!trigger) return;
    metadata('get_event_logs', { name: trigger.name, ...(state === 'all' ? {} : { status: state }), limit: 100 }).then((r) => setEvents(r as EventRow[]), fail);
  }, [trigger, state, tick]);
  useEffect(() => {
    if (!event) return;
    metadata('get_event_invocation_logs', { event_id: event.id }).then((r) => setInvocations(r as Invocation[]), fail);
  }, [event, tick]);
  const redeliver = (e: EventRow) => metadata('redeliver_event', { event_id: e.id }).then(() => { setStatus({ error: false, text: `Event ${e.id} queued for redelivery.` }); setTick(tick + 1); }, fail);
  const invoke = () => {
    let value: unknown;
    try { value = JSON.parse(payload); } catch { return fail(new Error('The payload is not JSON')); }
    metadata('invoke_event_trigger', { name: trigger?.name, payload: value }).then((r) => { setStatus({ error: false, text: `Event ${(r as { event_id: string }).event_id} created.` }); setTick(tick + 1); }, fail);
  };
  return (
    <div className="split">
      <section className="side" aria-label="Event triggers">
        <h2>Event triggers</h2>
        {triggers?.length === 0 && <p className="muted">No event triggers.</p>}
        <ul className="table-list">
          {triggers?.map((t) => (
            <li key={t.name}><a href="#/events" aria-current={trigger?.name === t.name ? 'true' : undefined}
              onClick={(e) => { e.preventDefault(); setTrigger(t); setEvent(null); setInvocations(null); }}>{t.name} <span className="muted">{t.table}</span></a></li>
          ))}
        </ul>
      </section>
      <section className="main" aria-label="Events">
        {status && <p role={status.error ? 'alert' : 'status'}>{status.text}</p>}
        {trigger && (
          <>
            <div className="toolbar">
              <h2>{trigger.name}</h2>
              <label>State <select aria-label="State" value={state} onChange={(e) => setState(e.target.value)}>{STATES.map((s) => <option key={s}>{s}</option>)}</select></label>
              <button type="button" onClick={() => setTick(tick + 1)}>Refresh</button>
              {trigger.manual && (
                <form onSubmit={(e) => { e.preventDefault(); invoke(); }}>
                  <input aria-label="Payload" className="mono" value={payload} onChange={(e) => setPayload(e.target.value)} />
                  <button type="submit">Invoke</button>
                </form>
              )}
            </div>
            <table className="grid">
              <thead><tr><th scope="col">id</th><th scope="col">op</th><th scope="col">state</th><th scope="col">tries</th><th scope="col">created</th><th scope="col"><span className="muted">actions</span></th></tr></thead>
              <tbody>{events?.map((e) => (
                <tr key={e.id}>
                  <td><a href="#/events" onClick={(ev) => { ev.preventDefault(); setEvent(e); }}>{e.id}</a></td><td>{e.op}</td><td>{e.state}</td><td>{e.tries}</td><td>{e.created_at}</td>
                  <td><button type="button" onClick={() => void redeliver(e)} aria-label={`Redeliver ${e.id}`}>Redeliver</button></td>
                </tr>
              ))}</tbody>
            </table>
          </>
        )}
        {event && invocations && <Invocations of={event.id} list={invocations} />}
      </section>
    </div>
  );
}
