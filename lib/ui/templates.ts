import type { SafeHtml } from './html.js';
import type { Locale, Translator } from './i18n.js';
import type { FrameView, PageTemplate, TemplateKit } from './template-kit.js';

// The hook's kit and output, re-exported: config/ and the entry points name the hook's types from this module.
export { templateOutput, type FrameView, type PageTemplate, type TemplateKit } from './template-kit.js';

/*
 * The views: what each page shows, and what a replacing template receives. They live here, beside the hook,
 * so that the option schema (config/) can name the hook's type without importing a feature.
 */

/** What the login page shows (`ui.templates.login` receives it). */
export interface LoginView {
  nonce: string;
  /** The request's language and branding. @default English, unbranded */
  ui?: PageUi;
  action: string;
  /** Action of the Cancel form (ends the request with `access_denied`), when the page offers it. */
  cancelAction?: string;
  csrfToken: string;
  clientName: string;
  /** The host of the client's redirect_uri, shown beside its name. */
  clientDomain?: string;
  email?: string;
  error?: string;
  /** Put the focus on the password field (after a wrong password, with the address kept). */
  focusPassword?: boolean;
  /** Link to the sign-up page (shown when sign-up is on). */
  signupUrl?: string;
  /** Link to the password reset page (shown when mail is available). */
  resetUrl?: string;
  /**
   * The passkey sign-in block (lib/features/passkeys/views.ts `passkeySignIn`), when passkeys are on; the e-mail
   * field then also offers passkeys in its autofill (`autocomplete="username webauthn"`).
   */
  passkey?: SafeHtml;
}

/** What the consent page shows (`ui.templates.consent`). */
export interface ConsentView {
  nonce: string;
  /** @default English, unbranded */
  ui?: PageUi;
  action: string;
  csrfToken: string;
  clientName: string;
  /** The host of the redirect_uri the answer goes to. */
  clientDomain?: string;
  accountEmail: string;
  scopes: Array<{ name: string; description: string }>;
  /** The client's https logo, shown only when the deployment allows remote logos (see client-logo.ts). */
  logoUri?: string;
  /** "Not you? Switch account": the same authorization request again with `prompt=login`. */
  switchAccountUrl?: string;
}

/** What the logout confirmation shows (`ui.templates.logout`). */
export interface LogoutView {
  nonce: string;
  ui: PageUi;
  /** The client that asks, when known. */
  clientName?: string;
  /** oidc-provider's logout form (its action and `xsrf` field), which the buttons submit. */
  form: SafeHtml;
}

/** What the "signed out" page shows (`ui.templates.signedOut`). */
export interface SignedOutView {
  nonce: string;
  ui: PageUi;
  clientName?: string;
  /** "No, stay signed in": only the client's session ended; the browser is still signed in here. */
  stillSignedIn?: boolean;
  /** Where to go on: the client's `client_uri`, else `ui.homeUrl`. */
  onward?: { href: string; text: string };
}

/** A form field of an account page. */
export interface Field {
  name: string;
  label: string;
  type: 'email' | 'password' | 'text';
  value?: string;
  autocomplete?: string;
  required?: boolean;
  /** HTML `minlength`/`maxlength` hints (the server checks again). */
  minLength?: number;
  maxLength?: number;
  /** A rule shown under the field (`#<name>-hint`, linked by `aria-describedby`), e.g. the password rule. */
  hint?: string;
}

export interface FormView {
  nonce: string;
  /** @default English, unbranded */
  ui?: PageUi;
  title: string;
  intro?: string;
  action: string;
  csrfToken: string;
  fields: Field[];
  hidden?: Record<string, string>;
  submit: string;
  error?: string;
  /** Links under the form. */
  links?: Array<{ id: string; href: string; text: string }>;
}

/** A message page's view. */
export interface MessageView {
  nonce: string;
  ui: PageUi;
  title: string;
  message: string;
  error?: boolean;
  links?: FormView['links'];
}

/** A logo read at start-up. */
export interface Logo {
  body: Buffer;
  /** The media type its bytes show. */
  type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/svg+xml';
  /** Strong validator of the bytes (RFC 9110 §8.8.3). */
  etag: string;
}

/** The `ui` options ready for rendering: logo read and checked, one translator per language, the style sheet. */
export interface UiSettings {
  readonly productName: string;
  readonly logo?: Logo;
  readonly logoAlt: string;
  readonly supportUrl?: string;
  readonly homeUrl?: string;
  readonly footer?: string;
  readonly defaultLocale: Locale;
  readonly translators: Readonly<Record<Locale, Translator>>;
  readonly templates: UiTemplates;
  /** The inline style sheet (colours as CSS custom properties, dark scheme, layout). */
  readonly styleSheet: string;
}

/** The UI of one request: its language and the deployment's settings. */
export interface PageUi {
  readonly settings: UiSettings;
  readonly locale: Locale;
  /** The request's messages. */
  readonly t: Translator;
  /**
   * `ui_locales=<locale>` when the language came from `ui_locales` (not from `Accept-Language`), for links and
   * form actions of our own pages to keep it; else `undefined`.
   */
  readonly localeQuery?: string;
  /** The issuer's path the request came under (`/auth`), `''` at the root: our own URLs (the logo) start with it. */
  readonly mountPath: string;
}

/** What an error page says, in words: who can do what about it. */
export type ErrorSituation = 'client' | 'denied' | 'login' | 'server' | 'busy' | 'expired' | 'form' | 'step';

/** What an error page shows (`ui.templates.error`). */
export interface ErrorView {
  nonce: string;
  ui: PageUi;
  /** The OAuth `error` code (shown in small print, `#error`). */
  error: string;
  /** The technical `error_description` (small print, `#error_description`). */
  description?: string;
  situation: ErrorSituation;
}

/** The code prompt of a sign-in's second step (`ui.templates.secondFactor`): field `code`, TOTP or recovery code. */
export interface CodeView {
  nonce: string /** @default English, unbranded */;
  ui?: PageUi;
  action: string;
  csrfToken: string;
  clientName?: string;
  error?: string;
  /** Another way to pass the step, shown below the code form (the passkey button). */
  passkey?: SafeHtml;
}

/**
 * TOTP enrolment (`ui.templates.totpEnrol`): `svg` is our QR code (put it in with `raw`), `secret` the key in
 * base32; send `sealed` back in the hidden `enrolment` field with `code`. `required`: the sign-in needs it.
 */
export interface EnrolView {
  nonce: string /** @default English, unbranded */;
  ui?: PageUi;
  action: string;
  csrfToken: string;
  svg: string;
  secret: string;
  sealed: string;
  required?: boolean;
  error?: string;
  hidden?: Record<string, string>;
}

/** The recovery codes, shown once (`ui.templates.recoveryCodes`), and the way on: a form (sign-in) or a link. */
export interface RecoveryView {
  nonce: string /** @default English, unbranded */;
  ui?: PageUi;
  codes: string[];
  next: { action: string; csrfToken: string } | { href: string; text: string };
}

/** The passkey-only second factor (`ui.templates.passkey`); `form` is our passkey form and script tag: keep it. */
export interface PasskeyPageView {
  nonce: string;
  ui: PageUi;
  error?: string;
  form: SafeHtml;
}

/**
 * The account page `/account` (`ui.templates.accountHome`): `actions` are POST forms with `csrf`, except the links
 * `passkeys` and `signOut`.
 */
export interface AccountHomeView {
  nonce: string;
  ui: PageUi;
  csrfToken: string;
  email: string;
  /** The account's string and number claims, `[name, value]`. */
  profile: Array<[string, string]>;
  /** Link to the e-mail change page (absent without mail). */
  changeEmailUrl?: string;
  /** Two-step verification, when `mfa.enabled` (filled by the second factors' section). */
  totp?: { on: boolean; recoveryCodesLeft: number };
  /**
   * Our password change form, active sessions and connected applications sections, each with its forms: put them in
   * as they are. `features`: the sections the features add (second factors, the passkeys link), absent for none.
   */
  sections: { password: SafeHtml; sessions: SafeHtml; apps: SafeHtml; features?: SafeHtml };
  /**
   * The page's form actions and links. `totpAdd`, `totpRemove`, `recoveryCodes` (with `mfa.enabled`) and `passkeys`
   * (with `passkeys.enabled`) are filled by those features' sections, and are empty strings when the feature is off.
   */
  actions: {
    totpAdd: string;
    totpRemove: string;
    recoveryCodes: string;
    signOutOthers: string;
    passkeys: string;
    signOut: string;
  };
}

/** The pages a host may replace (`ui.templates`). */
export interface UiTemplates {
  /** The whole document around every page. Must keep `nonce` on any `<style>` (the CSP allows no other). */
  layout?: (frame: FrameView, kit: TemplateKit) => SafeHtml | string;
  login?: PageTemplate<LoginView>;
  consent?: PageTemplate<ConsentView>;
  error?: PageTemplate<ErrorView>;
  logout?: PageTemplate<LogoutView>;
  signedOut?: PageTemplate<SignedOutView>;
  /** Every account form page (sign-up, reset, new password, e-mail change, confirm). */
  form?: PageTemplate<FormView>;
  /** Every account message page (check your mail, done, link invalid, too many attempts). */
  message?: PageTemplate<MessageView>;
  /** The code prompt of a sign-in's second step (TOTP or recovery code). */
  secondFactor?: PageTemplate<CodeView>;
  /** TOTP enrolment (at sign-in and on the account page). */
  totpEnrol?: PageTemplate<EnrolView>;
  /** The recovery codes, shown once. */
  recoveryCodes?: PageTemplate<RecoveryView>;
  /** The passkey sign-in step of an account whose only second factor is a passkey. */
  passkey?: PageTemplate<PasskeyPageView>;
  /** The signed-in account page `/account`. */
  accountHome?: PageTemplate<AccountHomeView>;
}

/** The names of {@link UiTemplates}. */
export const TEMPLATE_NAMES = [
  'layout',
  'login',
  'consent',
  'error',
  'logout',
  'signedOut',
  'form',
  'message',
  'secondFactor',
  'totpEnrol',
  'recoveryCodes',
  'passkey',
  'accountHome',
] as const;
