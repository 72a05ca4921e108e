import type { ConfigProblem } from '../../core/errors.js';
import type { ResolvedConfig } from '../../../config/types.js';

/** What NODE_ENV=production refuses of the self-service pages (`insecure`): a sign-up that cannot mail its links. */
export function selfServiceInProduction(config: ResolvedConfig): ConfigProblem[] {
  if (!config.selfService.signup || config.mail.smtp || config.mail.mailer) return [];
  return [
    {
      path: 'selfService.signup',
      message:
        'sign-up needs mail to verify addresses: set mail.smtp (PORTCULLIS_SMTP_URL for the standalone ' +
        'server) or mail.mailer, or turn selfService.signup off',
    },
  ];
}
