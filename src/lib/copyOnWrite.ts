/**
 * Copy-on-write drafts of JSON documents: `draftOf(base)` gives a stand-in for `base` that reads as
 * `base` and may be edited in place (assignment, `delete`, array methods such as push, splice, sort);
 * `finishDraft(draft)` gives the edited document as plain objects, in which every object and array
 * nobody wrote to, directly or below, is the base's own object. The base is never written.
 *
 * An edit copies only the objects on the path to it (one level each), so editing one table of a
 * document of thousands costs the copy of the tables array and of that table, not of the document;
 * and a later comparison with the base finds the unchanged parts by identity.
 *
 * Values read from a draft are drafts themselves (the same one for the same place, until it is
 * overwritten); drafts may be stored anywhere in the draft (a filtered array of drafts, a spread of
 * one): `finishDraft` replaces each by its finished value. Only plain objects and arrays are drafted.
 */

interface DraftState {
  base: object;
  /** The shallow copy written to, made on the first write here or below. */
  copy: Record<string | symbol, unknown> | undefined;
  parent: DraftState | undefined;
  /** The drafts handed out for this object's properties, with the base value each stands for. */
  children: Map<string | symbol, { of: unknown; draft: object }>;
  proxy: object;
  /** The base is part of the document `draftOf` was given (not a value written into the draft): it holds no drafts. */
  pristine: boolean;
  finished?: object;
}

const states = new WeakMap<object, DraftState>();
/** Values `finishDraft` gave: plain, holding no drafts (a later write to their draft copies them first). */
const finishedValues = new WeakSet<object>();

const isPlain = (v: unknown): v is object => {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

const source = (s: DraftState): Record<string | symbol, unknown> => (s.copy ?? s.base) as Record<string | symbol, unknown>;

/**
 * Makes `s` and its ancestors writable: a shallow copy of the base, or (a write after `finishDraft`) of the
 * finished value, which stays as it was: each finish gives a value later writes do not change.
 */
function markChanged(s: DraftState): void {
  for (let at: DraftState | undefined = s; at; at = at.parent) {
    if (at.copy && !at.finished) break;
    const from = at.finished ?? at.base;
    at.copy = (Array.isArray(from) ? [...from] : { ...from }) as Record<string | symbol, unknown>;
    at.finished = undefined;
  }
}

const traps: ProxyHandler<object> = {
  get(target, key) {
    const s = states.get(target)!;
    const src = source(s);
    const v = src[key];
    if (!isPlain(v) || states.has(v as object) || !Object.prototype.hasOwnProperty.call(src, key)) return v;
    const known = s.children.get(key);
    if (known && known.of === v) return known.draft;
    const draft = makeDraft(v, s, s.pristine && (s.base as Record<string | symbol, unknown>)[key] === v);
    s.children.set(key, { of: v, draft });
    return draft;
  },
  set(target, key, value) {
    const s = states.get(target)!;
    markChanged(s);
    s.copy![key] = value;
    const known = s.children.get(key);
    if (known && known.draft !== value) s.children.delete(key);
    return true;
  },
  deleteProperty(target, key) {
    const s = states.get(target)!;
    markChanged(s);
    delete s.copy![key];
    s.children.delete(key);
    return true;
  },
  has(target, key) {
    return key in source(states.get(target)!);
  },
  ownKeys(target) {
    return Reflect.ownKeys(source(states.get(target)!));
  },
  getOwnPropertyDescriptor(target, key) {
    const s = states.get(target)!;
    const src = source(s);
    const d = Reflect.getOwnPropertyDescriptor(src, key);
    if (!d) return undefined;
    // An array's `length` is not configurable on the (array) target: it must not be reported otherwise.
    const fixed = Array.isArray(s.base) && key === 'length';
    return { value: traps.get!(target, key, target), writable: true, enumerable: d.enumerable, configurable: !fixed };
  },
  defineProperty(target, key, d) {
    if (!('value' in d)) return false;
    return traps.set!(target, key, d.value, target);
  },
  getPrototypeOf(target) {
    return Object.getPrototypeOf(states.get(target)!.base);
  },
};

function makeDraft(base: object, parent: DraftState | undefined, pristine: boolean): object {
  // The target only carries the state: every trap reads and writes the base or its copy.
  const target = Array.isArray(base) ? [] : {};
  const proxy = new Proxy(target, traps);
  const s: DraftState = { base, copy: undefined, parent, children: new Map(), proxy, pristine };
  states.set(target, s);
  states.set(proxy, s);
  return proxy;
}

/** A copy-on-write draft of `base` (see the module comment). */
export function draftOf<T extends object>(base: T): T {
  return makeDraft(base, undefined, true) as T;
}

/** Whether `v` is a draft made by `draftOf` (or read from one). */
export const isDraft = (v: unknown): boolean => typeof v === 'object' && v !== null && states.get(v)?.proxy === v;

/**
 * The value `v` stands for as plain objects: drafts replaced by their finished values (an unwritten
 * draft is its base), other objects and arrays searched for drafts (copied only where one is found).
 * A draft finished twice gives the same object.
 */
export function finishDraft<T>(v: T): T {
  return finish(v, new Set()) as T;
}

function finish(v: unknown, seen: Set<object>): unknown {
  if (v === null || typeof v !== 'object') return v;
  const s = states.get(v);
  if (s && s.proxy === v) return finishState(s, seen);
  if (!isPlain(v) || seen.has(v) || finishedValues.has(v)) return v;
  seen.add(v);
  // A new value (written into a draft) may hold drafts: replaced in place (it belongs to the draft).
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (x !== null && typeof x === 'object') {
      const f = finish(x, seen);
      if (f !== x) o[k] = f;
    }
  }
  return v;
}

function finishState(s: DraftState, seen: Set<object>): object {
  if (s.finished) return s.finished;
  if (!s.copy) {
    s.finished = s.pristine ? s.base : (finish(s.base, seen) as object);
    finishedValues.add(s.finished);
    return s.finished;
  }
  const copy = s.copy;
  const base = s.base as Record<string, unknown>;
  // Values of the base (possibly moved, e.g. by a splice) hold no drafts: only drafts and new values are looked at.
  let fromBase: Set<unknown> | undefined;
  for (const k of Object.keys(copy)) {
    const x = copy[k];
    if (x === null || typeof x !== 'object') continue;
    const child = s.children.get(k);
    if (child && child.of === x) {
      copy[k] = child.of = finishState(states.get(child.draft)!, seen);
      continue;
    }
    if (s.pristine && x === base[k]) continue;
    if (s.pristine && !states.has(x)) {
      fromBase ??= new Set(Object.values(base));
      if (fromBase.has(x)) continue;
    }
    const f = finish(x, seen);
    if (f !== x) copy[k] = f;
  }
  s.finished = copy;
  finishedValues.add(copy);
  return copy;
}
