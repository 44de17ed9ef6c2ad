import { byVersion, type AppliedMigration, type LocalMigration } from './migrations.js';

/** What `migrate status` shows (cli.md §5.15): every local or applied version and its state. */
export type MigrationStatus = 'applied' | 'pending' | 'missing';

export interface StatusRow {
  version: bigint;
  /** The local name, else (missing) the name in the state table. */
  name: string;
  local: boolean;
  applied: boolean;
  status: MigrationStatus;
}

/** Every version that is local or applied, ascending (cli.md §5.15). */
export function statusRows(local: LocalMigration[], applied: AppliedMigration[]): StatusRow[] {
  const rows = new Map<bigint, StatusRow>();
  for (const m of local) rows.set(m.version, { version: m.version, name: m.name, local: true, applied: false, status: 'pending' });
  for (const a of applied) {
    const row = rows.get(a.version);
    if (row) Object.assign(row, { applied: true, status: 'applied' });
    else rows.set(a.version, { version: a.version, name: a.name, local: false, applied: true, status: 'missing' });
  }
  return [...rows.values()].sort(byVersion);
}

/** The `VERSION  NAME  STATUS` table, columns padded, two spaces apart. */
export function statusTable(rows: StatusRow[]): string {
  const cells = [['VERSION', 'NAME', 'STATUS'], ...rows.map((r) => [r.version.toString(), r.name, r.status])];
  const w0 = Math.max(...cells.map((c) => (c[0] as string).length));
  const w1 = Math.max(...cells.map((c) => (c[1] as string).length));
  return cells.map((c) => `${(c[0] as string).padEnd(w0)}  ${(c[1] as string).padEnd(w1)}  ${c[2] as string}`).join('\n');
}
