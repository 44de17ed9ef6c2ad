import { DEFAULT_DATA_DIR } from '../../db/pglite-prestart.js';

/**
 * The data directory `engine serve` will run its embedded database on, guessed from its arguments and the process
 * environment before anything else loads (issue 28: start-up); null when they name an external database. Only a
 * guess: a `.env` file or the project may still say otherwise, and serve's settings (serve-settings.ts) decide.
 */
export function guessEmbeddedDataDir(args: readonly string[], env: Readonly<Record<string, string | undefined>>): string | null {
  const flag = (name: string): string | undefined => {
    const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
    if (i < 0) return undefined;
    const arg = args[i] as string;
    return arg === name ? (args[i + 1] ?? '') : arg.slice(name.length + 1);
  };
  if (flag('--database-url') || env.ENGINE_GRAPHQL_DATABASE_URL || env.HASURA_GRAPHQL_DATABASE_URL) return null;
  return flag('--data-dir') || env.ENGINE_GRAPHQL_DATA_DIR || DEFAULT_DATA_DIR;
}
