/**
 * A sign-in's pending second step (`mfa.enabled`): its deps and stored state (`MfaPending`), whether an interaction
 * has one ({@link secondStepOf}), how it starts after the password ({@link afterPassword}), its page
 * ({@link showSecondStep}) and its end ({@link finishSecondStep}). The form actions are in `./second-step.ts`.
 */
import type { Context } from 'koa';
import type { Account } from '../../core/account-store.js';
import {
  afterFirstFactor,
  clientRequiresMfa,
  loginResult,
  mfaRequested,
  MFA_REASON,
  type Amr,
} from '../../accounts/mfa/policy.js';
import { codePage, enrolPage } from './views.js';
import { html, type SafeHtml } from '../../ui/html.js';
import { outlivedBy } from '../../oidc/stale-sign-in.js';
import { renderPage } from '../../http/pages.js';
import type { Adapter } from '../../core/storage.js';
import type { FactorChanges } from '../../accounts/mfa/factor-changes.js';
import type { SecondFactorService } from '../../accounts/mfa/second-factor-service.js';
import {
  clientName,
  finishInteraction,
  interactionForm,
  interactionPath,
  refuse,
  type Details,
  type InteractionActionDeps as SignInDeps,
  type SecondStepMethod,
} from '../../oidc/interaction/common.js';

/** What the second sign-in step needs (`mfa.enabled`). */
export interface MfaInteractionDeps {
  factors: SecondFactorService;
  changes: FactorChanges;
  /** Storage model `MfaPending` (id = interaction uid): a first factor passed, the second one pending. */
  pending: Adapter;
  /**
   * `mfa.reauthenticateAfterSeconds`: a signed-in session steps up (second factor or its enrolment, no password)
   * only while its sign-in is at most this old; an older one signs in with the password first.
   */
  reauthenticateAfterSeconds: number;
  /**
   * When the account's password or address last changed, epoch ms (`VerificationTokens.credentialsChangedAt`): a
   * second step whose password was checked before then ends, as the account's sessions did.
   */
  credentialsChangedAt(accountId: string): Promise<number | undefined>;
}

/** The sign-in's deps with the second factors': what this step's functions take. */
export type InteractionActionDeps = SignInDeps & { readonly mfa: MfaInteractionDeps };

/**
 * A sign-in between its first and second factor, kept for the interaction's lifetime. `signedInAt` (epoch
 * seconds) marks a step-up of a signed-in session: the time of that session's sign-in, which the step-up keeps.
 * `at` (epoch ms) is when the password of a sign-in was checked.
 */
export interface Pending {
  accountId: string;
  methods: Amr[];
  stage: 'second-factor' | 'enrol' | 'codes-shown';
  signedInAt?: number;
  at?: number;
}

/** Reasons of the login prompt that a signed-in session answers with a second factor alone (no password). */
const STEP_UP_REASONS = new Set([MFA_REASON, 'essential_acr', 'essential_acrs']);

/** The other features' second factors the account has (the `signIn` point's `secondStep`), in their order. */
async function otherFactors(deps: InteractionActionDeps, accountId: string): Promise<SecondStepMethod[]> {
  const methods = (deps.methods ?? []).flatMap((method) => (method.secondStep ? [method.secondStep] : []));
  const has = await Promise.all(methods.map((method) => method.has(accountId)));
  return methods.filter((_, i) => has[i]);
}

/** Whether the account has a second factor: TOTP, or another feature's second factor. */
export async function enrolled(deps: InteractionActionDeps, accountId: string): Promise<boolean> {
  const [{ totp }, others] = await Promise.all([deps.mfa.factors.status(accountId), otherFactors(deps, accountId)]);
  return totp || others.length > 0;
}

/** The other factors' blocks of the code page as one, `undefined` for none (the code view's `passkey` slot). */
function joinBlocks(blocks: readonly SafeHtml[]): SafeHtml | undefined {
  return blocks.length ? html`${blocks}` : undefined;
}

async function readPending(mfa: MfaInteractionDeps, details: Details): Promise<Pending | undefined> {
  return (await mfa.pending.find(details.uid)) as Pending | undefined;
}

export async function savePending(mfa: MfaInteractionDeps, details: Details, pending: Pending): Promise<void> {
  const ttl = details.exp - Math.floor(Date.now() / 1000);
  await mfa.pending.upsert(details.uid, { ...pending }, Math.max(1, ttl));
}

/**
 * Whether a sign-in at `signedInAt` (epoch seconds) is within `mfa.reauthenticateAfterSeconds` (the `/account` rule).
 */
function recent(mfa: MfaInteractionDeps, signedInAt: number): boolean {
  return Date.now() / 1000 - signedInAt <= mfa.reauthenticateAfterSeconds;
}

/** When the interaction's session signed in (its `loginTs`), if it still exists. */
async function sessionSignedInAt(deps: InteractionActionDeps, details: Details): Promise<number | undefined> {
  const cookie = details.session?.cookie;
  const session = cookie
    ? ((await deps.provider.Session.find(cookie)) as unknown as { loginTs?: number } | undefined)
    : undefined;
  return session?.loginTs;
}

/**
 * Whether a sign-in's pending second step may no longer end in a sign-in: the account's password or address
 * changed after its password was checked (a reset, a change on `/account` or of the address end the account's
 * sessions, and a sign-in parked at its second step is one in the making). Before, a browser that had passed the
 * old password kept its second step, enrolled its own TOTP and was signed in after the owner's reset. (A step-up
 * needs no such check: oidc-provider refuses its interaction once its session is gone.)
 */
async function outlived(deps: InteractionActionDeps, pending: Pending): Promise<boolean> {
  if (pending.signedInAt !== undefined) return false;
  return outlivedBy(await deps.mfa.credentialsChangedAt(pending.accountId), pending.at ?? 0);
}

/**
 * The second step of this interaction, if there is one: a pending sign-in after its password, or a step-up of
 * the signed-in session (the login prompt asked again only because a second factor is wanted).
 *
 * A step-up asks for no password, so it is offered only to a session signed in within
 * `mfa.reauthenticateAfterSeconds` (the same window as a change on `/account`), and only while it still is: an
 * older session gets the login page, whose password then leads to the second factor or its enrolment
 * ({@link afterPassword}). Otherwise whoever holds a browser left signed in could enrol their own TOTP (owning
 * the account's second factor and recovery codes) and, through the new sign-in, pass the `/account` freshness check.
 */
export async function secondStepOf(
  deps: InteractionActionDeps,
  details: Details,
  prefetched?: Promise<unknown>,
): Promise<Pending | undefined> {
  const mfa = deps.mfa;
  if (!mfa || details.prompt.name !== 'login') return undefined;
  const pending = prefetched ? ((await prefetched) as Pending | undefined) : await readPending(mfa, details);
  // A step-up started in time but left until the sign-in got too old, or a password replaced since it was checked:
  // the password comes first now.
  if (
    pending &&
    ((pending.signedInAt !== undefined && !recent(mfa, pending.signedInAt)) || (await outlived(deps, pending)))
  ) {
    await mfa.pending.destroy(details.uid);
    return undefined;
  }
  if (pending) return pending;
  const accountId = details.session?.accountId;
  if (accountId && details.prompt.reasons.length && details.prompt.reasons.every((r) => STEP_UP_REASONS.has(r))) {
    const [signedInAt, hasFactor] = await Promise.all([sessionSignedInAt(deps, details), enrolled(deps, accountId)]);
    if (signedInAt === undefined || !recent(mfa, signedInAt)) return undefined;
    const stepUp: Pending = { accountId, methods: ['pwd'], stage: hasFactor ? 'second-factor' : 'enrol', signedInAt };
    await savePending(mfa, details, stepUp);
    return stepUp;
  }
  return undefined;
}

/**
 * After a correct password (checked from `checkedAt`, epoch ms): the MFA policy (lib/accounts/mfa/policy.ts) decides
 * whether the sign-in is complete.
 * @returns `false` when a second step was started (its page is rendered), `true` when the caller should finish.
 */
export async function afterPassword(
  ctx: Context,
  deps: InteractionActionDeps,
  details: Details,
  account: Account,
  checkedAt: number,
): Promise<boolean> {
  const mfa = deps.mfa;
  if (!mfa) return true;
  const [hasFactor, client] = await Promise.all([
    enrolled(deps, account.id),
    deps.provider.Client.find(String(details.params.client_id)),
  ]);
  const next = afterFirstFactor({
    enrolled: hasFactor,
    clientRequiresMfa: clientRequiresMfa(client),
    requested: mfaRequested(details.params.acr_values),
  });
  if (next === 'done') return true;
  const pending: Pending = { accountId: account.id, methods: ['pwd'], stage: next, at: checkedAt };
  await savePending(mfa, details, pending);
  await showSecondStep(ctx, deps, details, pending, account);
  return false;
}

/** Renders the page of a pending second step: the code prompt or the enrolment. */
export async function showSecondStep(
  ctx: Context,
  deps: InteractionActionDeps,
  details: Details,
  pending: Pending,
  known?: Account,
  status = 200,
  error?: string,
  enrolment?: string,
): Promise<void> {
  const mfa = deps.mfa;
  const scope = interactionPath(ctx, details);
  const csrfToken = deps.csrf.issue(ctx, interactionForm(ctx, details));
  if (pending.stage === 'second-factor') {
    // The account's other factors (e.g. with a challenge bound to this interaction that remembers the
    // factors passed) and/or its code.
    const [name, { totp }, others] = await Promise.all([
      clientName(deps.provider, details),
      mfa.factors.status(pending.accountId),
      otherFactors(deps, pending.accountId),
    ]);
    const parts = await Promise.all(
      others.map((method) => method.prepare(ctx, details, pending, { scope, csrfToken })),
    );
    const only = !totp ? parts[0] : undefined;
    if (only) return renderPage(ctx, status, (nonce, ui) => only.page(nonce, ui, error));
    return renderPage(ctx, status, (nonce, ui) =>
      codePage({
        nonce,
        ui,
        action: `${scope}/second-factor`,
        csrfToken,
        clientName: name,
        error,
        passkey: joinBlocks(parts.map((part) => part.block(nonce, ui))),
      }),
    );
  }
  const account = known ?? (await deps.accounts.findById(pending.accountId));
  if (!account) return refuse(ctx, 400, 'login_required', 'The account of this sign-in no longer exists.');
  const shown =
    (enrolment ? await mfa.factors.reopenEnrolment(account, enrolment) : undefined) ??
    (await mfa.factors.startEnrolment(account));
  renderPage(ctx, status, (nonce, ui) =>
    enrolPage({
      nonce,
      ui,
      action: `${scope}/enrol`,
      csrfToken,
      svg: shown.svg,
      secret: shown.secret,
      sealed: shown.sealed,
      required: true,
      error,
    }),
  );
}

/**
 * Ends a pending second step: the login prompt is done with the factors passed before plus `methods` (`otp`, or
 * another feature's factor's `amr` values). A step-up keeps the session's sign-in time (`ts`, else oidc-provider
 * would set `loginTs` to now): a second factor added to a sign-in does not make its password newer, for
 * `/account`'s freshness check, `max_age` and `auth_time` alike.
 */
export async function finishSecondStep(
  ctx: Context,
  deps: InteractionActionDeps,
  details: Details,
  pending: Pending,
  methods: readonly Amr[],
): Promise<void> {
  await deps.mfa.pending.destroy(details.uid);
  const login = loginResult(pending.accountId, [...pending.methods, ...methods], pending.at);
  await finishInteraction(
    ctx,
    details,
    { login: pending.signedInAt === undefined ? login : { ...login, ts: pending.signedInAt } },
    false,
  );
}
