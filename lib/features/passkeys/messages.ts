import { addMessages } from '../../ui/i18n.js';

/**
 * The passkey feature's messages (WebAuthn Level 3): the login block, the second factor, the list on
 * /account/passkeys and the account page's link to it (`home.passkeys*`), the page script. Added to the catalogs
 * when this module loads (lib/ui/i18n.ts `addMessages`); `ui.messages.<locale>` overrides them like the shipped ones.
 */
const en = {
  'passkey.login.or': 'or',
  'passkey.login.button': 'Sign in with a passkey',
  'passkey.login.expired': 'The passkey sign-in expired. Try again.',
  'passkey.login.refused': 'This passkey could not be used to sign in.',
  'passkey.secondFactor.title': 'Confirm with your passkey',
  'passkey.secondFactor.text': 'Your account is protected with a passkey. Use it to finish signing in.',
  'passkey.secondFactor.button': 'Use my passkey',
  'passkey.script.cancelled': 'The passkey request was cancelled or timed out.',
  'passkey.script.failed': 'Your browser could not use a passkey.',
  'passkey.script.createFailed': 'Your browser could not create a passkey.',
  'passkey.script.exists': 'This device already holds a passkey for your account.',
  'passkey.list.title': 'Passkeys',
  'passkey.list.signedInAs': 'Signed in as',
  'passkey.list.intro':
    "A passkey signs you in with your device's screen lock (fingerprint, face or PIN) instead of a password.",
  'passkey.list.none': 'You have no passkeys yet.',
  'passkey.list.created': 'Added',
  'passkey.list.lastUsed': 'Last used',
  'passkey.list.never': 'never',
  'passkey.list.signatures': 'Signatures counted',
  'passkey.list.synced': 'synced across your devices',
  'passkey.list.rename': 'Rename',
  'passkey.list.remove': 'Delete',
  'passkey.list.nameLabel': 'Name',
  'passkey.list.addTitle': 'Add a passkey',
  'passkey.list.add': 'Add a passkey',
  'passkey.list.defaultName': 'Passkey {number}',
  'passkey.list.added': 'The passkey was added.',
  'passkey.list.renamed': 'The passkey was renamed.',
  'passkey.list.removed': 'The passkey was deleted.',
  'passkey.list.notFound': 'That passkey does not exist (any more).',
  'passkey.list.noCredential':
    'Your browser did not create a passkey. Your browser must support passkeys and allow JavaScript on this page.',
  'passkey.list.expired': 'The request to add a passkey expired. Try again.',
  'passkey.list.notVerified':
    'The passkey could not be verified: it must be made on this site and unlock with your screen lock (PIN, \
fingerprint or face).',
  'passkey.list.taken': 'This passkey is already registered.',
  'passkey.list.back': 'Back to your account',
  'home.passkeys': 'Passkeys',
  'home.passkeysLink': 'Manage passkeys',
} as const;

/** German (formal "Sie"): `tsc` refuses a missing or extra key. */
const de: { readonly [K in keyof typeof en]: string } = {
  'passkey.login.or': 'oder',
  'passkey.login.button': 'Mit einem Passkey anmelden',
  'passkey.login.expired': 'Die Anmeldung mit dem Passkey ist abgelaufen. Bitte versuchen Sie es erneut.',
  'passkey.login.refused': 'Mit diesem Passkey ist keine Anmeldung möglich.',
  'passkey.secondFactor.title': 'Mit Ihrem Passkey bestätigen',
  'passkey.secondFactor.text':
    'Ihr Konto ist mit einem Passkey geschützt. Verwenden Sie ihn, um die Anmeldung abzuschließen.',
  'passkey.secondFactor.button': 'Meinen Passkey verwenden',
  'passkey.script.cancelled': 'Die Passkey-Anfrage wurde abgebrochen oder ist abgelaufen.',
  'passkey.script.failed': 'Ihr Browser konnte keinen Passkey verwenden.',
  'passkey.script.createFailed': 'Ihr Browser konnte keinen Passkey erstellen.',
  'passkey.script.exists': 'Auf diesem Gerät gibt es bereits einen Passkey für Ihr Konto.',
  'passkey.list.title': 'Passkeys',
  'passkey.list.signedInAs': 'Angemeldet als',
  'passkey.list.intro':
    'Mit einem Passkey melden Sie sich über die Bildschirmsperre Ihres Geräts (Fingerabdruck, Gesicht oder ' +
    'PIN) statt mit einem Passwort an.',
  'passkey.list.none': 'Sie haben noch keine Passkeys.',
  'passkey.list.created': 'Hinzugefügt',
  'passkey.list.lastUsed': 'Zuletzt verwendet',
  'passkey.list.never': 'nie',
  'passkey.list.signatures': 'Gezählte Signaturen',
  'passkey.list.synced': 'auf Ihren Geräten synchronisiert',
  'passkey.list.rename': 'Umbenennen',
  'passkey.list.remove': 'Löschen',
  'passkey.list.nameLabel': 'Name',
  'passkey.list.addTitle': 'Passkey hinzufügen',
  'passkey.list.add': 'Passkey hinzufügen',
  'passkey.list.defaultName': 'Passkey {number}',
  'passkey.list.added': 'Der Passkey wurde hinzugefügt.',
  'passkey.list.renamed': 'Der Passkey wurde umbenannt.',
  'passkey.list.removed': 'Der Passkey wurde gelöscht.',
  'passkey.list.notFound': 'Diesen Passkey gibt es nicht (mehr).',
  'passkey.list.noCredential':
    'Ihr Browser hat keinen Passkey erstellt. Ihr Browser muss Passkeys unterstützen und JavaScript auf ' +
    'dieser Seite erlauben.',
  'passkey.list.expired': 'Die Anfrage zum Hinzufügen eines Passkeys ist abgelaufen. Bitte versuchen Sie es erneut.',
  'passkey.list.notVerified':
    'Der Passkey konnte nicht geprüft werden: Er muss auf dieser Website erstellt werden und sich mit Ihrer ' +
    'Bildschirmsperre (PIN, Fingerabdruck oder Gesicht) entsperren lassen.',
  'passkey.list.taken': 'Dieser Passkey ist bereits registriert.',
  'passkey.list.back': 'Zurück zu Ihrem Konto',
  'home.passkeys': 'Passkeys',
  'home.passkeysLink': 'Passkeys verwalten',
};

type PasskeyMessages = typeof en;
// The keys join MessageKey (declaration merging), their placeholders typed like the shipped catalog's.
declare module '../../ui/i18n.js' {
  interface FeatureMessages extends PasskeyMessages {}
}

addMessages({ en, de });
