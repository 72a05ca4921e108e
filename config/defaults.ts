/**
 * Views derived from the option schema (`config/options.ts`, composed of the core's options and the features'
 * slices, `lib/features/<id>/options.ts`): `DEFAULTS` (the literal defaults, for code that runs without
 * `loadConfig`, such as `createGuardedFetch` or `RedisStorage`), `OPTION_DOCS` and the option reference table
 * (docs/reference/options.md, `npm run docs:options`). Nothing here is written by hand but the consent-page wording
 * of the standard scopes and the claims each releases.
 */
import type { TSchema } from '@sinclair/typebox';
import { ConfigSchema, type DefaultsOf, type OptionMeta } from './options.js';

/** Standard OpenID Connect scopes (Core §5.4) and their consent-page wording. */
export const STANDARD_SCOPES: Readonly<Record<string, string>> = Object.freeze({
  openid: 'Sign you in and know who you are (your account identifier)',
  profile: 'Read your basic profile: name, birthdate, picture, locale and similar details',
  email: 'Read your e-mail address and whether it is verified',
  address: 'Read your postal address',
  phone: 'Read your phone number and whether it is verified',
  offline_access: 'Keep access while you are not using the application (refresh tokens)',
});

/**
 * Claims released per scope (OpenID Connect Core §5.4). `sub` is listed under every scope so that a narrowed
 * userinfo response never drops it. `auth_time`, `amr` and `acr` (Core §2) say how and when the user last
 * authenticated; they exist only in ID tokens.
 */
export const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  openid: ['sub', 'auth_time', 'amr', 'acr'],
  profile: [
    'sub',
    'name',
    'given_name',
    'family_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['sub', 'email', 'email_verified'],
  address: ['sub', 'address'],
  phone: ['sub', 'phone_number', 'phone_number_verified'],
});

/** A schema node as the walkers below read it (JSON Schema plus {@link OptionMeta}). */
type Node = TSchema &
  Partial<OptionMeta> & {
    default?: unknown;
    title?: string;
    type?: unknown;
    properties?: Record<string, Node>;
    items?: Node;
  };

function isObjectValue(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The literal defaults of an object schema, sections included (what ajv `useDefaults` fills into `{}`). */
function defaultsOf(schema: Node): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(schema.properties ?? {})) {
    const literal = node.default === undefined ? undefined : structuredClone(node.default);
    const nested = node.properties ? defaultsOf(node) : undefined;
    if (nested && (literal === undefined || isObjectValue(literal)))
      out[key] = { ...nested, ...(literal as object | undefined) };
    else if (literal !== undefined) out[key] = literal;
  }
  return out;
}

/**
 * The value every option takes when it is not set, derived from the option schema (`config/options.ts`, the
 * features' slices included).
 * Options whose default depends on the environment or on another option (`selfService.signup`,
 * `registration.enabled`, `graphql.resource`) are absent; `graphql` holds the defaults its members take when a
 * `graphql` section is given.
 */
export const DEFAULTS: DefaultsOf<typeof ConfigSchema> = deepFreeze(defaultsOf(ConfigSchema as Node)) as DefaultsOf<
  typeof ConfigSchema
>;

/** One documented option: a row of the option reference table. */
export interface OptionDoc {
  /** Dotted path, `[]` for array members (`clients[].pkce_optional`). */
  path: string;
  /** The default as the option reference shows it (Markdown). */
  default: string;
  summary: string;
  security?: string;
  see?: string;
}

/** `{ points: 30, durationSeconds: 60 }`, `[]`, `/graphql`: a default as written in the option reference. */
function formatValue(value: unknown): string {
  if (Array.isArray(value)) return value.length ? `[${value.map(formatValue).join(', ')}]` : '[]';
  if (isObjectValue(value)) {
    const entries = Object.entries(value);
    return entries.length ? `{ ${entries.map(([k, v]) => `${k}: ${formatValue(v)}`).join(', ')} }` : '{}';
  }
  return String(value);
}

function defaultCell(node: Node): string {
  if (node.default === undefined) return node.defaultText ?? 'unset';
  const value = `\`${formatValue(node.default)}\``;
  return [value, node.unit, node.defaultText].filter(Boolean).join(' ');
}

function collect(node: Node, path: string, out: OptionDoc[]): void {
  if (path && node.description !== undefined) {
    out.push({
      path,
      default: defaultCell(node),
      summary: node.description,
      ...(node.security ? { security: node.security } : {}),
      ...(node.see ? { see: node.see } : {}),
    });
  }
  for (const [key, child] of Object.entries(node.properties ?? {})) collect(child, path ? `${path}.${key}` : key, out);
  if (node.items) collect(node.items, `${path}[]`, out);
}

/** Every option with its default, meaning, security effect and standard, in schema order. */
export const OPTION_DOCS: readonly OptionDoc[] = deepFreeze(
  (() => {
    const out: OptionDoc[] = [];
    collect(ConfigSchema as Node, '', out);
    return out;
  })(),
);

/** The option reference table (Markdown, docs/reference/options.md), generated from {@link OPTION_DOCS}. */
export function optionsTable(): string {
  const cell = (text = '') => text.replace(/\|/g, '\\|');
  return (
    [
      '| option | default | meaning | security effect | standard |',
      '|---|---|---|---|---|',
      ...OPTION_DOCS.map(
        (o) => `| \`${o.path}\` | ${cell(o.default)} | ${cell(o.summary)} | ${cell(o.security)} | ${cell(o.see)} |`,
      ),
    ].join('\n') + '\n'
  );
}
