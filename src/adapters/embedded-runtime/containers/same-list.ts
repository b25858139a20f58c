/**
 * Hands back the previous unfiltered list when the same sandboxes or containers are listed again in
 * the same states, so the gRPC layer can reuse that answer's encoding (cri-grpc/repeated-answers.ts):
 * the PLEG asks for both lists every second and, on a quiet node, they do not change. Every other
 * field of a listed item is fixed when the item is created, so id and state are all that can differ.
 */
export class SameList<T extends { readonly id: string; readonly state: string }> {
  // Not readonly in type only because the generated answer types take mutable arrays: never changed.
  private last: T[] | null = null;

  keep(fresh: T[]): T[] {
    const last = this.last;
    if (last !== null && last.length === fresh.length && last.every((item, i) => item.id === fresh[i]!.id && item.state === fresh[i]!.state)) {
      return last;
    }
    this.last = fresh;
    return fresh;
  }
}
