/** One finding: `problem` makes `doctor` exit non-zero; `warning` does not; `ok` is a check that passed. */
export interface Finding {
  level: 'problem' | 'warning' | 'ok';
  /** Stable identifier, e.g. `proxy-unset` (for scripts and tests). */
  id: string;
  message: string;
  /** What to change; absent for `ok`. */
  fix?: string;
}

export const problem = (id: string, message: string, fix: string): Finding => ({ level: 'problem', id, message, fix });
export const warning = (id: string, message: string, fix: string): Finding => ({ level: 'warning', id, message, fix });
export const ok = (id: string, message: string): Finding => ({ level: 'ok', id, message });
