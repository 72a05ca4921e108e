import { STANDARD_SCOPES } from '../../config/defaults.js';
import type { Account } from '../core/account-store.js';
import type { ScopeDefinition } from '../../config/types.js';

/** The part of oidc-provider's `Grant` that {@link ScopePolicy.applyRoles} reads and changes. */
export interface GrantScopes {
  resources?: Readonly<Record<string, string>>;
  /** The Grant payload's rejected scopes (and claims): `openid.scope` and one scope string per resource server. */
  rejected?: { openid?: { scope?: string }; resources?: Record<string, string> };
  getOIDCScope(): string;
  rejectOIDCScope(scope: string[]): unknown;
  getResourceScope(resource: string): string;
  rejectResourceScope(resource: string, scope: string[]): unknown;
}

/**
 * Decides which requested scopes an account can be granted and how each is described on the consent page
 * (RFC 6749 §3.3: the server may grant fewer scopes than requested and says so in the token response's `scope`).
 */
export class ScopePolicy {
  readonly #custom: Readonly<Record<string, ScopeDefinition>>;

  constructor(custom: Readonly<Record<string, ScopeDefinition>>) {
    this.#custom = custom;
  }

  /** Every scope this server knows: the OpenID Connect standard ones plus the configured ones. */
  get all(): string[] {
    return [...Object.keys(STANDARD_SCOPES), ...Object.keys(this.#custom)];
  }

  /** The scopes of a space-separated `scope` parameter that this server knows, in request order. */
  known(scopeParam: unknown): string[] {
    const all = new Set(this.all);
    return String(scopeParam ?? '')
      .split(' ')
      .filter((s) => all.has(s));
  }

  /** Plain-words description of a scope, for the consent page. */
  describe(scope: string): string {
    return STANDARD_SCOPES[scope] ?? this.#custom[scope]?.description ?? scope;
  }

  /** Whether the account may be granted the scope at all (role-restricted scopes). */
  allows(account: Account, scope: string): boolean {
    const role = this.#custom[scope]?.requiresRole;
    return role === undefined || account.roles.includes(role);
  }

  /** Splits requested scopes into those the account may be granted and those it may not. */
  partition(account: Account, scopes: Iterable<string>): { grantable: string[]; forbidden: string[] } {
    const grantable: string[] = [];
    const forbidden: string[] = [];
    for (const scope of scopes) (this.allows(account, scope) ? grantable : forbidden).push(scope);
    return { grantable, forbidden };
  }

  /**
   * Brings the scopes rejected on `grant` (in memory; the caller decides whether to save) in line with the account's
   * roles now, for OpenID scopes and each resource server's scopes (RFC 8707):
   * - every scope the grant holds that the account may not be granted now is marked rejected (withheld).
   *   oidc-provider filters every token it issues from a Grant through `getOIDCScopeFiltered` /
   *   `getResourceScopeFiltered`, which leave rejected scopes out, so a token issued after this call carries only what
   *   the account's roles still allow (RFC 6749 §3.3: fewer scopes than requested, stated in the token response's
   *   `scope`);
   * - every rejected scope the account may be granted now is taken off the rejected list (restored). Portcullis
   *   rejects a scope only for want of a role (the consent page approves or denies a request as a whole), so once the
   *   role is given such a scope is either granted again (the user approved it while holding the role) or, never
   *   approved, missing from the Grant, and oidc-provider's consent prompt asks for it.
   *
   * The rejected list is oidc-provider's Grant payload member `rejected` (`openid.scope`, a space-separated string,
   * and `resources`, one such string per resource server), edited in place: the Grant model has no method to take a
   * scope off it.
   *
   * @returns the scopes withheld and restored (each `[]` when the grant was left as it was).
   */
  applyRoles(grant: GrantScopes, account: Account): { withheld: string[]; restored: string[] } {
    const restored = this.#restore(grant, account);
    const refused = (scopes: string) => scopes.split(' ').filter((s) => s && !this.allows(account, s));
    const withheld = refused(grant.getOIDCScope());
    if (withheld.length) grant.rejectOIDCScope(withheld);
    for (const resource of Object.keys(grant.resources ?? {})) {
      const scopes = refused(grant.getResourceScope(resource));
      if (scopes.length) grant.rejectResourceScope(resource, scopes);
      withheld.push(...scopes);
    }
    return { withheld: [...new Set(withheld)], restored };
  }

  /** Takes off `grant`'s rejected lists every scope the account may be granted now; returns those scopes. */
  #restore(grant: GrantScopes, account: Account): string[] {
    const rejected = grant.rejected;
    if (!rejected) return [];
    const restored: string[] = [];
    const keep = (scopes: string) => {
      const [allowed, still] = [[] as string[], [] as string[]];
      for (const s of scopes.split(' ')) if (s) (this.allows(account, s) ? allowed : still).push(s);
      restored.push(...allowed);
      return still.join(' ');
    };
    if (rejected.openid?.scope) rejected.openid.scope = keep(rejected.openid.scope);
    for (const [resource, scopes] of Object.entries(rejected.resources ?? {}))
      rejected.resources![resource] = keep(scopes);
    return [...new Set(restored)];
  }
}
