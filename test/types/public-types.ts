/**
 * Type-level test of the public surface, checked by `tsc -p tsconfig.test.json` (the first step of `npm test`), not
 * by jest: every type the README and docs/ name, or that an option, a template or a store signature uses, can be imported
 * by name from its entry point, and is the type that option or signature uses. A type missing from an entry point
 * fails the compile (TS2305), as it did for a host on 6893f27.
 */
import type {
  AccountHomeView,
  AccountStore,
  CodeView,
  ConsentView,
  EnrolView,
  ErrorSituation,
  ErrorView,
  Field,
  FormView,
  FrameView,
  Locale,
  LoginView,
  Logo,
  LogoutView,
  MessageKey,
  MessageView,
  MfaConfig,
  PageTemplate,
  PageUi,
  PasskeyPageView,
  PasskeysConfig,
  PortcullisConfig,
  RecoveryView,
  RegistrationConfig,
  SafeHtml,
  SignedOutView,
  StoredSecondFactor,
  TemplateKit,
  Translator,
  UiColorsConfig,
  UiConfig,
  UiSettings,
  UiTemplates,
} from '../../lib/index.js';

/** `true` only when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only with `true`. */
function expectTrue<T extends true>(): T | void {
  return undefined;
}

// The configuration sections are the types of their options.
expectTrue<Equal<UiConfig, NonNullable<PortcullisConfig['ui']>>>();
expectTrue<Equal<MfaConfig, NonNullable<PortcullisConfig['mfa']>>>();
expectTrue<Equal<PasskeysConfig, NonNullable<PortcullisConfig['passkeys']>>>();
expectTrue<Equal<RegistrationConfig, NonNullable<PortcullisConfig['registration']>>>();
expectTrue<Equal<UiColorsConfig, NonNullable<UiConfig['darkColors']>>>();
expectTrue<Equal<NonNullable<UiConfig['templates']>, UiTemplates>>();
expectTrue<Equal<NonNullable<UiConfig['messages']>, Partial<Record<Locale, Partial<Record<MessageKey, string>>>>>>();

// The store's second-factor methods take and give StoredSecondFactor.
expectTrue<Equal<Parameters<NonNullable<AccountStore['setSecondFactor']>>[1], StoredSecondFactor | undefined>>();
expectTrue<Equal<Awaited<ReturnType<NonNullable<AccountStore['getSecondFactor']>>>, StoredSecondFactor | undefined>>();

// Each template receives its view and the kit.
type ViewOf<K extends Exclude<keyof UiTemplates, 'layout'>> =
  NonNullable<UiTemplates[K]> extends PageTemplate<infer V> ? V : never;
expectTrue<Equal<ViewOf<'login'>, LoginView>>();
expectTrue<Equal<ViewOf<'consent'>, ConsentView>>();
expectTrue<Equal<ViewOf<'error'>, ErrorView>>();
expectTrue<Equal<ViewOf<'logout'>, LogoutView>>();
expectTrue<Equal<ViewOf<'signedOut'>, SignedOutView>>();
expectTrue<Equal<ViewOf<'form'>, FormView>>();
expectTrue<Equal<ViewOf<'message'>, MessageView>>();
expectTrue<Equal<ViewOf<'secondFactor'>, CodeView>>();
expectTrue<Equal<ViewOf<'totpEnrol'>, EnrolView>>();
expectTrue<Equal<ViewOf<'recoveryCodes'>, RecoveryView>>();
expectTrue<Equal<ViewOf<'passkey'>, PasskeyPageView>>();
expectTrue<Equal<ViewOf<'accountHome'>, AccountHomeView>>();
expectTrue<Equal<Parameters<NonNullable<UiTemplates['layout']>>[0], FrameView>>();
expectTrue<Equal<ErrorView['situation'], ErrorSituation>>();
expectTrue<Equal<FormView['fields'][number], Field>>();
expectTrue<Equal<TemplateKit['t'], Translator>>();
expectTrue<Equal<NonNullable<LoginView['ui']>, PageUi>>();
expectTrue<Equal<PageUi['settings'], UiSettings>>();
expectTrue<Equal<NonNullable<UiSettings['logo']>, Logo>>();

// A host's templates, typed by name, as a host writes them in its own module.
const login: PageTemplate<LoginView> = (view: LoginView, { html }: TemplateKit): SafeHtml =>
  html`<p>${view.action}</p>`;
const templates: UiTemplates = { login };
export const ui: UiConfig = {
  productName: 'Example',
  templates,
  colors: { primary: '#123456' } satisfies Partial<UiColorsConfig>,
};
export const mfa: MfaConfig = { enabled: true, reauthenticateAfterSeconds: 300 };
export const passkeys: PasskeysConfig = { rpName: 'Example' };
export const registration: RegistrationConfig = { allowRemoteLogos: false };
export const factor: StoredSecondFactor = { recoveryCodes: [{ hash: 'x' }] };
