/**
 * `render`, remembering its last input and answer: called again only for a different value (by
 * identity). The view answers the same object until something changes (the pod list) or for every
 * request that shared one read (the stats summary), so a crowd of requests costs one rendering.
 */
export function renderedPerValue<T, R>(render: (value: T) => R): (value: T) => R {
  let last: { value: T; rendered: R } | null = null;
  return (value) => {
    if (!last || last.value !== value) last = { value, rendered: render(value) };
    return last.rendered;
  };
}
