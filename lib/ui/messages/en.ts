/**
 * The English message catalog: the source of every word Portcullis shows on a page or writes in a mail, and the
 * definition of the message keys. `{name}` is a placeholder filled in by the translator (`lib/ui/i18n.ts`); the
 * placeholders of each key are part of its type, so a call without them does not compile. Other catalogs
 * (`de.ts`) are typed against this one: a missing or unknown key fails `tsc`.
 */
export const en = {
  // The page frame.
  'layout.support': 'Help and support',
  'layout.home': 'Home',

  // Login (OpenID Connect Core §3.1.2.3).
  'login.title': 'Sign in',
  'login.continueTo': 'to continue to {client}',
  'login.email': 'E-mail',
  'login.password': 'Password',
  'login.submit': 'Sign in',
  'login.cancel': 'Cancel and go back',
  'login.forgot': 'Forgot your password?',
  'login.noAccount': 'No account yet?',
  'login.createAccount': 'Create one',
  'login.wrongPassword': 'The e-mail address or password is incorrect.',
  'login.tooMany': 'Too many sign-in attempts. Please try again later.',
  'login.confirmFirst': 'Confirm your e-mail address first: we have sent you a new confirmation link.',

  // Consent (OpenID Connect Core §3.1.2.4).
  'consent.title': 'Allow access?',
  'consent.asks': '{client} asks to access your account {account}. It will be able to:',
  'consent.site': 'It will send you back to {domain}.',
  'consent.allow': 'Allow',
  'consent.deny': 'Deny',
  'consent.notYou': 'Not you?',
  'consent.switch': 'Switch account',
  'scope.openid': 'Sign you in and know who you are (your account identifier)',
  'scope.profile': 'Read your basic profile: name, birthdate, picture, locale and similar details',
  'scope.email': 'Read your e-mail address and whether it is verified',
  'scope.address': 'Read your postal address',
  'scope.phone': 'Read your phone number and whether it is verified',
  'scope.offline_access': 'Keep access while you are not using the application (refresh tokens)',

  // Second factor (RFC 6238 TOTP, recovery codes): the code prompt, enrolment, the codes shown once.
  'mfa.wrongCode': 'That code is not right, or was already used. Try the next code from your app.',
  'mfa.factor.passkey': 'A passkey',

  // The signed-in account page (/account).
  'home.title': 'Your account',
  'home.profile': 'Profile',
  'home.email': 'E-mail',
  'home.changeEmail': 'Change e-mail address',
  'home.signOutOthers': 'Sign out all other sessions',
  'home.signOut': 'Sign out',
  'home.done': 'Done',
  'home.back': 'Back to your account',
  'home.othersSignedOut.one': '1 other session was signed out.',
  'home.othersSignedOut.other': '{count} other sessions were signed out.',

  // Error pages: what happened and what to do, the protocol code in small print.
  'error.code': 'Error code:',
  'error.client.title': 'This request cannot be completed',
  'error.client.what':
    'The application that sent you here made a request that {product} cannot accept. No data was shared.',
  'error.client.todo':
    'Go back to the application and try again. If it keeps happening, tell the people who run the application.',
  'error.denied.title': 'Access was not granted',
  'error.denied.what': 'The request was refused, so the application gets no access to your account.',
  'error.denied.todo': 'Go back to the application; you can start again from there.',
  'error.login.title': 'Please sign in again',
  'error.login.what': 'Your session has ended or the account is no longer available.',
  'error.login.todo': 'Go back to the application and sign in again.',
  'error.server.title': 'Something went wrong on our side',
  'error.server.what': '{product} could not complete the request. This is not your fault.',
  'error.server.todo': 'Please try again in a moment.',
  'error.busy.title': 'The service is busy',
  'error.busy.what': '{product} cannot answer right now.',
  'error.busy.todo': 'Please try again in a moment.',
  'error.expired.title': 'This sign-in page has expired',
  'error.expired.what': 'Sign-in pages work for a limited time and only in the browser where they were opened.',
  'error.expired.todo': 'Go back to the application you came from and sign in again.',
  'error.form.title': 'Please reload the page',
  'error.form.what': 'The form was sent from a page that is out of date or from another page.',
  'error.form.todo': 'Reload the page and try again.',
  'error.step.title': 'This step is already done',
  'error.step.what': 'This part of the sign-in was already completed or does not apply.',
  'error.step.todo': 'Go back to the application and start again if you are not signed in.',

  // Logout (OpenID Connect RP-Initiated Logout 1.0).
  'logout.title': 'Sign out?',
  'logout.clientAsks': '{client} asks to sign you out of {product}.',
  'logout.question': 'Do you want to sign out of {product}?',
  'logout.yes': 'Yes, sign me out',
  'logout.no': 'No, stay signed in',
  'signedOut.title': 'Signed out',
  'signedOut.message': 'You are signed out of {product}.',
  'signedOut.messageClient': 'You are signed out of {client} and {product}.',
  'signedOut.messageClientOnly': 'You are signed out of {client}. You are still signed in to {product}.',
  'signedOut.backTo': 'Back to {client}',
  'signedOut.home': 'Continue to {product}',
  'signedOut.close': 'You can close this window.',

  // Account pages.
  'account.mailSent':
    'If the address can receive mail from us, a message is on its way. Follow the link in it to continue. The link \
works once and expires.',
  'account.checkMail': 'Check your e-mail',
  'account.tooMany.title': 'Too many attempts',
  'account.tooMany': 'Too many attempts. Please try again later.',
  'account.notAvailable.title': 'Not available',
  'account.notAvailable': 'This page is not available on this server.',
  'account.linkInvalid.title': 'Link not valid',
  'account.linkInvalid.confirmation': 'This confirmation link is invalid, has expired or was already used.',
  'account.linkInvalid.reset': 'This password reset link is invalid, has expired or was already used.',
  'account.refused.title': 'Please reload the page',
  'account.refused':
    'The form was not submitted from this page (it is out of date or came from elsewhere). Reload the page and try \
again.',
  'account.email': 'E-mail',
  'account.password': 'Password',
  'account.passwordRule': 'At least {min} characters. A long phrase is easy to remember and hard to guess.',
  'account.signup.title': 'Create an account',
  'account.signup.intro': 'We will send you a link to confirm your e-mail address.',
  'account.signup.givenName': 'Given name',
  'account.signup.familyName': 'Family name',
  'account.signup.submit': 'Create account',
  'account.signup.haveAccount': 'I already have an account',
  'account.backToSignIn': 'Back to sign in',
  'account.continueSignIn': 'Continue signing in',
  'account.verify.title': 'Confirm your e-mail address',
  'account.verify.intro': 'Confirm {email} as the address of your account.',
  'account.verify.submit': 'Confirm',
  'account.verify.again': 'Send a new confirmation link',
  'account.verify.done.title': 'E-mail address confirmed',
  'account.verify.done': 'Your e-mail address is confirmed. You can now sign in.',
  'account.verify.changed.title': 'E-mail address changed',
  'account.verify.changed': 'Your account now uses {email}. Please sign in again.',
  'account.verify.taken.title': 'Address not changed',
  'account.verify.taken': 'This address now belongs to another account; your address was not changed.',
  'account.resend.title': 'Send a new confirmation link',
  'account.resend.intro': 'Enter the address of your account; we will mail it a new confirmation link.',
  'account.sendLink': 'Send link',
  'account.reset.title': 'Reset your password',
  'account.reset.intro': 'Enter the address of your account; we will mail it a link to choose a new password.',
  'account.reset.again': 'Ask for a new link',
  'account.newPassword.title': 'Choose a new password',
  'account.newPassword.intro': 'Signing in with the new password ends every other session of your account.',
  'account.newPassword.label': 'New password',
  'account.newPassword.submit': 'Change password',
  'account.newPassword.done.title': 'Password changed',
  'account.newPassword.done':
    'Your password is changed and every session of your account was signed out. You can now sign in with the new \
password.',
  'account.changeEmail.title': 'Change your e-mail address',
  'account.changeEmail.intro':
    'The new address is used once you follow the link we mail to it. Changing it signs out every session.',
  'account.changeEmail.current': 'Current e-mail',
  'account.changeEmail.new': 'New e-mail',
  'account.changeEmail.submit': 'Send confirmation link',
  'account.changeEmail.wrong': 'The e-mail address or password is incorrect.',
  'account.changeEmail.code': 'Code from your authenticator app or a recovery code (with two-step verification)',
  'account.changeEmail.codeRequired':
    'This account uses two-step verification: enter a code from your authenticator app or one of your recovery codes \
too.',
  'account.changeEmail.passkeyOnly':
    'This account confirms sign-ins with a passkey, which this form cannot check. Add an authenticator app under \
two-step verification on your account page, then change the address here with one of its codes.',
  'account.invalid.names': 'Enter your given and family name.',
  'account.invalid.email': 'Enter a valid e-mail address.',
  'account.invalid.newEmail': 'Enter a valid new e-mail address.',
  'account.invalid.passwordShort': 'Choose a password of at least {min} characters.',
  'account.invalid.passwordLong': 'Choose a password of at most {max} characters.',

  // Mails (text/plain). `{product}` is `ui.productName`.
  'mail.greeting': 'Hello,',
  'mail.signature': '— {product}',
  'mail.expires': 'The link works once and expires in {duration}.',
  'mail.hours': '{count} hours',
  'mail.hour': '1 hour',
  'mail.minutes': '{count} minutes',
  'mail.confirm.subject': 'Confirm your e-mail address',
  'mail.confirm.body': 'please confirm that this is your e-mail address by opening this link:',
  'mail.confirm.ignore': 'If you did not create an account, ignore this message.',
  'mail.finish.subject': 'Finish setting up your account',
  'mail.finish.body':
    'someone (maybe you) tried to create an account with this address, which already has an account waiting for \
confirmation. To use it, choose your password here:',
  'mail.finish.ignore': 'If this was not you, ignore this message.',
  'mail.taken.subject': 'Someone tried to create an account with your address',
  'mail.taken.body':
    'someone tried to create a new account with this e-mail address, which already has one. If it was you, sign in, or \
reset your password here:',
  'mail.taken.ignore': 'If it was not you, you can ignore this message.',
  'mail.reset.subject': 'Reset your password',
  'mail.reset.body': 'someone (hopefully you) asked to reset the password of your account. Choose a new password here:',
  'mail.reset.ignore': 'If you did not ask for this, ignore this message; your password stays as it is.',
  'mail.changed.subject': 'Your password was changed',
  'mail.changed.body':
    'the password of your account was just changed and every session was signed out. If this was not you, reset your \
password now and contact the administrator.',
  'mail.inUse.subject': 'Someone tried to use your address',
  'mail.inUse.body':
    'someone tried to move another account to this e-mail address, which already has an account. Nothing was changed.',
  'mail.confirmNew.subject': 'Confirm your new e-mail address',
  'mail.confirmNew.body': 'confirm this as the new address of your account by opening this link:',
  'mail.changing.subject': 'Your e-mail address is being changed',
  'mail.changing.body':
    'someone signed in with your password and asked to move your account to another address. If this was not you, \
reset your password now:',
  'mail.factor.totp': 'An authenticator app (TOTP)',
  'mail.factor.recovery': 'A new set of recovery codes',
  'mail.factorAdded.subject': 'A sign-in method was added to your account',
  'mail.factorAdded.body':
    '{factor} was just added to your account for two-step verification, and your other sessions were signed out. If \
this was not you, reset your password now and contact the administrator.',
  'mail.factorRemoved.subject': 'A sign-in method was removed from your account',
  'mail.factorRemoved.body':
    '{factor} was just removed from your account, and your other sessions were signed out. If this was not you, reset \
your password now and contact the administrator.',

  // The account page: connected applications, active sessions, password change.
  'account.home.back': 'Back to your account',
  'account.apps.title': 'Connected applications',
  'account.apps.intro': 'These applications can use your account because you allowed them to.',
  'account.apps.none': 'No application has access to your account.',
  'account.apps.domain': 'Sends you back to {domain}',
  'account.apps.canDo': 'It can:',
  'account.apps.revoke': 'Revoke access',
  'account.apps.revoked.title': 'Access revoked',
  'account.apps.revoked': '{client} can no longer use your account. It will ask for your permission again next time.',
  'account.apps.gone.title': 'Nothing to revoke',
  'account.apps.gone': 'This application has no access to your account (any more).',
  'account.sessions.title': 'Active sessions',
  'account.sessions.thisDevice': '(this device)',
  'account.sessions.deviceOn': '{browser} on {os}',
  'account.sessions.unknownDevice': 'Unknown device',
  'account.sessions.signedIn': 'Signed in {time}',
  'account.sessions.ip': 'from {ip}',
  'account.sessions.signOut': 'Sign out',
  'account.sessions.ended.title': 'Session signed out',
  'account.sessions.ended': 'The session on {device} was signed out.',
  'account.sessions.gone.title': 'Session not found',
  'account.sessions.gone': 'That session has already ended.',
  'account.changePassword.title': 'Password',
  'account.changePassword.current': 'Current password',
  'account.changePassword.new': 'New password',
  'account.changePassword.submit': 'Change password',
  'account.changePassword.forgot': 'Forgot your password?',
  'account.changePassword.wrong': 'Your current password is not correct. Enter it again.',
  'account.changePassword.done.title': 'Password changed',
  'account.changePassword.done': 'Your password is changed. Your other sessions were signed out.',
  'account.mail.passwordChanged.subject': 'Your password was changed',
  'account.mail.passwordChanged.body':
    'the password of your account was just changed on your account page, and your other sessions were signed out. If \
this was not you, reset your password now and contact the administrator.',
} as const;

/** A catalog: one message for every key of the English one, nothing else. */
export type Catalog = { readonly [K in keyof typeof en]: string };
