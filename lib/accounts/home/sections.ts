import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { SafeHtml } from '../../ui/html.js';
import type { AccountHomeView } from '../../ui/templates.js';
import type { SignedIn } from './common.js';

/** What a feature's section shows on one account page. */
export interface AccountSectionPart {
  /** The section (`section()` of home/common.ts), with its forms; the page puts it between password and sessions. */
  readonly html: SafeHtml;
  /**
   * The fields of the page's view that it fills, for a host's `ui.templates.accountHome` (e.g. `totp`, `actions.*`).
   */
  readonly view?: { readonly totp?: AccountHomeView['totp']; readonly actions?: Partial<AccountHomeView['actions']> };
}

/** What the account page gives a section's forms. */
export interface AccountSectionForms {
  /** The account page's guard of a change (POST): form, sign-in, CSRF token, fresh sign-in (`accountChange`). */
  readonly change: readonly Middleware[];
  /** A CSRF token for a form of the account pages, issued for the signed-in browser. */
  csrfToken(ctx: Context): string;
}

/**
 * A section a feature adds to the signed-in account page `/account` (the `accountSections` extension point,
 * lib/features/services.ts): e.g. a feature's status and forms, or a link to its own page.
 */
export interface AccountSection {
  /** Its place among the features' sections, lower first (the server's own features use 10 and 20). */
  readonly order: number;
  /**
   * The section for the signed-in browser, `undefined` for none. `csrfToken` is the page's; `at(path)` makes a
   * path under `/account` a link of this page (under the issuer's path, with the page's `ui_locales`).
   */
  show(
    ctx: Context,
    who: SignedIn,
    page: { readonly csrfToken: string; at(path: string): string },
  ): Promise<AccountSectionPart | undefined>;
  /** Adds its POST routes to the account page's router, each behind `forms.change`. */
  routes?(router: Router, forms: AccountSectionForms): void;
}
