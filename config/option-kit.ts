/**
 * The helpers every slice of the option schema is written with: the core's (`config/options.ts`) and each feature's
 * (`lib/features/<id>/options.ts`), so that one convention holds for all of them. A node with a `description` is one
 * option (one row of the option reference); a node with a `title` is a section that only groups options. A literal
 * default is the JSON Schema `default` keyword (ajv fills it in); a default that depends on the environment or
 * another option is `derived` and resolved by its feature's `defaults` (run by `loadConfig`), with `defaultText`
 * saying how. Sections are created empty when missing, so the defaults of their members apply.
 *
 * This file imports nothing of ours: a feature's option slice imports it (and types of lib/core and lib/ui) only,
 * which is what lets config/options.ts compose the slices (see .dependency-cruiser.cjs).
 */
import {
  OptionalKind,
  Type,
  type Static,
  type TArray,
  type TObject,
  type TProperties,
  type TSchema,
} from '@sinclair/typebox';

/** What an option says about itself beyond JSON Schema: the option reference's columns. */
export interface OptionMeta {
  /** What the option does (the "meaning" column). */
  description: string;
  /** Unit of a number (`seconds`, `milliseconds`, `bytes`); shown beside the default. */
  unit?: string;
  /** What it changes for security (the "security effect" column). */
  security?: string;
  /** The standard (RFC, specification section) it follows. */
  see?: string;
  /**
   * Words for the default. With a literal `default`, a note shown after it (`(14 days)`); without one, the whole
   * default (a derived or unset value, e.g. `issuer + graphql.path`).
   */
  defaultText?: string;
}

/** Keywords of {@link OptionMeta} that are not JSON Schema: registered with ajv as annotations. */
export const OPTION_KEYWORDS = ['unit', 'security', 'see', 'defaultText', 'errorMessages'] as const;

/** Marks a property that always has a value once the configuration is resolved. */
export const DefaultKind = Symbol.for('portcullis.defaultKind');
/** A literal default (JSON Schema `default`) that ajv fills in. */
export interface TLiteralDefault {
  [DefaultKind]: 'literal';
}
/** A default computed by `loadConfig` from the environment or another option. */
export interface TDerivedDefault {
  [DefaultKind]: 'derived';
}

/**
 * TypeBox's mark of an optional member (what `TOptional` adds), as an interface: the declaration output of a slice
 * can then name it (a computed `[OptionalKind]` key written out in each slice's .d.ts would need the symbol imported
 * there, TS4023).
 */
export interface OptionalMark {
  [OptionalKind]: 'Optional';
}
/** A member that may be absent, documented by its parent (a client's `client_name`): `Type.Optional`. */
export const maybe = <T extends TSchema>(schema: T): T & OptionalMark => Type.Optional(schema) as T & OptionalMark;

const annotate = <T extends TSchema>(schema: T, extra: object): T => ({ ...schema, ...extra });

/** A required option. */
export function required<T extends TSchema>(schema: T, meta: OptionMeta): T {
  return annotate(schema, meta);
}
/** An option that may stay unset. */
export function optional<T extends TSchema>(schema: T, meta: OptionMeta): T & OptionalMark {
  return Type.Optional(annotate(schema, meta)) as T & OptionalMark;
}
/** An option with a literal default: optional in the input, always present once resolved. */
export function withDefault<T extends TSchema>(
  schema: T,
  value: Static<T>,
  meta: OptionMeta,
): T & OptionalMark & TLiteralDefault {
  return Type.Optional(annotate(schema, { ...meta, default: value, [DefaultKind]: 'literal' })) as T &
    OptionalMark &
    TLiteralDefault;
}
/** An option whose default depends on the environment or another option (resolved by `loadConfig`). */
export function derived<T extends TSchema>(
  schema: T,
  meta: OptionMeta & { defaultText: string },
): T & OptionalMark & TDerivedDefault {
  return Type.Optional(annotate(schema, { ...meta, [DefaultKind]: 'derived' })) as T & OptionalMark & TDerivedDefault;
}
/** A group of options; created empty when missing so that its members' defaults apply. */
export function section<P extends TProperties>(
  title: string,
  properties: P,
): TObject<P> & OptionalMark & TLiteralDefault {
  return Type.Optional(
    Type.Object(properties, { title, additionalProperties: false, default: {}, [DefaultKind]: 'literal' }),
  ) as TObject<P> & OptionalMark & TLiteralDefault;
}

/** The longest lifetime an option accepts: ten years, in seconds. */
export const MAX_SECONDS = 10 * 365 * 24 * 3600;
/** A lifetime in seconds: 1 up to {@link MAX_SECONDS}, or `maximum`. */
export const seconds = (options: { maximum?: number } = {}) =>
  Type.Integer({ minimum: 1, maximum: MAX_SECONDS, ...options });

/** One rate limit, `{ points, durationSeconds }`: a fixed window counted per key (the shape of `LimitSpec`). */
export const limitSpec = Type.Object(
  { points: Type.Integer({ minimum: 1 }), durationSeconds: seconds() },
  { additionalProperties: false },
);
/** A limit option: `points` per `durationSeconds`, whole values replace the default. */
export function limit(points: number, durationSeconds: number, meta: OptionMeta) {
  return withDefault(limitSpec, { points, durationSeconds }, meta);
}
/** `{ enum }` only (no `type`), so a wrong value of any type reads "must be one of …". */
export const oneOf = <const V extends readonly (string | number)[]>(values: V) =>
  Type.Unsafe<V[number]>({ enum: [...values] });

export type Flatten<T> = { [K in keyof T]: T[K] } & {};
type HasDefault<S, WithDerived extends boolean> = S extends TLiteralDefault
  ? true
  : WithDerived extends true
    ? S extends TDerivedDefault
      ? true
      : false
    : false;
type ResolveObject<P extends TProperties, D extends boolean> = Flatten<
  {
    [K in keyof P as HasDefault<P[K], D> extends true ? K : P[K] extends OptionalMark ? never : K]: Resolve<P[K], D>;
  } & {
    [K in keyof P as HasDefault<P[K], D> extends true ? never : P[K] extends OptionalMark ? K : never]?: Resolve<
      P[K],
      D
    >;
  }
>;
/**
 * The type of a value of schema `S` once defaults are applied: members with a literal default (and, when
 * `WithDerived`, a derived one) are present.
 */
export type Resolve<S, WithDerived extends boolean = true> =
  S extends TObject<infer P>
    ? ResolveObject<P, WithDerived>
    : S extends TArray<infer I>
      ? Array<Resolve<I, WithDerived>>
      : S extends TSchema
        ? Static<S>
        : never;

/** The literal defaults: the type of `DEFAULTS` (`config/defaults.ts`). Derived and unset options are absent. */
export type DefaultsOf<S> =
  S extends TObject<infer P>
    ? Flatten<{
        [K in keyof P as P[K] extends TLiteralDefault ? K : P[K] extends TObject ? K : never]: DefaultsOf<P[K]>;
      }>
    : S extends TSchema
      ? Static<S>
      : never;
