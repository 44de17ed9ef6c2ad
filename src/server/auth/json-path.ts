/**
 * The JSON paths of the JWT configuration (`claims_namespace_path`, `claims_map`): `$`, then `.key`, `['key']`,
 * `["key"]` or `[n]` steps. Parsed once at start-up; a path that does not parse is a configuration error.
 */
export type PathStep = string | number;

const STEP = /^(?:\.([A-Za-z_$][\w$-]*)|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\])/;

/** The steps of `path`, or null when it is not a JSON path. */
export function parseJsonPath(path: string): PathStep[] | null {
  if (!path.startsWith('$')) return null;
  const steps: PathStep[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    const m = STEP.exec(rest);
    if (!m) return null;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(m[2].replace(/\\(.)/g, '$1'));
    else if (m[3] !== undefined) steps.push(m[3].replace(/\\(.)/g, '$1'));
    else steps.push(Number(m[4]));
    rest = rest.slice(m[0].length);
  }
  return steps;
}

/** The value at `steps` in `value`, undefined when any step is missing. */
export function atPath(value: unknown, steps: readonly PathStep[]): unknown {
  let cur = value;
  for (const step of steps) {
    if (typeof step === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[step];
    } else {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, step)) return undefined;
      cur = (cur as Record<string, unknown>)[step];
    }
  }
  return cur;
}
