import { addMessages } from '../../ui/i18n.js';

/**
 * The second factors' messages: the code prompt, TOTP enrolment and recovery codes (`mfa.*`), and the account
 * page's two-step verification section (`home.twoStep`, `home.totp*`, `home.recovery*`). Added to the catalogs
 * when this module loads (lib/ui/i18n.ts `addMessages`); `ui.messages.<locale>` overrides them like the shipped
 * ones. `mfa.wrongCode` and `mfa.factor.*` stay in the shipped catalogs: the e-mail change and the factor
 * notices (account mails) use them too.
 */
const en = {
  'mfa.code.title': 'Two-step verification',
  'mfa.code.intro': 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
  'mfa.code.label': 'Code',
  'mfa.code.submit': 'Verify',
  'mfa.enrol.title': 'Set up two-step verification',
  'mfa.enrol.intro':
    'Scan this QR code with an authenticator app (or type the key below), then enter the 6-digit code it shows.',
  'mfa.enrol.required': 'This application requires two-step verification for your account.',
  'mfa.enrol.key': 'Key',
  'mfa.enrol.submit': 'Turn on',
  'mfa.recovery.title': 'Your recovery codes',
  'mfa.recovery.intro':
    'Keep these codes somewhere safe. Each works once, instead of a code from your app, if you lose your phone. They \
are shown only now.',
  'mfa.recovery.continue': 'I saved them — continue',
  'mfa.tooMany': 'Too many attempts. Please try again later.',
  'mfa.enrolledMeanwhile':
    'This account got a second factor while you were setting one up. Confirm with it to sign in.',
  'home.twoStep': 'Two-step verification',
  'home.totpOn': 'Authenticator app: on',
  'home.totpOff': 'Authenticator app: off',
  'home.totpAdd': 'Set up an authenticator app',
  'home.totpRemove': 'Turn off',
  'home.totpRemoved': 'Two-step verification with an authenticator app is off. Your other sessions were signed out.',
  'home.recoveryLeft.one': '1 unused recovery code left.',
  'home.recoveryLeft.other': '{count} unused recovery codes left.',
  'home.recoveryNew': 'New recovery codes',
} as const;

/** German (formal "Sie"): `tsc` refuses a missing or extra key. */
const de: { readonly [K in keyof typeof en]: string } = {
  'mfa.code.title': 'Bestätigung in zwei Schritten',
  'mfa.code.intro':
    'Geben Sie den 6-stelligen Code aus Ihrer Authenticator-App oder einen Ihrer Wiederherstellungscodes ein.',
  'mfa.code.label': 'Code',
  'mfa.code.submit': 'Bestätigen',
  'mfa.enrol.title': 'Bestätigung in zwei Schritten einrichten',
  'mfa.enrol.intro':
    'Scannen Sie diesen QR-Code mit einer Authenticator-App (oder tippen Sie den Schlüssel unten ein) und ' +
    'geben Sie dann den 6-stelligen Code ein, den sie anzeigt.',
  'mfa.enrol.required': 'Diese Anwendung verlangt für Ihr Konto eine Bestätigung in zwei Schritten.',
  'mfa.enrol.key': 'Schlüssel',
  'mfa.enrol.submit': 'Einschalten',
  'mfa.recovery.title': 'Ihre Wiederherstellungscodes',
  'mfa.recovery.intro':
    'Bewahren Sie diese Codes sicher auf. Jeder funktioniert einmal anstelle eines Codes aus Ihrer App, ' +
    'falls Sie Ihr Telefon verlieren. Sie werden nur jetzt angezeigt.',
  'mfa.recovery.continue': 'Ich habe sie gespeichert – weiter',
  'mfa.tooMany': 'Zu viele Versuche. Bitte versuchen Sie es später erneut.',
  'mfa.enrolledMeanwhile':
    'Ihr Konto hat inzwischen einen zweiten Faktor erhalten. Bestätigen Sie die Anmeldung damit.',
  'home.twoStep': 'Bestätigung in zwei Schritten',
  'home.totpOn': 'Authenticator-App: eingeschaltet',
  'home.totpOff': 'Authenticator-App: ausgeschaltet',
  'home.totpAdd': 'Authenticator-App einrichten',
  'home.totpRemove': 'Ausschalten',
  'home.totpRemoved':
    'Die Bestätigung in zwei Schritten mit einer Authenticator-App ist ausgeschaltet. Ihre anderen Sitzungen ' +
    'wurden abgemeldet.',
  'home.recoveryLeft.one': 'Noch 1 unbenutzter Wiederherstellungscode.',
  'home.recoveryLeft.other': 'Noch {count} unbenutzte Wiederherstellungscodes.',
  'home.recoveryNew': 'Neue Wiederherstellungscodes',
};

type MfaMessages = typeof en;
// The keys join MessageKey (declaration merging), their placeholders typed like the shipped catalog's.
declare module '../../ui/i18n.js' {
  interface FeatureMessages extends MfaMessages {}
}

addMessages({ en, de });
