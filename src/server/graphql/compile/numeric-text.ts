/**
 * The text a numeric value reaches PostgreSQL as, where the incumbent's encoding decides the value's scale (the
 * digits after the point that PostgreSQL keeps and prints, issue 30 numerics cases). Its GraphQL mutations send
 * Haskell's `show` of the number (`-1.1`, `5.0`, `-1.0e-30`: PostgreSQL keeps 31 digits of that one); its data
 * queries (`/v1/query` insert and update) send the number in the binary numeric format, whose scale is the written
 * one rounded up to a multiple of 4 (`12345.67` is kept as 12345.6700).
 */

interface Decimal {
  negative: boolean;
  /** The digits without leading zeros ('' for zero); the value is digits × 10^exponent. */
  digits: string;
  exponent: number;
}

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function decimal(text: string): Decimal | null {
  const m = NUMBER.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const frac = m[3] ?? '';
  return { negative: m[1] === '-', digits: `${m[2]}${frac}`.replace(/^0+/, ''), exponent: Number(m[4] ?? 0) - frac.length };
}

/** Whether a column type is numeric without a declared scale (a declared one fixes the scale whatever is sent). */
export const isFreeNumeric = (typeName: string): boolean => typeName === 'numeric' || typeName === 'decimal';

/** Haskell's `show` of the number as a Scientific (fixed between 0.1 and 10^7, else `d.ddde<n>`); other text as is. */
export function scientificShow(text: string): string {
  const d = decimal(text);
  if (!d) return text;
  const trailing = /0*$/.exec(d.digits)?.[0].length ?? 0;
  const ds = d.digits.slice(0, d.digits.length - trailing);
  if (ds === '') return '0.0';
  const sign = d.negative ? '-' : '';
  // The value is 0.ds × 10^e.
  const e = ds.length + d.exponent + trailing;
  if (e < 0 || e > 7) return `${sign}${ds[0]}.${ds.slice(1) || '0'}e${e - 1}`;
  if (e === 0) return `${sign}0.${ds}`;
  return `${sign}${ds.slice(0, e).padEnd(e, '0')}.${ds.slice(e) || '0'}`;
}

/** The number with the scale the binary numeric format gives it: the written scale rounded up to a multiple of 4. */
export function binaryNumericText(text: string): string {
  const d = decimal(text);
  if (!d) return text;
  const sign = d.negative && d.digits !== '' ? '-' : '';
  if (d.exponent >= 0) return `${sign}${d.digits === '' ? '0' : d.digits + '0'.repeat(d.exponent)}`;
  const scale = -d.exponent;
  const padded = d.digits.padStart(scale + 1, '0');
  return `${sign}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}${'0'.repeat((4 - (scale % 4)) % 4)}`;
}
