import Provider, { errors, type Configuration } from 'oidc-provider';
import type { Adapter, AdapterFactory } from '../core/storage.js';
import { STORAGE_RETRY_AFTER_SECONDS, StorageUnavailableError } from '../core/errors.js';
import { noteStorageOutage, storageOutageOf } from '../core/outage-note.js';
import { writeError } from '../http/error-handler.js';

/**
 * A storage outage as oidc-provider's own `temporarily_unavailable` error (RFC 6749 §4.1.2.1, §5.2), so its route
 * error handlers answer 503 with `{ error: 'temporarily_unavailable', error_description }` (JSON) or our error
 * page (`renderError`), never a 500. `allow_redirect` is false: with its storage down the provider cannot trust
 * what it would redirect to, so the authorization endpoint renders the page instead. `cause` is the
 * {@link StorageUnavailableError}; `error_description` its message.
 */
export class ProviderStorageOutage extends errors.TemporarilyUnavailable {
  constructor(cause: StorageUnavailableError) {
    super(cause.message, { cause });
    this.status = 503;
    this.statusCode = 503;
    this.expose = true;
    this.allow_redirect = false;
  }
}

/** `err` thrown on, a storage outage as a {@link ProviderStorageOutage}, noted on the request for its log line. */
function translate(err: unknown): never {
  if (!(err instanceof StorageUnavailableError)) throw err;
  // oidc-provider's own context of the request being served (its AsyncLocalStorage), when there is one.
  const req = (Provider as unknown as { ctx?: { req?: object } }).ctx?.req;
  if (req) noteStorageOutage(req, err);
  throw new ProviderStorageOutage(err);
}

/**
 * `fn` with a {@link StorageUnavailableError} it throws or rejects with turned into a {@link ProviderStorageOutage};
 * sync stays sync.
 */
function translated<F extends (...args: never[]) => unknown>(fn: F): F {
  return function translateStorageOutage(this: unknown, ...args: Parameters<F>) {
    try {
      const out = fn.apply(this, args);
      return out instanceof Promise ? out.catch(translate) : out;
    } catch (err) {
      return translate(err);
    }
  } as F;
}

const ADAPTER_METHODS = [
  'upsert',
  'find',
  'findByUid',
  'findByUserCode',
  'consume',
  'destroy',
  'revokeByGrantId',
] as const;

/** The adapter factory oidc-provider gets: each adapter's methods translate storage outages. */
export function providerAdapter(factory: AdapterFactory): AdapterFactory {
  return (modelName) => {
    const adapter = factory(modelName);
    const wrapped = Object.create(adapter) as Adapter;
    for (const method of ADAPTER_METHODS) {
      if (typeof adapter[method] === 'function')
        (wrapped as unknown as Record<string, unknown>)[method] = translated(adapter[method].bind(adapter) as never);
    }
    return wrapped;
  };
}

/**
 * The one place where Portcullis' storage errors cross into oidc-provider. oidc-provider renders an error from its
 * `message` (the OAuth `error`), `statusCode` and `expose` only, so an honest {@link StorageUnavailableError}
 * (human message, `status` 503) thrown inside one of its routes would become a 500 `server_error`. This wraps
 * every configuration hook that reaches storage — the model `adapter`, `findAccount`, `loadExistingGrant` and
 * the registration `policies` — so such an error becomes a {@link ProviderStorageOutage}, once. Errors of our
 * own routes and of `provider.use` middleware are answered by `handleErrors` / `answerStorageOutages` instead.
 * Returns a new configuration; `configuration` is not changed.
 */
export function throughProviderBoundary(configuration: Configuration): Configuration {
  const out: Configuration = { ...configuration };
  if (typeof out.adapter === 'function')
    out.adapter = providerAdapter(out.adapter as unknown as AdapterFactory) as unknown as Configuration['adapter'];
  if (out.findAccount) out.findAccount = translated(out.findAccount);
  if (out.loadExistingGrant) out.loadExistingGrant = translated(out.loadExistingGrant);
  const registration = out.features?.registration;
  const policies = registration?.policies as Record<string, (...args: never[]) => unknown> | undefined;
  if (registration && policies) {
    const wrapped = Object.fromEntries(Object.entries(policies).map(([name, policy]) => [name, translated(policy)]));
    out.features = { ...out.features, registration: { ...registration, policies: wrapped as never } };
  }
  return out;
}

/**
 * The events oidc-provider's route error handlers emit once they have set an error's status and body
 * (lib/helpers/initialize_app.js, lib/shared/error_handler.js and authorization_error_handler.js of oidc-provider 9;
 * an event of an endpoint that is not enabled is never emitted), and `server_error`.
 */
const ROUTE_ERROR_EVENTS = [
  'authorization.error',
  'grant.error',
  'userinfo.error',
  'introspection.error',
  'revocation.error',
  'pushed_authorization_request.error',
  'registration_create.error',
  'registration_read.error',
  'registration_update.error',
  'registration_delete.error',
  'end_session.error',
  'end_session_confirm.error',
  'end_session_success.error',
  'jwks.error',
  'discovery.error',
  'device_authorization.error',
  'code_verification.error',
  'device_resume.error',
  'backchannel_authentication.error',
  'credential.error',
  'challenge.error',
  'openid_credential_issuer.error',
  'server_error',
] as const;

type ErrorEventContext = {
  status: number;
  response: { get(name: string): string };
  set(name: string, value: string): void;
};

/**
 * A 503 answered by oidc-provider's route error handlers, which set status and body but no header, gets the
 * `Retry-After` that {@link StorageUnavailableError} carries (RFC 9110 §10.2.3), as the 503s of our own routes and of
 * GraphQL do: set from the error events those handlers emit before the response is written, so a request that
 * meets no error pays nothing (a `provider.use` step would run on every request, `/userinfo` and `/token` included).
 */
export function retryAfterOnOutages(provider: {
  on(event: string, listener: (ctx: ErrorEventContext) => void): unknown;
}): void {
  const listener = (ctx: ErrorEventContext) => {
    if (ctx.status === 503 && !ctx.response.get('Retry-After')) ctx.set('Retry-After', STORAGE_RETRY_AFTER_SECONDS);
  };
  for (const event of ROUTE_ERROR_EVENTS) provider.on(event, listener);
}

/**
 * First of the provider's own middleware: a storage outage raised outside oidc-provider's route error handlers
 * (our `provider.use` steps, e.g. rate limits) answers 503 `temporarily_unavailable` like the routes do, not a
 * bare Koa error.
 */
export async function answerStorageOutages(
  ctx: { req: object; status: number; body: unknown; set(k: string, v: string): void },
  next: () => Promise<void>,
) {
  try {
    await next();
  } catch (err) {
    if (!(err instanceof StorageUnavailableError || err instanceof ProviderStorageOutage)) throw err;
    const outage = storageOutageOf(err);
    if (outage) noteStorageOutage(ctx.req, outage);
    writeError(
      ctx as never,
      503,
      'temporarily_unavailable',
      err instanceof ProviderStorageOutage ? String(err.error_description) : err.message,
      { headers: { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS }, page: false },
    );
  }
}
