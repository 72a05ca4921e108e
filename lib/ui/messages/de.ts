import type { Catalog } from './en.js';

/**
 * The German message catalog (formal "Sie"). Typed as {@link Catalog}: a key missing here or not in the English
 * catalog fails `tsc`; test/ui/catalogs.test.ts checks that every message keeps the English placeholders.
 */
export const de: Catalog = {
  'layout.support': 'Hilfe und Support',
  'layout.home': 'Startseite',

  'login.title': 'Anmelden',
  'login.continueTo': 'um mit {client} fortzufahren',
  'login.email': 'E-Mail-Adresse',
  'login.password': 'Passwort',
  'login.submit': 'Anmelden',
  'login.cancel': 'Abbrechen und zurück',
  'login.forgot': 'Passwort vergessen?',
  'login.noAccount': 'Noch kein Konto?',
  'login.createAccount': 'Jetzt erstellen',
  'login.wrongPassword': 'Die E-Mail-Adresse oder das Passwort ist falsch.',
  'login.tooMany': 'Zu viele Anmeldeversuche. Bitte versuchen Sie es später erneut.',
  'login.confirmFirst':
    'Bitte bestätigen Sie zuerst Ihre E-Mail-Adresse: Wir haben Ihnen einen neuen Bestätigungslink geschickt.',

  'consent.title': 'Zugriff erlauben?',
  'consent.asks': '{client} möchte auf Ihr Konto {account} zugreifen und darf dann:',
  'consent.site': 'Danach werden Sie zu {domain} weitergeleitet.',
  'consent.allow': 'Erlauben',
  'consent.deny': 'Ablehnen',
  'consent.notYou': 'Nicht Sie?',
  'consent.switch': 'Konto wechseln',
  'scope.openid': 'Sie anmelden und wissen, wer Sie sind (Ihre Kontokennung)',
  'scope.profile': 'Ihr Basisprofil lesen: Name, Geburtsdatum, Bild, Sprache und ähnliche Angaben',
  'scope.email': 'Ihre E-Mail-Adresse lesen und ob sie bestätigt ist',
  'scope.address': 'Ihre Postanschrift lesen',
  'scope.phone': 'Ihre Telefonnummer lesen und ob sie bestätigt ist',
  'scope.offline_access': 'Zugriff behalten, während Sie die Anwendung nicht nutzen (Refresh-Tokens)',

  'mfa.wrongCode': 'Dieser Code ist falsch oder wurde schon verwendet. Versuchen Sie den nächsten Code aus Ihrer App.',
  'mfa.factor.passkey': 'Ein Passkey',

  'home.title': 'Ihr Konto',
  'home.profile': 'Profil',
  'home.email': 'E-Mail-Adresse',
  'home.changeEmail': 'E-Mail-Adresse ändern',
  'home.signOutOthers': 'Alle anderen Sitzungen abmelden',
  'home.signOut': 'Abmelden',
  'home.done': 'Erledigt',
  'home.back': 'Zurück zu Ihrem Konto',
  'home.othersSignedOut.one': '1 andere Sitzung wurde abgemeldet.',
  'home.othersSignedOut.other': '{count} andere Sitzungen wurden abgemeldet.',

  'error.code': 'Fehlercode:',
  'error.client.title': 'Diese Anfrage kann nicht ausgeführt werden',
  'error.client.what':
    'Die Anwendung, die Sie hierher geschickt hat, hat eine Anfrage gestellt, die {product} nicht annehmen ' +
    'kann. Es wurden keine Daten weitergegeben.',
  'error.client.todo':
    'Kehren Sie zur Anwendung zurück und versuchen Sie es erneut. Wenn das Problem bleibt, wenden Sie sich ' +
    'an die Betreiber der Anwendung.',
  'error.denied.title': 'Der Zugriff wurde nicht erteilt',
  'error.denied.what': 'Die Anfrage wurde abgelehnt; die Anwendung erhält keinen Zugriff auf Ihr Konto.',
  'error.denied.todo': 'Kehren Sie zur Anwendung zurück; dort können Sie neu beginnen.',
  'error.login.title': 'Bitte melden Sie sich erneut an',
  'error.login.what': 'Ihre Sitzung ist beendet oder das Konto ist nicht mehr verfügbar.',
  'error.login.todo': 'Kehren Sie zur Anwendung zurück und melden Sie sich erneut an.',
  'error.server.title': 'Bei uns ist etwas schiefgegangen',
  'error.server.what': '{product} konnte die Anfrage nicht abschließen. Das liegt nicht an Ihnen.',
  'error.server.todo': 'Bitte versuchen Sie es gleich noch einmal.',
  'error.busy.title': 'Der Dienst ist ausgelastet',
  'error.busy.what': '{product} kann gerade nicht antworten.',
  'error.busy.todo': 'Bitte versuchen Sie es gleich noch einmal.',
  'error.expired.title': 'Diese Anmeldeseite ist abgelaufen',
  'error.expired.what':
    'Anmeldeseiten gelten nur für begrenzte Zeit und nur in dem Browser, in dem sie geöffnet wurden.',
  'error.expired.todo': 'Kehren Sie zu der Anwendung zurück, von der Sie kamen, und melden Sie sich erneut an.',
  'error.form.title': 'Bitte laden Sie die Seite neu',
  'error.form.what': 'Das Formular wurde von einer veralteten oder einer anderen Seite gesendet.',
  'error.form.todo': 'Laden Sie die Seite neu und versuchen Sie es erneut.',
  'error.step.title': 'Dieser Schritt ist bereits erledigt',
  'error.step.what': 'Dieser Teil der Anmeldung wurde bereits abgeschlossen oder trifft nicht zu.',
  'error.step.todo': 'Kehren Sie zur Anwendung zurück und beginnen Sie neu, falls Sie nicht angemeldet sind.',

  'logout.title': 'Abmelden?',
  'logout.clientAsks': '{client} möchte Sie von {product} abmelden.',
  'logout.question': 'Möchten Sie sich von {product} abmelden?',
  'logout.yes': 'Ja, abmelden',
  'logout.no': 'Nein, angemeldet bleiben',
  'signedOut.title': 'Abgemeldet',
  'signedOut.message': 'Sie sind von {product} abgemeldet.',
  'signedOut.messageClient': 'Sie sind von {client} und {product} abgemeldet.',
  'signedOut.messageClientOnly': 'Sie sind von {client} abgemeldet. Bei {product} sind Sie weiterhin angemeldet.',
  'signedOut.backTo': 'Zurück zu {client}',
  'signedOut.home': 'Weiter zu {product}',
  'signedOut.close': 'Sie können dieses Fenster schließen.',

  'account.mailSent':
    'Wenn die Adresse E-Mails von uns empfangen kann, ist eine Nachricht unterwegs. Folgen Sie dem Link ' +
    'darin, um fortzufahren. Der Link funktioniert einmal und läuft ab.',
  'account.checkMail': 'Sehen Sie in Ihr Postfach',
  'account.tooMany.title': 'Zu viele Versuche',
  'account.tooMany': 'Zu viele Versuche. Bitte versuchen Sie es später erneut.',
  'account.notAvailable.title': 'Nicht verfügbar',
  'account.notAvailable': 'Diese Seite ist auf diesem Server nicht verfügbar.',
  'account.linkInvalid.title': 'Link ungültig',
  'account.linkInvalid.confirmation': 'Dieser Bestätigungslink ist ungültig, abgelaufen oder wurde bereits verwendet.',
  'account.linkInvalid.reset':
    'Dieser Link zum Zurücksetzen des Passworts ist ungültig, abgelaufen oder wurde bereits verwendet.',
  'account.refused.title': 'Bitte laden Sie die Seite neu',
  'account.refused':
    'Das Formular wurde nicht von dieser Seite gesendet (sie ist veraltet oder es kam von anderswo). Laden ' +
    'Sie die Seite neu und versuchen Sie es erneut.',
  'account.email': 'E-Mail-Adresse',
  'account.password': 'Passwort',
  'account.passwordRule': 'Mindestens {min} Zeichen. Ein langer Satz ist leicht zu merken und schwer zu erraten.',
  'account.signup.title': 'Konto erstellen',
  'account.signup.intro': 'Wir schicken Ihnen einen Link, um Ihre E-Mail-Adresse zu bestätigen.',
  'account.signup.givenName': 'Vorname',
  'account.signup.familyName': 'Nachname',
  'account.signup.submit': 'Konto erstellen',
  'account.signup.haveAccount': 'Ich habe schon ein Konto',
  'account.backToSignIn': 'Zurück zur Anmeldung',
  'account.continueSignIn': 'Weiter zur Anmeldung',
  'account.verify.title': 'E-Mail-Adresse bestätigen',
  'account.verify.intro': 'Bestätigen Sie {email} als Adresse Ihres Kontos.',
  'account.verify.submit': 'Bestätigen',
  'account.verify.again': 'Neuen Bestätigungslink senden',
  'account.verify.done.title': 'E-Mail-Adresse bestätigt',
  'account.verify.done': 'Ihre E-Mail-Adresse ist bestätigt. Sie können sich jetzt anmelden.',
  'account.verify.changed.title': 'E-Mail-Adresse geändert',
  'account.verify.changed': 'Ihr Konto verwendet jetzt {email}. Bitte melden Sie sich erneut an.',
  'account.verify.taken.title': 'Adresse nicht geändert',
  'account.verify.taken': 'Diese Adresse gehört inzwischen zu einem anderen Konto; Ihre Adresse wurde nicht geändert.',
  'account.resend.title': 'Neuen Bestätigungslink senden',
  'account.resend.intro': 'Geben Sie die Adresse Ihres Kontos ein; wir schicken ihr einen neuen Bestätigungslink.',
  'account.sendLink': 'Link senden',
  'account.reset.title': 'Passwort zurücksetzen',
  'account.reset.intro':
    'Geben Sie die Adresse Ihres Kontos ein; wir schicken ihr einen Link, mit dem Sie ein neues Passwort wählen.',
  'account.reset.again': 'Neuen Link anfordern',
  'account.newPassword.title': 'Neues Passwort wählen',
  'account.newPassword.intro': 'Die Anmeldung mit dem neuen Passwort beendet alle anderen Sitzungen Ihres Kontos.',
  'account.newPassword.label': 'Neues Passwort',
  'account.newPassword.submit': 'Passwort ändern',
  'account.newPassword.done.title': 'Passwort geändert',
  'account.newPassword.done':
    'Ihr Passwort ist geändert und alle Sitzungen Ihres Kontos wurden beendet. Sie können sich jetzt mit dem ' +
    'neuen Passwort anmelden.',
  'account.changeEmail.title': 'E-Mail-Adresse ändern',
  'account.changeEmail.intro':
    'Die neue Adresse gilt, sobald Sie dem Link folgen, den wir an sie schicken. Die Änderung beendet alle Sitzungen.',
  'account.changeEmail.current': 'Aktuelle E-Mail-Adresse',
  'account.changeEmail.new': 'Neue E-Mail-Adresse',
  'account.changeEmail.submit': 'Bestätigungslink senden',
  'account.changeEmail.wrong': 'Die E-Mail-Adresse oder das Passwort ist falsch.',
  'account.changeEmail.code':
    'Code aus Ihrer Authenticator-App oder ein Wiederherstellungscode (bei Bestätigung in zwei Schritten)',
  'account.changeEmail.codeRequired':
    'Dieses Konto nutzt die Bestätigung in zwei Schritten: Geben Sie auch einen Code aus Ihrer ' +
    'Authenticator-App oder einen Ihrer Wiederherstellungscodes ein.',
  'account.changeEmail.passkeyOnly':
    'Dieses Konto bestätigt Anmeldungen mit einem Passkey, den dieses Formular nicht prüfen kann. Richten ' +
    'Sie auf Ihrer Kontoseite unter Bestätigung in zwei Schritten eine Authenticator-App ein und ändern Sie ' +
    'die Adresse dann hier mit einem ihrer Codes.',
  'account.invalid.names': 'Geben Sie Ihren Vor- und Nachnamen ein.',
  'account.invalid.email': 'Geben Sie eine gültige E-Mail-Adresse ein.',
  'account.invalid.newEmail': 'Geben Sie eine gültige neue E-Mail-Adresse ein.',
  'account.invalid.passwordShort': 'Wählen Sie ein Passwort mit mindestens {min} Zeichen.',
  'account.invalid.passwordLong': 'Wählen Sie ein Passwort mit höchstens {max} Zeichen.',

  'mail.greeting': 'Guten Tag,',
  'mail.signature': '— {product}',
  'mail.expires': 'Der Link funktioniert einmal und läuft in {duration} ab.',
  'mail.hours': '{count} Stunden',
  'mail.hour': '1 Stunde',
  'mail.minutes': '{count} Minuten',
  'mail.confirm.subject': 'Bestätigen Sie Ihre E-Mail-Adresse',
  'mail.confirm.body': 'bitte bestätigen Sie, dass dies Ihre E-Mail-Adresse ist, indem Sie diesen Link öffnen:',
  'mail.confirm.ignore': 'Wenn Sie kein Konto erstellt haben, ignorieren Sie diese Nachricht.',
  'mail.finish.subject': 'Schließen Sie die Einrichtung Ihres Kontos ab',
  'mail.finish.body':
    'jemand (vielleicht Sie) wollte ein Konto mit dieser Adresse erstellen, zu der bereits ein unbestätigtes ' +
    'Konto gehört. Um es zu nutzen, wählen Sie hier Ihr Passwort:',
  'mail.finish.ignore': 'Wenn Sie das nicht waren, ignorieren Sie diese Nachricht.',
  'mail.taken.subject': 'Jemand wollte ein Konto mit Ihrer Adresse erstellen',
  'mail.taken.body':
    'jemand wollte ein neues Konto mit dieser E-Mail-Adresse erstellen, zu der bereits eines gehört. Wenn ' +
    'Sie das waren, melden Sie sich an oder setzen Sie hier Ihr Passwort zurück:',
  'mail.taken.ignore': 'Wenn Sie das nicht waren, können Sie diese Nachricht ignorieren.',
  'mail.reset.subject': 'Setzen Sie Ihr Passwort zurück',
  'mail.reset.body':
    'jemand (hoffentlich Sie) hat das Zurücksetzen des Passworts Ihres Kontos angefordert. Wählen Sie hier ' +
    'ein neues Passwort:',
  'mail.reset.ignore':
    'Wenn Sie das nicht angefordert haben, ignorieren Sie diese Nachricht; Ihr Passwort bleibt unverändert.',
  'mail.changed.subject': 'Ihr Passwort wurde geändert',
  'mail.changed.body':
    'das Passwort Ihres Kontos wurde soeben geändert und alle Sitzungen wurden beendet. Wenn Sie das nicht ' +
    'waren, setzen Sie Ihr Passwort jetzt zurück und wenden Sie sich an die Administration.',
  'mail.inUse.subject': 'Jemand wollte Ihre Adresse verwenden',
  'mail.inUse.body':
    'jemand wollte ein anderes Konto auf diese E-Mail-Adresse umstellen, zu der bereits ein Konto gehört. Es ' +
    'wurde nichts geändert.',
  'mail.confirmNew.subject': 'Bestätigen Sie Ihre neue E-Mail-Adresse',
  'mail.confirmNew.body': 'bestätigen Sie diese Adresse als neue Adresse Ihres Kontos, indem Sie diesen Link öffnen:',
  'mail.changing.subject': 'Ihre E-Mail-Adresse wird geändert',
  'mail.changing.body':
    'jemand hat sich mit Ihrem Passwort angemeldet und die Umstellung Ihres Kontos auf eine andere Adresse ' +
    'angefordert. Wenn Sie das nicht waren, setzen Sie Ihr Passwort jetzt zurück:',
  'mail.factor.totp': 'Eine Authenticator-App (TOTP)',
  'mail.factor.recovery': 'Ein neuer Satz Wiederherstellungscodes',
  'mail.factorAdded.subject': 'Ihrem Konto wurde eine Anmeldemethode hinzugefügt',
  'mail.factorAdded.body':
    '{factor} wurde soeben für die Bestätigung in zwei Schritten zu Ihrem Konto hinzugefügt, und Ihre ' +
    'anderen Sitzungen wurden abgemeldet. Wenn Sie das nicht waren, setzen Sie jetzt Ihr Passwort zurück und ' +
    'wenden Sie sich an den Administrator.',
  'mail.factorRemoved.subject': 'Von Ihrem Konto wurde eine Anmeldemethode entfernt',
  'mail.factorRemoved.body':
    '{factor} wurde soeben von Ihrem Konto entfernt, und Ihre anderen Sitzungen wurden abgemeldet. Wenn Sie ' +
    'das nicht waren, setzen Sie jetzt Ihr Passwort zurück und wenden Sie sich an den Administrator.',

  // Die Kontoseite: verbundene Anwendungen, aktive Sitzungen, Passwortänderung.
  'account.home.back': 'Zurück zu Ihrem Konto',
  'account.apps.title': 'Verbundene Anwendungen',
  'account.apps.intro': 'Diese Anwendungen können Ihr Konto verwenden, weil Sie es ihnen erlaubt haben.',
  'account.apps.none': 'Keine Anwendung hat Zugriff auf Ihr Konto.',
  'account.apps.domain': 'Leitet Sie zurück zu {domain}',
  'account.apps.canDo': 'Sie darf:',
  'account.apps.revoke': 'Zugriff entziehen',
  'account.apps.revoked.title': 'Zugriff entzogen',
  'account.apps.revoked':
    '{client} kann Ihr Konto nicht mehr verwenden. Beim nächsten Mal werden Sie erneut um Ihre Erlaubnis gefragt.',
  'account.apps.gone.title': 'Nichts zu entziehen',
  'account.apps.gone': 'Diese Anwendung hat keinen Zugriff (mehr) auf Ihr Konto.',
  'account.sessions.title': 'Aktive Sitzungen',
  'account.sessions.thisDevice': '(dieses Gerät)',
  'account.sessions.deviceOn': '{browser} unter {os}',
  'account.sessions.unknownDevice': 'Unbekanntes Gerät',
  'account.sessions.signedIn': 'Angemeldet am {time}',
  'account.sessions.ip': 'von {ip}',
  'account.sessions.signOut': 'Abmelden',
  'account.sessions.ended.title': 'Sitzung abgemeldet',
  'account.sessions.ended': 'Die Sitzung auf {device} wurde abgemeldet.',
  'account.sessions.gone.title': 'Sitzung nicht gefunden',
  'account.sessions.gone': 'Diese Sitzung ist bereits beendet.',
  'account.changePassword.title': 'Passwort',
  'account.changePassword.current': 'Aktuelles Passwort',
  'account.changePassword.new': 'Neues Passwort',
  'account.changePassword.submit': 'Passwort ändern',
  'account.changePassword.forgot': 'Passwort vergessen?',
  'account.changePassword.wrong': 'Ihr aktuelles Passwort ist nicht korrekt. Geben Sie es erneut ein.',
  'account.changePassword.done.title': 'Passwort geändert',
  'account.changePassword.done': 'Ihr Passwort wurde geändert. Ihre anderen Sitzungen wurden abgemeldet.',
  'account.mail.passwordChanged.subject': 'Ihr Passwort wurde geändert',
  'account.mail.passwordChanged.body':
    'das Passwort Ihres Kontos wurde soeben auf Ihrer Kontoseite geändert, und Ihre anderen Sitzungen wurden ' +
    'abgemeldet. Wenn Sie das nicht waren, setzen Sie Ihr Passwort jetzt zurück und wenden Sie sich an die ' +
    'Administration.',
};
