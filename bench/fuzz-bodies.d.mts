// Types of fuzz-bodies.mjs, for the TypeScript test that shares its generator.
export const SETUP_SQL: string;
export const SETUP_BODIES: { type: string; args: unknown }[];
export const PROTO_NAMES: string[];
export const TEMPLATES: { type: string; args: unknown }[];
export function rng(seed: number): { next(): number; int(n: number): number; pick<T>(xs: T[]): T; chance(p: number): boolean };
export function fuzzBody(seed: number): string | Buffer;
export function fuzzBodies(seed: number, count: number): (string | Buffer)[];
