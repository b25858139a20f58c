/**
 * How many turns the event loop took while `work` ran (setImmediate callbacks, counted until it
 * settled): work done inline is one turn, work done off the loop lets it turn on.
 */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let spinning = true;
  const spin = () => {
    if (!spinning) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const result = await work();
  spinning = false;
  return { result, turns };
}
