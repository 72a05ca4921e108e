import type { ApolloServer } from '@apollo/server';
import type Provider from 'oidc-provider';
import type { AccountHomeDeps, AccountSection } from '../accounts/account-home.js';
import type { AccountFlows } from '../accounts/account-routes.js';
import type { FactorChanges } from '../accounts/mfa/factor-changes.js';
import type { SecondFactors } from './mfa/second-factors.js';
import type { PasskeyService } from './passkeys/passkey-service.js';
import type { GraphqlContext } from '../graphql/auth-context.js';
import type { MintInitialAccessTokenOptions } from '../oidc/initial-access-tokens.js';
import type { SecondSignInStep, SignInMethod } from '../oidc/interaction/common.js';
import type { MfaInteractionDeps } from './mfa/second-step.js';

/**
 * The services each default feature offers to the others (`use<Services[id]>(id)`, lib/core/feature.ts), by id.
 * Types only: a feature imports no other feature's folder, only this declaration of what it may use.
 */
export interface Services {
  /** `passkeys.enabled` with an account store that keeps passkeys. */
  passkeys: { service: PasskeyService; secondFactor: boolean };
  /** `mfa.enabled`: TOTP and recovery codes, and what the second sign-in step needs besides the factor changes. */
  mfa: Omit<MfaInteractionDeps, 'changes'>;
  /** Sign-up, verification, reset and e-mail change; the notices of second-factor changes (they are account mails). */
  'self-service': { flows: AccountFlows; changes: FactorChanges };
  /** The account page: what its guard and forms need, once the provider exists (the passkey page shares them). */
  account: { homeFor(provider: Provider): AccountHomeDeps };
  /** `registration.enabled`: initial access tokens (`server.mintInitialAccessToken`). */
  registration: { mint(provider: Provider, options?: MintInitialAccessTokenOptions): Promise<string> };
  /** `graphql` set: the Apollo Server (`server.apollo`). */
  graphql: { apollo: ApolloServer<GraphqlContext> };
}

/**
 * The extension points of the default features (`extend` of lib/core/feature.ts) and each one's value type, by
 * point: a feature adds to one with `extend: { signIn: … }`, the owner reads them with
 * `extensions<ExtensionPoints[point]>(point)` in `routes(provider)`.
 */
export interface ExtensionPoints {
  /** A way to sign in on the login page `/interaction/:uid` (sign-in): a block and its POST actions. */
  signIn: SignInMethod;
  /**
   * The second sign-in step after the password (sign-in; the mfa feature's TOTP and recovery codes): the first
   * feature's contribution is used, a second one is ignored.
   */
  secondStep: SecondSignInStep;
  /** A section of the signed-in account page `/account` (account): its markup, the view fields it fills, its forms. */
  accountSections: AccountSection;
}

export type { SecondFactors };
