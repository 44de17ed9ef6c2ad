/**
 * The generic half of offline validation: walks a YAML value along its shape definition (shapes-core.ts) and reports
 * what does not fit, with the messages of core.ts. Each shape kind has its own wording; the hooks named by
 * the definitions add the semantic rules (hooks.ts, and closures of the modules that need state).
 */
import { GraphQLError } from 'graphql/error/GraphQLError.js';
import { parse } from 'graphql/language/parser.js';
import { Problems } from '../problems.js';
import {
  EVENT_TRIGGER_NAME, GRAPHQL_NAME_PATTERN, named, type Entity, type FormatId, type HookId, type ObjectShape, type Shape,
  type StringShape,
} from './shapes-core.js';
import { checkBoolExp } from './bool-exp.js';
import {
  checkKeys, Ctx, envName, exactlyOne, isObj, list, mapping, optional, present, string, urlTemplate, type Path,
} from './core.js';
import { cronProblems } from './others.js';
import { cronSchedule } from '../../metadata/kinds/cron-triggers.js';

/** Where a value is checked: the `<thing>` of the mapping holding it, and the nearest entry. */
export interface Scope {
  thing: string;
  entity: Entity | undefined;
}

/** A semantic rule of a shape, run on a value that passed the shape's own check (`onInvalid`: one that did not). */
export type Hook = (w: Walker, v: unknown, path: Path, scope: Scope, shape: Shape) => void;
export type Hooks = Partial<Record<HookId, Hook>>;

const GRAPHQL_NAME = new RegExp(GRAPHQL_NAME_PATTERN);
const TRIGGER_NAME = new RegExp(EVENT_TRIGGER_NAME.pattern);
const isScalar = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const quoted = (values: readonly (string | number)[]): string => values.map((v) => JSON.stringify(v)).join(' or ');

/** The checks of the string formats, exactly the rules whose JSON Schema FORMATS gives. */
const FORMAT_CHECKS: Record<FormatId, (c: Ctx, s: string, path: Path, shape: StringShape, scope: Scope) => void> = {
  graphqlName: (c, s, path, shape) => {
    if (!GRAPHQL_NAME.test(s)) c.error('name-invalid', `invalid ${shape.nameOf ?? 'GraphQL'} name "${s}": expected a GraphQL name`, path);
  },
  eventTriggerName: (c, s, path) => {
    if (TRIGGER_NAME.test(s) && s.length <= EVENT_TRIGGER_NAME.maxLength) return;
    c.error('name-invalid', `invalid event trigger name "${s}": use letters, digits, "_" and "-", start with a letter, at most ${EVENT_TRIGGER_NAME.maxLength} characters`, path);
  },
  urlTemplate: (c, s, path) => urlTemplate(c, s, path, c.label(path)),
  envName: (c, s, path) => envName(c, s, path, c.label(path)),
  cronSchedule: (c, s, path) => {
    const problems = cronProblems(s);
    for (const message of problems) c.error('cron-schedule-invalid', message, path);
    const cron = problems.length === 0 ? cronSchedule(s) : null;
    if (typeof cron === 'string') c.error('cron-schedule-invalid', cron, path);
  },
  graphqlQuery: (c, s, path, _shape, scope) => {
    try {
      parse(s);
    } catch (e) {
      if (!(e instanceof GraphQLError)) throw e;
      const loc = e.locations?.[0];
      const where = loc ? ` (query line ${loc.line}, column ${loc.column})` : '';
      c.error('query-invalid', `${scope.thing} is not valid GraphQL: ${e.message}${where}`, path);
    }
  },
};

/** What a `report` shape must be, when the definition does not say. */
function wording(shape: Shape): string {
  if (shape.report?.what !== undefined) return shape.report.what;
  if (shape.kind === 'integer') return `an integer ≥ ${shape.min}`;
  throw new Error(`no wording for a reported ${shape.kind}`);
}

/** A key to check, or an exactly-one pair at its first key (with the second key and its shape). */
interface Step {
  key: string;
  shape: Shape;
  pair?: [string, Shape];
}

/** What checking a mapping of a shape takes, worked out once per shape (validation runs on every build). */
const plans = new WeakMap<ObjectShape, { names: string[]; required: string[]; steps: Step[] }>();

function plan(shape: ObjectShape): { names: string[]; required: string[]; steps: Step[] } {
  let p = plans.get(shape);
  if (p) return p;
  const names = Object.keys(shape.keys);
  const steps: Step[] = [];
  for (const [key, k] of Object.entries(shape.keys)) {
    const pair = shape.oneOf?.find((x) => x.includes(key));
    if (!pair) steps.push({ key, shape: k.shape });
    else if (key === pair[0]) steps.push({ key, shape: k.shape, pair: [pair[1], (shape.keys[pair[1]] as { shape: Shape }).shape] });
  }
  p = { names, required: names.filter((k) => shape.keys[k]?.required), steps };
  plans.set(shape, p);
  return p;
}

export class Walker {
  constructor(
    readonly c: Ctx,
    private readonly hooks: Hooks,
  ) {}

  /** A file's root value; an empty file (absent or `null`) is valid. */
  root(shape: Shape, v: unknown): void {
    if (v === undefined || v === null) return;
    this.check(shape, v, [], { thing: this.c.rootKey, entity: undefined }, 0);
  }

  /** Reports what of `v` does not fit `shape`; true when `v` is of the shape's type (its parts may still have problems). */
  check(shape: Shape, v: unknown, path: Path, scope: Scope, i = 0): boolean {
    const fits = shape.report ? this.reported(shape, v, path, scope, i) : this.own(shape, v, path, scope, i);
    if (fits && shape.hook) this.hook(shape.hook)(this, v, path, scope, shape);
    return fits;
  }

  private hook(id: HookId): Hook {
    const h = this.hooks[id];
    if (!h) throw new Error(`validation hook "${id}" is not provided`);
    return h;
  }

  /** One `permission-invalid` `"<key>" must be …` for whatever the shape's own check finds. */
  private reported(shape: Shape, v: unknown, path: Path, scope: Scope, i: number): boolean {
    const quiet = new Walker(new Ctx(this.c.src, new Problems(), this.c.rootKey), this.hooks);
    const fits = quiet.own(shape, v, path, scope, i);
    if (quiet.c.problems.list.length === 0) return fits;
    this.c.error('permission-invalid', `"${this.c.label(path)}" must be ${wording(shape)}`, path);
    return false;
  }

  private own(shape: Shape, v: unknown, path: Path, scope: Scope, i: number): boolean {
    const c = this.c;
    switch (shape.kind) {
      case 'string': {
        const s = string(c, v, path, shape.nonEmpty);
        if (s !== undefined && shape.format) FORMAT_CHECKS[shape.format](c, s, path, shape, scope);
        return s !== undefined;
      }
      case 'boolean':
        if (typeof v === 'boolean') return true;
        c.invalid('a boolean', v, path);
        return false;
      case 'integer':
        if (typeof v === 'number' && Number.isInteger(v) && v >= shape.min) return true;
        c.invalid(`an integer ≥ ${shape.min}`, v, path);
        return false;
      case 'enum':
        if (shape.values.some((x) => x === v)) return true;
        if (shape.onInvalid) this.hook(shape.onInvalid)(this, v, path, scope, shape);
        else c.invalid(quoted(shape.values), v, path);
        return false;
      case 'list': {
        const l = list(c, v, path);
        if (!l) return false;
        if (shape.nonEmpty && l.length === 0) c.invalid('a non-empty list', v, path);
        l.forEach((item, j) => this.check(shape.items, item, [...path, j], scope, j));
        return true;
      }
      case 'map': {
        const o = mapping(c, v, path);
        for (const [k, x] of Object.entries(o ?? {})) this.check(shape.values, x, [...path, k], scope);
        return o !== undefined;
      }
      case 'mapping':
        return mapping(c, v, path) !== undefined;
      case 'any':
        return true;
      case 'presets':
        return this.presets(v, path);
      case 'boolExp':
        checkBoolExp(c, v, path);
        return isObj(v);
      case 'union':
        return this.check(shape.options[shape.pick(v)] as Shape, v, path, scope, i);
      case 'text':
        throw new Error('config.yaml values are checked where they are used (config.ts)');
      case 'object':
        return this.object(shape, v, path, scope, i);
    }
  }

  /** *Presets*: a mapping of column names to scalars (a value, a session variable or `NOW()`). */
  private presets(v: unknown, path: Path): boolean {
    const message = `"${this.c.label(path)}" must map column names to scalar values`;
    if (!isObj(v)) {
      this.c.error('permission-invalid', message, path);
      return false;
    }
    for (const [column, value] of Object.entries(v)) {
      if (present(value) && !isScalar(value)) this.c.error('permission-invalid', message, [...path, column]);
    }
    return true;
  }

  /** Unknown and missing keys, then each key in the definition's order, an exactly-one pair at its first key. */
  private object(shape: ObjectShape, v: unknown, path: Path, scope: Scope, i: number): boolean {
    const c = this.c;
    const o = mapping(c, v, path);
    if (!o) return false;
    const inner = this.scope(shape, o, path, scope, i);
    let own = o;
    if (shape.sdlOwned) {
      const { keys, prefix } = shape.sdlOwned;
      const owner = inner.entity?.thing ?? inner.thing;
      for (const k of keys.filter((x) => o[x] !== undefined)) {
        c.warn('sdl-key-ignored', `key "${prefix}${k}" of ${owner} is ignored: it is defined by actions.graphql`, [...path, k], true);
      }
      own = Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
    }
    const { names, required, steps } = plan(shape);
    checkKeys(c, own, path, inner.thing, names, required);
    for (const step of steps) {
      if (step.pair === undefined) {
        optional(o, path, step.key, (x, p) => this.check(step.shape, x, p, inner));
        continue;
      }
      const which = exactlyOne(c, o, path, inner.thing, step.key, step.pair[0]);
      if (which !== undefined) this.check(which === step.key ? step.shape : step.pair[1], o[which], [...path, which], inner);
    }
    return true;
  }

  /** The scope of a mapping's keys: its name in messages, and whether it is an entry of its own. */
  private scope(shape: ObjectShape, o: Record<string, unknown>, path: Path, outer: Scope, i: number): Scope {
    const n = shape.naming ?? { nested: 'parent' };
    if ('same' in n) return outer;
    if ('fixed' in n) return { thing: n.fixed, entity: outer.entity };
    if ('nested' in n) {
      const of = n.nested === 'entity' ? (outer.entity?.thing ?? outer.thing) : outer.thing;
      return { thing: `"${this.c.label(path)}" of ${of}`, entity: outer.entity };
    }
    const owner = outer.entity;
    const name: { thing: string; ownerText?: string; named: boolean } = 'entity' in n
      ? { thing: `${named(n.entity, o[n.by], i)}${owner ? ` of ${owner.ownerText}` : ''}`, named: typeof o[n.by] === 'string' }
      : n.custom(o, i, owner);
    const entity: Entity = { thing: name.thing, ownerText: name.ownerText ?? name.thing, value: o, index: i, named: name.named, parent: owner };
    return { thing: entity.thing, entity };
  }
}
