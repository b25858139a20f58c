/**
 * The settings of an effective configuration that kubelet-ts accepts but does not act on (see
 * field-support.ts): a warning for each ignored field set to something other than its default, an
 * error for each refused one. The default is the v1beta1 default under the same gates; the legacy
 * flag-only defaults touch only honoured fields, so one baseline serves both ways of configuring.
 */
import { applyKubeletConfigurationDefaults } from './defaults.js';
import { unhonouredFields } from './field-support.js';
import type { FeatureGates } from './feature-gates.js';
import type { FieldError, KubeletConfiguration } from './types.js';

export interface NotHonoured {
  /** The field's JSON path (`cpuManagerPolicy`, `logging.format`). */
  field: string;
  value: unknown;
  /** What the Go kubelet would do with it. */
  goWould: string;
}

export interface HonestyFindings {
  warnings: NotHonoured[];
  errors: FieldError[];
}

export function findNotHonoured(config: KubeletConfiguration, gates: FeatureGates): HonestyFindings {
  const baseline = applyKubeletConfigurationDefaults({}, gates);
  const warnings: NotHonoured[] = [];
  const errors: FieldError[] = [];
  for (const [field, support] of unhonouredFields()) {
    const value = config[field];
    const fallback = baseline[field];
    if (support.kind === 'refused' && (support.refuseWhen ? support.refuseWhen.test(value) : !sameJson(value, fallback))) {
      const message = `invalid configuration: ${field} (${JSON.stringify(value)}): the Go kubelet would ${support.goWould}; kubelet-ts cannot yet, and will not run without it silently: leave ${field} at its default (${JSON.stringify(fallback)})`;
      errors.push({ field, value, message });
    } else if (support.kind === 'ignored' && support.parts) {
      const given = (value ?? {}) as Record<string, unknown>;
      const defaults = (fallback ?? {}) as Record<string, unknown>;
      for (const part of support.parts) {
        if (!sameJson(given[part], defaults[part])) warnings.push({ field: `${field}.${part}`, value: given[part], goWould: support.goWould });
      }
    } else if (support.kind === 'ignored' && support.warnWhen) {
      if (support.warnWhen(value)) warnings.push({ field, value, goWould: support.goWould });
    } else if (!sameJson(value, fallback)) {
      // An ignored field set, or a refused one at a value that weakens nothing (a best-effort policy).
      warnings.push({ field, value, goWould: support.goWould });
    }
  }
  return { warnings, errors };
}

/** One line per warning, as the daemon logs it and `kubelet-ts config` prints it. */
export function describeNotHonoured(w: NotHonoured): string {
  return `${w.field}: ${JSON.stringify(w.value)} is accepted but not acted on by kubelet-ts (the Go kubelet would ${w.goWould})`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
