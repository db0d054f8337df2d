/**
 * Polls `condition` until it holds, or fails after `timeoutMs` naming `what`: the way a test waits for something to
 * happen (a lease to run out on the database's clock, a window to turn), instead of sleeping for a guessed time.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000, intervalMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
