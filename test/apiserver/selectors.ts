/**
 * Label and field selectors, parsed as the API server parses `labelSelector` / `fieldSelector`.
 *
 * Labels: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`, comma-joined (AND).
 * Fields: `f=v`, `f==v`, `f!=v`, comma-joined, with `\,` `\=` `\\` escapes; a field the resource
 * does not index is a 400 "field label not supported", as in Go.
 */
import type { KubeObject, ResourceDef } from './resources.js';
import { apiErrors } from './status.js';

export type LabelRequirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!' };

export type FieldRequirement = { field: string; op: '=' | '!='; value: string };

/** Split on commas that are outside parentheses (labels) and not escaped (fields). */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + (s[i + 1] as string);
      i++;
      continue;
    }
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      terms.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  terms.push(cur);
  return terms.map((t) => t.trim()).filter((t) => t !== '');
}

export function parseLabelSelector(selector: string | undefined): LabelRequirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  return splitTerms(selector).map((term): LabelRequirement => {
    const set = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (set) {
      const values = (set[3] as string).split(',').map((v) => v.trim()).filter((v) => v !== '');
      return { key: set[1] as string, op: set[2] as 'in' | 'notin', values };
    }
    const eq = /^([^\s!=]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (eq) {
      return { key: eq[1] as string, op: eq[2] === '!=' ? 'notin' : 'in', values: [eq[3] as string] };
    }
    const not = /^!\s*([^\s!=]+)$/.exec(term);
    if (not) return { key: not[1] as string, op: '!' };
    if (/^[^\s!=(),]+$/.test(term)) return { key: term, op: 'exists' };
    throw apiErrors.badRequest(`unable to parse requirement: ${term}`);
  });
}

export function matchesLabels(labels: Record<string, string> | undefined, reqs: readonly LabelRequirement[]): boolean {
  return reqs.every((r) => {
    const v = labels?.[r.key];
    switch (r.op) {
      case 'exists': return v !== undefined;
      case '!': return v === undefined;
      case 'in': return v !== undefined && r.values.includes(v);
      case 'notin': return v === undefined || !r.values.includes(v);
    }
  });
}

function unescape(v: string): string {
  return v.replace(/\\(.)/g, '$1');
}

export function parseFieldSelector(selector: string | undefined, def: ResourceDef): FieldRequirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  return splitTerms(selector).map((term) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) throw apiErrors.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    const field = m[1] as string;
    if (field !== 'metadata.name' && !(def.namespaced && field === 'metadata.namespace') && !def.fields.includes(field)) {
      throw apiErrors.badRequest(`field label not supported: ${field}`);
    }
    return { field, op: m[2] === '!=' ? '!=' : '=', value: unescape(m[3] as string) };
  });
}

/** The string value Go's field-label function gives: missing is "", booleans "true"/"false". */
export function fieldValue(obj: KubeObject, field: string): string {
  // Events index `source` as source.component.
  const path = field === 'source' ? 'source.component' : field;
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return field === 'spec.hostNetwork' || field === 'spec.unschedulable' ? 'false' : '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

export function matchesFields(obj: KubeObject, reqs: readonly FieldRequirement[]): boolean {
  return reqs.every((r) => (fieldValue(obj, r.field) === r.value) === (r.op === '='));
}

export interface Selection {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  namespace?: string;
}

export function matchesSelection(obj: KubeObject, sel: Selection): boolean {
  if (sel.namespace !== undefined && obj.metadata?.namespace !== sel.namespace) return false;
  return matchesLabels(obj.metadata?.labels, sel.labels) && matchesFields(obj, sel.fields);
}
