/** jose, loaded at the first use of JWT mode: an engine without it does not pay for the import at every start. */
let loaded: Promise<typeof import('jose')> | null = null;

export function jose(): Promise<typeof import('jose')> {
  loaded ??= import('jose');
  return loaded;
}
