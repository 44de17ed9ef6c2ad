/**
 * The incumbent's names of the engine's variables (issue 29): `HASURA_GRAPHQL_<X>` stands in for `ENGINE_GRAPHQL_<X>`
 * when the engine's own name is unset, so that an environment or compose file written for the incumbent works as it is.
 * No imports: the bin's global flags use it before anything else loads.
 */

const ENGINE_PREFIX = 'ENGINE_GRAPHQL_';
const INCUMBENT_PREFIX = 'HASURA_GRAPHQL_';

/** The incumbent's names for an engine variable, first match wins; none for a name outside `ENGINE_GRAPHQL_`. */
export function incumbentNames(name: string): string[] {
  if (!name.startsWith(ENGINE_PREFIX)) return [];
  const rest = name.slice(ENGINE_PREFIX.length);
  // The incumbent's 1.0 name of the admin secret, still read by its later versions.
  return rest === 'ADMIN_SECRET' ? [`${INCUMBENT_PREFIX}${rest}`, `${INCUMBENT_PREFIX}ACCESS_KEY`] : [`${INCUMBENT_PREFIX}${rest}`];
}

/** A variable's value from the process environment, else `.env` (which never overrides a defined variable, even ""). */
type Lookup = (name: string) => string | undefined;

/**
 * The value of `name`: the engine's name wins wherever it is set; when it is unset or "", the first of the incumbent's
 * names that is set (not "") stands in. `from` is the variable that gave the value.
 */
export function resolveVariable(name: string, lookup: Lookup): { value: string; from: string } | undefined {
  const own = lookup(name);
  if (own !== undefined && own !== '') return { value: own, from: name };
  for (const alias of incumbentNames(name)) {
    const v = lookup(alias);
    if (v !== undefined && v !== '') return { value: v, from: alias };
  }
  return own === undefined ? undefined : { value: own, from: name };
}
