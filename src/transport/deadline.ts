/**
 * A promise raced against a deadline, the timer cleared either way (so no
 * timer outlives the race and keeps the process, or a test, waiting).
 *
 * @module
 */

/** What a race that reached its deadline first answers. */
export const LATE: unique symbol = Symbol("late");

/** `promise`'s value, or {@linkcode LATE} when `ms` pass first. */
export async function raceDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
