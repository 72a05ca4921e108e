/**
 * Rules of the token endpoint's authorization code and refresh token grants that oidc-provider does not enforce
 * itself: a `scope` beyond the code's approval and a `resource` the grant does not hold are refused, checked in the
 * storage adapter's read and consumption of the code or refresh token (inside the token endpoint, after client
 * authentication, body parsing and oidc-provider's own checks); a replayed or raced code or refresh token revokes
 * its grant (a pre-middleware of the token endpoint).
 */
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { requestSlot } from '../core/request-slot.js';
import { overriding, watchReads, type AdapterFactory } from '../core/storage.js';
import { refuseResourceNotHeld } from './exchange-resource.js';

type Next = () => Promise<unknown>;

/** What the code-exchange scope rule reads of the request oidc-provider is answering (`Provider.ctx`). */
interface ProviderRequestContext {
  req: object;
  oidc?: {
    route?: string;
    params?: { grant_type?: unknown; code?: unknown; refresh_token?: unknown; resource?: unknown };
    body?: Record<string, unknown>;
  };
}

/**
 * The approved scope of the code being exchanged in this request, kept from oidc-provider's read of it until its
 * consume (both only for the request's own `code`, see {@link exchangeOf}).
 */
const exchangedCode = requestSlot<{ scope: unknown; resource: unknown; consuming?: true }>('portcullis.exchangedCode');

/** The current request context when it is an authorization code exchange of the code `id`. */
function exchangeOf(id: string): ProviderRequestContext | undefined {
  const ctx = Provider.ctx as ProviderRequestContext | undefined;
  const oidc = ctx?.oidc;
  return oidc?.route === 'token' && oidc.params?.grant_type === 'authorization_code' && oidc.params.code === id
    ? ctx
    : undefined;
}

/** Marks a refresh-token request that reached the consume of its own refresh token (every check passed). */
const consumingRefreshToken = requestSlot<true>('portcullis.consumingRefreshToken');

/** The `resource` of the refresh token being used in this request, kept from oidc-provider's read until its consume. */
const refreshedResource = requestSlot<{ resource: unknown }>('portcullis.refreshedResource');

/** The current request context when it is a refresh of the refresh token `id` (RFC 6749 §6). */
function refreshOf(id: string): ProviderRequestContext | undefined {
  const ctx = Provider.ctx as ProviderRequestContext | undefined;
  const oidc = ctx?.oidc;
  return oidc?.route === 'token' && oidc.params?.grant_type === 'refresh_token' && oidc.params.refresh_token === id
    ? ctx
    : undefined;
}

/**
 * RFC 6749 §5.2 / SPEC rule 5: a `scope` parameter at the authorization code exchange that goes beyond what the
 * user approved for that code fails with `invalid_scope` before the code is consumed or any token issued.
 * (oidc-provider ignores `scope` on this grant.) A subset is accepted and, as before, ignored: the token carries
 * the approved scope, which the token response states. A `scope` given twice fails with `invalid_request`.
 *
 * Runs when oidc-provider consumes the code: by then it has authenticated the client (wrong credentials:
 * `invalid_client`), parsed the body (`ctx.oidc.body`, every field), and refused with `invalid_grant` a code of
 * another client, an expired one, a wrong PKCE `code_verifier` or redirect_uri, and a code already consumed
 * (revoking its grant, RFC 6749 §4.1.2). So only a caller who could redeem the code learns anything about its
 * approval, and a scope refusal never pre-empts the revocation of a replayed code.
 *
 * @throws oidc-provider's `InvalidScope` or `InvalidRequest`, which it answers as 400 JSON.
 */
function refuseScopeBeyondApproval(ctx: ProviderRequestContext, approvedScope: unknown): void {
  const requested = ctx.oidc?.body?.scope;
  if (requested === undefined) return;
  // oidc-provider checks duplicates only among the grant's own parameters, and scope is not one of them.
  if (typeof requested !== 'string')
    throw new errors.InvalidRequest("'scope' parameter must only be provided once (RFC 6749 §3.1)");
  const approved = new Set(
    String(approvedScope ?? '')
      .split(' ')
      .filter(Boolean),
  );
  const beyond = [...new Set(requested.split(' ').filter((s) => s && !approved.has(s)))];
  if (beyond.length > 0) {
    // No `scope` member in the answer (oidc-provider adds one when given): the body stays RFC 6749 §5.2's, as before.
    throw new errors.InvalidScope(
      `requested scope goes beyond the scope approved for this authorization code: ${beyond.join(' ')}`,
      undefined as unknown as string,
    );
  }
}

/**
 * The adapter factory with {@link refuseScopeBeyondApproval} applied at the code exchange: the approved scope is
 * kept when oidc-provider reads the code (`find`) and checked when it consumes it (`consume`), in the same request
 * (`Provider.ctx`). oidc-provider offers no token-endpoint hook after its body parsing; the rule used to read the
 * body in a pre-middleware, which meant reading the stream and replaying it to oidc-provider on every exchange
 * (measured: 5–9 % of `/token` throughput on memory storage).
 */
export function codeExchangeScopeAdapter(factory: AdapterFactory): AdapterFactory {
  return (model) => {
    const adapter = factory(model);
    if (model === 'RefreshToken') {
      const reads = watchReads(adapter, (token, id) => {
        const ctx = token && refreshOf(id);
        if (ctx) refreshedResource.set(ctx.req, { resource: token.resource });
      });
      return overriding(reads, {
        async consume(id) {
          // oidc-provider rotates a refresh token after its checks of the refresh, but before the resource check.
          const ctx = refreshOf(id);
          if (ctx) {
            refuseResourceNotHeld(ctx.oidc?.params?.resource, refreshedResource.get(ctx.req)?.resource);
            consumingRefreshToken.set(ctx.req, true);
          }
          return adapter.consume(id);
        },
      });
    }
    if (model !== 'AuthorizationCode') return adapter;
    const reads = watchReads(adapter, (code, id) => {
      const ctx = code && exchangeOf(id);
      if (ctx) exchangedCode.set(ctx.req, { scope: code.scope, resource: code.resource });
    });
    return overriding(reads, {
      async consume(id) {
        const ctx = exchangeOf(id);
        const read = ctx && exchangedCode.get(ctx.req);
        if (read) {
          refuseScopeBeyondApproval(ctx!, read.scope);
          refuseResourceNotHeld(ctx!.oidc?.params?.resource, read.resource);
          // oidc-provider consumes only after every check of the exchange passed (see revokeOnCodeReplay).
          read.consuming = true;
        }
        return adapter.consume(id);
      },
    });
  };
}

/**
 * RFC 6749 §4.1.2 / RFC 9700 §4.5: a code presented again is refused and everything issued from it revoked.
 * oidc-provider revokes when it reads a code already marked consumed, once the exchange has passed its checks (the
 * code's own client, PKCE `code_verifier`, redirect_uri); when two exchanges race, the loser is stopped by the
 * storage's atomic `consume` instead, and nothing is revoked. This closes that gap: after an `invalid_grant` from
 * the atomic `consume` of the request's code, the code's grant (its tokens, codes and the Grant record) is
 * revoked, so even the racing winner's tokens stop working (their Grant no longer exists).
 *
 * The same for refresh tokens (RFC 9700 §4.14.2: a rotated refresh token presented again revokes its grant):
 * oidc-provider revokes when it reads one already consumed; the loser of two concurrent refreshes is stopped by
 * the atomic `consume` and revokes here.
 *
 * Only a request that reached `consume` (every check passed: it could have redeemed the code) revokes, as in
 * oidc-provider. Another client, a wrong `code_verifier` or redirect_uri presenting a used code get `invalid_grant`
 * and revoke nothing: otherwise anyone who saw a used code (in a log, a browser history, a Referer) could revoke
 * its owner's tokens with any client_id.
 */
export function revokeOnCodeReplay(provider: Provider, tokenPath: string) {
  return async function grantSourceReplay(ctx: KoaContextWithOIDC, next: Next) {
    await next();
    if (ctx.method !== 'POST' || ctx.path !== tokenPath || ctx.status !== 400) return;
    if ((ctx.body as { error?: string } | undefined)?.error !== 'invalid_grant') return;
    const params = ctx.oidc?.params as { grant_type?: string; code?: string; refresh_token?: string } | undefined;
    let source: { consumed?: number; grantId?: string; clientId?: string } | undefined;
    if (
      params?.grant_type === 'authorization_code' &&
      typeof params.code === 'string' &&
      exchangedCode.get(ctx.req)?.consuming
    ) {
      source = (await provider.AuthorizationCode.find(params.code, { ignoreExpiration: true })) as typeof source;
    } else if (
      params?.grant_type === 'refresh_token' &&
      typeof params.refresh_token === 'string' &&
      consumingRefreshToken.get(ctx.req)
    ) {
      source = (await provider.RefreshToken.find(params.refresh_token, { ignoreExpiration: true })) as typeof source;
    }
    if (!source?.consumed || !source.grantId) return;
    if (source.clientId !== ctx.oidc.client?.clientId) return;
    const { grantId } = source;
    await Promise.all([
      provider.AccessToken.revokeByGrantId(grantId),
      provider.RefreshToken.revokeByGrantId(grantId),
      provider.AuthorizationCode.revokeByGrantId(grantId),
      provider.Grant.adapter.destroy(grantId),
    ]);
  };
}
