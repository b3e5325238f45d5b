/**
 * A clock that runs ahead: for tests that a tool keeps no deadline of its
 * own (it stops only when the call's stop flag says so, ADR-016).
 *
 * @module
 */

/**
 * Runs `work` with `performance.now()` reading `skew()` ms ahead of the real clock: a tool that
 * kept its own deadline would see its time run out.
 */
export async function withClockSkew<T>(skew: () => number, work: () => Promise<T>): Promise<T> {
  const real = performance.now;
  performance.now = () => real.call(performance) + skew();
  try {
    return await work();
  } finally {
    performance.now = real;
  }
}
