/**
 * Which specs a run selects: the node conformance selection of the upstream suite (the lab's README:
 * every [NodeConformance] spec that is neither serial, disruptive, flaky, slow nor a feature's), and
 * a subset of it named by CONFORMANCE_FOCUS (a regular expression on spec names) or CONFORMANCE_SPECS
 * (a file of spec names, one a line). A subset is resolved against the selection the binary itself
 * lists (a dry run), then handed to ginkgo as the exact names: ginkgo ORs its focus flags, so a
 * narrower --focus beside the suite's would widen the run instead of narrowing it. CONFORMANCE_SPECS
 * may also name any other spec of the binary (one outside the selection, found by a dry run on its
 * name), so an upstream spec can be run alone; such a run is partial and never the selection's table.
 */

export const SUITE_FOCUS = String.raw`\[NodeConformance\]`;
export const SUITE_SKIP = String.raw`\[Serial\]|\[Disruptive\]|\[Flaky\]|\[Slow\]|\[Feature:`;

/**
 * The skip of a run of named specs: none (ginkgo's flag matches no spec's text). A name is a choice
 * already, so a [Slow] or [Feature:…] spec named in a list runs.
 */
export const NAMED_SKIP = '^$';

export interface SubsetRequest {
  /** A JavaScript regular expression matched against each selected spec's name. */
  focus?: string;
  /** Spec names, exactly as the suite lists them. */
  names?: string[];
}

/**
 * The names the request keeps: the selected ones, and the named ones of `beyond` (specs of the binary
 * outside the selection that a dry run found by their names); an error names what matched nothing.
 */
export function pickSubset(selection: readonly string[], request: SubsetRequest, beyond: readonly string[] = []): string[] {
  // A spec's text may end in a space, which a line of a names file cannot keep: names compare trimmed.
  const known = new Set([...selection, ...beyond].map((n) => n.trim()));
  const unknown = (request.names ?? []).filter((n) => !known.has(n.trim()));
  if (unknown.length > 0) throw new Error(`neither in the conformance selection nor a spec of the binary:\n  ${unknown.join('\n  ')}`);
  const named = new Set((request.names ?? []).map((n) => n.trim()));
  const focus = request.focus === undefined ? undefined : new RegExp(request.focus);
  const candidates = [...selection, ...beyond.filter((n) => named.has(n.trim()) && !selection.includes(n))];
  const picked = candidates.filter((n) => (request.names === undefined || named.has(n.trim())) && (focus === undefined || focus.test(n)));
  if (picked.length === 0) throw new Error(`no spec of the conformance selection matches CONFORMANCE_FOCUS=${request.focus ?? ''}`);
  return picked;
}

/** The lines of a CONFORMANCE_SPECS file that name a spec (blank lines and # comments left out). */
export function specNamesOf(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

/** Go's regexp.QuoteMeta: the name as a literal in an RE2 pattern. */
export function quoteMeta(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/**
 * A ginkgo --focus that selects exactly these specs. Ginkgo matches it against a text that has more
 * before the spec's full name (a suite-level node's text and a space), so only the end is anchored,
 * after any spaces the spec's own text ends in.
 */
export function exactFocus(names: readonly string[]): string {
  return `(^|.* )(${names.map((n) => quoteMeta(n.trim())).join('|')}) *$`;
}
