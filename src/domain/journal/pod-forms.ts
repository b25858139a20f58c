/**
 * The journal's form of each pod object, kept by identity. A pod reaches the journal many times
 * over: every pod source's snapshot carries all of its pods, and every volume actor's spawn and
 * input carry the whole pod, so most of what a burst of pods records is pods already walked
 * (docs/FINDINGS.md). Pod objects are never changed in place once made (machines replace
 * them, and a source hands an unchanged pod on as the very object it sent before: snapshot-refs.ts
 * relies on the same), so the form found for a pod the first time holds for every later time.
 *
 * A pod is told by its shape: `metadata`, and a `spec` with `containers` (a Node's or a Lease's has none).
 */
export function isPodObject(value: object): boolean {
  if (!('metadata' in value) || !('spec' in value) || Array.isArray(value)) return false;
  const spec = (value as { spec: unknown }).spec;
  return typeof spec === 'object' && spec !== null && 'containers' in spec;
}

/** Forms by identity; `depth`: the deepest nesting the form was made at (it holds at that depth and above). */
export class FormsByIdentity {
  private readonly forms = new WeakMap<object, { form: unknown; depth: number }>();

  get(value: object, depth = 0): unknown {
    const known = this.forms.get(value);
    return known !== undefined && depth <= known.depth ? known.form : undefined;
  }

  set(value: object, form: unknown, depth = 0): void {
    this.forms.set(value, { form, depth });
  }
}
