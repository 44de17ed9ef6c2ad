/** One attempt of an event's delivery as the engine logs it: what was sent and what came back. */
export interface Invocation { id: string; status: number | null; created_at: string; request: unknown; response: unknown }

/** The invocations of one event, each a disclosure with its request and response (event triggers and scheduled events). */
export function Invocations({ of, list }: { of: string; list: Invocation[] }) {
  return (
    <section aria-label={`Invocations of ${of}`}>
      <h3>Invocations of {of}</h3>
      {list.length === 0 && <p className="muted">None yet.</p>}
      {list.map((i) => (
        <details key={i.id} className="invocation">
          <summary>{i.created_at} · status {i.status ?? 'none'}</summary>
          <pre className="mono">{JSON.stringify({ request: i.request, response: i.response }, null, 2)}</pre>
        </details>
      ))}
    </section>
  );
}
