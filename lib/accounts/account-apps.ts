import { createHash } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { AccountSessions } from './account-sessions.js';

/** One application the account gave remembered consent to, as the account page lists it. */
export interface ConnectedApp {
  clientId: string;
  /** `client_name`, else the client id. */
  name: string;
  /** The hosts of the client's `redirect_uris` (the scheme for a native app's private-use scheme). */
  domains: string[];
  /** The OpenID scopes granted, in the order first granted, `openid` first. */
  scopes: string[];
  /** The account's Grant ids for this client (one per browser session, copied from the remembered consent). */
  grantIds: string[];
}

/** What {@link connectedApps} and {@link revokeApp} need. */
export interface ConnectedAppsDeps {
  provider: Provider;
  sessions: AccountSessions;
  /** Forgets the remembered consent of the account for a client (`ConsentStore.revoke`). */
  forgetConsent(accountId: string, clientId: string): Promise<void>;
  /** The account's remembered consents with their scopes (`ConsentStore.list`). */
  listConsents(accountId: string): Promise<Array<{ clientId: string; scopes: string[] }>>;
  /** Clients never listed nor revocable here (the first-party account client). */
  hidden: readonly string[];
}

/** The host of each redirect URI, deduplicated; the scheme for a private-use URI scheme (RFC 8252 §7.1). */
function domainsOf(redirectUris: readonly string[] | undefined): string[] {
  const out = new Set<string>();
  for (const uri of redirectUris ?? []) {
    if (!URL.canParse(uri)) continue;
    const url = new URL(uri);
    out.add(url.host || url.protocol.replace(/:$/, ''));
  }
  return [...out];
}

/**
 * The applications (clients) the account has a remembered consent for or that hold a live Grant of the account,
 * found through the consent index and the account's index of Grants (no storage scan), with the approved OpenID
 * scopes merged over the consent and the account's Grants for each client. The clients in `deps.hidden` and
 * clients that no longer exist are left out. Sorted by name.
 */
export async function connectedApps(deps: ConnectedAppsDeps, accountId: string): Promise<ConnectedApp[]> {
  const [entries, consents] = await Promise.all([deps.sessions.grants(accountId), deps.listConsents(accountId)]);
  const grants = await Promise.all(entries.map((e) => deps.provider.Grant.find(e.id)));
  const byClient = new Map<string, { scopes: Set<string>; grantIds: string[] }>();
  for (const consent of consents) {
    if (!deps.hidden.includes(consent.clientId))
      byClient.set(consent.clientId, { scopes: new Set(consent.scopes), grantIds: [] });
  }
  for (const grant of grants) {
    if (!grant || grant.accountId !== accountId || !grant.clientId || deps.hidden.includes(grant.clientId)) continue;
    const entry = byClient.get(grant.clientId) ?? { scopes: new Set<string>(), grantIds: [] };
    for (const scope of grant.getOIDCScope().split(' ').filter(Boolean)) entry.scopes.add(scope);
    entry.grantIds.push(grant.jti);
    byClient.set(grant.clientId, entry);
  }
  const apps: ConnectedApp[] = [];
  for (const [clientId, entry] of byClient) {
    const client = await deps.provider.Client.find(clientId);
    if (!client) continue;
    const scopes = [...entry.scopes].sort((a, b) => Number(b === 'openid') - Number(a === 'openid'));
    apps.push({
      clientId,
      name: client.clientName ?? clientId,
      domains: domainsOf(client.redirectUris),
      scopes,
      grantIds: entry.grantIds,
    });
  }
  return apps.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Revokes `app` (one of {@link connectedApps}' answer for the account, so never a hidden client): its remembered
 * consent is forgotten (the next authorization asks for consent again) and every Grant of the account for it is
 * revoked with its codes, access and refresh tokens.
 */
export async function revokeApp(deps: ConnectedAppsDeps, accountId: string, app: ConnectedApp): Promise<void> {
  await deps.forgetConsent(accountId, app.clientId);
  await deps.sessions.revoke(accountId, { grants: app.grantIds });
}

/**
 * An opaque handle for an id shown in a form (a session id is the `_session` cookie value, and is not put into
 * pages): SHA-256 of the id, base64url, 22 characters. The POST finds the id again among the account's own.
 */
export function handleOf(id: string): string {
  return createHash('sha256').update(`portcullis-account-handle\n${id}`).digest('base64url').slice(0, 22);
}
