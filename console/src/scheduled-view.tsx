import { useEffect, useState, type FormEvent } from 'react';
import { ApiFailure, metadata } from './api.js';
import { Invocations, type Invocation } from './invocations.js';

interface Scheduled {
  id: string; type: 'cron' | 'one_off'; trigger_name: string | null; scheduled_time: string; state: string; tries: number;
  created_at: string; next_retry_at: string | null; payload: unknown;
}

const TYPES = ['all', 'cron', 'one_off'];
const STATES = ['all', 'scheduled', 'delivered', 'error', 'dead'];
const PAGE = 50;

const message = (e: unknown) => (e instanceof ApiFailure ? `${e.message} [${e.code}] at ${e.path}` : (e as Error).message);

/** An hour from now, as the form's default time (UTC, ISO 8601 with its zone, as the engine takes it). */
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Scheduled events (cron and one-off) by type and state, paged; an event's invocations (request and response), its
 * redelivery and deletion; a one-off event created from a form.
 */
export function ScheduledView() {
  const [type, setType] = useState('all');
  const [state, setState] = useState('all');
  const [offset, setOffset] = useState(0);
  const [events, setEvents] = useState<Scheduled[] | null>(null);
  const [status, setStatus] = useState<{ error: boolean; text: string } | null>(null);
  const [tick, setTick] = useState(0);
  const [webhook, setWebhook] = useState('');
  const [at, setAt] = useState(inAnHour);
  const [payload, setPayload] = useState('{}');
  const [comment, setComment] = useState('');
  const [shown, setShown] = useState<Scheduled | null>(null);
  const [invocations, setInvocations] = useState<Invocation[] | null>(null);
  const fail = (e: unknown) => setStatus({ error: true, text: message(e) });
  useEffect(() => {
    if (!shown) return;
    metadata('get_scheduled_event_invocations', { type: shown.type, event_id: shown.id }).then((r) => setInvocations((r as { invocations: Invocation[] }).invocations), fail);
  }, [shown, tick]);
  /** Redelivery and deletion: the operations of one event, then the list read again. */
  const act = (ev: Scheduled, type: 'redeliver_scheduled_event' | 'delete_scheduled_event', done: string) => {
    if (type === 'delete_scheduled_event' && !confirm(`Delete scheduled event ${ev.id} and its invocation logs?`)) return;
    metadata(type, { type: ev.type, event_id: ev.id }).then(() => {
      setStatus({ error: false, text: `Event ${ev.id} ${done}.` });
      if (type === 'delete_scheduled_event' && shown?.id === ev.id) setShown(null);
      setTick(tick + 1);
    }, fail);
  };
  useEffect(() => {
    let current = true;
    metadata('get_scheduled_events', { type, status: state, limit: PAGE, offset }).then((r) => { if (current) setEvents(r as Scheduled[]); }, fail);
    return () => { current = false; };
  }, [type, state, offset, tick]);
  const create = (e: FormEvent) => {
    e.preventDefault();
    let value: unknown;
    try { value = JSON.parse(payload || 'null'); } catch { return setStatus({ error: true, text: 'The payload is not JSON' }); }
    metadata('create_scheduled_event', { webhook, schedule_at: at, payload: value, ...(comment ? { comment } : {}) }).then((r) => {
      setStatus({ error: false, text: `One-off event ${(r as { event_id?: string }).event_id ?? ''} scheduled for ${at}.` });
      setTick(tick + 1);
    }, fail);
  };
  return (
    <div className="main">
      <h2>Scheduled events</h2>
      <div className="toolbar">
        <label>Type <select aria-label="Type" value={type} onChange={(e) => { setType(e.target.value); setOffset(0); }}>{TYPES.map((t) => <option key={t}>{t}</option>)}</select></label>
        <label>State <select aria-label="State" value={state} onChange={(e) => { setState(e.target.value); setOffset(0); }}>{STATES.map((s) => <option key={s}>{s}</option>)}</select></label>
        <button type="button" onClick={() => setTick(tick + 1)}>Refresh</button>
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
        <button type="button" disabled={!events || events.length < PAGE} onClick={() => setOffset(offset + PAGE)}>Next</button>
      </div>
      {status && <p role={status.error ? 'alert' : 'status'}>{status.text}</p>}
      {events && events.length === 0 && <p className="muted">No scheduled events.</p>}
      {events && events.length > 0 && (
        <table className="grid" aria-label="Scheduled events">
          <thead><tr>{['id', 'type', 'trigger', 'scheduled (UTC)', 'state', 'tries', 'next retry', 'payload', 'actions'].map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
          <tbody>{events.map((e) => (
            <tr key={e.id}>
              <td className="mono"><a href="#/scheduled" aria-current={shown?.id === e.id ? 'true' : undefined} onClick={(ev) => { ev.preventDefault(); setInvocations(null); setShown(e); }}>{e.id}</a></td>
              <td>{e.type === 'one_off' ? 'one-off' : 'cron'}</td><td>{e.trigger_name ?? ''}</td><td className="mono">{e.scheduled_time}</td>
              <td>{e.state}</td><td>{e.tries}</td><td className="mono">{e.next_retry_at ?? ''}</td><td className="mono">{JSON.stringify(e.payload)}</td>
              <td className="row-actions">
                <button type="button" disabled={e.state === 'processing' || e.state === 'archived'} aria-label={`Redeliver ${e.id}`} onClick={() => act(e, 'redeliver_scheduled_event', 'queued for redelivery')}>Redeliver</button>{' '}
                <button type="button" disabled={e.state === 'processing' || e.state === 'archived'} aria-label={`Delete ${e.id}`} onClick={() => act(e, 'delete_scheduled_event', 'deleted')}>Delete</button>
              </td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {shown && invocations && <Invocations of={shown.id} list={invocations} />}
      <h3>New one-off event</h3>
      <form onSubmit={create} aria-label="New one-off event" className="toolbar">
        <label>Webhook <input aria-label="Webhook" className="mono" required value={webhook} onChange={(e) => setWebhook(e.target.value)} placeholder="http://localhost:3000/hook" /></label>
        <label>At <input aria-label="At (ISO 8601, UTC)" className="mono" required value={at} onChange={(e) => setAt(e.target.value)} /></label>
        <label>Payload <input aria-label="Event payload (JSON)" className="mono" value={payload} onChange={(e) => setPayload(e.target.value)} /></label>
        <label>Comment <input aria-label="Comment" value={comment} onChange={(e) => setComment(e.target.value)} /></label>
        <button type="submit">Schedule</button>
      </form>
    </div>
  );
}
