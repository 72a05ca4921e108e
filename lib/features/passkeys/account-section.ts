import type { AccountSection } from '../../accounts/account-home.js';
import { section } from '../../accounts/home/common.js';
import { html } from '../../ui/html.js';
import { uiOf } from '../../ui/ui.js';
import { PASSKEY_PATHS } from './paths.js';

/** The account page's link to the passkey page `/account/passkeys` (the `accountSections` extension point). */
export const passkeysAccountSection: AccountSection = {
  order: 20,
  async show(ctx, _who, { at }) {
    const { t } = uiOf(ctx);
    const passkeys = at(PASSKEY_PATHS.list);
    return {
      html: section(
        t.t('home.passkeys'),
        html`<p><a id="passkeys" href="${passkeys}">${t.t('home.passkeysLink')}</a></p>`,
      ),
      view: { actions: { passkeys } },
    };
  },
};
