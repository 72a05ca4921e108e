import type { KoaContextWithOIDC } from 'oidc-provider';
import { ipLimitKey } from '../core/client-key.js';
import { writeError } from '../http/error-handler.js';
import { createLimiter, type LimiterBackend, type LimitSpec } from '../core/limiter.js';

/** Limits of {@link endpointRateLimits}; each is counted per client IP address. */
export interface EndpointLimits {
  /** Failed client authentications (`invalid_client`) at the token, introspection, revocation and PAR endpoints. */
  clientAuthFailures: LimitSpec;
  /** Registration attempts (`POST /registration`), successful or not. */
  registrations: LimitSpec;
}

/**
 * 429 with `Retry-After`. The `error` is `temporarily_unavailable` (RFC 6749 §4.1.2.1, §5.2 via the IANA OAuth
 * Extensions Error registry): the registry has no "too many requests" value, and 429 plus `Retry-After`
 * (RFC 6585 §4) already say why.
 */
function tooMany(ctx: KoaContextWithOIDC, retryAfterSeconds: number, what: string): void {
  writeError(
    ctx as never,
    429,
    'temporarily_unavailable',
    `too many ${what} from this address; retry after ${retryAfterSeconds} seconds`,
    { headers: { 'Retry-After': String(retryAfterSeconds) }, page: false },
  );
}

/**
 * oidc-provider middleware (mount with `provider.use()`) answering 429 with `Retry-After` once an IP address has
 * spent its budget of failed client authentications (RFC 6749 §5.2 `invalid_client`) at `paths.clientAuth`, or
 * of registration attempts at `paths.registration`. Uses the shared {@link createLimiter}.
 */
/** Most addresses remembered as blocked by one process (a flood of addresses cannot grow it further). */
const MAX_BLOCKED_ADDRESSES = 10_000;

export function endpointRateLimits(
  limits: EndpointLimits,
  backend: LimiterBackend | undefined,
  paths: { clientAuth: string[]; registration: string },
) {
  const failures = createLimiter('client-auth-failures', limits.clientAuthFailures, backend);
  // Addresses whose failures reached the budget, and until when (epoch ms). Successful requests then cost no
  // storage read: the counter is only written on a failure, whose answer says whether the budget is spent. With
  // several instances sharing Redis, an instance learns of a block at its own next failure from that address.
  const blockedUntil = new Map<string, number>();
  const registrations = createLimiter('registrations', limits.registrations, backend);
  const clientAuthPaths = new Set(paths.clientAuth);
  return async function rateLimitClientAuthAndRegistration(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
    if (ctx.method !== 'POST') return next();
    // An IPv6 client counts by its /56 network (lib/core/client-key.ts).
    const client = ipLimitKey(ctx.ip);
    if (ctx.path === paths.registration) {
      const result = await registrations.consume(client);
      if (!result.allowed) return tooMany(ctx, result.retryAfterSeconds, 'registration attempts');
      return next();
    }
    if (!clientAuthPaths.has(ctx.path)) return next();
    const until = blockedUntil.get(client);
    if (until !== undefined) {
      const left = until - Date.now();
      if (left > 0) return tooMany(ctx, Math.ceil(left / 1000), 'failed client authentications');
      blockedUntil.delete(client);
    }
    await next();
    if (ctx.status === 401 && (ctx.body as { error?: string } | undefined)?.error === 'invalid_client') {
      const spent = await failures.consume(client);
      if (!spent.allowed || spent.remaining <= 0) {
        if (blockedUntil.size >= MAX_BLOCKED_ADDRESSES) blockedUntil.delete(blockedUntil.keys().next().value!);
        blockedUntil.set(client, Date.now() + spent.retryAfterSeconds * 1000);
      }
    }
  };
}
