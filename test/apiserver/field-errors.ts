/**
 * Go's field.ErrorList as the API server reports it (k8s.io/apimachinery/pkg/util/validation/field
 * and apierrors.NewInvalid): each error prints as `<path>: <type>: <detail>`, and a list becomes
 * one 422 Invalid Status, `<Kind[.group]> "<name>" is invalid: <error>` (several in brackets), with
 * one cause per error in its details. Clients show the message; some read the causes' fields.
 */
import { ApiError, statusBody, type StatusCause } from './status.js';

export type FieldError =
  | { type: 'Forbidden'; field: string; detail: string }
  | { type: 'Invalid'; field: string; value: string | number; detail: string };

const CAUSE_REASONS: Record<FieldError['type'], string> = { Forbidden: 'FieldValueForbidden', Invalid: 'FieldValueInvalid' };

/** The part after the path (Go's ErrorBody): strings are quoted as %q prints them, numbers bare. */
function body(e: FieldError): string {
  if (e.type === 'Forbidden') return `Forbidden: ${e.detail}`;
  const value = typeof e.value === 'string' ? JSON.stringify(e.value) : String(e.value);
  return `Invalid value: ${value}: ${e.detail}`;
}

export function fieldErrorText(e: FieldError): string {
  return `${e.field}: ${body(e)}`;
}

/** The 422 the API server answers for `errors` on the object `name` of `kind` in `group` ('' for core). */
export function invalidObject(group: string, kind: string, name: string, errors: readonly FieldError[]): ApiError {
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  const texts = errors.map(fieldErrorText);
  const aggregate = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  const causes: StatusCause[] = errors.map((e) => ({ reason: CAUSE_REASONS[e.type], message: body(e), field: e.field }));
  return new ApiError(statusBody(422, `${qualifiedKind} "${name}" is invalid: ${aggregate}`, 'Invalid',
    { name, ...(group !== '' ? { group } : {}), kind, causes }));
}
